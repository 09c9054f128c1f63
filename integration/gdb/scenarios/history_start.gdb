# reverse-continue with no breakpoint behind runs back to the very start
# of the recording; going forward from there replays it again.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set $start_pc = $pc
break history_start.c:10
continue
print counter
reverse-continue
print $pc == $start_pc
reverse-stepi
reverse-continue
print counter
continue
print counter
reverse-continue
print $pc == $start_pc
