# A breakpoint on a signal handler's first instruction: hit at every
# delivery, with the signal passed silently or reported first, forwards and
# backwards; reverse-finish from inside the handler leaves it.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print frame-arguments none
handle SIGUSR1 nostop noprint pass
break *on_usr1
continue
print got
continue
print got
reverse-continue
print got
next
delete
reverse-finish
print got
backtrace 1
break *on_usr1
handle SIGUSR1 stop print pass
continue
continue
print got
