# A signal delivered in the middle of a loop without system calls (a forced
# position): the signal stop, the handler, and the flag's write found by a
# watchpoint in both directions.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print frame-arguments none
handle SIGALRM stop print pass
break on_alarm
continue
print fired
continue
print fired
watch fired
continue
print fired
reverse-continue
print fired
reverse-continue
print fired
delete
reverse-continue
print fired
continue
