# A watchpoint on a global: every change forwards with old and new values,
# then the same changes mirrored going backwards.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break main
continue
watch level
continue
continue
continue
continue
reverse-continue
reverse-continue
reverse-continue
reverse-continue
reverse-continue
continue
print level
info breakpoints
