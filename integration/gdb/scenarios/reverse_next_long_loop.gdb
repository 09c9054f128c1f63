# The first reverse-stepi after the breakpoint counts the whole loop's
# instructions forward once; the reverse-nexts step back through every
# instruction of the loop to the start of its line (i back to -1).
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break reverse_next_long_loop.c:14
continue
print i
print s
reverse-stepi
print i
reverse-stepi 4
print i
print s
stepi 5
print i
reverse-next
print i
print s
next
print i
print s
reverse-next
print i
print s
reverse-stepi
print i
next
print i
reverse-next
print i
reverse-next
print i
continue
print i
continue
