# run restarts the replay from the beginning (no question asked with
# confirm off) and runs to the first breakpoint; hit counts start again.
# After `run`, gdb loads ld.so again under this script's
# debug-file-directory (no separate debug info), so the start of the
# recording shows as `?? ()` in ld.so rather than `_start ()`: that is gdb's
# doing, not backstep's.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break bump
continue
continue
print calls
info breakpoints
run
print calls
print x
info breakpoints
continue
continue
continue
continue
print $_exitcode
run
print calls
reverse-continue
