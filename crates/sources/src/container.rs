//! Whether gpuledger itself runs inside a PID namespace (where NVML's host PIDs do not match the
//! PIDs it can see). Which container, pod or job a process runs in is its owner
//! ([`crate::owner`]).

use std::fs;
use std::path::Path;

/// `readlink /proc/self/ns/pid` on the host's initial PID namespace: the kernel's fixed
/// `PROC_PID_INIT_INO` (0xEFFFFFFC).
pub const INIT_PID_NS: &str = "pid:[4026531836]";

/// Is gpuledger in a PID namespace other than the host's? `Some(evidence)` when it is, `None`
/// when every check says host (or nothing could be read). `proc_root` is `/proc` live.
pub fn own_pid_namespace(proc_root: &Path) -> Option<String> {
    let link = |p: &str| {
        fs::read_link(proc_root.join(p))
            .ok()
            .map(|t| t.to_string_lossy().into_owned())
    };
    let own = link("self/ns/pid");
    if let Some(ns) = own.as_deref() {
        if ns != INIT_PID_NS && ns.starts_with("pid:[") {
            return Some(format!(
                "/proc/self/ns/pid is {ns}, not the host's initial namespace {INIT_PID_NS}"
            ));
        }
    }
    if let (Some(a), Some(b)) = (own.as_deref(), link("1/ns/pid").as_deref()) {
        if a != b {
            return Some(format!(
                "/proc/self/ns/pid ({a}) differs from /proc/1/ns/pid ({b})"
            ));
        }
    }
    if let Ok(status) = fs::read_to_string(proc_root.join("self/status")) {
        if let Some(ns) = status.lines().find_map(|l| l.strip_prefix("NSpid:")) {
            if ns.split_whitespace().count() > 1 {
                return Some(format!(
                    "/proc/self/status NSpid:{ns} lists several namespaces"
                ));
            }
        }
    }
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn pid_namespace_detection() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        fs::create_dir_all(root.join("self/ns")).unwrap();
        fs::create_dir_all(root.join("1/ns")).unwrap();
        std::os::unix::fs::symlink(INIT_PID_NS, root.join("self/ns/pid")).unwrap();
        std::os::unix::fs::symlink(INIT_PID_NS, root.join("1/ns/pid")).unwrap();
        fs::write(root.join("self/status"), "Name:\tgpuledger\nNSpid:\t4242\n").unwrap();
        assert_eq!(own_pid_namespace(root), None);

        fs::write(root.join("self/status"), "NSpid:\t81234\t17\n").unwrap();
        assert!(own_pid_namespace(root).unwrap().contains("NSpid"));

        fs::remove_file(root.join("self/ns/pid")).unwrap();
        std::os::unix::fs::symlink("pid:[4026532761]", root.join("self/ns/pid")).unwrap();
        let why = own_pid_namespace(root).unwrap();
        assert!(why.contains("4026532761"), "{why}");
    }
}
