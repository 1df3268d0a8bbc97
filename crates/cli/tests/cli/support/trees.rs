//! The recorded Linux machines under `fixtures/linux/<name>/{proc,sys}` and the binary run on
//! one of them (or on any directory laid out the same way).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `fixtures/linux`, canonical: golden files replace it by a placeholder, so it must be spelled
/// the way the binary prints it.
pub fn linux_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/linux")
        .canonicalize()
        .unwrap()
}

/// `fixtures/linux/<name>`.
pub fn linux_fixture(name: &str) -> PathBuf {
    linux_fixtures().join(name)
}

/// The binary on the tree `dir` (`dir/proc`, `dir/sys`) with the NVML library `lib` (a path
/// that does not exist: no NVML), [`isolate`](super::isolate)d.
pub fn on_tree(dir: &Path, lib: &Path) -> Command {
    let mut c = super::gpuledger_command();
    c.arg("--proc-root")
        .arg(dir.join("proc"))
        .arg("--sys-root")
        .arg(dir.join("sys"))
        .arg("--nvml-lib")
        .arg(lib);
    c
}

/// Run the binary on the tree `dir` with no NVML library.
pub fn run_on_tree(dir: &Path, args: &[&str]) -> Output {
    on_tree(dir, &dir.join("no-nvml-here.so"))
        .args(args)
        .output()
        .expect("run gpuledger")
}
