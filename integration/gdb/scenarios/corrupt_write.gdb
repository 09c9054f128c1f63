# Find the write that corrupted acct.balance: stop where the program sees
# the wrong value, watch it, and run backwards to the culprit.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break corrupt_write.c:25
continue
print acct.balance
watch -l acct.balance
reverse-continue
backtrace
print slot
print entry == &acct.balance
reverse-continue
print i
print deposits[i]
continue
continue
print acct
info breakpoints
