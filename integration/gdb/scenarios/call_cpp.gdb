# C++ calls in a diversion. `backstep replay` has gdb load libstdc++'s
# printers and xmethods for the library it reads from the target (this
# host has the same file); with them disabled, members are real calls.
# Then a call in the thread that stopped.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break visit
continue
print s
print v
print s.size()
print v[3]
print s.substr(0, 8)
print s.substr(9, 6)
python gdb.execute("disable xmethod", to_string=True)
python gdb.execute("disable pretty-printer", to_string=True)
print s.size()
print v.size()
print v[2]
print s.substr(0, 8).size()
python gdb.execute("enable pretty-printer", to_string=True)
python gdb.execute("enable xmethod", to_string=True)
continue
print v
reverse-continue
print v
print v.size() + s.size()
delete
break work
continue
print id
print triple(id)
print total
continue
