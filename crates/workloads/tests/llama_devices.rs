//! The recipe over several devices against the real thing: two or three `ggml-rpc-server`s on
//! 127.0.0.1 (each a CPU backend served as an RPC device, built from the same llama.cpp source as
//! llama-server by `.ci/setup-llama.sh`) and the real llama-server with `--rpc` and `-ts`, `-sm`,
//! `-mg`, `-ngl`, `-ot`, `--cpu-moe`, `--n-cpu-moe`, `-nkvo`. Every device's `model buffer size`,
//! `KV buffer size` and `compute buffer size` line is compared with the estimate's share for that device: weights and
//! KV cache to the printed 0.01 MiB, compute within 10 % (and counted where exact), the host's
//! buffers as in the one-device test, and whether llama.cpp chose pipeline parallelism.

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;

use gpuledger_workloads::estimate::{estimate, Backend, Setting};
use gpuledger_workloads::gguf::GgufModel;
use gpuledger_workloads::llama_log::{parse_llama_log, BufferKind, BufferLine, LlamaLog};
use gpuledger_workloads::{Estimate, LlamaSettings};

#[path = "../../../testing/llama_tools.rs"]
mod llama_tools;
use llama_tools::{run_until_loaded, server_build, start_rpc, LlamaTools};

const MIB: f64 = 1024.0 * 1024.0;

struct Case {
    model: &'static str,
    devices: usize,
    args: &'static [&'static str],
}

const CASES: &[Case] = &[
    // Whole model over two devices, 3:1: pipeline parallelism (4 copies of every input).
    Case {
        model: "llama-deep",
        devices: 2,
        args: &["-ngl", "99", "-ts", "3,1"],
    },
    Case {
        model: "llama-deep",
        devices: 3,
        args: &["-ngl", "99", "-ts", "1,1,1"],
    },
    // No -ts: split by free memory (the same machine's for both servers: about even).
    Case {
        model: "llama-deep",
        devices: 2,
        args: &["-ngl", "99"],
    },
    // Partial offload: the first layers on the host, no pipeline parallelism.
    Case {
        model: "llama-deep",
        devices: 2,
        args: &["-ngl", "5", "-ts", "1,1"],
    },
    // -sm none: only --main-gpu's device.
    Case {
        model: "llama-deep",
        devices: 2,
        args: &["-ngl", "99", "-sm", "none", "-mg", "1"],
    },
    // KV cache on the host: no pipeline parallelism.
    Case {
        model: "llama-deep",
        devices: 2,
        args: &["-ngl", "99", "-ts", "1,3", "-nkvo"],
    },
    // Sliding-window layers over three devices.
    Case {
        model: "gemma3-deep",
        devices: 3,
        args: &["-ngl", "99", "-ts", "2,1,1"],
    },
    // Mixture of experts, whole, and with the experts of the first layers on the host (an
    // override: no pipeline parallelism).
    Case {
        model: "qwen3moe-deep",
        devices: 2,
        args: &["-ngl", "99", "-ts", "1,1"],
    },
    Case {
        model: "qwen3moe-deep",
        devices: 2,
        args: &["-ngl", "99", "-ts", "1,1", "--n-cpu-moe", "2"],
    },
    Case {
        model: "qwen3moe-deep",
        devices: 2,
        args: &["-ngl", "99", "-ts", "2,1", "--cpu-moe"],
    },
    Case {
        model: "qwen3moe-deep",
        devices: 3,
        args: &[
            "-ngl",
            "99",
            "-ts",
            "1,1,1",
            "-ot",
            r"blk\.[0-2]\.ffn_.*_exps=CPU",
        ],
    },
];

fn gen_models(t: &LlamaTools) -> PathBuf {
    t.gen_models(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("llama-device-models"),
        &["llama-deep", "gemma3-deep", "qwen3moe-deep"],
    )
}

/// The device a buffer line is on: `RPC0[127.0.0.1:PORT]` names its server.
fn device_of(b: &BufferLine, endpoints: &[String]) -> Option<usize> {
    endpoints
        .iter()
        .position(|e| b.backend.starts_with("RPC") && b.backend.contains(&format!("[{e}]")))
}

/// MiB of one kind on each device, and on the host.
fn per_device(log: &LlamaLog, kind: &BufferKind, endpoints: &[String]) -> (Vec<f64>, f64) {
    let mut dev = vec![0.0; endpoints.len()];
    let mut host = 0.0;
    for b in log.buffers.iter().filter(|b| &b.kind == kind) {
        match device_of(b, endpoints) {
            Some(i) => dev[i] += b.mib,
            None => host += b.mib,
        }
    }
    (dev, host)
}

fn mib(b: u64) -> f64 {
    b as f64 / MIB
}

/// The estimate's weights, KV cache and compute (MiB) of each device in use; one device (after
/// `-sm none`) has no per-device list, its share is the GPU lines.
fn shares(e: &Estimate) -> Vec<[f64; 3]> {
    if e.devices.is_empty() {
        return vec![[
            mib(e.weights.gpu_bytes),
            mib(e.kv_cache.gpu_bytes),
            mib(e.compute.gpu_bytes),
        ]];
    }
    e.devices
        .iter()
        .map(|d| [mib(d.weights_bytes), mib(d.kv_bytes), mib(d.compute_bytes)])
        .collect()
}

