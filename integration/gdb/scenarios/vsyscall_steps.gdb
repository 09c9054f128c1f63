# Calls through the vsyscall page: stepi into and out of the page, back
# with reverse-stepi and reverse-next, and a watchpoint on the bytes the
# call wrote, forwards and backwards.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break vsyscall_steps.c:14
continue
# The call instruction, then the page's address.
set $steps = 0
while $pc < 0xffffffffff600000 && $steps < 20
  stepi
  set $steps = $steps + 1
end
print $pc == 0xffffffffff600000
stepi
print r
print tv.tv_sec > 1500000000
set $seconds = tv.tv_sec
# Back: at the page, then at the call, with tv as it was before.
reverse-stepi
print $pc == 0xffffffffff600000
reverse-stepi
print $pc < 0xffffffffff600000
print tv.tv_sec
next
print r
print tv.tv_sec == $seconds
next
print t - tv.tv_sec < 2
reverse-next
print t
reverse-next
print tv.tv_sec
print r
watch tv.tv_sec != 0
continue
print $pc == 0xffffffffff600000
stepi
print tv.tv_sec == $seconds
reverse-continue
print $pc == 0xffffffffff600000
delete
break vsyscall_steps.c:16
continue
print tv.tv_sec == $seconds
print r
# A call from gdb that goes through the page (the kernel answers it live).
print ((long (*)(long *))0xffffffffff600400)(0) >= $seconds
print r
continue
