# C++ calls in a diversion, then libstdc++'s printers and xmethods (loaded
# by hand: gdb does not auto-load them for a library it reads from the
# target), and a call in the thread that stopped.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
break visit
continue
print s.size()
print v.size()
print v[2]
python
import sys
sys.path.insert(0, "/usr/share/gcc/python")
from libstdcxx.v6.printers import register_libstdcxx_printers
from libstdcxx.v6.xmethods import register_libstdcxx_xmethods
register_libstdcxx_printers(None)
register_libstdcxx_xmethods(None)
end
print s
print v
print s.size()
print v[3]
print s.substr(0, 8)
print s.substr(9, 6)
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
