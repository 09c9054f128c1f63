# reverse-step into a function that already returned, step back through it,
# reverse-finish out to its call; then the same forwards.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break step_finish.c:17
continue
reverse-step
print r
reverse-step
reverse-step
frame
reverse-finish
backtrace
reverse-step
print a
next
print b
step
step
reverse-step
reverse-next
reverse-next
next
next
print b
