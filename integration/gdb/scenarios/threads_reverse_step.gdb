# Stepping one thread back and forth across a blocking call during which
# other threads ran.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break main
continue
catch syscall read
continue
continue
print $_thread
x/i $pc - 2
reverse-stepi
print $_thread
x/i $pc
reverse-stepi
print $_thread
stepi
stepi
print $_thread
x/i $pc - 2
delete
break square
continue
print $_thread
print id
