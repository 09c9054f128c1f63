# Threads of a replay in gdb: the list with names, one worker's stack, and
# every thread's.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break all_waiting
continue
info threads
thread 3
bt
info threads
thread apply all bt
thread 1
continue
