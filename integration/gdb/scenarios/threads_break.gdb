# A breakpoint in code every worker runs: each hit reports its own thread.
# Threads can only run in their recorded turns: `finish` in a waiting
# worker runs the others until its read() returns, and `stepi` in one whose
# turn comes later stops at a breakpoint another thread hits first.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break square
continue
print id
thread
next
next
print result
thread 3
finish
thread
thread 4
stepi
print id
thread
bt
reverse-continue
print id
thread
continue
continue
print id
thread
continue