/// Compare one case; returns the report row and what disagreed.
fn check(t: &LlamaTools, rpc_bin: &Path, dir: &Path, c: &Case) -> (String, Vec<String>) {
    let rpc = start_rpc(rpc_bin, c.devices);
    let model_path = dir.join(format!("{}.gguf", c.model));
    let mut args: Vec<String> = c.args.iter().map(|a| a.to_string()).collect();
    args.extend(["--rpc".to_string(), rpc.endpoints.join(",")]);
    let mut cmd = Command::new(&t.server);
    cmd.arg("-m")
        .arg(&model_path)
        .args(["--host", "127.0.0.1", "--port", "0", "-t", "2", "-lv", "4"])
        .args(["--no-warmup", "-c", "512", "--no-repack"])
        .args(&args)
        .env("LD_LIBRARY_PATH", t.server.parent().unwrap());
    let text = run_until_loaded(&mut cmd);
    drop(rpc);
    let ctx = format!("{} {:?} over {} RPC devices", c.model, c.args, c.devices);
    let log_path = dir.join(format!(
        "{}{}-rpc{}.log",
        c.model,
        c.args.join("_"),
        c.devices
    ));
    std::fs::write(&log_path, &text).unwrap();
    assert!(
        text.contains("compute buffer size"),
        "{ctx}: the server did not load (log: {}):\n{text}",
        log_path.display()
    );
    let log = parse_llama_log(&text);

    let mut settings = LlamaSettings::from_args(&args).unwrap();
    settings.ctx_size = Setting::runtime(512, "test");
    settings.backend = Setting::runtime(Backend::Cpu, "a CPU build: RPC devices only");
    settings.llama_build = Setting::runtime(server_build(&text), "the server's build line");
    let e = estimate(&GgufModel::open(&model_path).unwrap(), &settings).unwrap();

    let endpoints: Vec<String> = text
        .lines()
        .filter_map(|l| l.split("using device RPC").nth(1))
        .filter_map(|r| Some(r.split_once('(')?.1.split_once(')')?.0.to_string()))
        .collect();
    let mut bad = Vec::new();
    let mut row = format!("| {} {} | {} |", c.model, c.args.join(" "), c.devices);
    let mut exact = true;
    let est = shares(&e);
    if est.len() != endpoints.len() {
        bad.push(format!(
            "{ctx}: {} devices in use, {} estimated",
            endpoints.len(),
            est.len()
        ));
    }
    for (line, kind, tol) in [
        (0, BufferKind::Model, 0.0),
        (1, BufferKind::Kv, 0.0),
        (2, BufferKind::Compute, 0.10),
    ] {
        let (dev, host) = per_device(&log, &kind, &endpoints);
        for (i, real) in dev.iter().enumerate() {
            let est_i = est.get(i).map_or(0.0, |d| d[line]);
            exact &= (real - est_i).abs() <= 0.006;
            row.push_str(&format!(" {real:.2}/{est_i:.2}"));
            if (real - est_i).abs() > (tol * real).max(0.006) {
                bad.push(format!(
                    "{ctx}: {kind:?} on {}: logged {real:.2} MiB, estimated {est_i:.2}",
                    endpoints[i]
                ));
            }
        }
        let est_host = mib(match kind {
            BufferKind::Model => e.weights.host_bytes,
            BufferKind::Kv => e.kv_cache.host_bytes,
            _ => e.compute.host_bytes,
        });
        if (host - est_host).abs() > (tol * host).max(0.006) {
            bad.push(format!(
                "{ctx}: {kind:?} on the host: logged {host:.2} MiB, estimated {est_host:.2}"
            ));
        }
        row.push_str(&format!(" host {host:.2}/{est_host:.2} |"));
    }
    let pipeline_logged = text.contains("pipeline parallelism enabled");
    let pipeline_est = e.compute.method.contains("pipeline parallelism");
    if pipeline_logged != pipeline_est {
        bad.push(format!(
            "{ctx}: pipeline parallelism logged {pipeline_logged}, estimated {pipeline_est}"
        ));
    }
    row.push_str(&format!(
        " {} | {} |",
        pipeline_logged,
        if exact { "exact" } else { "within 10 %" }
    ));
    (row, bad)
}

#[test]
fn every_device_holds_what_the_estimate_gives_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(t) = llama_tools::find(&root) else {
        return;
    };
    let Some(rpc_bin) = t.rpc_server_or_skip() else {
        return;
    };
    let dir = gen_models(&t);
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    for c in CASES {
        let (row, b) = check(&t, &rpc_bin, &dir, c);
        rows.push(row);
        bad.extend(b);
    }
    eprintln!(
        "| case | devices | weights MiB per device (logged/estimated) | KV | compute | pipeline | compute |\n{}",
        rows.join("\n")
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
