//! End-to-end recording cost: the real `gpuledger record` binary, collection included, on the
//! fake NVML with 200 GPU processes: a recorded /proc tree of 200 processes, then 200 real idle
//! processes on the live /proc (what `record` meets on a host).
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
    // `root`: a recorded tree, or None for the real /proc; `sc_path`: the scenario.
    let run = |n: u64, flush: &str, root: Option<&std::path::Path>, sc_path: &std::path::Path| {
        let db = dir
            .path()
            .join(format!("b{n}-{flush}-{}.db", root.is_some()));
        let before = children_cpu();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpuledger"));
        cmd.arg("--nvml-lib").arg(lib);
        if let Some(root) = root {
            cmd.arg("--proc-root").arg(root);
        }
        let out = cmd
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
            .env("FAKE_NVML_SCENARIO", sc_path)
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
    let per_sample = |root: Option<&std::path::Path>, sc: &std::path::Path, flush: &str| {
        let (one, _) = run(1, flush, root, sc);
        let (many, _) = run(n, flush, root, sc);
        (
            (many.saturating_sub(one)).as_secs_f64() / (n - 1) as f64,
            one,
        )
    };
    for flush in ["0s", "10s"] {
        let (per, one) = per_sample(Some(&procs.root()), &sc_path, flush);
        println!(
            "gpuledger record --flush-every {flush}, 200 GPU processes (recorded tree, vLLM command lines; stat opened by path each sample), collection + write: {:.3} ms CPU per sample = {:.2} % of one core at 1 s (start-up {:.1} ms CPU)",
            per * 1e3,
            per * 1e3 / 10.0,
            one.as_secs_f64() * 1e3
        );
    }
    // The real /proc: 200 idle processes, watched between samples as `record` runs on a host.
    let kids = common::Sleepers::start(200);
    let (_d2, live_sc) = support::scenario(&common::scenario_for(&kids.pids()));
    for flush in ["0s", "10s"] {
        let (per, one) = per_sample(None, &live_sc, flush);
        println!(
            "gpuledger record --flush-every {flush}, 200 GPU processes on the real /proc (idle `sleep`s), collection + write: {:.3} ms CPU per sample (target <= 1 ms; start-up {:.1} ms CPU)",
            per * 1e3,
            one.as_secs_f64() * 1e3
        );
    }
}
