//! `ollama serve` and its runner as real processes with the command lines Ollama builds
//! (`ollama_tree.py` beside the tests): for llama_trees.rs (every runner generation) and
//! ollama_processes.rs.

use super::free_port;
use super::ollama_models;
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// `/api/ps`'s size and size_vram (those of [`super::OLLAMA_PS`]).
pub const PS_SIZE: u64 = 7_335_301_120;

/// One runner generation: where Ollama puts the runner's program, the command line it builds,
/// the server's version and settings, and whether its `/api/ps` has `context_length`.
pub struct Gen {
    pub version: &'static str,
    /// The runner's program under the install root (`bin/ollama`: serve runs itself).
    pub program: &'static str,
    /// The runner's arguments after the program; `{blob}` and `{port}` are filled in.
    pub args: &'static str,
    pub env: &'static [(&'static str, &'static str)],
    /// `/api/ps` has `context_length` (PR #11331, v0.10 on): this many tokens per slot.
    pub ps_context: Option<u64>,
}

/// `/api/ps` in the shape of that era (`api/types.go` `ProcessModelResponse`).
pub fn ps_body(g: &Gen) -> String {
    let mut m = json!({
        "name": "qwen3:8b",
        "model": "qwen3:8b",
        "size": PS_SIZE,
        "digest": "500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41",
        "details": {"parent_model": "", "format": "gguf", "family": "qwen3", "families": ["qwen3"], "parameter_size": "8.2B", "quantization_level": "Q4_0"},
        "expires_at": "2026-12-01T14:32:10.123+01:00",
        "size_vram": PS_SIZE,
    });
    if let Some(c) = g.ps_context {
        m["context_length"] = json!(c);
    }
    json!({ "models": [m] }).to_string()
}

/// A running `ollama serve` stand-in and its runner; both end when dropped.
pub struct Tree {
    pub serve: Child,
    pub port: u16,
    pub runner: u32,
    _dir: tempfile::TempDir,
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-9")
            .arg(self.runner.to_string())
            .status();
        let _ = self.serve.kill();
        let _ = self.serve.wait();
    }
}

/// A copy of `py` at `root/rel`.
fn copy_of(py: &Path, root: &Path, rel: &str) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    if !p.exists() {
        std::fs::copy(py, &p).unwrap();
    }
    p
}

/// Start `ollama serve` (`<root>/bin/ollama serve`, Ollama's settings and a secret in its
/// environment) and the runner of generation `g`.
pub fn ollama_tree(py: &Path, g: &Gen) -> Tree {
    let d = tempfile::tempdir().unwrap();
    let blob = ollama_models(d.path(), false);
    let exe = copy_of(py, d.path(), "bin/ollama");
    let runner_exe = copy_of(py, d.path(), g.program);
    let port = free_port().to_string();
    let mut runner_argv = vec![runner_exe.display().to_string()];
    runner_argv.extend(g.args.split(' ').map(|a| {
        a.replace("{blob}", &blob.display().to_string())
            .replace("{port}", &port)
    }));
    let serve_argv = vec![exe.display().to_string(), "serve".to_string()];
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/ollama_tree.py");
    let mut cmd = Command::new(&exe);
    cmd.args(["-", "xxx"]) // as long as "serve": see ollama_tree.py
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", "/nonexistent")
        .env("OLLAMA_KEEP_ALIVE", "10m")
        .env("OLLAMA_API_KEY", "SECRET-OLLAMA-KEY")
        .env("TREE_ROLE", "serve")
        .env("TREE_SCRIPT", &script)
        .env("TREE_ARGV", json!(serve_argv).to_string())
        .env("TREE_PS", ps_body(g))
        .env("TREE_VERSION", g.version)
        .env("TREE_CHILD_EXE", &runner_exe)
        .env("TREE_CHILD_ARGV", json!(runner_argv).to_string())
        .envs(g.env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut serve = cmd.spawn().expect("start the `ollama serve` stand-in");
    let mut stdin = serve.stdin.take().unwrap();
    stdin.write_all(&std::fs::read(&script).unwrap()).unwrap();
    drop(stdin);
    let mut line = String::new();
    BufReader::new(serve.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let mut it = line.split_whitespace().map(|x| x.parse::<u32>().unwrap());
    let (Some(port), Some(runner)) = (it.next(), it.next()) else {
        panic!("the stand-in said {line:?}");
    };
    let tree = Tree {
        serve,
        port: port as u16,
        runner,
        _dir: d,
    };
    // The runner has rewritten its command line and mapped the model.
    let want = runner_argv.join("\0") + "\0";
    wait_until(|| {
        std::fs::read(format!("/proc/{runner}/cmdline")).is_ok_and(|c| c == want.as_bytes())
            && std::fs::read_to_string(format!("/proc/{runner}/maps"))
                .is_ok_and(|m| m.contains("sha256-") || g.args.contains("--no-mmap"))
    });
    wait_until(|| {
        std::fs::read(format!("/proc/{}/cmdline", tree.serve.id()))
            .is_ok_and(|c| c.ends_with(b"\0serve\0"))
    });
    tree
}

pub fn wait_until(ok: impl Fn() -> bool) {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !ok() {
        assert!(
            std::time::Instant::now() < end,
            "the stand-in never got ready"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
