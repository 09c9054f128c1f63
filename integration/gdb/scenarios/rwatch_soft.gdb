# Read watchpoints (Z3) forwards and backwards, then an access watchpoint:
# on a machine whose debug registers never fire, reads are seen by decoding
# each single-stepped instruction.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break main
continue
rwatch v
continue
continue
continue
continue
up
print i
reverse-continue
reverse-continue
reverse-continue
up
print i
delete 2
awatch v
continue
continue
continue
reverse-continue
reverse-continue
delete
continue
