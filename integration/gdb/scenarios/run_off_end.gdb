# Continue past the end of the recording: the first continue stops at the
# end ("No more reverse-execution history."), one more reports the exit.
# Before that, go back from the end and come forward again.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break finish_up
continue
continue
print $_exitcode
reverse-continue
print code
continue
continue
print $_exitcode
