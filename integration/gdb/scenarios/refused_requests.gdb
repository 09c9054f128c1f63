# Each refused request must be an error that gdb shows, after which the
# session still works. `attempt` prints gdb's error instead of ending the
# script at it.
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
break add
continue
# Registers: a write that changes nothing is fine; one that changes
# something moves gdb into a diversion (a live copy of the program, see
# call_functions), where the new value shows. With the registers back as
# recorded, the next resume drops it and the replay goes on as recorded.
set $rdi = $rdi
set $rdi = 7
print $rdi
print v
set $rdi = 1
print $rdi
# orig_rax: gdb writes -1 there with every pc write.
set $orig_rax = -1
# A software breakpoint at an unmapped address: refused when gdb inserts it.
break *0x10
python attempt("continue")
delete 2
continue
print v
# `run cN` with no such checkpoint: the replay stays where it is, says so,
# and gdb keeps its view of the target.
monitor checkpoint
run c99
info registers rip
print v
print total
continue
print v
run c1
print v
continue
