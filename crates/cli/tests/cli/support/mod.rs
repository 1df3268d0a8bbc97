//! Test support shared by the CLI's integration tests (and, by path, its benches). Here: the fake
//! NVML library, scenario files, recorded procfs trees ([`ProcTree`]) and canned HTTP answers. In
//! submodules: [`Machine`], a scenario and a tree run together (`machine.rs`); reading the
//! binary's output (`output.rs`); a shared GPU node of pods and a Slurm job (`node.rs`); the
//! recorded Linux trees under fixtures/ (`trees.rs`); a prompt
//! answered on a pty (`pty.rs`); an Ollama models folder (`ollama.rs`); `ollama serve` and its runner as real processes (`ollama_tree.rs`); a Python interpreter for
//! stand-in servers (`python.rs`); the node's kubelet, a pod-resources gRPC server (`kubelet.rs`); a real one-node Slurm (`slurm.rs`); the real vLLM's CPU build serving a tiny model
//! (`vllm.rs`). Include with `mod support;`.
#![allow(dead_code)]

#[cfg(unix)]
mod kubelet;
mod machine;
mod node;
mod ollama;
mod ollama_tree;
mod output;
mod pty;
mod python;
#[cfg(unix)]
mod slurm;
mod trees;
#[cfg(unix)]
mod vllm;
#[cfg(unix)]
#[allow(unused_imports)]
pub use kubelet::*;
#[cfg(unix)]
#[allow(unused_imports)]
pub use slurm::Slurm;
#[cfg(unix)]
#[allow(unused_imports)]
pub use vllm::Vllm;
// The benches include this module by path and use only part of it.
#[allow(unused_imports)]
pub use {machine::*, node::*, ollama::*, ollama_tree::*, output::*, pty::*, python::*, trees::*};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// `target/debug` (or the profile dir) of this test run, from the test binary's own path.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test exe path");
    // target/<profile>/deps/<test-binary>
    exe.parent()
        .and_then(Path::parent)
        .expect("profile dir")
        .to_path_buf()
}

fn build_fake(features: &[&str], target_dir: Option<PathBuf>) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--quiet", "-p", "fake-nvml"]);
    if !features.is_empty() {
        cmd.args(["--features", &features.join(",")]);
    }
    let profile = profile_dir();
    let out_dir = match &target_dir {
        Some(t) => {
            cmd.arg("--target-dir").arg(t);
            t.join("debug")
        }
        None => profile.clone(),
    };
    if profile.file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    let status = cmd.status().expect("run cargo build -p fake-nvml");
    assert!(status.success(), "building the fake NVML library failed");
    let lib = out_dir.join(
        if target_dir.is_some() && profile.file_name().is_some_and(|n| n == "release") {
            "../release/libfake_nvml.so"
        } else {
            "libfake_nvml.so"
        },
    );
    assert!(lib.exists(), "{} missing after build", lib.display());
    lib
}

/// The modern fake `libnvidia-ml.so`, built once per test binary.
pub fn fake_nvml() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| build_fake(&[], None))
}

#[path = "../../../../../testing/fake-cuda/built.rs"]
mod fake_cuda_built;

/// The fake `libcuda.so.1` (`target/<profile>/libfake_cuda.so`), built once per test binary
/// (one builder for every crate's tests: testing/fake-cuda/built.rs).
pub fn fake_cuda() -> &'static Path {
    fake_cuda_built::fake_cuda_lib()
}

/// The old-driver fake (no `_v2`/`_v3` entry points, no power limit, no process utilisation).
pub fn fake_nvml_legacy() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let t = profile_dir().parent().unwrap().join("fake-nvml-legacy");
        build_fake(&["legacy"], Some(t))
    })
}

/// A recorded procfs tree under a temp dir: `<dir>/proc/<pid>/{stat,status,cmdline,exe}` and
/// `<dir>/etc/passwd`.
pub struct ProcTree {
    pub dir: tempfile::TempDir,
}

impl ProcTree {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("proc/sys/kernel")).unwrap();
        std::fs::create_dir_all(dir.path().join("etc")).unwrap();
        std::fs::write(
            dir.path().join("proc/stat"),
            "cpu  1 2 3\nbtime 1795900000\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("proc/sys/kernel/hostname"), "gpu-box\n").unwrap();
        std::fs::write(
            dir.path().join("proc/sys/kernel/osrelease"),
            "6.8.0-45-generic\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("etc/passwd"),
            "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\nbob:x:1001:1001::/home/bob:/bin/sh\n",
        )
        .unwrap();
        ProcTree { dir }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("proc")
    }

    /// Add a process: `args` is its command line, `start` its start time in ticks.
    pub fn add(&self, pid: u32, comm: &str, uid: u32, start: u64, args: &[&str]) -> &Self {
        let d = self.root().join(pid.to_string());
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("stat"),
            format!("{pid} ({comm}) S 1 {pid} {pid} 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 {start} 1000000 200 18446744073709551615\n"),
        )
        .unwrap();
        std::fs::write(
            d.join("status"),
            format!("Name:\t{comm}\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\n"),
        )
        .unwrap();
        let mut cmd = args.join("\0");
        cmd.push('\0');
        std::fs::write(d.join("cmdline"), cmd).unwrap();
        if let Some(exe) = args.first() {
            let _ = std::os::unix::fs::symlink(exe, d.join("exe"));
        }
        self
    }
}

