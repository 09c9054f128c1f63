# Watchpoints on unaligned ranges: an int at an odd address (three debug
# registers), an 8-byte value aligned to 4 (two). Each alone stops at every
# write, forwards and backwards; both together need five, more than the four
# there are, and gdb says so.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break main
continue
print (unsigned long) &o.count % 4
print (unsigned long) &w.wide % 8
watch o.count
continue
continue
continue
reverse-continue
reverse-continue
reverse-continue
reverse-continue
watch w.wide
python
try:
    gdb.execute("continue")
except gdb.error as e:
    print("continue refused: %s" % e)
end
delete 2
continue
continue
continue
reverse-continue
reverse-continue
print w.wide
print o.count
continue
print w.wide
