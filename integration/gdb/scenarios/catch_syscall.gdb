# catch syscall write: stops at the call and the return of each write(),
# going forwards and backwards.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
catch syscall write
continue
continue
continue
reverse-continue
reverse-continue
reverse-continue
continue
info breakpoints
delete
continue
