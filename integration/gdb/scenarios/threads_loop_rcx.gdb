# Breakpoints after an inner loop of `loop` instructions are hit as often
# as natively (256 calls of mark in each thread; run_gdb_scenario.py runs
# this script natively too).
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
break threads_loop_rcx.c:39
ignore 2 100000
break 49
continue
info breakpoints
print marks[0]
print marks[1]
