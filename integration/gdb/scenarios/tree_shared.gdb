# After the parent's round r, the counter is 3r + 2 (the child has added
# r times). Going back restores the child and the shared page too.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break parent_added
continue
print round
print s->counter
pipe monitor checkpoint | cut -d" " -f1-2
continue
continue
continue
print round
print s->counter
reverse-continue
print round
print s->counter
continue
continue
print round
print s->counter
run c1
print round
print s->counter
delete
continue
