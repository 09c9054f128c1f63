# stepi over an instruction that writes a watched variable reports the
# watchpoint with old and new values; reverse-stepi over it reports them
# swapped.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break stepi_watch.c:8
continue
delete
watch level
stepi
print level
reverse-stepi
print level
stepi
next
print level
reverse-next
print level
