# stepi over the syscall instruction inside read(): the result appears in
# rax and the buffer fills; reverse-stepi undoes both; stepi redoes them.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break read
continue
stepi 3
x/i $pc
print $rax
print buf
stepi
print $rax
print buf
reverse-stepi
print $rax
print buf
stepi
print $rax
print buf
finish
continue
