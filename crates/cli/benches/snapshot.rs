//! Collection cost, printed as figures (run: `cargo bench -p gpuledger --bench snapshot`).
//!
//! Targets from the foundation issue: a warm collection round (NVML with 2 devices and 50
//! processes through the fake library, procfs metadata for them) ≤ 2 ms; the whole
//! `gpuledger snapshot --json` process ≤ 30 ms; its peak RSS ≤ 15 MB.

#[path = "../tests/cli/support/mod.rs"]
mod support;

use gpuledger_sources::{Collector, SourceConfig};
use std::time::{Duration, Instant};

fn scenario_text() -> String {
    let mut s = support::TWO_GPUS
        .lines()
        .take(3)
        .collect::<Vec<_>>()
        .join("\n");
    s.push('\n');
    for i in 0..50u32 {
        let pid = 20_000 + i;
        s.push_str(&format!(
            "compute|dev={}|pid={pid}|mem={}\n",
            i % 2,
            (i as u64 + 1) << 26
        ));
        s.push_str(&format!(
            "util|dev={}|pid={pid}|sm={}|mem=3|enc=0|dec=0|ts={}\n",
            i % 2,
            i % 100,
            i + 1
        ));
    }
    s
}

fn percentile(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

#[allow(clippy::zombie_processes)] // reaped by wait4 below, to read the child's peak RSS
fn main() {
    let lib = support::fake_nvml();
    let tree = support::ProcTree::new();
    for i in 0..50u32 {
        let pid = 20_000 + i;
        tree.add(
            pid,
            "python3",
            1000,
            1000 + pid as u64,
            &["python3", "serve.py", "--api-key", "k", "--port", "8000"],
        );
    }
    let (_d, sc) = support::scenario(&scenario_text());
    std::env::set_var("FAKE_NVML_SCENARIO", &sc);

    let mut c = Collector::new(SourceConfig {
        proc_root: tree.root(),
        sys_root: "/nonexistent".into(),
        nvml_lib: Some(lib.to_path_buf()),
    });
    let first = c.collect();
    assert_eq!(
        first.processes.len(),
        50,
        "bench scenario must yield 50 processes"
    );
    assert_eq!(first.devices.len(), 2);
    for _ in 0..50 {
        c.collect();
    }
    let mut rounds: Vec<Duration> = (0..500)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(c.collect());
            t.elapsed()
        })
        .collect();
    let p50 = percentile(&mut rounds, 0.5);
    let p99 = percentile(&mut rounds, 0.99);
    println!("collection round (2 devices, 50 processes, warm): p50 {p50:?}  p99 {p99:?}  (target <= 2 ms)");

    let exe = env!("CARGO_BIN_EXE_gpuledger");
    let mut walls = Vec::new();
    let mut max_rss_kb = 0i64;
    for _ in 0..30 {
        let t = Instant::now();
        let child = std::process::Command::new(exe)
            .arg("--nvml-lib")
            .arg(lib)
            .arg("--proc-root")
            .arg(tree.root())
            .args(["snapshot", "--json"])
            .env("FAKE_NVML_SCENARIO", &sc)
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("spawn gpuledger");
        let mut status = 0;
        // SAFETY: plain wait4 on our own child; rusage is a valid out-pointer.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut ru) };
        walls.push(t.elapsed());
        assert!(r > 0 && status == 0, "gpuledger snapshot failed");
        max_rss_kb = max_rss_kb.max(ru.ru_maxrss);
    }
    let p50 = percentile(&mut walls, 0.5);
    let p99 = percentile(&mut walls, 0.99);
    println!("`gpuledger snapshot --json` process: p50 {p50:?}  p99 {p99:?}  (target <= 30 ms)");
    println!(
        "peak RSS of `gpuledger snapshot --json`: {:.1} MB  (target <= 15 MB)",
        max_rss_kb as f64 / 1024.0
    );
}
