//! DRM source cost on a generated procfs tree: 2,000 processes, 20,000 descriptors, 200 DRM
//! clients (targets: warm round ≤ 5 ms, index rebuild ≤ 50 ms). Prints figures; asserts nothing.
//!
//! `cargo bench -p gpuledger-sources --bench drm_index`

fn main() {
    #[cfg(unix)]
    bench::main();
    #[cfg(not(unix))]
    eprintln!("drm_index: needs a Unix file system (the generated tree uses symlinks)");
}

#[cfg(unix)]
mod bench {
    use gpuledger_model::Snapshot;
    use gpuledger_sources::drm::index::FdIndex;
    use gpuledger_sources::drm::DrmSource;
    use std::collections::HashSet;
    use std::fs;
    use std::os::unix::fs::symlink;
    use std::path::Path;
    use std::time::{Duration, Instant};

    const PROCS: u32 = 2_000;
    const FDS_PER_PROC: u32 = 10;
    const DRM_CLIENTS: u32 = 200;

    fn fdinfo(client: u32) -> String {
        format!(
        "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1105\ndrm-driver:\tamdgpu\ndrm-client-id:\t{client}\ndrm-pdev:\t0000:03:00.0\npasid:\t{}\n\
drm-total-vram:\t{client} MiB\ndrm-shared-vram:\t0\ndrm-resident-vram:\t{client} MiB\ndrm-purgeable-vram:\t0\n\
drm-total-gtt:\t64 MiB\ndrm-shared-gtt:\t0\ndrm-resident-gtt:\t64 MiB\ndrm-purgeable-gtt:\t0\n\
drm-total-cpu:\t0\ndrm-shared-cpu:\t0\ndrm-resident-cpu:\t0\ndrm-purgeable-cpu:\t0\n\
drm-memory-vram:\t{} KiB\ndrm-memory-gtt: \t65536 KiB\ndrm-memory-cpu: \t0 KiB\n\
amd-evicted-vram:\t0 KiB\namd-requested-vram:\t{} KiB\namd-requested-gtt:\t65536 KiB\n\
drm-engine-gfx:\t{} ns\ndrm-engine-compute:\t1000 ns\n",
        32768 + client,
        client * 1024,
        client * 1024,
        client as u64 * 1_000_000
    )
    }

    fn generate(root: &Path) {
        let proc_ = root.join("proc");
        for pid in 1..=PROCS {
            let d = proc_.join(pid.to_string());
            fs::create_dir_all(d.join("fd")).unwrap();
            // Every tenth process holds a DRM client (200 in all) on its last descriptor.
            let drm = pid % (PROCS / DRM_CLIENTS) == 0;
            for fd in 0..FDS_PER_PROC {
                let target = if drm && fd == FDS_PER_PROC - 1 {
                    "/dev/dri/renderD128".to_string()
                } else if fd < 3 {
                    "/dev/pts/0".to_string()
                } else {
                    format!("socket:[{}]", pid * 100 + fd)
                };
                symlink(target, d.join("fd").join(fd.to_string())).unwrap();
            }
            if drm {
                fs::create_dir_all(d.join("fdinfo")).unwrap();
                fs::write(
                    d.join("fdinfo").join((FDS_PER_PROC - 1).to_string()),
                    fdinfo(pid),
                )
                .unwrap();
            }
            fs::write(d.join("cgroup"), "0::/user.slice\n").unwrap();
        }
        let dev = root.join("sys/class/drm/card0/device");
        fs::create_dir_all(&dev).unwrap();
        fs::create_dir_all(root.join("sys/class/drm/renderD128/device")).unwrap();
        let uevent = "DRIVER=amdgpu\nPCI_ID=1002:744C\nPCI_SLOT_NAME=0000:03:00.0\n";
        fs::write(dev.join("uevent"), uevent).unwrap();
        fs::write(root.join("sys/class/drm/renderD128/device/uevent"), uevent).unwrap();
        for (f, v) in [
            ("mem_info_vram_total", "25753026560"),
            ("mem_info_vram_used", "21474836480"),
            ("mem_info_gtt_total", "17179869184"),
            ("mem_info_gtt_used", "13958643712"),
            ("gpu_busy_percent", "50"),
            ("mem_busy_percent", "10"),
        ] {
            fs::write(dev.join(f), format!("{v}\n")).unwrap();
        }
        fs::create_dir_all(dev.join("power")).unwrap();
        fs::write(dev.join("power/runtime_status"), "active\n").unwrap();
    }

