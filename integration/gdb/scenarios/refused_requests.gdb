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
# Registers: a write that changes nothing is fine, any other is refused
# (gdb's P packet gets E0d), and the registers stay as recorded.
set $rdi = $rdi
python attempt("set $rdi = 7")
python attempt("set $pc = $pc + 1")
print $rdi
print v
# orig_rax: gdb writes -1 there with every pc write (nothing to change in
# a replay); any other value is refused.
set $orig_rax = -1
python attempt("set $orig_rax = 5")
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
