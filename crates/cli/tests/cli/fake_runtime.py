"""A stand-in for vLLM / SGLang / ComfyUI / torchrun processes in explain_runtimes.rs and
workload_trees.rs: run with the real runtimes' command lines (`python3 -m
vllm.entrypoints.openai.api_server --model DIR ...`, `python3 -m sglang.launch_server
--model-path DIR ...`, `python3 ComfyUI/main.py`), it serves
recorded HTTP answers on a loopback port of its own, maps or opens the files it is told to, and
can start an engine child whose title is `VLLM::EngineCore`, like vLLM's V1 engine, and its
workers.

Environment: FAKE_ROUTES (JSON path -> file with the recorded body), FAKE_MAP / FAKE_OPEN
(os.pathsep-separated files to mmap / keep open), FAKE_CHILD_COMM (title of a child to start;
several titles separated by commas start one child each, as vLLM's tensor-parallel workers
`VLLM::Worker_TP0,VLLM::Worker_TP1`), FAKE_GRANDCHILD_COMM (titles of children the first titled
child starts: V1's engine core and its workers), FAKE_READY (file to write "port child_pid..." into once
listening).

vLLM V0's tree (FAKE_V0_WORKERS=N, FAKE_V0_METHOD=fork|spawn): the server starts its engine with
multiprocessing's spawn, as V0's API server starts `MQLLMEngine`; the engine (which would run rank
0) starts N workers (ranks 1..N) with FAKE_V0_METHOD, as `MultiprocessingDistributedExecutor`
does. Their command lines are what Python writes: `python -c "from multiprocessing.spawn import
spawn_main; ..." --multiprocessing-fork`, or the engine's own for a fork. READY lists the engine
then the workers.

`torchrun` (torchrun()): starts --nproc_per_node children `python -u SCRIPT ARGS...` with the
variables torch's LocalElasticAgent sets; each rank (rank()) maps FAKE_MAP and says when it has.
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
    if os.environ.get("FAKE_V0_WORKERS"):
        children = v0_tree()
    children += start_titled(
        os.environ.get("FAKE_CHILD_COMM", ""), os.environ.get("FAKE_GRANDCHILD_COMM", "")
    )
    ready = os.environ["FAKE_READY"]
    with open(ready + ".tmp", "w") as f:
        f.write(" ".join(str(x) for x in [srv.server_address[1]] + (children or [0])))
    os.rename(ready + ".tmp", ready)
    srv.serve_forever()


def start_titled(titles, grand):
    """One child per title (comma-separated); the first starts one child per title in `grand`,
    as vLLM V1's engine core starts its workers. Returns the children's pids, then the
    grandchildren's."""
    children, grandchildren = [], []
    for i, title in enumerate(filter(None, titles.split(","))):
        # The child says so on a pipe once its title is set (and its own children's are): READY
        # must not come before the titles the test looks for.
        r, w = os.pipe()
        code = f"import fake_runtime\nfake_runtime.titled({title!r}, {w}, {grand if i == 0 else ''!r})\n"
        # The title is the child's whole command line too, as setproctitle leaves it (argv is
        # the title alone; the script comes on stdin), and its kernel name (15 bytes kept).
        # A titled child's own sys.executable is empty (its argv[0] is the title): the server's
        # is passed down.
        python = os.environ.setdefault("FAKE_PYTHON", sys.executable)
        c = subprocess.Popen([title], executable=python, stdin=subprocess.PIPE, pass_fds=(w,))
        c.stdin.write(code.encode())
        c.stdin.close()
        children.append(c.pid)
        os.close(w)
        with os.fdopen(r) as f:
            said = f.readline()
        if not said.endswith("\n"):
            sys.exit("fake_runtime: a titled child exited before setting its title")
        grandchildren += [int(x) for x in said.split()]
    return children + grandchildren


def titled(title, w, grand):
    with open("/proc/self/comm", "w") as f:
        f.write(title)
    pids = start_titled(grand, "")
    os.write(w, (" ".join(str(p) for p in pids) + "\n").encode())
    os.close(w)
    until_orphaned()


def v0_tree():
    """The engine, spawned, and the pids it reports: its own, then its workers'."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    r, w = ctx.Pipe(duplex=False)
    n = int(os.environ["FAKE_V0_WORKERS"])
    engine = ctx.Process(target=v0_engine, args=(n, os.environ.get("FAKE_V0_METHOD", "fork"), w))
    engine.start()
    pids = r.recv()
    keep_alive.append(engine)
    return pids


keep_alive = []


def v0_engine(n, method, w):
    import multiprocessing

    ctx = multiprocessing.get_context(method)
    workers = []
    for _ in range(n):
        r, ww = ctx.Pipe(duplex=False)
        p = ctx.Process(target=v0_worker, args=(ww,), daemon=True)
        p.start()
        r.recv()
        workers.append(p)
    w.send([os.getpid()] + [p.pid for p in workers])
    until_orphaned()


def v0_worker(w):
    w.send(1)
    until_orphaned()


def until_orphaned():
    """Wait while the parent lives: a killed stand-in leaves no process behind."""
    import time

    ppid = os.getppid()
    while os.getppid() == ppid:
        time.sleep(0.2)


def torchrun():
    """`torchrun --nproc_per_node=N SCRIPT ARGS...`: one rank per child, as torch starts them."""
    argv = sys.argv[1:]
    n = 1
    while argv and argv[0].startswith("--"):
        a = argv.pop(0)
        if a.startswith("--nproc_per_node") or a.startswith("--nproc-per-node"):
            n = int(a.split("=", 1)[1] if "=" in a else argv.pop(0))
    ranks = []
    for local in range(n):
        r, w = os.pipe()
        env = dict(os.environ)
        env.update(
            RANK=str(local), GROUP_RANK="0", ROLE_RANK=str(local), ROLE_NAME="default",
            LOCAL_WORLD_SIZE=str(n), WORLD_SIZE=str(n), GROUP_WORLD_SIZE="1",
            ROLE_WORLD_SIZE=str(n), MASTER_ADDR="127.0.0.1", MASTER_PORT="29500",
            TORCHELASTIC_RESTART_COUNT="0", TORCHELASTIC_MAX_RESTARTS="0",
            TORCHELASTIC_RUN_ID="none", TORCHELASTIC_USE_AGENT_STORE="True",
            TORCH_NCCL_ASYNC_ERROR_HANDLING="1", LOCAL_RANK=str(local), FAKE_RANK_FD=str(w),
        )
        c = subprocess.Popen([sys.executable, "-u"] + argv, env=env, pass_fds=(w,))
        os.close(w)
        if os.read(r, 1) != b"1":
            sys.exit("fake_runtime: a rank exited before it was ready")
        os.close(r)
        ranks.append(c.pid)
    ready = os.environ["FAKE_READY"]
    with open(ready + ".tmp", "w") as f:
        f.write(" ".join(str(x) for x in [0] + ranks))
    os.rename(ready + ".tmp", ready)
    for c in ranks:
        os.waitpid(c, 0)


def rank():
    """A training script's rank: maps its model files, says so, waits for its launcher to go."""
    keep = []
    for p in filter(None, os.environ.get("FAKE_MAP", "").split(os.pathsep)):
        f = open(p, "rb")
        keep.append((f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)))
    fd = int(os.environ.pop("FAKE_RANK_FD"))
    os.write(fd, b"1")
    os.close(fd)
    until_orphaned()


if __name__ == "__main__":
    main()
