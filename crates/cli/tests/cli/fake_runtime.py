"""A stand-in for vLLM / SGLang / ComfyUI processes in explain_runtimes.rs: run with the real
runtimes' command lines (`python3 -m vllm.entrypoints.openai.api_server --model DIR ...`,
`python3 -m sglang.launch_server --model-path DIR ...`, `python3 ComfyUI/main.py`), it serves
recorded HTTP answers on a loopback port of its own, maps or opens the files it is told to, and
can start an engine child whose title is `VLLM::EngineCore`, like vLLM's V1 engine.

Environment: FAKE_ROUTES (JSON path -> file with the recorded body), FAKE_MAP / FAKE_OPEN
(os.pathsep-separated files to mmap / keep open), FAKE_CHILD_COMM (title of a child to start;
several titles separated by commas start one child each, as vLLM's tensor-parallel workers
`VLLM::Worker_TP0,VLLM::Worker_TP1`), FAKE_READY (file to write "port child_pid..." into once
listening).
"""
import http.server
import json
import mmap
import os
import subprocess
import sys


def main():
    routes = json.loads(os.environ.get("FAKE_ROUTES", "{}"))
    keep = []
    for p in filter(None, os.environ.get("FAKE_MAP", "").split(os.pathsep)):
        f = open(p, "rb")
        keep.append((f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)))
    for p in filter(None, os.environ.get("FAKE_OPEN", "").split(os.pathsep)):
        keep.append(open(p, "rb"))

    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            path = routes.get(self.path)
            if path is None:
                self.send_response(404)
                self.end_headers()
                return
            body = open(path, "rb").read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    children = []
    for title in filter(None, os.environ.get("FAKE_CHILD_COMM", "").split(",")):
        # The child says so on a pipe once its title is set: READY (below) must not come before
        # the title the test looks for.
        r, w = os.pipe()
        code = (
            "import os, time\n"
            "with open('/proc/self/comm', 'w') as f:\n"
            f"    f.write({title!r})\n"
            f"os.write({w}, b'1')\n"
            f"os.close({w})\n"
            "ppid = os.getppid()\n"
            "while os.getppid() == ppid: time.sleep(0.2)\n"
        )
        # The title is the child's whole command line too, as setproctitle leaves it (argv is
        # the title alone; the script comes on stdin), and its kernel name (15 bytes kept).
        c = subprocess.Popen(
            [title], executable=sys.executable, stdin=subprocess.PIPE, pass_fds=(w,)
        )
        c.stdin.write(code.encode())
        c.stdin.close()
        children.append(c.pid)
        os.close(w)
        if os.read(r, 1) != b"1":
            sys.exit("fake_runtime: the engine child exited before setting its title")
        os.close(r)
    ready = os.environ["FAKE_READY"]
    with open(ready + ".tmp", "w") as f:
        f.write(" ".join(str(x) for x in [srv.server_address[1]] + (children or [0])))
    os.rename(ready + ".tmp", ready)
    srv.serve_forever()


if __name__ == "__main__":
    main()
