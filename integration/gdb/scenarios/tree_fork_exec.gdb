# The forked child (--onfork): three child_work calls, then it execs the
# program again. gdb is told of the exec (catch exec stops there), reloads
# the program and re-sets its breakpoints; again_work then stops twice and
# reverse-continue goes back inside the new program.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break child_work
break again_work
catch exec
continue
continue
continue
print counter
continue
continue
print round
print counter
continue
print round
reverse-continue
print round
print counter
delete
continue
