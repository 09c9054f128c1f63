# The third pread (i == 2) is buffered (the first one patched its site):
# its watch hit is shown at the syscall in pread, not in the library, and
# going back from the next line it is shown before that syscall.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break buf_watch.c:18
continue
continue
print i
watch buf[0]
continue
bt 2
up
print i
print buf
continue
print i
reverse-continue
bt 2
x/s buf
reverse-continue
bt 1
delete
continue
