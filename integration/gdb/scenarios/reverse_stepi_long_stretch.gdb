# The first reverse-stepi from the return of work() goes back into the
# end of a loop of 12,500,000 passes (about 10^8 instructions since the
# getppid call): it is found at the program's own speed, not by stepping.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break reverse_stepi_long_stretch.c:14
continue
print s
print i
reverse-stepi
print i
reverse-stepi
print i
print s
reverse-stepi 30
print i
stepi 32
print i
print s
reverse-stepi
print i
break reverse_stepi_long_stretch.c:13 if i == n - 3
reverse-continue
print i
print s
delete
reverse-finish
print n
continue
