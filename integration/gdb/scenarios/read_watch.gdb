# A watchpoint on a buffer that read() fills: the kernel's write is
# reported at the system call, forwards and backwards.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break main
continue
watch -l buf[7]
continue
backtrace
print buf
finish
delete 2
break read_watch.c:20
continue
print vowels
watch -l buf[7]
reverse-continue
backtrace
print buf[7]
print buf[0]
x/i $pc
continue
print buf[0]
delete
continue
