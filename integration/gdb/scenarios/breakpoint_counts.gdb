# Breakpoint hit counts: gdb counts every stop at a breakpoint, in
# either direction; a condition is evaluated going backwards as well.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break visit
continue
continue
continue
continue
print n
info breakpoints
reverse-continue
print n
reverse-continue
print n
info breakpoints
condition 1 n == 5
continue
print n
info breakpoints
reverse-continue
info breakpoints
condition 1 n == 6
continue
print n
condition 1
reverse-continue
print n
info breakpoints
