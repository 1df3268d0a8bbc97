//! Collection asks the runtimes' own APIs: `snapshot` inline, `serve` (like the live view,
//! `watch` and `record`) from a background thread, so the process the GPU lists carries what its
//! runtime says in every view. Real processes with the runtimes' real command lines and recorded
//! answers (tests/cli/fake_runtime.py), the fake NVML charging them, the real /proc.

use crate::explain_ollama::lm_studio_model;
use crate::explain_runtimes::{model_dir, repo, start, Fake, DEVICE_TOTAL, MEASURED};
use crate::serve_support::{get, start_serving};
use crate::support::*;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;

fn one_gpu(pid: u32) -> (tempfile::TempDir, std::path::PathBuf) {
    scenario(&format!(
        "driver|version=550.54.15\ndevice|index=0|name=NVIDIA GeForce RTX 4090|uuid=GPU-1|total={DEVICE_TOTAL}|used={MEASURED}|free={}|gpu=1|mem=1\ncompute|dev=0|pid={pid}|mem={MEASURED}\n",
        DEVICE_TOTAL - MEASURED
    ))
}

/// A vLLM API server (`--gpu-memory-utilization 0.5` on its command line) answering the
/// recorded `/metrics` of a vLLM run (utilisation 0.9, 11,915 blocks), with children titled
/// `children` (comma-separated; none when empty).
fn vllm_with_metrics(dir: &Path, py: &Path, children: &str) -> Fake {
    let m = model_dir(dir);
    let metrics = repo().join("fixtures/vllm/tinyllama-cpu-v0-metrics.txt");
    let routes = format!("{{\"/metrics\": {:?}}}", metrics.display().to_string());
    let mut env = vec![("FAKE_ROUTES", routes)];
    if !children.is_empty() {
        env.push(("FAKE_CHILD_COMM", children.into()));
    }
    start(
        dir,
        py,
        &[
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            m.to_str().unwrap(),
            "--gpu-memory-utilization",
            "0.5",
        ],
        &env,
    )
}

/// The process `pid` in serve's `/api/v1/snapshot` once its estimate knows the KV cache, or
/// the last answer when `deadline` passes first.
fn served_until_kv(addr: std::net::SocketAddr, pid: u32, deadline: Duration) -> serde_json::Value {
    let end = Instant::now() + deadline;
    loop {
        let r = get(addr, "/api/v1/snapshot");
        assert_eq!(r.status, 200, "{}", r.body);
        let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        let p = process(&v, pid.into()).clone();
        if !p["estimate"]["kv_cache_gpu_bytes"].is_null() || Instant::now() > end {
            return p;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn serve_shows_the_engine_core_with_the_servers_metrics_asked_in_the_background() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let f = vllm_with_metrics(dir.path(), &py, "VLLM::EngineCore");
    let (_d, sc) = one_gpu(f.engines[0]);
    let s = start_serving(on_live_proc(&sc).args([
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--interval",
        "200ms",
    ]));
    // The engine core listens on nothing: its server's /metrics is asked off the collection
    // thread, and a later round carries vLLM's own block count and utilisation.
    let p = served_until_kv(s.addr, f.engines[0], Duration::from_secs(20));
    let e = &p["estimate"];
    assert_eq!(e["kv_cache_gpu_bytes"], 11915u64 * 360448, "{p}");
    assert_eq!(e["total_gpu_bytes"], (DEVICE_TOTAL as f64 * 0.9) as u64);
    assert!(
        e["reported"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["what"] == "num_gpu_blocks"),
        "{e}"
    );
    assert_eq!(p["workload"]["member"]["role"], "engine core");
    // The same figure in Prometheus, beside the member's role.
    let metrics = get(s.addr, "/metrics").body;
    let kv = metrics
        .lines()
        .find(|l| {
            l.starts_with("gpuledger_process_estimated_memory_bytes{")
                && l.contains(&format!("pid=\"{}\"", f.engines[0]))
                && l.contains("component=\"kv_cache\"")
        })
        .unwrap_or_else(|| panic!("{metrics}"));
    assert!(kv.ends_with(&format!(" {}", 11915u64 * 360448)), "{kv}");
    assert!(kv.contains("role=\"engine core\""), "{kv}");
}

#[test]
fn serve_with_no_probe_never_asks() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let f = vllm_with_metrics(dir.path(), &py, "");
    let (_d, sc) = one_gpu(f.child.id());
    let s = start_serving(on_live_proc(&sc).args([
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--interval",
        "100ms",
        "--no-probe",
    ]));
    // Ten rounds or more: what the flags say, and the KV cache stays unknown.
    let p = served_until_kv(s.addr, f.child.id(), Duration::from_secs(2));
    assert_eq!(
        p["estimate"]["kv_cache_gpu_bytes"],
        serde_json::Value::Null,
        "{p}"
    );
    assert_eq!(p["estimate"]["total_gpu_bytes"], DEVICE_TOTAL / 2);
}

/// LM Studio as real processes: the app (its API on a loopback port answering the recorded
/// `/api/v0/models`) and its engine, `~/.lmstudio/.internal/utils/node` with the model mapped.
struct LmStudio {
    app: Child,
    engine: u32,
}

impl Drop for LmStudio {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.engine.to_string()).status();
        let _ = self.app.kill();
        let _ = self.app.wait();
    }
}

