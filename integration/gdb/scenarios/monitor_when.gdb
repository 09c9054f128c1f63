# monitor when: the position is the same when the replay comes back to
# the same place, forwards or backwards; unknown monitor commands say so.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
monitor when
break tick
continue
monitor when
continue
monitor when
stepi
monitor when
reverse-stepi
monitor when
reverse-continue
monitor when
reverse-continue
monitor when
monitor frobnicate
