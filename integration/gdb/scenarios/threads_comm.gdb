# Thread names written to /proc/.../comm: shown from the write on, the
# earlier ones again after going back, and again from a checkpoint taken
# between the open of a comm file and the write. The checkpoint's event
# number depends on the recording's scheduling: cut.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break before_names
break comm_opened
break names_set
continue
info threads
continue
pipe monitor checkpoint | cut -d" " -f1-2
continue
info threads
reverse-continue
info threads
reverse-continue
info threads
run c1
continue
info threads
delete
continue