impl ProcTree {
    /// Make `ppid` the parent of `pid` (field 4 of its `stat`; [`ProcTree::add`] writes 1).
    pub fn parent(&self, pid: u32, ppid: u32) -> &Self {
        self.edit_stat(pid, ") S 1 ", &format!(") S {ppid} "))
    }

    /// Rename `pid` from `comm` to `new` in its `stat` (its `status` keeps `comm`).
    pub fn rename(&self, pid: u32, comm: &str, new: &str) -> &Self {
        self.edit_stat(pid, &format!("({comm})"), &format!("({new})"))
    }

    fn edit_stat(&self, pid: u32, from: &str, to: &str) -> &Self {
        let stat = self.root().join(pid.to_string()).join("stat");
        let s = std::fs::read_to_string(&stat)
            .unwrap()
            .replacen(from, to, 1);
        std::fs::write(&stat, s).unwrap();
        self
    }

    /// Give `pid` mapped files (`/proc/PID/maps` lines in the kernel's format).
    pub fn maps(&self, pid: u32, paths: &[&str]) -> &Self {
        let mut text = String::new();
        for (i, p) in paths.iter().enumerate() {
            text.push_str(&format!(
                "7f{i:02x}00000000-7f{i:02x}00100000 r-xp 00000000 fd:01 {} {p}\n",
                1000 + i
            ));
        }
        std::fs::write(self.root().join(pid.to_string()).join("maps"), text).unwrap();
        self
    }

    /// Make `pid` listen on 127.0.0.1:`port` (a socket fd plus its `net/tcp` LISTEN row).
    pub fn listen(&self, pid: u32, port: u16, inode: u64) -> &Self {
        let d = self.root().join(pid.to_string());
        std::fs::create_dir_all(d.join("fd")).unwrap();
        std::fs::create_dir_all(d.join("net")).unwrap();
        let _ = std::os::unix::fs::symlink(format!("socket:[{inode}]"), d.join("fd").join("7"));
        std::fs::write(
            d.join("net/tcp"),
            format!(
                "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 0100007F:{port:04X} 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 {inode} 1 0000000000000000 100 0 0 10 0\n"
            ),
        )
        .unwrap();
        self
    }
}

/// Serve canned HTTP answers on 127.0.0.1 (path → (status, body)) for `n` requests, in a thread.
/// A body is a literal or a `String` read from a fixture.
pub fn canned_http<B: AsRef<str> + Send + 'static>(
    answers: Vec<(&'static str, u16, B)>,
    n: usize,
) -> (u16, std::thread::JoinHandle<Vec<String>>) {
    use std::io::{Read, Write};
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let h = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for _ in 0..n {
            let Ok((mut s, _)) = l.accept() else { break };
            let mut buf = [0u8; 4096];
            let k = s.read(&mut buf).unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..k]).to_string();
            let path = req.split_whitespace().nth(1).unwrap_or("").to_string();
            let (status, body) = answers
                .iter()
                .find(|(p, _, _)| *p == path)
                .map(|(_, s, b)| (*s, b.as_ref()))
                .unwrap_or((404, "not found"));
            let _ = write!(
                s,
                "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            seen.push(req);
        }
        seen
    });
    (port, h)
}

/// Write a fake-NVML scenario file and return its path (kept alive by the returned TempDir).
pub fn scenario(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("scenario.txt");
    std::fs::write(&p, text).unwrap();
    (dir, p)
}

/// Keep `cmd`, a run of the binary (directly, or under `script` or `tmux`), off this machine's own
/// setup: the caller's `GPULEDGER_NVML_LIB` / `GPULEDGER_CUDA_LIB`, its locale (English is
/// asked for with `GPULEDGER_LANG`), and a saved probe result.
/// `gpuledger probe --save` writes one (`$GPULEDGER_PROBE_FILE`, else the data folder under
/// `$XDG_DATA_HOME` or `$HOME`) that every CUDA estimate then uses, so a developer's own probe
/// would change the totals the tests expect. A test that wants a probe sets these after this.
pub fn isolate(cmd: &mut Command) -> &mut Command {
    let home = empty_home();
    cmd.env_remove("GPULEDGER_NVML_LIB")
        .env_remove("GPULEDGER_CUDA_LIB")
        .env_remove("GPULEDGER_PROBE_FILE")
        // Never the machine's own kubelet: a test that wants one passes --kubelet-socket.
        .env(
            "GPULEDGER_KUBELET_SOCKET",
            home.join("no-kubelet/kubelet.sock"),
        )
        .env("GPULEDGER_CONTAINER_LOGS", home.join("no-container-logs"))
        .env("XDG_DATA_HOME", home)
        // English whatever the developer's locale: tests compare the English text.
        .env("GPULEDGER_LANG", "en")
        // What the data folder follows where XDG_DATA_HOME is not read (macOS).
        .env("HOME", home)
}

