# Read and access watchpoints, forwards and backwards.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break main
continue
rwatch shared
continue
continue
delete 2
awatch shared
reverse-continue
reverse-continue
continue
continue
continue
