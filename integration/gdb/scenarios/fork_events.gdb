# The children exit with 1, 2 and 7, which the parent adds up: 10. The
# forked children also call work(100) in their own copy: never reported.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break work
catch fork
catch vfork
continue
pipe info inferiors | awk "{print \$1, \$2, \$3, \$4}"
continue
print i
continue
continue
print i
continue
continue
print i
print total
reverse-continue
print i
reverse-continue
print i
print total
continue
delete
continue
