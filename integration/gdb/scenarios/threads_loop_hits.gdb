# A breakpoint inside two computing threads' loop is hit at every pass
# that reaches it (72 calls of mark), forced positions or not.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print thread-events off
break mark
ignore 1 100000
break 31
continue
info breakpoints
print marks[0] + marks[1]
