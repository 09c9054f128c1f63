# Function calls cannot act outside the copy of the program they run in:
# each forbidden call fails with ENOSYS (-38), the file the script made
# keeps its mode and stays, no file is created, and backstep names each
# refused call. A write to stdout is allowed and reaches the output.
set pagination off
set confirm off
set width 0
set height 0
set filename-display basename
set debug-file-directory /nonexistent
set debuginfod enabled off
python
import os, stat, tempfile
sandbox_dir = tempfile.mkdtemp(prefix="backstep-sandbox-")
target = os.path.join(sandbox_dir, "target")
with open(target, "w") as f:
    f.write("x")
os.chmod(target, 0o600)
def call(expr):
    print("%s = %s" % (expr.split("(")[0], gdb.parse_and_eval(expr)))
def show():
    print("mode %o, exists %s, created %s" % (stat.S_IMODE(os.stat(target).st_mode), os.path.exists(target),
                                             os.path.exists(os.path.join(sandbox_dir, "created"))))
end
break visit if i >= 1
continue
python call('chmod64("%s", 04777)' % target)
python show()
python call('unlink64("%s")' % target)
python show()
python call('create64("%s/created")' % sandbox_dir)
python show()
python call('write_fd(5, "to fd 5\\n")')
python call('write_fd(1, "to stdout\\n")')
print counter
continue
print i
reverse-continue
print i
python call('chmod64("%s", 04777)' % target)
python show()
print counter
delete
continue
python
import shutil
shutil.rmtree(sandbox_dir)
end
