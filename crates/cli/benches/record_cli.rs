//! End-to-end recording cost: the real `gpuledger record` binary, collection included, on the
//! fake NVML with 200 GPU processes and a recorded /proc tree of 200 processes.
//! Run with `cargo bench -p gpuledger --bench record_cli`; prints figures.
//!
//! CPU per sample = (child CPU for N samples − child CPU for 1 sample) / (N − 1), which takes
//! process start-up and database opening out of the per-sample figure.

mod common;
#[path = "../tests/cli/support/mod.rs"]
mod support;

use std::process::Command;
use std::time::Duration;

fn children_cpu() -> Duration {
    let (user, sys) = common::cpu_split(libc::RUSAGE_CHILDREN);
    user + sys
}

fn main() {
    let lib = support::fake_nvml();
    let procs = support::ProcTree::new();
    let mut sc = String::from(
        "device|index=0|name=NVIDIA H200|uuid=GPU-1|total=150754820096|used=90000000000|free=60754820096|gpu=50|mem=20|temp=60|power_mw=400000\n",
    );
    for i in 0..200u32 {
        let pid = 10_000 + i;
        procs.add(
            pid,
            &format!("worker-{i}"),
            1000,
            1_000_000 + i as u64,
            &[
                "/usr/bin/python3",
                "-m",
                "vllm.entrypoints.openai.api_server",
                "--model",
                "/models/m",
                "--api-key",
                "sk-x",
            ],
        );
        sc.push_str(&format!(
            "compute|dev=0|pid={pid}|mem={}\n",
            268_435_456 + i as u64 * 1_048_576
        ));
        if i < 20 {
            sc.push_str(&format!(
                "util|dev=0|pid={pid}|sm={}|mem=10|enc=0|dec=0|ts=100\n",
                i * 3
            ));
        }
    }
    let (_d, sc_path) = support::scenario(&sc);
    let dir = tempfile::tempdir().unwrap();
    // `flush`: `--flush-every`; 0s (the default) commits every sample.
    let run = |n: u64, flush: &str| {
        let db = dir.path().join(format!("b{n}-{flush}.db"));
        let before = children_cpu();
        let out = Command::new(env!("CARGO_BIN_EXE_gpuledger"))
            .arg("--nvml-lib")
            .arg(lib)
            .arg("--proc-root")
            .arg(procs.root())
            .args([
                "record",
                "--interval",
                "50ms",
                "--count",
                &n.to_string(),
                "--flush-every",
                flush,
                "--db",
            ])
            .arg(&db)
            .env("FAKE_NVML_SCENARIO", &sc_path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            children_cpu() - before,
            std::fs::metadata(&db).unwrap().len(),
        )
    };
    let n = 200u64;
    for flush in ["0s", "10s"] {
        let (one, _) = run(1, flush);
        let (many, _) = run(n, flush);
        let per = (many.saturating_sub(one)).as_secs_f64() / (n - 1) as f64;
        println!(
            "gpuledger record --flush-every {flush}, 200 GPU processes, collection + write: {:.3} ms CPU per sample = {:.2} % of one core at 1 s (start-up {:.1} ms CPU)",
            per * 1e3,
            per * 1e3 / 10.0,
            one.as_secs_f64() * 1e3
        );
    }
}
