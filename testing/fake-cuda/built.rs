//! Where the fake CUDA driver library is, built on first use: one copy of the rule for every test
//! that loads it (the cuda crate's tests and the CLI's). Included with `#[path]`, the way
//! testing/llama_tools.rs is, so there is no extra crate to build.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// `target/debug/libfake_cuda.so` (or the platform's name; `target/release` under `--release`),
/// built once per test binary with the same cargo that runs the tests, into the same target
/// directory.
pub fn fake_cuda_lib() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        // target/debug/deps/<test exe> -> target/debug
        let exe = std::env::current_exe().expect("test executable path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("test executable sits in target/<profile>/deps")
            .to_path_buf();
        let target_dir = profile_dir.parent().expect("target dir").to_path_buf();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_string());
        // Every crate that includes this sits at crates/<name>.
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
        let release = profile_dir.file_name().is_some_and(|n| n == "release");
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "-q", "-p", "fake-cuda", "--manifest-path"])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(&target_dir);
        if release {
            cmd.arg("--release");
        }
        let out = cmd.output().expect("run cargo build -p fake-cuda");
        assert!(
            out.status.success(),
            "cargo build -p fake-cuda failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let name = format!(
            "{}fake_cuda{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        );
        let lib = profile_dir.join(name);
        assert!(lib.exists(), "{} was not built", lib.display());
        lib
    })
}
