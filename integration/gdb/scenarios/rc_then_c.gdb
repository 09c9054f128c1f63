# reverse-continue then continue lands on the same instruction with the
# same values, however often the replay goes back and forth.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break rc_then_c.c:16
continue
continue
continue
print round
set $pc_a = $pc
set $r_a = r
set $acc_a = acc
set $state_a = state
continue
print round
set $pc_b = $pc
set $r_b = r
set $acc_b = acc
set $state_b = state
reverse-continue
print round
print $pc == $pc_a
print r == $r_a && acc == $acc_a && state == $state_a
continue
print round
print $pc == $pc_b
print r == $r_b && acc == $acc_b && state == $state_b
reverse-continue
reverse-continue
reverse-continue
print round
continue
continue
continue
print round
print $pc == $pc_b
print r == $r_b && acc == $acc_b && state == $state_b
print r
print acc
