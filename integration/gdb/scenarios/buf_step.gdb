# Stepping over buffered calls forwards and backwards, finish out of a
# function called between them, and catch syscall write over buffered
# writes (they never stop: only the traced ones do). gdb's own `record full`
# stops twice per line in reverse-next here (after the call returns, then at
# the line's start), and so does backstep: `show` prints every variable
# that the buffered calls set at each stop. Recorded without buffering,
# every write stops the catchpoint (buf_step.nobuf.out).
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
define show
  printf "r=%d got=%d total=%d buf=\"%s\"\n", r, got, total, buf
end
break buf_step.c:31
continue
show
next
show
next
next
show
next
show
next
show
reverse-next
show
reverse-next
show
reverse-next
show
reverse-next
show
reverse-next
show
reverse-next
show
reverse-next
show
next
show
break weigh
continue
finish
continue
finish
show
delete
catch syscall write
continue
up
show
reverse-continue
up
show
continue
continue
continue
delete
continue