/// The HOME and XDG_DATA_HOME of every run: `target/<profile>/cli-tests-home`, with no
/// `gpuledger` data folder in it (one left by an earlier run is removed once per test binary).
fn empty_home() -> &'static Path {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let home = profile_dir().join("cli-tests-home");
        match std::fs::remove_dir_all(home.join("gpuledger")) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                panic!("{}: {e}", home.join("gpuledger").display())
            }
            _ => {}
        }
        std::fs::create_dir_all(&home).unwrap();
        home
    })
}

/// The binary, [`isolate`]d.
pub fn gpuledger_command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpuledger"));
    isolate(&mut c);
    c
}

/// The binary on the procfs tree `proc_root` with the NVML library `lib` (a fake serving
/// `scenario`), [`isolate`]d; add the arguments.
pub fn gpuledger_on(lib: &Path, scenario: &Path, proc_root: &Path) -> Command {
    let mut c = gpuledger_command();
    c.arg("--nvml-lib")
        .arg(lib)
        .arg("--proc-root")
        .arg(proc_root)
        .env("FAKE_NVML_SCENARIO", scenario);
    c
}

/// Run the real `gpuledger` binary with the fake NVML serving `scenario`.
pub fn gpuledger(lib: &Path, scenario: &Path, proc_root: &Path, args: &[&str]) -> Output {
    gpuledger_on(lib, scenario, proc_root)
        .args(args)
        .output()
        .expect("run gpuledger")
}

/// Two devices, a process on both, one in compute and graphics lists, one NOT_AVAILABLE, one
/// that exits before its /proc entry is read (pid 9999 is not in the tree), utilisation samples.
pub const TWO_GPUS: &str = "\
driver|version=550.54.15
device|index=0|name=NVIDIA H200|uuid=GPU-11111111-2222-3333-4444-555555555555|pci=00000000:18:00.0|total=150754820096|used=40000000000|free=110754820096|reserved=600000000|gpu=37|mem=12|temp=54|power_mw=215000|limit_mw=700000|gfx_mhz=1980|sm_mhz=1980|mem_mhz=3201|pcie_gen=5|pcie_width=16|pcie_max_gen=5|pcie_max_width=16
device|index=1|name=NVIDIA GeForce RTX 4090|uuid=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee|pci=00000000:65:00.0|total=25757220864|used=9000000000|free=16757220864|reserved=300000000|gpu=3|mem=1|temp=38|power_mw=21000|limit_mw=450000|gfx_mhz=210|sm_mhz=210|mem_mhz=405|pcie_gen=4|pcie_width=16|pcie_max_gen=4|pcie_max_width=16
compute|dev=0|pid=4242|mem=17179869184
compute|dev=1|pid=4242|mem=4294967296
compute|dev=0|pid=5151|mem=8589934592
graphics|dev=0|pid=5151|mem=9663676416
compute|dev=0|pid=6001|mem=NA
compute|dev=1|pid=9999|mem=1073741824
graphics|dev=1|pid=1200|mem=536870912
util|dev=0|pid=4242|sm=81|mem=40|enc=0|dec=0|ts=100
util|dev=0|pid=4242|sm=85|mem=44|enc=0|dec=0|ts=200
util|dev=0|pid=5151|sm=10|mem=2|enc=5|dec=0|ts=150
";

/// The procfs tree that goes with [`TWO_GPUS`].
pub fn two_gpus_procs() -> ProcTree {
    let t = ProcTree::new();
    t.add(
        4242,
        "llama-server",
        1000,
        500_000,
        &[
            "/opt/llama/llama-server",
            "-m",
            "/models/qwen3-8b-q4_k_m.gguf",
            "-c",
            "32768",
            "--api-key",
            "sk-live-SECRET1",
            "--port",
            "8080",
        ],
    );
    t.add(
        5151,
        "python3",
        1001,
        600_000,
        &[
            "python3",
            "train.py",
            "--token=hf_SECRET2",
            "--data",
            "https://bob:SECRET3@data.example/set",
        ],
    );
    t.add(
        6001,
        "ollama",
        0,
        700_000,
        &["/usr/local/bin/ollama", "serve"],
    );
    t.add(1200, "Xorg", 0, 1_000, &["/usr/lib/xorg/Xorg", ":0"]);
    t
}

/// A free loopback port (bound then released): for a server a test starts on its own port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
