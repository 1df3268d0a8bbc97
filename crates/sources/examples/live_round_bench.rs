//! Collection cost of a warm live-view round on the real `/proc`: N idle processes (`sleep`)
//! reported by the fake NVML, the collector's rounds repeated as the live view and `record` run
//! them (no identification: the crate that does it sits above this one). Also the cost of
//! reading those processes' `stat` files each way, open + read + close against one `pread` on a
//! descriptor kept open, which is what the round does on a live procfs.
//!
//! Run: `cargo build --release -p fake-nvml && cargo run --release -p gpuledger-sources --example
//! live_round_bench -- [N] [path/to/libfake_nvml.so]` (default 500, target/release/...).

#[cfg(target_os = "linux")]
mod linux {
    use gpuledger_sources::procfs::read::{read_into, read_keeping, reread_into, Records};
    use gpuledger_sources::procfs::MAX_STAT_BYTES;
    use gpuledger_sources::{Collector, SourceConfig};
    use std::path::PathBuf;
    use std::process::{Child, Command, Stdio};
    use std::time::Duration;

    fn cpu() -> (Duration, Duration) {
        // SAFETY: getrusage fills the struct we pass.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        (tv(ru.ru_utime), tv(ru.ru_stime))
    }

    /// The `sleep` children, killed however `main` ends (a failed assert or unwrap included), so
    /// that none is left running for 100,000 s.
    struct Kids(Vec<Child>);

    impl Drop for Kids {
        fn drop(&mut self) {
            for k in &mut self.0 {
                let _ = k.kill();
                let _ = k.wait();
            }
        }
    }

    fn ms(d: Duration, n: u32) -> f64 {
        d.as_secs_f64() * 1e3 / f64::from(n)
    }

    pub fn main() {
        let mut args = std::env::args().skip(1);
        let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(500);
        let lib = args
            .next()
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target/release/libfake_nvml.so"));
        let kids = Kids(
            (0..n)
                .map(|_| {
                    Command::new("sleep")
                        .arg("100000")
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .spawn()
                        .expect("spawn sleep")
                })
                .collect(),
        );
        let dir = std::env::temp_dir().join(format!("live-round-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut sc = String::from("driver|version=550.54.15\n");
        for i in 0..2 {
            sc.push_str(&format!("device|index={i}|name=NVIDIA H200|uuid=GPU-{i}1111111-2222-3333-4444-555555555555|pci=00000000:{:02x}:00.0|total=150754820096|used=40000000000|free=110754820096|reserved=600000000|gpu=37|mem=12|temp=54|power_mw=215000|limit_mw=700000\n", 0x18 + i));
        }
        for (i, k) in kids.0.iter().enumerate() {
            sc.push_str(&format!(
                "compute|dev={}|pid={}|mem={}\n",
                i % 2,
                k.id(),
                256u64 << 20
            ));
        }
        std::fs::write(dir.join("scenario.txt"), sc).unwrap();
        std::env::set_var("FAKE_NVML_SCENARIO", dir.join("scenario.txt"));
        let mut c = Collector::new(SourceConfig {
            nvml_lib: Some(lib),
            ..SourceConfig::default()
        });
        let first = c.collect();
        assert_eq!(
            first.processes.len(),
            n,
            "the fake NVML must report every process"
        );
        c.collect();
        const ROUNDS: u32 = 100;
        let (u0, s0) = cpu();
        for _ in 0..ROUNDS {
            std::hint::black_box(c.collect());
        }
        let (u1, s1) = cpu();
        println!(
        "warm round, {n} processes on the real /proc: {:.3} ms CPU ({:.3} user, {:.3} kernel); /proc reads per process {:.1}",
        ms(u1 - u0 + (s1 - s0), ROUNDS),
        ms(u1 - u0, ROUNDS),
        ms(s1 - s0, ROUNDS),
        c.last_round().reads as f64 / n as f64
    );

        let paths: Vec<PathBuf> = kids
            .0
            .iter()
            .map(|k| PathBuf::from(format!("/proc/{}/stat", k.id())))
            .collect();
        let mut buf = Vec::new();
        let (u0, s0) = cpu();
        for _ in 0..ROUNDS {
            for p in &paths {
                read_into(p, &mut buf, MAX_STAT_BYTES, Records::One).unwrap();
            }
        }
        let (u1, s1) = cpu();
        let fds: Vec<_> = paths
            .iter()
            .map(|p| read_keeping(p, &mut buf, MAX_STAT_BYTES).unwrap())
            .collect();
        let (u2, s2) = cpu();
        for _ in 0..ROUNDS {
            for fd in &fds {
                reread_into(fd, &mut buf, MAX_STAT_BYTES).unwrap();
            }
        }
        let (u3, s3) = cpu();
        println!(
        "{n} stat files per round: open+read+close {:.3} ms CPU, pread on a kept descriptor {:.3} ms",
        ms(u1 - u0 + (s1 - s0), ROUNDS),
        ms(u3 - u2 + (s3 - s2), ROUNDS)
    );
        drop(kids);
        let _ = std::fs::remove_dir_all(dir);
    }
}

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    eprintln!("live_round_bench reads the live /proc: Linux only");
}
