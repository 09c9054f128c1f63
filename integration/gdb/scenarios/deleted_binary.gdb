# The binary was deleted after recording: gdb reads it, the libraries and
# the program's data from the trace.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
info sharedlibrary
break main
continue
info sharedlibrary
info symbol main
print message
print table
print table[2].name
ptype struct entry
next
next
print sum
list 14,16
