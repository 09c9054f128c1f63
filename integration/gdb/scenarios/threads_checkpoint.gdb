# A checkpoint with four threads besides main, some of them blocked in the
# kernel: run c1 brings every thread back, and the program ends as recorded
# (each thread sets its result after the checkpoint). The event number of
# the checkpoint depends on the recording's scheduling: cut.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print frame-arguments none
set print thread-events off
break all_started
continue
pipe monitor checkpoint | cut -d" " -f1-2
break 60
continue
print results
run c1
frame
print results
continue
print results
delete
continue
