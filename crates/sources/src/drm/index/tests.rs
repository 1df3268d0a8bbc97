use super::*;
use std::fs;
use std::os::unix::fs::symlink;

#[test]
fn classify_targets() {
    assert_eq!(
        classify(b"/dev/dri/renderD128"),
        Some(FdKind::Drm("renderD128".into()))
    );
    assert_eq!(
        classify(b"/dev/dri/card1"),
        Some(FdKind::Drm("card1".into()))
    );
    assert_eq!(
        classify(b"/dev/accel/accel0"),
        Some(FdKind::Drm("accel0".into()))
    );
    assert_eq!(classify(b"/dev/kfd"), Some(FdKind::Kfd));
    assert_eq!(classify(b"/dev/dxg"), Some(FdKind::Dxg));
    assert_eq!(classify(b"/dev/dri/by-path"), None);
    assert_eq!(classify(b"/dev/dri/card"), None);
    assert_eq!(classify(b"socket:[1234]"), None);
    assert_eq!(classify(b"/dev/nvidia0"), None);
}

#[test]
fn build_then_refresh_scans_only_changes() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    let mk = |pid: u32, links: &[(u32, &str)]| {
        let d = root.join(pid.to_string()).join("fd");
        fs::create_dir_all(&d).unwrap();
        for (fd, target) in links {
            symlink(target, d.join(fd.to_string())).unwrap();
        }
    };
    mk(
        10,
        &[
            (0, "/dev/null"),
            (5, "/dev/dri/renderD128"),
            (6, "/dev/kfd"),
        ],
    );
    mk(20, &[(3, "socket:[99]")]);
    mk(30, &[(4, "/dev/dri/card0"), (7, "/dev/dri/renderD128")]);
    fs::create_dir_all(root.join("self")).unwrap();
    let mut idx = FdIndex::build(root).unwrap();
    assert_eq!(idx.entries.len(), 2);
    assert_eq!(idx.entries[&10].drm_fds, [(5, "renderD128".to_string())]);
    assert!(idx.entries[&10].kfd);
    assert_eq!(idx.drm_fd_count(), 3);
    assert_eq!(idx.descriptors_seen, 6);

    fs::remove_dir_all(root.join("30")).unwrap();
    mk(25, &[(9, "/dev/dri/renderD129")]);
    assert_eq!(idx.refresh(root).unwrap(), (1, 1));
    assert!(!idx.entries.contains_key(&30));
    assert_eq!(idx.entries[&25].drm_fds, [(9, "renderD129".to_string())]);
    assert_eq!(idx.refresh(root).unwrap(), (0, 0));
    idx.drop_fd(25, 9);
    assert!(!idx.entries.contains_key(&25));
}

#[test]
fn an_index_of_some_pids_walks_only_those_and_follows_the_list() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    let mk = |pid: u32, target: &str| {
        let d = root.join(pid.to_string()).join("fd");
        fs::create_dir_all(&d).unwrap();
        symlink(target, d.join("5")).unwrap();
    };
    mk(10, "/dev/dri/renderD128");
    mk(20, "/dev/dri/card0");
    mk(30, "/dev/kfd");
    let procs = crate::procfs::ProcReader::new(root);
    procs.begin_round();
    let mut idx = FdIndex::of_pids(&procs, &[30, 10, 10], 0);
    assert_eq!(idx.entries.keys().copied().collect::<Vec<_>>(), [10, 30]);
    assert_eq!(idx.descriptors_seen, 2, "pid 20 is not walked");
    assert_eq!(procs.end_round().reads, 2);
    procs.begin_round();
    let second = 1_000_000_000;
    assert_eq!(idx.refresh_pids(&procs, &[20, 10], second), (1, 1));
    assert_eq!(idx.entries.keys().copied().collect::<Vec<_>>(), [10, 20]);
    assert_eq!(procs.end_round().reads, 1, "only the new pid is walked");

    // A known process closes its DRM node and opens another device's: seen at its rescan, not
    // before, and never all processes in one round.
    fs::remove_file(root.join("10/fd/5")).unwrap();
    symlink("/dev/dri/renderD129", root.join("10/fd/6")).unwrap();
    procs.begin_round();
    idx.refresh_pids(&procs, &[20, 10], 2 * second);
    assert_eq!(procs.end_round().reads, 0, "nothing is due after a second");
    assert_eq!(idx.entries[&10].drm_fds, [(5, "renderD128".to_string())]);
    let late = super::RESCAN.as_nanos() as u64 + 2 * second;
    procs.begin_round();
    idx.refresh_pids(&procs, &[20, 10], late);
    assert_eq!(procs.end_round().reads, 2, "both are due after RESCAN");
    assert_eq!(idx.entries[&10].drm_fds, [(6, "renderD129".to_string())]);
    assert_eq!(
        idx.descriptors_seen, 3,
        "a rescan adds nothing to the first scans' count"
    );
}

#[test]
fn known_processes_are_walked_again_spread_over_time() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    let pids: Vec<u32> = (1000..1200).collect();
    for &pid in &pids {
        let d = root.join(pid.to_string()).join("fd");
        fs::create_dir_all(&d).unwrap();
        symlink("/dev/dri/renderD128", d.join("5")).unwrap();
    }
    let procs = crate::procfs::ProcReader::new(root);
    procs.begin_round();
    let mut idx = FdIndex::of_pids(&procs, &pids, 0);
    procs.end_round();
    // One round a second for a RESCAN period: every process walked once, at most a tenth of
    // them in any one round.
    let (mut total, mut most) = (0, 0);
    for s in 1..=super::RESCAN.as_secs() {
        procs.begin_round();
        idx.refresh_pids(&procs, &pids, s * 1_000_000_000);
        let n = procs.end_round().reads;
        total += n;
        most = most.max(n);
    }
    assert_eq!(total, pids.len());
    assert!(most <= pids.len() / 10, "{most} in one round");
}
