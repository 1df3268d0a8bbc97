//! The snapshot's notes and reasons got message keys (`gpuledger_lang::Said`): their English,
//! which JSON, CSV and recordings carry, must be what the `format!` they replaced wrote, word
//! for word, in each plural form; and a view gets them in Chinese.

use gpuledger_lang::{Lang, Said};

fn said(key: &'static str, args: Vec<(&'static str, gpuledger_lang::said::Arg)>) -> Said {
    Said::new(key, args)
}

#[test]
fn notes_english_as_before() {
    let cases: Vec<(Said, &str)> = vec![
        (
            said("report-note-pods-by-uid", vec![("count", 1.into()), ("why", "x".into())]),
            "1 GPU process in Kubernetes pods shown by pod UID: x",
        ),
        (
            said("report-note-pods-by-uid", vec![("count", 3.into()), ("why", "x".into())]),
            "3 GPU processes in Kubernetes pods shown by pod UID: x",
        ),
        (
            said("report-note-pid-namespace", vec![("why", "docker".into())]),
            "gpuledger runs inside a PID namespace (a container: docker); NVML reports host PIDs, which do not match the PIDs visible here, so NVML processes may show without names or as the wrong process; run with the host's PID namespace (docker --pid=host) to match them",
        ),
        (
            said(
                "report-note-proc-unreadable",
                vec![("count", 1.into()), ("first", "f".into())],
            ),
            "1 GPU process has a /proc entry that could not be read: f",
        ),
        (
            said(
                "report-note-proc-unreadable",
                vec![("count", 2.into()), ("first", "f".into())],
            ),
            "2 GPU processes have a /proc entry that could not be read: f (and others)",
        ),
        (
            said("report-note-proc-unseen", vec![("count", 1.into()), ("root", "/proc".into())]),
            "1 GPU process is not visible in /proc (exited during the round, or in another PID namespace)",
        ),
        (
            said("report-note-proc-unseen", vec![("count", 2.into()), ("root", "/proc".into())]),
            "2 GPU processes are not visible in /proc (exited during the round, or in another PID namespace)",
        ),
        (
            said("report-note-wsl2", vec![]),
            "running under WSL2: NVML gives device totals, but the platform does not expose per-process GPU memory (Windows manages it); PIDs NVML lists may belong to the Windows host",
        ),
        (
            said("report-note-no-gpu", vec![]),
            "no GPU found by any source (see `gpuledger selftest`)",
        ),
        (
            said(
                "report-note-doubted-owners",
                vec![("count", 1.into()), ("pids", "42".into())],
            ),
            "1 GPU process (PID 42) in a pod- or job-shaped cgroup outside the kubelet's and slurmd's cgroup roots, shown as the user or unit it sits in, not as a pod or job: see `explain PID`",
        ),
        (
            said(
                "report-note-doubted-owners",
                vec![("count", 9.into()), ("pids", "1, 2, …".into())],
            ),
            "9 GPU processes (PID 1, 2, …) in a pod- or job-shaped cgroup outside the kubelet's and slurmd's cgroup roots, shown as the user or unit it sits in, not as a pod or job: see `explain PID`",
        ),
        (
            said(
                "report-note-drm-dedupe",
                vec![
                    ("rule", said("report-note-drm-dedupe-rule", vec![]).into()),
                    ("dup", 1.into()),
                    ("shared", 0.into()),
                ],
            ),
            "DRM clients de-duplicated by (drm-pdev, drm-client-id): a client open on several descriptors counts once; a client shared by several processes is charged to one holder (PID 1 and systemd descriptor holders last, then the lowest PID) and shown as 0 with a note on the others (1 client on several descriptors of one process, 0 shared between processes)",
        ),
        (
            said("report-note-kfd-without-drm", vec![("count", 1.into())]),
            "1 process has /dev/kfd (ROCm) open but no DRM node: its GPU memory cannot be attributed",
        ),
        (
            said("report-note-kfd-without-drm", vec![("count", 2.into())]),
            "2 processes have /dev/kfd (ROCm) open but no DRM node: their GPU memory cannot be attributed",
        ),
        (
            said(
                "report-note-fdinfo-line",
                vec![
                    ("path", "/proc/9/fdinfo/4".into()),
                    ("line", "3".into()),
                    ("text", format!("{:?}", "drm-memory-vram: x").into()),
                    ("why", "bad".into()),
                ],
            ),
            "/proc/9/fdinfo/4 line 3: \"drm-memory-vram: x\": bad",
        ),
        (
            said("report-note-fdinfo-more", vec![("count", 7.into())]),
            "7 more malformed fdinfo lines not listed",
        ),
    ];
    for (s, english) in cases {
        assert_eq!(s.as_str(), english, "{:?}", s.key());
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            serde_json::to_string(english).unwrap()
        );
        assert_ne!(
            s.in_lang(Lang::ZhCn),
            english,
            "{:?} has no Chinese",
            s.key()
        );
    }
}

