# Shared memory under checkpoints: a checkpoint taken at i == 2 still shows
# i == 2's values after the live replay went on to i == 4 (its memory is its
# own copy), and a store through one mapping of the file is seen through the
# other, forwards and backwards.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break shared_memory.c:19
continue
continue
print i
print anon[0]
print b[1]
monitor checkpoint
continue
continue
print i
print anon[0]
print b[1]
run c1
print i
print anon[0]
print a[1]
print b[1]
continue
print i
print anon[0]
print b[1]
watch -l a[1]
reverse-continue
print i
print b[1]
reverse-continue
reverse-continue
print i
print anon[0]
print b[1]
delete 2
continue
continue
print i
print anon[0]
print b[1]
