# monitor checkpoint / info checkpoints / delete checkpoint, and `run cN`
# (what the monitor help offers) to go back to a checkpoint.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
monitor info checkpoints
break stage
continue
monitor checkpoint
continue
continue
monitor checkpoint
monitor info checkpoints
continue
print progress
run c1
frame
print progress
continue
print n
print progress
run c2
frame
print progress
monitor delete checkpoint 1
monitor info checkpoints
monitor delete checkpoint 7
monitor restart 7
delete
watch progress
# `restart N`, the command `backstep replay` defines for `run cN`
restart 2
print progress
