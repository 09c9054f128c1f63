# The exec'd child: 1 + 4 + 9 + 16 = 30, and it exits with 30 % 7 = 2.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break add_square
continue
print k
continue
continue
print k
print squares
reverse-continue
print k
print squares
delete
watch squares
reverse-continue
print squares
delete
continue
