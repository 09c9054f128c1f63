# A handler's delivery that fails (no stack left): two SIGSEGV stops, the
# fault's and the kernel's forced one, then the program's death, as gdb
# reports them natively.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print frame-arguments none
continue
print $_siginfo.si_signo
print $_siginfo.si_code == 128
continue
print $_siginfo.si_signo
print $_siginfo.si_code
continue
