# Thread-local variables in every thread, forwards and backwards: each
# worker's own tls_count grows by 10 * id a round from 7; the main thread's
# is 1 while the workers run, and tls_name says whose it is.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print thread-events off
break checkpoint
continue
print tls_count
print tls_name
continue
continue
print tls_count
thread 1
print tls_count
print tls_name
thread 2
continue
print tls_count
print tls_name
print &tls_count == &tls_name[0]
reverse-continue
reverse-continue
print tls_count
print tls_name
reverse-continue
print tls_count
delete
break thread_locals.c:34
continue
print tls_count
print tls_name
