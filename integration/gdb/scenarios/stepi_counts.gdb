# N stepi then N reverse-stepi come back to the same instruction, with
# the same registers and variables; so do other splits of the same count.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break stepi_counts.c:13
continue
delete
set $pc0 = $pc
set $sp0 = $sp
set $rbp0 = $rbp
print h
stepi 40
set $pc1 = $pc
set $sp1 = $sp
set $rax1 = $rax
reverse-stepi 40
print $pc == $pc0
print $sp == $sp0
print $rbp == $rbp0
print h
stepi 40
print $pc == $pc1
print $sp == $sp1
print $rax == $rax1
reverse-stepi 15
reverse-stepi 25
print $pc == $pc0
stepi 25
stepi 15
print $pc == $pc1
reverse-stepi 41
print $pc == $pc0
stepi
print $pc == $pc0
print h
