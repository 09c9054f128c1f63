# One thread's step back over a blocking call, during which another thread
# hit a breakpoint: it stops at the other thread's last hit, as its step
# forward over the call stops at the first (gdb without scheduler-locking).
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print frame-arguments none
break *read_insn
continue
delete
break work
stepi
print $_thread
print x
delete
catch syscall read
continue
continue
print $_thread
delete
break work
reverse-stepi
print $_thread
print x
print total
delete
thread 1
reverse-stepi
x/i $pc
print $_thread
