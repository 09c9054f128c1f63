# `monitor checkpoint` at the printf, then gdb's `checkpoint` there: refused
# with the pointer to `monitor checkpoint` (gdb stops the script at its
# error, so it comes last).
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break checkpoint_command.c:9
continue
print total
monitor checkpoint
monitor info checkpoints
checkpoint
