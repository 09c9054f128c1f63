# A breakpoint in libc (puts), set at main, then back to the start of the
# recording: next, continue (main, then each puts) and finish all work.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break main
continue
break puts
reverse-continue
next
continue
bt 1
continue
bt 1
finish
print sum
next
info breakpoints
