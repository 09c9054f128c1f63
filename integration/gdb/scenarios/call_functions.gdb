# Function calls in a diversion: each result, the recording unchanged after
# each (same values, same lines forwards and backwards), and the errors gdb
# reports for a call that crashes and for going backwards inside it.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
python
def attempt(command):
    try:
        gdb.execute(command)
    except gdb.error as e:
        print("error: %s" % e)
end
break visit if i >= 3
continue
print counter
print twice(21)
print bump(5)
print counter
# Calls made at one stop share one copy of the program (gdb mallocs a
# string argument in the program before the call that takes it).
print bump(5)
print counter
print half(5.0)
print length("four")
print say("said in a diversion\n")
print (int)strlen(label)
next
print counter
continue
print i
print counter
print twice(i)
reverse-continue
print i
print counter
print twice(i)
# A crash inside a called function: gdb stays in its frame; continuing
# delivers the signal, which ends the diversion and brings back the
# replay's position. Going backwards from inside the call is refused.
python attempt("print crash(0)")
bt 1
continue
bt 1
print counter
python attempt("print crash(0)")
python attempt("reverse-stepi")
signal SIGSEGV
print i
continue
print i
print counter
# A condition that calls a function. gdb itself calls no function while it
# executes in reverse: going backwards it stops at the first hit and says
# why.
delete
break visit if twice(i) == 10
continue
print i
print counter
delete
break visit if twice(i) == 4
reverse-continue
print i
continue
