# A crash by SIGSEGV: step backwards out of the crash, then find the
# line that set the bad pointer with a watchpoint and reverse-continue.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
continue
backtrace
print p
reverse-step
reverse-step
print p
print k
watch -l p
reverse-continue
backtrace
print k
reverse-step
print k
reverse-step
continue
delete
continue
continue
