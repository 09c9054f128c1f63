# From the end of the program back to its start, a breakpoint in the loop
# of two computing threads is hit at every pass that reaches it going
# forwards (72 calls of mark), across the forced positions: as many hits
# as gdb counts natively going forwards (run_gdb_scenario.py runs this
# script natively up to the "backwards" line).
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
break 38
continue
info breakpoints
print marks[0] + marks[1]
# Natively gdb cannot go back: the native run ends here.
echo -- backwards --\n
delete
break mark
ignore 3 100000
reverse-continue
info breakpoints
print marks[0] + marks[1]
