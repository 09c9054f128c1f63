# Only the parent is debugged: its one thread is all gdb sees; the children
# run around it, forwards and backwards. The statuses are 55, 10 and 65.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print thread-events off
break reaped
continue
continue
print i
print status
print total
info threads
reverse-continue
print i
print total
watch total
continue
print total
continue
print total
reverse-continue
print total
delete
break forked
continue
pipe monitor checkpoint | cut -d" " -f1-2
continue
continue
print total
run c1
print total
delete
continue
