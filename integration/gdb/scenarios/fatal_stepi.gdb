# One reverse-stepi from a fatal SIGSEGV goes to the instruction before the
# faulting one; $_siginfo describes the stop at hand, not an older signal.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break fatal_stepi.c:11
continue
print $_siginfo.si_signo
continue
print $_siginfo.si_signo
print $_siginfo._sifields._sigfault.si_addr
set $fault = $pc
reverse-stepi
print $pc == $fault
x/i $pc
stepi
print $pc == $fault
reverse-continue
print $_siginfo.si_signo
