//! An Ollama runner as real processes, read through the real /proc: a copy of the Python
//! interpreter named `ollama` plays `ollama serve` (its environment holds Ollama's settings and a
//! secret; it answers `/api/ps` and `/api/version` on a loopback port) and starts a second copy as
//! `ollama … runner --model <blob> --port 40123`. The fake NVML lists the runner's memory;
//! `explain` and `snapshot` must find the model through the manifest, the settings in the parent's
//! environment, the context in `/api/ps`, and keep the three figures apart. Skipped (failed under
//! CI=true) where no Python interpreter is found.

use crate::support::*;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

const MIB: u64 = 1 << 20;

/// What `ollama serve` does here: answer /api/ps and /api/version on loopback, start the runner,
/// print "port runner-pid", live until stdin closes.
const SERVE: &str = r#"
import http.server, os, subprocess, sys, threading
PS = os.environ["GPULEDGER_TEST_PS"].encode()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = {"/api/ps": PS, "/api/version": b'{"version":"0.12.11"}'}.get(self.path, b"")
        self.send_response(200 if body else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
srv = http.server.HTTPServer(("127.0.0.1", 0), H)
threading.Thread(target=srv.serve_forever, daemon=True).start()
runner = subprocess.Popen(
    ["ollama", "-c", "import time; time.sleep(120)", "runner", "--model", os.environ["GPULEDGER_TEST_BLOB"], "--port", "40123"],
    executable=os.environ["GPULEDGER_TEST_EXE"], stdin=subprocess.DEVNULL)
print(srv.server_port, runner.pid, flush=True)
sys.stdin.read()
runner.kill()
runner.wait()
"#;

/// `ollama serve` and its runner, killed on drop.
struct Serve {
    child: Child,
    port: u16,
    runner: u32,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.runner.to_string()).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(exe: &Path, blob: &Path) -> Serve {
    let mut child = Command::new(exe)
        .arg0("ollama")
        .args(["-c", SERVE, "serve"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", "/nonexistent")
        .env("OLLAMA_NUM_PARALLEL", "2")
        .env("OLLAMA_CONTEXT_LENGTH", "8192")
        .env("OLLAMA_KEEP_ALIVE", "10m")
        .env("OLLAMA_API_KEY", "SECRET-OLLAMA-KEY")
        .env("GPULEDGER_TEST_PS", OLLAMA_PS)
        .env("GPULEDGER_TEST_BLOB", blob)
        .env("GPULEDGER_TEST_EXE", exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the `ollama serve` stand-in");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let mut it = line.split_whitespace().map(|x| x.parse::<u32>().unwrap());
    let (port, runner) = (it.next().unwrap() as u16, it.next().unwrap());
    Serve {
        child,
        port,
        runner,
    }
}

use std::os::unix::process::CommandExt;

#[test]
fn real_ollama_processes_explain_and_snapshot() {
    let Some(py) = python() else { return };
    let d = tempfile::tempdir().unwrap();
    let exe = d.path().join("bin/ollama");
    std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
    std::fs::copy(&py, &exe).unwrap();
    let blob = ollama_models(d.path(), false);
    let s = serve(&exe, &blob);
    let parent = s.child.id();
    let sc_text = format!(
        "driver|version=550.54.15\n\
         device|index=0|name=NVIDIA GeForce RTX 4090|uuid=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee|pci=00000000:65:00.0|total=25757220864|used=9000000000|free=16757220864|reserved=300000000|gpu=3|mem=1|temp=38|power_mw=21000|limit_mw=450000|gfx_mhz=210|sm_mhz=210|mem_mhz=405|pcie_gen=4|pcie_width=16|pcie_max_gen=4|pcie_max_width=16\n\
         compute|dev=0|pid={}|mem=7516192768\n",
        s.runner
    );
    let (_sd, sc) = scenario(&sc_text);
    let proc_root = Path::new("/proc");

    let out = gpuledger(
        fake_nvml(),
        &sc,
        proc_root,
        &["explain", &s.runner.to_string(), "--json"],
    );
    let raw = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        !raw.contains("SECRET"),
        "no secret-looking variable is read"
    );
    let v = json_of(&out);
    assert_eq!(v["workload"]["kind"], "ollama-runner", "{raw}");
    assert_eq!(v["process"]["usage"][0]["memory_bytes"], 7516192768u64);
    let e = &v["estimated"];
    assert_eq!(e["recipe"], "ollama/runner (llama.cpp)", "{raw}");
    let est = &e["estimate"];
    // /api/ps context_length 4096 per slot × OLLAMA_NUM_PARALLEL=2 from the parent's environ.
    assert_eq!(est["context"]["n_ctx"], 8192);
    assert_eq!(est["kv_cache"]["bytes"], 2 * 576 * MIB);
    // Ollama 0.12.11 (its /api/version): no flash attention unless OLLAMA_FLASH_ATTENTION is set.
    assert_eq!(est["context"]["flash_attn"], false);
    let np = est["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "-np")
        .unwrap();
    assert!(
        np["source"]
            .to_string()
            .contains(&format!("/proc/{parent}/environ")),
        "{np}"
    );
    let why = e["why"].as_str().unwrap();
    assert!(
        why.starts_with(
            "qwen3:8b kept loaded until 2026-12-01 14:32 (+01:00) (OLLAMA_KEEP_ALIVE=10m): "
        ),
        "{why}"
    );
    let vram = e["reported"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["what"] == "size_vram")
        .unwrap();
    assert_eq!(vram["bytes"], 7335301120u64);
    assert_eq!(
        vram["source"],
        format!("GET http://127.0.0.1:{}/api/ps", s.port)
    );

    // The collection path asks /api/ps too: the runner's row carries the same context and
    // the runtime's own size_vram beside the estimate.
    let v = json_of(&gpuledger(
        fake_nvml(),
        &sc,
        proc_root,
        &["snapshot", "--json"],
    ));
    let p = process(&v, u64::from(s.runner)).clone();
    assert_eq!(p["usage"][0]["memory_bytes"], 7516192768u64);
    assert_eq!(p["estimate"]["recipe"], "ollama/runner (llama.cpp)");
    assert_eq!(p["estimate"]["n_ctx"], 8192, "{p}");
    assert_eq!(p["estimate"]["kv_cache_gpu_bytes"], 2 * 576 * MIB);
    let reported = p["estimate"]["reported"].as_array().unwrap();
    assert!(
        reported
            .iter()
            .any(|r| r["what"] == "size_vram" && r["bytes"] == 7335301120u64),
        "{p}"
    );
    assert!(!serde_json::to_string(&v).unwrap().contains("SECRET"));

    // --no-probe: no HTTP; num_ctx from OLLAMA_CONTEXT_LENGTH in the parent's environ.
    let v = json_of(&gpuledger(
        fake_nvml(),
        &sc,
        proc_root,
        &["snapshot", "--json", "--no-probe"],
    ));
    let p = process(&v, u64::from(s.runner)).clone();
    assert_eq!(p["estimate"]["n_ctx"], 16384);
    assert_eq!(p["estimate"]["kv_cache_gpu_bytes"], 2 * 2 * 576 * MIB);
    assert!(p["estimate"].get("reported").is_none(), "{p}");
}
