# `find` over three pages of which the middle one is unmapped and the last
# PROT_NONE: found past the hole, at its offset; before the strcpy, not
# found; a pattern that is nowhere, not found.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break find_memory.c:17
continue
find base, +3 * 4096, "needle"
print (long)$_ - (long)base
find /b base, +3 * 4096, 'n', 'e', 'e', 'd'
find base, +3 * 4096, "haystack"
reverse-next
reverse-next
reverse-next
find base, +3 * 4096, "needle"
next
find base, +3 * 4096, "needle"
print (long)$_ - (long)base
