"""A stand-in for `ollama serve` and the runner it starts, for llama_trees.rs, with the real
command lines: each process is a copy of the Python interpreter, started as `EXE - PAD` with this
script on stdin, that overwrites its own argument area (/proc/self/mem, from arg_start to arg_end
in /proc/self/stat) with the command line Ollama builds. The caller sizes PAD so that both have
the same length: /proc/PID/cmdline then reads exactly the wanted arguments.

Environment: TREE_ARGV (JSON list: this process's command line), TREE_ROLE (`serve` or
`runner`). serve also reads TREE_PS (the /api/ps body), TREE_VERSION (/api/version's version),
TREE_CHILD_EXE and TREE_CHILD_ARGV (the runner), answers on a loopback port, starts the runner and
prints "port runner-pid". The runner maps its --model file (as llama.cpp does) and listens on its
--port. Both end when their parent does.
"""
import http.server
import json
import mmap
import os
import subprocess
import sys
import threading
import time


def retitle(argv):
    with open("/proc/self/stat") as f:
        st = f.read()
    fields = st[st.rindex(")") + 2:].split()
    # arg_start and arg_end are fields 48 and 49 (proc(5)); fields[0] is field 3.
    start, end = int(fields[45]), int(fields[46])
    want = b"".join(a.encode() + b"\0" for a in argv)
    if len(want) != end - start:
        sys.exit(f"argument area is {end - start} bytes, the command line {len(want)}")
    with open("/proc/self/mem", "r+b", buffering=0) as m:
        m.seek(start)
        m.write(want)


def pad_for(exe, argv):
    """The PAD argument that makes `exe - PAD` as long as argv."""
    n = sum(len(a.encode()) + 1 for a in argv[1:]) - len(b"-\0") - 1
    if n < 0:
        sys.exit("command line too short for the stand-in")
    return "x" * n


def start(exe, argv, env):
    p = subprocess.Popen([exe, "-", pad_for(exe, argv)], executable=exe, env=env,
                         stdin=subprocess.PIPE)
    p.stdin.write(open(os.environ["TREE_SCRIPT"], "rb").read())
    p.stdin.close()
    return p


def flag(argv, name):
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
    return None


def answer(routes):
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = routes.get(self.path, b"")
            self.send_response(200 if body else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    return H


def until_orphaned():
    ppid = os.getppid()
    while os.getppid() == ppid:
        time.sleep(0.2)


def main():
    argv = json.loads(os.environ["TREE_ARGV"])
    retitle(argv)
    if os.environ["TREE_ROLE"] == "runner":
        keep = []
        model = flag(argv, "--model")
        if model and "--no-mmap" not in argv:
            f = open(model, "rb")
            keep.append((f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)))
        port = int(flag(argv, "--port") or 0)
        srv = http.server.HTTPServer(("127.0.0.1", port), answer({}))
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        until_orphaned()
        return
    routes = {
        "/api/ps": os.environ["TREE_PS"].encode(),
        "/api/version": json.dumps({"version": os.environ["TREE_VERSION"]}).encode(),
    }
    srv = http.server.HTTPServer(("127.0.0.1", 0), answer(routes))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    child_argv = json.loads(os.environ["TREE_CHILD_ARGV"])
    env = dict(os.environ, TREE_ROLE="runner", TREE_ARGV=json.dumps(child_argv))
    runner = start(os.environ["TREE_CHILD_EXE"], child_argv, env)
    print(srv.server_port, runner.pid, flush=True)
    until_orphaned()
    runner.kill()
    runner.wait()


main()
