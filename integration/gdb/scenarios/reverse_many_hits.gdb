# Reverse-continue from after a loop to the last of its 1,000,000 breakpoint
# hits: the search and the walk there cross every hit, and the walk leaves
# checkpoints on the way (fewer when the kernel counts the hits). With
# the limit at 3, at most 3 live (the
# line is checked by gdb's python: the evicted count varies with timing).
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break 16
continue
monitor set max-checkpoints 3
break tick
reverse-continue
print i
print total
python import re
python s = gdb.execute("monitor checkpoint-stats", to_string=True)
python m = re.search(r"Automatic checkpoints: (\d+) live, at most (\d+) \(peak (\d+), (\d+) evicted\)", s)
python print("live <= limit:", int(m.group(1)) <= int(m.group(2)), "peak <= limit:", int(m.group(3)) <= int(m.group(2)), "limit:", m.group(2), "evicted some:", int(m.group(4)) > 0)
reverse-continue
print i
reverse-continue
print i
print total
delete 2
break 13
reverse-continue
print total
