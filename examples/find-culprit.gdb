# Run by scripts/demo: stop where the corruption is noticed, then go back in
# time to the write that caused it.
set pagination off
set confirm off
break buggy.c:35
continue
print t.limit
watch t.limit
reverse-continue
backtrace
print i
