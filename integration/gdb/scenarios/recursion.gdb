# A recursive function: the backtrace shrinks going backwards and grows
# going forwards; reverse-finish leaves one level of the recursion.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break fact
continue
continue
continue
continue
backtrace
reverse-continue
backtrace
reverse-continue
backtrace
delete
break recursion.c:7
continue
backtrace
reverse-finish
backtrace
reverse-finish
backtrace
finish
finish
backtrace
