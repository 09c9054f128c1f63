# A signal with a handler: gdb reports the signal, the handler runs, and
# reverse execution goes back into the handler.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
continue
break on_usr1
continue
backtrace
print got
finish
print got
reverse-continue
print got
delete
continue