#[test]
fn reasons_english_as_before() {
    let path = || ("path", "/proc/9/fdinfo/4".into());
    let cases: Vec<(Said, &str)> = vec![
        (
            said("report-why-drm-no-memory-keys", vec![("driver", "i915".into())]),
            "i915 prints no memory keys in fdinfo on this kernel",
        ),
        (
            said("report-why-drm-no-memory-keys-unnamed", vec![]),
            "the driver prints no memory keys in fdinfo on this kernel",
        ),
        (
            said(
                "report-why-drm-line-malformed",
                vec![path(), ("line", "5".into()), ("region", "vram".into())],
            ),
            "/proc/9/fdinfo/4 line 5 is malformed, so the vram figure is unknown",
        ),
        (
            said("report-why-drm-malformed", vec![path(), ("region", "gtt".into())]),
            "/proc/9/fdinfo/4 is malformed, so the gtt figure is unknown",
        ),
        (
            said("report-why-engines-kfd", vec![]),
            "ROCm compute (/dev/kfd open): the amdkfd driver does not report engine time in fdinfo, so GPU % is unknown, not 0 %",
        ),
        (
            said("report-why-engines-shared", vec![]),
            "engine time is charged to the process that holds the shared client",
        ),
        (
            said("report-why-engines-first", vec![]),
            "first sample of this DRM client: engine use is a rate and needs a second round",
        ),
        (
            said("report-why-nvml-wddm", vec![]),
            "NVML reports per-process memory as not available under WDDM (Windows manages video memory)",
        ),
        (
            said("report-why-nvml-not-available", vec![]),
            "NVML reports this process's memory as not available (MIG without privileges, or not tracked by the driver)",
        ),
        (
            said(
                "report-why-wddm-no-instance",
                vec![("counter", "\\GPU Process Memory(*)\\Local Usage".into())],
            ),
            "no \\GPU Process Memory(*)\\Local Usage instance for this process",
        ),
        (
            said("report-why-wddm-counter-invalid", vec![("counter", "c".into())]),
            "c: counter status not valid",
        ),
        (
            said("report-why-wddm-new-instance", vec![]),
            "no earlier WDDM reading of this process's engines (new since the last round)",
        ),
        (
            said("report-why-wddm-no-engine", vec![]),
            "no GPU Engine instance for this process",
        ),
    ];
    for (s, english) in cases {
        assert_eq!(s.as_str(), english, "{:?}", s.key());
        assert_ne!(
            s.in_lang(Lang::ZhCn),
            english,
            "{:?} has no Chinese",
            s.key()
        );
    }
}

#[test]
fn a_note_in_chinese() {
    let s = said(
        "report-note-proc-unseen",
        vec![("count", 2.into()), ("root", "/proc".into())],
    );
    assert_eq!(
        s.in_lang(Lang::ZhCn),
        "2 个 GPU 进程在 /proc 中不可见（在本轮采集期间已退出，或在另一个 PID 命名空间中）"
    );
    assert_eq!(
        s.in_lang(Lang::ZhTw),
        "2 個 GPU 處理程序在 /proc 中看不到（在本輪收集期間已結束，或在另一個 PID 命名空間中）"
    );
}

/// The DRM round's finding: the English `format!` wrote, with and without the optional parts.
#[test]
fn drm_round_english_as_before() {
    use gpuledger_lang::said::Arg;
    let round = |devices: usize,
                 clients: usize,
                 sysfs: Said,
                 read: usize,
                 procs: &str,
                 entries: usize,
                 remarks: Said| {
        said(
            "report-src-drm-round",
            vec![
                ("devices", devices.into()),
                ("names", "card0, card1".into()),
                ("clients", clients.into()),
                ("sysfs", sysfs.into()),
                ("read", read.into()),
                ("procs", procs.into()),
                ("entries", entries.into()),
                ("remarks", remarks.into()),
            ],
        )
    };
    let none = || Said::verbatim("");
    assert_eq!(
        round(1, 1, none(), 1, "1", 1, none()).as_str(),
        "1 DRM device (card0, card1), 1 client on 1 descriptor in 1 process; de-duplicated by (drm-pdev, drm-client-id)"
    );
    let sysfs = said("report-src-drm-no-sysfs", vec![("error", "EACCES".into())]);
    let remarks = said(
        "report-src-drm-remarks",
        vec![(
            "items",
            Arg::List(vec![
                said("report-src-drm-vanished", vec![("count", 2.into())]),
                said("report-src-drm-skipped-nvml", vec![("count", 1.into())]),
                said("report-src-drm-unreadable-procs", vec![("count", 3.into())]),
                said("report-src-drm-dxg", vec![("count", 1.into())]),
            ]),
        )],
    );
    let s = round(2, 0, sysfs, 5, "2", 3, remarks);
    assert_eq!(
        s.as_str(),
        "2 DRM devices (card0, card1), 0 clients; no sysfs device data: EACCES on 5 descriptors in 2 processes; de-duplicated by (drm-pdev, drm-client-id); 2 descriptors closed during the round; 1 client on NVIDIA devices skipped (NVML reports them); descriptors of 3 processes not readable (permission denied; other users' GPU use needs root); 1 process with /dev/dxg open (WSL2 GPU paravirtualisation: measured by the dxg source, not by fdinfo)"
    );
    assert_eq!(
        s.in_lang(Lang::ZhCn),
        "2 个 DRM 设备（card0, card1），0 个客户端；没有 sysfs 设备数据：EACCES，分布在 2 个进程的 5 个文件描述符上；已按 (drm-pdev, drm-client-id) 去重；2 个文件描述符在本轮中被关闭；已跳过 NVIDIA 设备上的 1 个客户端（由 NVML 报告）；3 个进程的文件描述符无法读取（权限不足；要看到其他用户的 GPU 使用需要 root）；1 个进程打开了 /dev/dxg（WSL2 GPU 半虚拟化：由 dxg 数据源测量，而不是 fdinfo）"
    );
}
