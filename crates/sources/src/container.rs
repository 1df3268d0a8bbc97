//! Containers: which container a process runs in (from its cgroup path), and whether gpuledger
//! itself runs inside a PID namespace (where NVML's host PIDs do not match the PIDs it can see).

use std::fs;
use std::path::Path;

/// Container id from the text of `/proc/<pid>/cgroup`, as `<runtime>://<64-hex id>`.
///
/// Recognised path shapes (cgroup v1 and v2, systemd and cgroupfs drivers):
/// `/docker/<id>`, `docker-<id>.scope`, `libpod-<id>.scope` (podman; `libpod-conmon-` is the
/// monitor, not the container), `cri-containerd-<id>.scope`, `crio-<id>.scope`,
/// `/kubepods/.../pod<uid>/<id>` (runtime not named: `kubepods://`).
pub fn container_id(cgroup: &str) -> Option<String> {
    // v2 has one line (`0::/path`); in v1 any hierarchy names the same container. Prefer the
    // unified line, then the first line that yields an id.
    let mut lines: Vec<&str> = cgroup.lines().collect();
    lines.sort_by_key(|l| !l.starts_with("0::"));
    lines.into_iter().find_map(|l| {
        let path = l.splitn(3, ':').nth(2)?;
        from_path(path)
    })
}

fn from_path(path: &str) -> Option<String> {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let kube = segs.iter().any(|s| s.starts_with("kubepods"));
    // The innermost segment that names a container wins (podman nests `.../libpod-<id>.scope/container`).
    for seg in segs.iter().rev() {
        let stem = seg.strip_suffix(".scope").unwrap_or(seg);
        for (prefix, runtime) in [
            ("docker-", "docker"),
            ("libpod-", "podman"),
            ("cri-containerd-", "containerd"),
            ("crio-", "cri-o"),
        ] {
            if let Some(id) = stem.strip_prefix(prefix) {
                if is_id(id) {
                    return Some(format!("{runtime}://{id}"));
                }
            }
        }
        if is_id(seg) {
            let runtime = if kube {
                "kubepods"
            } else if segs.first() == Some(&"docker") {
                "docker"
            } else {
                continue;
            };
            return Some(format!("{runtime}://{seg}"));
        }
    }
    None
}

fn is_id(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

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

    const ID: &str = "3f4e2a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f";

    #[test]
    fn runtimes() {
        let cases = [
            (format!("0::/system.slice/docker-{ID}.scope\n"), "docker"),
            (format!("12:memory:/docker/{ID}\n11:cpu:/docker/{ID}\n"), "docker"),
            (format!("0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-{ID}.scope/container\n"), "podman"),
            (format!("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c.slice/cri-containerd-{ID}.scope\n"), "containerd"),
            (format!("0::/kubepods.slice/kubepods-pod1b2c.slice/crio-{ID}.scope\n"), "cri-o"),
            (format!("4:devices:/kubepods/burstable/pod0f1e2d3c-aaaa-bbbb-cccc-111122223333/{ID}\n"), "kubepods"),
        ];
        for (text, rt) in cases {
            assert_eq!(container_id(&text), Some(format!("{rt}://{ID}")), "{text}");
        }
    }

    #[test]
    fn not_containers() {
        assert_eq!(
            container_id("0::/user.slice/user-1000.slice/session-2.scope\n"),
            None
        );
        assert_eq!(container_id("0::/\n"), None);
        // podman's monitor process is not the container.
        assert_eq!(
            container_id(&format!("0::/machine.slice/libpod-conmon-{ID}.scope\n")),
            None
        );
        assert_eq!(container_id("garbage"), None);
    }

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

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,300}") {
            let _ = container_id(&s);
        }
    }
}
