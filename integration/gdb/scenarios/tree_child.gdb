# Child 2: acc goes 2, 9, 31, 98, 300; it exits with 300 % 50 = 0.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
print acc
break acc_step
continue
print i
continue
continue
print acc
watch acc
reverse-continue
print acc
reverse-continue
reverse-continue
reverse-continue
print acc
delete
continue
