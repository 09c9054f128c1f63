# A watchpoint on the variable a worker's loop writes reports each of the
# 24 writes, across the forced position in the middle of the loop (as gdb
# reports them natively: run_gdb_scenario.py runs this script natively up
# to the "backwards" line); going back from the end of the loop, a new
# watchpoint reports them all again, in reverse order with old and new
# values swapped, down to the worker's first line.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print thread-events off
break worker
break loop_done
continue
watch total
commands
continue
end
continue
info breakpoints
print total
# Natively gdb cannot go back: the native run ends here.
echo -- backwards --\n
delete
watch total
commands
reverse-continue
end
break worker
reverse-continue
info breakpoints
print total
