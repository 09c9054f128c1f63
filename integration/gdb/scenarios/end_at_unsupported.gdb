# The recording stopped at an unsupported call: the function just before it
# is reached, and history ends at the call itself (one reverse-stepi back
# is the syscall instruction, 0f 05).
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break before_unsupported
continue
print marker
continue
print marker
print $orig_rax == 0x100000027
reverse-stepi
print *(unsigned short *) $pc == 0x050f
continue
continue
