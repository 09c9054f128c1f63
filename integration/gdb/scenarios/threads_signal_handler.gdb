# A handler in a worker thread: the stop names the worker; reverse-finish
# leaves the handler, back into the worker's own code, in that thread.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print frame-arguments none
set print thread-events off
handle SIGUSR1 nostop noprint pass
break on_usr1
continue
print handled
reverse-finish
reverse-finish
backtrace 1
thread
continue
print handled