const APP: &str = r#"
import http.server, os, subprocess, sys, threading
BODY = open(os.environ["GPULEDGER_TEST_MODELS"], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ok = self.path == "/api/v0/models"
        self.send_response(200 if ok else 404)
        self.send_header("Content-Length", str(len(BODY) if ok else 0))
        self.end_headers()
        if ok:
            self.wfile.write(BODY)
    def log_message(self, *a):
        pass
srv = http.server.HTTPServer(("127.0.0.1", 0), H)
threading.Thread(target=srv.serve_forever, daemon=True).start()
# The engine maps the model (as llama.cpp does) and waits.
ENGINE = "import mmap, os, time\nf = open(os.environ['GPULEDGER_TEST_GGUF'], 'rb')\nm = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)\nprint('mapped', flush=True)\ntime.sleep(120)\n"
engine = subprocess.Popen([os.environ["GPULEDGER_TEST_NODE"], "-c", ENGINE, os.environ["GPULEDGER_TEST_WORKER"]],
    executable=os.environ["GPULEDGER_TEST_PY"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
engine.stdout.readline()
print(srv.server_port, engine.pid, flush=True)
sys.stdin.read()
engine.kill()
engine.wait()
"#;

fn lm_studio(py: &Path, root: &Path) -> LmStudio {
    use std::io::{BufRead, BufReader};
    let gguf = lm_studio_model(root);
    let lms = root.join("home/alice/.lmstudio");
    let mut app = Command::new(py)
        .arg0(root.join("opt/lm-studio/lm-studio"))
        .args(["-c", APP])
        .env(
            "GPULEDGER_TEST_MODELS",
            repo().join("fixtures/lmstudio/api-v0-models.json"),
        )
        .env("GPULEDGER_TEST_GGUF", &gguf)
        .env("GPULEDGER_TEST_PY", py)
        .env("GPULEDGER_TEST_NODE", lms.join(".internal/utils/node"))
        .env(
            "GPULEDGER_TEST_WORKER",
            lms.join("llmster/0.0.6-1/.bundle/lib/llmworker.js"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the LM Studio stand-in");
    let mut line = String::new();
    BufReader::new(app.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let engine = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    LmStudio { app, engine }
}

#[test]
fn snapshot_estimates_lm_studios_engine_with_the_context_it_loaded() {
    let Some(py) = python() else { return };
    let d = tempfile::tempdir().unwrap();
    let lms = lm_studio(&py, d.path());
    let (_s, sc) = one_gpu(lms.engine);
    let v: serde_json::Value = serde_json::from_str(&ok_stdout(
        &on_live_proc(&sc)
            .args(["snapshot", "--json"])
            .output()
            .unwrap(),
    ))
    .unwrap();
    let p = process(&v, lms.engine.into());
    assert_eq!(p["workload"]["kind"], "lm-studio", "{p}");
    assert_eq!(p["workload"]["member"]["root_pid"], lms.app.id(), "{p}");
    let e = &p["estimate"];
    assert_eq!(e["recipe"], "lm-studio (llama.cpp engine)", "{p}");
    // The loaded context (4096 of the model's 131072), from the app's /api/v0/models:
    // Llama-3.1-8B's f16 KV cache for 4096 tokens is 512 MiB.
    assert_eq!(e["n_ctx"], 4096, "{e}");
    assert_eq!(e["kv_cache_gpu_bytes"], 512 * MIB);
    assert!(e["why"]
        .as_str()
        .unwrap()
        .starts_with("meta-llama-3.1-8b-instruct loaded by LM Studio with a 4096-token context: "));
    // The table's ESTIMATED section names the engine with the same sentence.
    let table = ok_stdout(&on_live_proc(&sc).args(["snapshot"]).output().unwrap());
    let est = &table[table.find("ESTIMATED").unwrap_or_else(|| panic!("{table}"))..];
    assert!(est.contains(&lms.engine.to_string()), "{table}");
    // --no-probe: the loaded context is LM Studio's alone to say; no estimate is invented.
    let v: serde_json::Value = serde_json::from_str(&ok_stdout(
        &on_live_proc(&sc)
            .args(["snapshot", "--json", "--no-probe"])
            .output()
            .unwrap(),
    ))
    .unwrap();
    assert!(process(&v, lms.engine.into())["estimate"].is_null());
}

/// A server in another network namespace (a container): its 127.0.0.1 is not ours, so its port
/// is not asked, and the estimate says so. Needs unprivileged user namespaces (`unshare -rn`);
/// skipped with a message where the kernel refuses them.
#[test]
fn a_server_in_another_network_namespace_is_not_asked() {
    let Some(py) = python() else { return };
    if !Command::new("unshare")
        .args(["-rn", "true"])
        .status()
        .is_ok_and(|s| s.success())
    {
        eprintln!("SKIPPED: unshare -rn (user and network namespaces) is not permitted here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let m = model_dir(dir.path());
    let ready = dir.path().join("ready");
    let pkgs = crate::explain_runtimes::stage(dir.path());
    // `unshare -rn python3 -m vllm...`: the stand-in listens on its own namespace's loopback.
    let mut child = Command::new("unshare")
        .args(["-rn"])
        .arg(&py)
        .args(["-m", "vllm.entrypoints.openai.api_server", "--model"])
        .arg(&m)
        .current_dir(&pkgs)
        .env(
            "PYTHONPATH",
            format!(
                "{}:{}",
                pkgs.display(),
                repo().join("crates/cli/tests/cli").display()
            ),
        )
        .env("FAKE_READY", &ready)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let end = Instant::now() + Duration::from_secs(20);
    while !ready.exists() {
        assert!(Instant::now() < end, "the stand-in did not start");
        std::thread::sleep(Duration::from_millis(30));
    }
    // unshare execs python: the same pid.
    let pid = child.id();
    let (_d, sc) = one_gpu(pid);
    let out = on_live_proc(&sc)
        .args(["snapshot", "--json"])
        .output()
        .unwrap();
    let explained = on_live_proc(&sc)
        .args(["explain", &pid.to_string(), "--json"])
        .output()
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    // explain follows the same rule, and says why nothing was asked.
    let x: serde_json::Value = serde_json::from_str(&ok_stdout(&explained)).unwrap();
    assert!(
        x["live_unavailable"]
            .as_str()
            .unwrap()
            .contains("another network namespace"),
        "{x}"
    );
    let v: serde_json::Value = serde_json::from_str(&ok_stdout(&out)).unwrap();
    let e = &process(&v, pid.into())["estimate"];
    assert!(
        e["not_modelled"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("another network namespace")),
        "{e}"
    );
}