    /// CPU time (user + system, all threads) this process has used so far.
    fn cpu_time() -> Duration {
        // SAFETY: getrusage fills the struct we pass.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        tv(u.ru_utime) + tv(u.ru_stime)
    }

    /// Time `n` runs of `f`: wall-clock figures per run, and CPU time per run. On a shared machine
    /// the wall clock includes waiting for a core; CPU time is what the work itself costs.
    fn measure(name: &str, n: usize, target_ms: f64, mut f: impl FnMut()) {
        let mut v = Vec::with_capacity(n);
        let c0 = cpu_time();
        for _ in 0..n {
            let t = Instant::now();
            f();
            v.push(t.elapsed());
        }
        let cpu = (cpu_time() - c0).as_secs_f64() * 1000.0 / n as f64;
        stats(name, v, target_ms);
        println!(
            "{:<28} cpu    {cpu:>8.3} ms per run (user + system, all threads)",
            ""
        );
    }

    fn stats(name: &str, mut v: Vec<Duration>, target_ms: f64) {
        v.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let median = ms(v[v.len() / 2]);
        let p90 = ms(v[v.len() * 9 / 10]);
        println!(
        "{name:<28} median {median:>8.3} ms  p90 {p90:>8.3} ms  min {:>8.3} ms  max {:>8.3} ms  (target ≤ {target_ms} ms: {})",
        ms(v[0]),
        ms(v[v.len() - 1]),
        if median <= target_ms { "met" } else { "MISSED" }
    );
    }

    pub fn main() {
        let dir = tempfile::tempdir().unwrap();
        let t = Instant::now();
        generate(dir.path());
        println!(
        "generated {PROCS} processes, {} descriptors, {DRM_CLIENTS} DRM clients in {:.0} ms under {}",
        PROCS * FDS_PER_PROC,
        t.elapsed().as_secs_f64() * 1000.0,
        dir.path().display()
    );
        let proc_ = dir.path().join("proc");
        let sys = dir.path().join("sys");

        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        measure("index rebuild (1 thread)", 30, 50.0, || {
            let idx = FdIndex::build_with_threads(&proc_, 1).unwrap();
            assert_eq!(idx.drm_fd_count(), DRM_CLIENTS as usize);
            assert_eq!(idx.descriptors_seen, (PROCS * FDS_PER_PROC) as usize);
        });
        measure(
            &format!("index rebuild ({} threads)", threads.min(4)),
            30,
            50.0,
            || {
                let idx = FdIndex::build(&proc_).unwrap();
                assert_eq!(idx.drm_fd_count(), DRM_CLIENTS as usize);
            },
        );

        let mut src = DrmSource::new(&proc_, &sys);
        src.rebuild_every_ns = u64::MAX;
        let none = HashSet::new();
        let mut snap = Snapshot::new("t".into(), Default::default());
        src.collect(&mut snap, 0, &none);
        assert_eq!(src.stats.clients, DRM_CLIENTS as usize);
        let mut i = 0u64;
        measure("warm round (drm + sysfs)", 200, 5.0, || {
            i += 1;
            let mut snap = Snapshot::new("t".into(), Default::default());
            src.collect(&mut snap, i * 1_000_000_000, &none);
            assert!(!src.stats.rebuilt);
            assert_eq!(snap.processes.len(), DRM_CLIENTS as usize);
        });

        // For comparison: the same on this machine's live /proc (whatever runs here).
        if Path::new("/proc/self").exists() {
            let mut live = Vec::new();
            let mut n = 0;
            for _ in 0..10 {
                let t = Instant::now();
                let idx = FdIndex::build(Path::new("/proc")).unwrap();
                live.push(t.elapsed());
                n = idx.descriptors_seen;
            }
            live.sort();
            println!(
                "live /proc index rebuild     median {:>8.3} ms over {n} readable descriptors",
                live[live.len() / 2].as_secs_f64() * 1000.0
            );
        }
    }
}
