# reverse-next walks a loop backwards, line by line, stepping over the
# call in its body; display shows the loop variable going down.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break reverse_next_loop.c:15
continue
display i
display total
reverse-next
reverse-next
reverse-next
reverse-next
reverse-next
reverse-next
reverse-next
next
next
next
undisplay
reverse-next
print total
