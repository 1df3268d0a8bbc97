//! A Python interpreter, for the tests whose real processes stand in for model servers.

use std::path::PathBuf;
use std::process::Command;

/// The interpreter's real file (not a shim or a link, so that a copy of it runs on its own), able
/// to import what the stand-ins use. Skipped with a message locally when there is none, a failure
/// under CI=true.
pub fn python() -> Option<PathBuf> {
    for py in ["python3", "python"] {
        let out = Command::new(py)
            .args([
                "-c",
                "import http.server, mmap, os, sys; print(os.path.realpath(sys.executable))",
            ])
            .output();
        if let Ok(o) = out {
            let p = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
            if o.status.success() && p.is_file() {
                return Some(p);
            }
        }
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "a Python 3 interpreter (python3) is missing in CI"
    );
    eprintln!("SKIPPED: no Python 3 interpreter (python3 or python) found");
    None
}
