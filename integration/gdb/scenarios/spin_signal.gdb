# A signal delivered in the middle of a loop without system calls (a forced
# position): the signal stop, reverse-stepi from it into the loop and stepi
# back to the signal (which instruction of the loop the signal found differs
# between recordings: those checks are relative to it), the handler, and the
# flag's write found by a watchpoint in both directions.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
set print frame-arguments none
handle SIGALRM stop print pass
break on_alarm
continue
print fired
set logging file /dev/null
set logging redirect on
set logging enabled on
python
def pc():
    return int(gdb.parse_and_eval("$pc"))
pc0 = pc()
gdb.execute("reverse-stepi")
pc1 = pc()
gdb.set_convenience_variable("moved_back", int(pc1 != pc0))
gdb.execute("reverse-stepi")
gdb.execute("stepi")
gdb.set_convenience_variable("back_there", int(pc() == pc1))
gdb.execute("stepi")
gdb.set_convenience_variable("at_signal", int(pc() == pc0))
end
set logging enabled off
print $moved_back
print $back_there
print $at_signal
stepi
continue
print fired
watch fired
continue
print fired
reverse-continue
print fired
reverse-continue
print fired
delete
reverse-continue
print fired
continue
