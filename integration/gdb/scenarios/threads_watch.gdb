# A watchpoint set in the main thread after the workers have ended: going
# back finds the write in worker 2, which exists again there; going forward
# again finds it once more, then the main thread's breakpoint.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break all_joined
continue
print shared
watch shared
reverse-continue
thread
print id
print shared
info threads 2 3
continue
thread
print shared
continue
thread
print shared
