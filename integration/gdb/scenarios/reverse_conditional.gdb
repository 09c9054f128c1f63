# From after the loop back to the one hit whose condition holds, through
# every hit after it; then forwards and backwards again between two
# conditional hits.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break 16
continue
break tick if i == 17
reverse-continue
print i
print total
delete 2
break tick if i == 4321 || i == 4000
continue
print i
print total
continue
print i
reverse-continue
print i
print total
continue
