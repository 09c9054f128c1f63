#!/usr/bin/env python3
"""`backstep ide vscode|clion`: the generated configurations are valid JSON,
name the server command, point at a private copy of the recorded program, and
work: the server is started exactly as the generated VS Code task says, then
gdb runs the cppdbg configuration's setup commands and connects to the
configured address, and lldb runs the CodeLLDB configuration's commands.
`ide clion` writes a CLion "Remote Debug" run configuration whose gdb runs
`backstep serve --stdio` through a pipe: gdb is run as CLion runs it.
`--install --extensions-dir DIR` writes the VS Code extension whose debug
type "backstep" the first configuration uses: its adapter is started as VS
Code would (the manifest's program and args) and given that configuration
over the Debug Adapter Protocol, and it replays to the end of the recording.

  run_ide_configs.py --backstep PATH --binary PATH --tmp-root DIR

The program (programs/mi_target.c) is recorded and its binary deleted before
the configurations are written."""
import argparse
import json
import select
import time
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest  # noqa: E402

TIMEOUT = 120


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(argv, root, timeout=TIMEOUT):
    return subprocess.run(argv, cwd=root, env=gdbtest.base_env(root), stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)


def start_task_server(task, backstep, root):
    """The VS Code task, as VS Code would run it: its command and args, ready
    when a line matches its background endsPattern."""
    check(task["command"] == backstep, "the task runs this backstep by its path: %r" % task["command"])
    argv = [task["command"]] + task["args"]
    proc = subprocess.Popen(argv, cwd=root, env=gdbtest.base_env(root), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    ends = re.compile(task["problemMatcher"]["background"]["endsPattern"])
    line = proc.stdout.readline().decode(errors="replace")
    check(ends.search(line), "the server's first line %r matches the task's endsPattern" % line)
    return proc


def stop(proc):
    try:
        os.killpg(proc.pid, 9)
    except ProcessLookupError:
        pass
    proc.wait()


SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ide_schemas.json")
# Attributes VS Code itself gives every launch configuration, whatever its type.
VSCODE_COMMON = {"name", "type", "request", "preLaunchTask", "postDebugTask", "debugServer", "presentation",
                 "internalConsoleOptions", "suppressMultipleSessionWarning"}
JSON_TYPES = {"string": str, "boolean": bool, "array": list, "object": dict, "number": (int, float),
              "integer": int}


def type_ok(value, declared):
    names = declared if isinstance(declared, list) else [declared]
    if "any" in names:
        return True
    return any(isinstance(value, JSON_TYPES[n]) and not (n in ("number", "integer") and isinstance(value, bool))
               for n in names if n in JSON_TYPES)


def validate(config, schema, what):
    """`config` against a launch schema (the debugger's package.json
    configurationAttributes[request]): every attribute known with its type,
    array items' own attributes, the required ones present."""
    props = schema["properties"]
    for key, value in config.items():
        if key in VSCODE_COMMON:
            continue
        check(key in props, "%s: %r is not an attribute of its schema" % (what, key))
        declared = props[key].get("type", "any")
        check(type_ok(value, declared), "%s: %r is %r, its schema says %r" % (what, key, value, declared))
        items = props[key].get("items")
        if isinstance(value, list) and isinstance(items, dict) and all(isinstance(v, dict) for v in items.values()):
            for element in value:
                check(isinstance(element, dict) and all(k in items for k in element),
                      "%s: an item of %r, %r, has attributes its schema lacks" % (what, key, element))
        if "enum" in props[key]:
            check(value in props[key]["enum"], "%s: %r=%r is not one of %r" % (what, key, value, props[key]["enum"]))
    for key in schema.get("required", []):
        check(key in config, "%s: the required %r is missing" % (what, key))


def validate_vscode(configs, manifest):
    """Each generated configuration against the schema its debugger
    publishes: cpptools' cppdbg, CodeLLDB's lldb and lldb-dap's (the
    attribute lists in ide_schemas.json, with the commits they come from),
    and backstep's own extension manifest for the backstep type."""
    with open(SCHEMAS) as f:
        schemas = json.load(f)
    schemas["backstep"] = manifest["contributes"]["debuggers"][0]["configurationAttributes"]
    for c in configs.values():
        by_request = schemas.get(c["type"])
        check(by_request is not None and c["request"] in by_request,
              "%s: no schema for type %s, request %s" % (c["name"], c["type"], c["request"]))
        validate(c, by_request[c["request"]], c["name"])


def dap_session(argv, config, root):
    """Starts the adapter `argv` and sends what VS Code sends for a launch
    configuration: initialize, launch (the configuration's own attributes),
    configurationDone; returns the first `stopped` event's body, after a
    disconnect."""
    log_path = os.path.join(root, "dap-stderr.txt")
    log = open(log_path, "wb")
    proc = subprocess.Popen(argv, cwd=root, env=gdbtest.base_env(root), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=log, start_new_session=True)
    log.close()
    buf = b""
    seq = [0]

    def send(command, arguments):
        seq[0] += 1
        body = json.dumps({"seq": seq[0], "type": "request", "command": command, "arguments": arguments}).encode()
        proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        proc.stdin.flush()
        return seq[0]

    def until(pred, what):
        nonlocal buf
        deadline = time.monotonic() + TIMEOUT
        while True:
            head, sep, rest = buf.partition(b"\r\n\r\n")
            if sep:
                length = int(head.split(b":", 1)[1])
                if len(rest) >= length:
                    message = json.loads(rest[:length])
                    buf = rest[length:]
                    if pred(message):
                        return message
                    continue
            left = deadline - time.monotonic()
            check(left > 0, "the adapter sent no %s" % what)
            ready, _, _ = select.select([proc.stdout], [], [], left)
            if ready:
                data = os.read(proc.stdout.fileno(), 65536)
                if not data:
                    with open(log_path, errors="replace") as f:
                        raise Failure("the adapter's output ended before %s: %s" % (what, f.read()))
                buf += data

    def request(command, arguments):
        n = send(command, arguments)
        r = until(lambda m: m.get("type") == "response" and m.get("request_seq") == n, command + "'s response")
        check(r["success"], "%s: %s" % (command, r.get("message")))
        return r

    try:
        caps = request("initialize", {"adapterID": config["type"], "linesStartAt1": True})["body"]
        check(caps.get("supportsStepBack") is True, "the adapter has VS Code's Step Back button")
        arguments = {k: v for k, v in config.items() if k not in ("name", "type", "request")}
        request("launch", arguments)
        request("configurationDone", {})
        stopped = until(lambda m: m.get("event") == "stopped", "stopped event")
        request("disconnect", {})
        check(proc.wait(TIMEOUT) == 0, "the adapter exits 0 after disconnect")
        return stopped["body"]
    finally:
        if proc.poll() is None:
            gdbtest.kill_group(proc.pid)
            proc.wait()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--backstep", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--tmp-root", required=True)
    opts = p.parse_args()
    backstep = os.path.abspath(opts.backstep)
    os.makedirs(opts.tmp_root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="ide-", dir=opts.tmp_root)
    try:
        program = os.path.join(root, "mi_target")
        shutil.copy(opts.binary, program)
        trace = os.path.join(root, "trace")
        r = run([backstep, "record", "-o", trace, program], root)
        check(r.returncode == 0, "record: %s" % r.stderr.decode(errors="replace"))
        os.unlink(program)

        port = free_port()
        out = os.path.join(root, "ws", ".vscode")
        extensions = os.path.join(root, "extensions")
        r = run([backstep, "ide", "vscode", "--port", str(port), "--output", out, "--install", "--extensions-dir",
                 extensions, trace], root)
        check(r.returncode == 0, "ide vscode: %s" % r.stderr.decode(errors="replace"))
        serve_line = "backstep serve --port %d %s" % (port, trace)
        check(serve_line in r.stdout.decode(), "ide vscode names the server command: %r" % r.stdout)
        with open(os.path.join(out, "launch.json")) as f:
            launch = json.load(f)
        with open(os.path.join(out, "tasks.json")) as f:
            tasks = json.load(f)
        configs = {c["type"]: c for c in launch["configurations"]}
        check(set(configs) == {"backstep", "cppdbg", "lldb", "lldb-dap"}, "configuration types: %r" % sorted(configs))
        check(launch["configurations"][0]["type"] == "backstep", "the reverse buttons' configuration comes first")
        task = tasks["tasks"][0]
        check(task["command"] == backstep, "the task runs this backstep by its path: %r" % task["command"])
        check(task["args"] == ["serve", "--port", str(port), trace], "task args: %r" % task["args"])
        check(serve_line in task["detail"], "the task names the server command: %r" % task["detail"])
        for c in configs.values():
            if c["type"] != "backstep":  # backstep dap serves the replay itself
                check(c["preLaunchTask"] == task["label"], "%s starts the server task first" % c["name"])

        # The extension, and its adapter given the configuration as VS Code would.
        folders = os.listdir(extensions)
        check(len(folders) == 1 and folders[0].startswith("backstep.backstep-dap-"), "extension folder: %r" % folders)
        with open(os.path.join(extensions, folders[0], "package.json")) as f:
            manifest = json.load(f)
        for key in ("name", "publisher", "version", "engines"):
            check(key in manifest, "the extension's package.json has %s" % key)
        debuggers = manifest["contributes"]["debuggers"]
        check([d["type"] for d in debuggers] == ["backstep"], "it contributes the debug type backstep")
        adapter = debuggers[0]
        check(adapter["program"] == backstep and adapter["args"] == ["dap"], "its adapter is `backstep dap`")
        validate_vscode(configs, manifest)
        stopped = dap_session([adapter["program"]] + adapter["args"], configs["backstep"], root)
        check(stopped["reason"] == "end of recording", "the replay runs to the end of the recording: %r" % stopped)
        gdb_config = configs["cppdbg"]
        check(gdb_config["miDebuggerServerAddress"] == "localhost:%d" % port, "cppdbg address")
        check(gdb_config["useExtendedRemote"] is True, "cppdbg uses extended-remote")
        copy = gdb_config["program"]
        st = os.stat(copy)
        check(st.st_nlink == 1 and os.access(copy, os.W_OK), "the program is a private, writable copy")
        for dirpath, _, names in os.walk(os.path.join(trace, "files")):
            for n in names:
                check(os.stat(os.path.join(dirpath, n)).st_ino != st.st_ino, "the copy is not the trace's file")
        check(configs["lldb-dap"]["gdb-remote-port"] == port, "lldb-dap attaches to the port")
        check(configs["lldb"]["reverseDebugging"] is True, "CodeLLDB has its reverse buttons")
        r = run([backstep, "ide", "vscode", "--port", str(port), "--output", out, trace], root)
        check(r.returncode == 125 and b"--force" in r.stderr, "ide vscode does not overwrite without --force")

        # gdb with the cppdbg configuration's commands, against the server
        # that the task starts.
        server = start_task_server(task, backstep, root)
        try:
            argv = ["gdb", "-nx", "-batch", "-ex", "file " + copy]
            for cmd in gdb_config["setupCommands"]:
                if not cmd["text"].startswith("-"):  # MI commands are cppdbg's own
                    argv += ["-ex", cmd["text"]]
            argv += ["-ex", "target extended-remote " + gdb_config["miDebuggerServerAddress"],
                     "-ex", "break scale", "-ex", "continue", "-ex", "print v",
                     "-ex", "reverse-finish", "-ex", "kill"]
            r = run(argv, root)
            text = r.stdout.decode(errors="replace")
            check("Breakpoint 1, scale (v=1)" in text, "gdb stops in scale(1):\n" + text)
            check("$1 = 1" in text, "gdb prints v:\n" + text)
            check(re.search(r"in accumulate \(v=1\) at .*mi_target\.c:14\n14\t  total \+= scale\(v\);", text),
                  "reverse-finish goes back to the call in accumulate:\n" + text)
        finally:
            stop(server)

        # lldb with the CodeLLDB configuration's commands.
        lldb = configs["lldb"]
        server = start_task_server(task, backstep, root)
        try:
            argv = [gdbtest.lldb_program(), "-b", "--no-lldbinit"]
            for cmd in lldb["initCommands"] + lldb["targetCreateCommands"] + lldb["processCreateCommands"]:
                argv += ["-o", cmd]
            argv += ["-o", "breakpoint set -n scale", "-o", "continue", "-o", "frame variable v", "-o", "kill"]
            r = run(argv, root)
            text = r.stdout.decode(errors="replace")
            check(re.search(r"stop reason = breakpoint 1\.1", text), "lldb stops at the breakpoint:\n" + text)
            check("(int) v = 1" in text, "lldb prints v:\n" + text)
        finally:
            stop(server)

        # CLion: a "Remote Debug" run configuration whose gdb starts the
        # server through a pipe, and the ~/.gdbinit fragment; gdb run as
        # CLion runs it (the fragment, the symbol file, the sysroot, then
        # `target remote` with the configuration's args).
        out = os.path.join(root, "clion")
        r = run([backstep, "ide", "clion", "--output", out, trace], root)
        check(r.returncode == 0, "ide clion: %s" % r.stderr.decode(errors="replace"))
        tree = ET.parse(os.path.join(out, ".run", "backstep replay.run.xml"))
        component = tree.getroot()
        check(component.tag == "component" and component.get("name") == "ProjectRunConfigurationManager",
              "a CLion run configuration file")
        config = component.find("configuration")
        check(config is not None and config.get("type") == "CLion_Remote" and
              config.get("factoryName") == "Remote Debug", "a Remote Debug configuration")
        debugger = config.find("debugger")
        check(debugger is not None and debugger.get("kind") == "GDB" and os.path.isabs(debugger.text),
              "it names gdb by its path")
        check(config.find("method") is not None and config.find("method").get("v") == "2", "method v=2")
        remote = config.get("remoteCommand")
        check(remote == "| %s serve --stdio %s" % (backstep, trace), "the remote command: %r" % remote)
        symbol = config.get("symbolFile")
        check(os.path.exists(symbol), "the CLion symbol file exists")
        gdbinit = os.path.join(out, "backstep.gdbinit")
        with open(os.path.join(out, "backstep-clion.txt")) as f:
            check("source " + gdbinit in f.read(), "the CLion notes name the .gdbinit fragment")
        argv = [debugger.text, "-nx", "-batch", "-x", gdbinit, "-ex", "file " + symbol,
                "-ex", "set sysroot " + config.get("sysroot"), "-ex", "target remote " + remote,
                "-ex", "break scale", "-ex", "continue", "-ex", "print v", "-ex", "reverse-finish",
                "-ex", "kill"]
        r = run(argv, root)
        text = r.stdout.decode(errors="replace")
        check("Breakpoint 1, scale (v=1)" in text, "CLion's gdb stops in scale(1):\n" + text)
        check("$1 = 1" in text, "CLion's gdb prints v:\n" + text)
        check(re.search(r"in accumulate \(v=1\) at .*mi_target\.c:14\n14\t  total \+= scale\(v\);", text),
              "reverse-finish goes back to the call in accumulate:\n" + text)
        # --stdio serves only a socket of this user's: not a file.
        r = subprocess.run([backstep, "serve", "--stdio", trace], stdin=subprocess.DEVNULL, capture_output=True,
                           cwd=root, env=gdbtest.base_env(root), timeout=TIMEOUT)
        check(r.returncode == 125 and b"not serving the client on stdin" in r.stderr,
              "serve --stdio with /dev/null: %d %r" % (r.returncode, r.stderr))
        r = run([backstep, "ide", "emacs", trace], root)
        check(r.returncode == 2, "an unknown IDE is a usage error")
    except Failure as e:
        print("FAIL: %s" % e)
        print("work directory kept: %s" % root)
        return 1
    shutil.rmtree(root, ignore_errors=True)
    print("PASS: ide configurations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
