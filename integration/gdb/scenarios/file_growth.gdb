# A checkpoint of a private file mapping that grows with its file: at i == 1
# the file is two pages long, so the third page cannot be read there, even
# after the live replay grew the file to four pages; the private store to the
# first page is kept. (The last command fails, as it should, and ends the
# script.)
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break file_growth.c:19
continue
print i
print p[0]
print p[4096]
monitor checkpoint
continue
continue
print i
print p[3 * 4096]
run c1
print i
print p[0]
print p[4096]
continue
print i
print p[2 * 4096]
run c1
print i
print p[2 * 4096]
