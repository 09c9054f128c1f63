#include "cli/gdb_autoload.h"

namespace backstep {

const char* gdb_autoload_commands() {
  return R"PY(python
import os as _bs_os
import struct as _bs_struct

def _bs_build_id(path):
    """The GNU build id of the ELF file at `path` (hex), or None."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    shoff, = _bs_struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = _bs_struct.unpack_from("<HH", data, 0x3A)
    for i in range(shnum):
        at = shoff + i * shentsize
        if at + 0x28 > len(data):
            return None
        sh_type, = _bs_struct.unpack_from("<I", data, at + 4)
        if sh_type != 7:  # SHT_NOTE
            continue
        off, size = _bs_struct.unpack_from("<QQ", data, at + 0x18)
        end = min(off + size, len(data))
        while off + 12 <= end:
            namesz, descsz, kind = _bs_struct.unpack_from("<III", data, off)
            name = data[off + 12:off + 12 + namesz]
            desc_at = off + 12 + ((namesz + 3) & ~3)
            if kind == 3 and name == b"GNU\0":
                return data[desc_at:desc_at + descsz].hex()
            off = desc_at + ((descsz + 3) & ~3)
    return None

def _bs_autoload(event):
    objfile = event.new_objfile
    name = objfile.filename or ""
    if not name.startswith("target:") or not objfile.build_id:
        return
    local = _bs_os.path.realpath(name[len("target:"):])
    if _bs_build_id(local) != objfile.build_id:
        return
    base = _bs_os.path.join(gdb.parameter("data-directory"), "auto-load")
    script = base + local + "-gdb.py"
    if not _bs_os.path.isfile(script):
        return
    # As gdb runs an auto-load script: gdb.current_objfile() is the library,
    # here with its local path (scripts find their modules relative to it).
    proxy = _BsLocalObjfile(objfile, local)
    real_current = gdb.current_objfile
    gdb.current_objfile = lambda: proxy
    try:
        with open(script) as f:
            code = compile(f.read(), script, "exec")
        exec(code, {"__file__": script, "__name__": "__main__"})
    except Exception as e:
        print("backstep: %s: %s" % (script, e))
    finally:
        gdb.current_objfile = real_current

class _BsLocalObjfile:
    """A gdb.Objfile whose filename is the local file's."""
    def __init__(self, real, filename):
        self._real = real
        self.filename = filename
    def __getattr__(self, name):
        return getattr(self._real, name)

gdb.events.new_objfile.connect(_bs_autoload)
end
)PY";
}

}  // namespace backstep
