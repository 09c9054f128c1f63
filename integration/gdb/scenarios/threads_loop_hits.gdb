# Breakpoints inside two computing threads' loop are hit at every pass
# that reaches them (96 calls of mark in each thread), forced positions or
# not: as many hits as gdb counts natively (run_gdb_scenario.py runs this
# script natively too).
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print thread-events off
break mark
ignore 1 100000
break threads_loop_hits.c:29
ignore 2 100000
break 38
continue
info breakpoints
print marks[0]
print marks[1]
