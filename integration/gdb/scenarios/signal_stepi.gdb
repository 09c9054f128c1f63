# A signal a syscall raises, stepped over one instruction at a time: stepi
# over the syscall stops after it, the next stepi reports the signal (as
# gdb natively does), the next enters the handler. Going back, the first
# reverse-stepi from the handler reports the signal where it was delivered,
# the next goes to the syscall instruction; reverse-step out of the handler
# stops there too. Passed silently (nostop noprint), it stops neither way.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print frame-arguments none
handle SIGUSR1 stop print pass
break *kill_insn
continue
stepi
stepi
print $_siginfo.si_signo
stepi
print $pc == (long)on_usr1
reverse-stepi
print $_siginfo.si_signo
print $pc == (long)on_usr1
reverse-stepi
x/i $pc
stepi
stepi
stepi
next
reverse-step
print $pc == (long)on_usr1
delete
handle SIGUSR1 nostop noprint pass
stepi
next
reverse-step
x/i $pc
print got
continue
