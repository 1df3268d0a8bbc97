//! `--fit` replayed against the real thing: llama-server (b11434, built for this CPU) fits unset
//! settings to free memory before it loads (`common_fit_params`) and logs what it chose. A CPU
//! device reports the machine's total memory as free (ggml-cpu's `get_memory`), so with
//! `--fit-target` margins each case has an exact, known budget: the host alone (no device), or one
//! to three `ggml-rpc-server` devices. Each case compares the replay's context, offloaded layers,
//! layers per device and the outcome with what the server loaded.

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;

use gpuledger_workloads::estimate::{fit, Backend, FitOutcome, Fitting, Setting};
use gpuledger_workloads::gguf::GgufModel;
use gpuledger_workloads::llama_log::{parse_llama_log, BufferKind};
use gpuledger_workloads::LlamaSettings;

mod fit_fixture;
#[path = "../../../testing/llama_tools.rs"]
mod llama_tools;
use llama_tools::{run_until_loaded, server_build, start_rpc, LlamaTools};

struct Case {
    model: &'static str,
    devices: usize,
    /// llama-server flags; `{B}` is replaced by the total memory in MiB minus the budget given
    /// beside it, so that each device keeps that budget.
    args: &'static [&'static str],
    budget_mib: u64,
}

const CASES: &[Case] = &[
    // The host alone: the context shrinks (1024 -> 512), then to the minimum.
    Case {
        model: "llama-deep",
        devices: 0,
        args: &["-fitt", "{B}", "-fitc", "256"],
        budget_mib: 10,
    },
    Case {
        model: "llama-deep",
        devices: 0,
        args: &["-fitt", "{B}", "-fitc", "256"],
        budget_mib: 9,
    },
    // -c given: llama.cpp may not shrink it and gives up on the host.
    Case {
        model: "llama-deep",
        devices: 0,
        args: &["-fitt", "{B}", "-c", "1024"],
        budget_mib: 9,
    },
    // One device: the context alone makes it fit.
    Case {
        model: "llama-wide",
        devices: 1,
        args: &["-fitt", "{B}", "-fitc", "256"],
        budget_mib: 180,
    },
    Case {
        model: "llama-wide",
        devices: 1,
        args: &["-fitt", "{B}", "-fitc", "256"],
        budget_mib: 190,
    },
    // Devices filled back to front with whole layers.
    Case {
        model: "llama-wide",
        devices: 2,
        args: &["-fitt", "{B}"],
        budget_mib: 60,
    },
    Case {
        model: "llama-wide",
        devices: 2,
        args: &["-fitt", "{B}"],
        budget_mib: 100,
    },
    Case {
        model: "llama-wide",
        devices: 3,
        args: &["-fitt", "{B}"],
        budget_mib: 45,
    },
    // A mixture of experts: layers without their experts (which stay on the host).
    Case {
        model: "qwen3moe-deep",
        devices: 2,
        args: &["-fitt", "{B}"],
        budget_mib: 5,
    },
    // Room for every dense weight: experts move back onto the devices (step 4), the partial
    // layer's FFN overflowing to the next device or the host.
    Case {
        model: "qwen3moe-deep",
        devices: 2,
        args: &["-fitt", "{B}"],
        budget_mib: 9,
    },
    Case {
        model: "qwen3moe-deep",
        devices: 2,
        args: &["-fitt", "{B}"],
        budget_mib: 12,
    },
    Case {
        model: "qwen3moe-deep",
        devices: 1,
        args: &["-fitt", "{B}"],
        budget_mib: 10,
    },
    // -ngl given: llama.cpp does not move layers.
    Case {
        model: "llama-wide",
        devices: 2,
        args: &["-fitt", "{B}", "-ngl", "99"],
        budget_mib: 60,
    },
];

/// With `GPULEDGER_FIT_FIXTURES=DIR`: write the case's fit log lines and its model's header as
/// text into DIR, for `fit_steps.rs` (fixtures/llama-logs/fit/).
fn capture(c: &Case, args: &[String], total: u64, model_path: &Path, log: &str) {
    let Some(dir) = std::env::var_os("GPULEDGER_FIT_FIXTURES").map(PathBuf::from) else {
        return;
    };
    std::fs::create_dir_all(&dir).unwrap();
    let model = GgufModel::open(model_path).unwrap();
    std::fs::write(
        dir.join(format!("{}.tsv", c.model)),
        fit_fixture::dump(&model),
    )
    .unwrap();
    let mut out = format!(
        "# model: {}\n# devices: {}\n# total_bytes: {total}\n# build: {}\n# args: {}\n",
        c.model,
        c.devices,
        server_build(log).map_or("unknown".into(), |b| b.to_string()),
        args.join(" ")
    );
    // The fitting's own lines (its functions' names hold "fit"), and what was loaded.
    for line in log.lines() {
        let func = line.split(':').next().unwrap_or("");
        let keep = func.contains("fit")
            || line.contains("n_ctx ")
            || line.contains("offloaded ")
            || line.contains("model buffer size");
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    let name = format!("{}-{}dev-{}mib.log", c.model, c.devices, c.budget_mib);
    // The flag a case gives beyond the margins (-c, -ngl) names it apart.
    let name = match c.args.iter().find(|a| ["-c", "-ngl"].contains(a)) {
        Some(f) => name.replace(".log", &format!("-{}.log", f.trim_start_matches('-'))),
        None => name,
    };
    std::fs::write(dir.join(name), out).unwrap();
}

/// The machine's memory as ggml-cpu reports it (`_SC_PHYS_PAGES` x page size = MemTotal).
fn total_memory() -> u64 {
    let m = std::fs::read_to_string("/proc/meminfo").unwrap();
    let kb: u64 = m
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("MemTotal in /proc/meminfo");
    kb * 1024
}

fn gen_models(t: &LlamaTools) -> PathBuf {
    t.gen_models(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("llama-fit-models"),
        &["llama-deep", "llama-wide", "qwen3moe-deep"],
    )
}

/// What the server loaded: context, offloaded layers, model MiB per RPC device, whether its
/// fitting succeeded.
struct Loaded {
    n_ctx: Option<u64>,
    offloaded: Option<u64>,
    model_mib: Vec<f64>,
    fit_ok: bool,
}

fn loaded(text: &str, endpoints: &[String]) -> Loaded {
    let log = parse_llama_log(text);
    let model_mib = endpoints
        .iter()
        .map(|e| {
            log.buffers
                .iter()
                .filter(|b| b.kind == BufferKind::Model && b.backend.contains(&format!("[{e}]")))
                .fold(0.0, |sum, b| sum + b.mib)
        })
        .collect();
    Loaded {
        n_ctx: log.n_ctx,
        offloaded: log.offloaded.map(|(n, _)| n),
        model_mib,
        fit_ok: text.contains("successfully fit params"),
    }
}

fn check(t: &LlamaTools, rpc_bin: &Path, dir: &Path, c: &Case, total: u64) -> Vec<String> {
    let rpc = start_rpc(rpc_bin, c.devices);
    let margin = (total / (1024 * 1024) - c.budget_mib).to_string();
    let mut args: Vec<String> = c.args.iter().map(|a| a.replace("{B}", &margin)).collect();
    if c.devices > 0 {
        args.extend(["--rpc".to_string(), rpc.endpoints.join(",")]);
    }
    let model_path = dir.join(format!("{}.gguf", c.model));
    let mut cmd = Command::new(&t.server);
    cmd.arg("-m")
        .arg(&model_path)
        .args(["--host", "127.0.0.1", "--port", "0", "-t", "2", "-lv", "4"])
        .args(["--no-warmup", "--no-repack"])
        .args(&args)
        .env("LD_LIBRARY_PATH", t.server.parent().unwrap());
    let text = run_until_loaded(&mut cmd);
    let endpoints = rpc.endpoints.clone();
    drop(rpc);
    let ctx = format!("{} {:?} over {} devices", c.model, args, c.devices);
    let log_path = dir.join(format!(
        "fit-{}-{}-{}.log",
        c.model, c.devices, c.budget_mib
    ));
    std::fs::write(&log_path, &text).unwrap();
    capture(c, &args, total, &model_path, &text);
    let real = loaded(&text, &endpoints);
    assert!(
        real.n_ctx.is_some(),
        "{ctx}: did not load (log {})",
        log_path.display()
    );

    let mut s = LlamaSettings::from_args(&args).unwrap();
    s.backend = Setting::runtime(Backend::Cpu, "a CPU build: RPC devices only");
    s.llama_build = Setting::runtime(server_build(&text), "the server's build line");
    let model = GgufModel::open(&model_path).unwrap();
    // Each RPC device's free memory, or with none the host's total: one figure per device.
    s.devices.free = Setting::runtime(vec![total; c.devices.max(1)], "the machine's memory");
    let Fitting::Replayed(f) = fit(&model, &s).unwrap() else {
        panic!("{ctx}: fit is on and free memory is known");
    };
    let (replay, fitted) = (f.replay, f.settings);
    let e = gpuledger_workloads::estimate::estimate(&model, &fitted).unwrap();
    let mut bad = Vec::new();
    let ours_ok = matches!(replay.outcome, FitOutcome::Fitted | FitOutcome::Unchanged);
    if ours_ok != real.fit_ok {
        bad.push(format!(
            "{ctx}: replay {:?}, server fit ok = {}",
            replay.outcome, real.fit_ok
        ));
    }
    if real.n_ctx != Some(e.context.n_ctx) {
        bad.push(format!(
            "{ctx}: n_ctx {:?} loaded, {} replayed",
            real.n_ctx, e.context.n_ctx
        ));
    }
    let ours_off = e.weights.gpu_layers as u64 + e.weights.output_on_gpu as u64;
    if c.devices > 0 && real.offloaded != Some(ours_off) {
        bad.push(format!(
            "{ctx}: offloaded {:?} loaded, {ours_off} replayed",
            real.offloaded
        ));
    }
    let ours_mib: Vec<f64> = if e.devices.is_empty() {
        vec![e.weights.gpu_bytes as f64 / 1048576.0; c.devices.min(1)]
    } else {
        e.devices
            .iter()
            .map(|d| d.weights_bytes as f64 / 1048576.0)
            .collect()
    };
    for (i, (r, o)) in real.model_mib.iter().zip(&ours_mib).enumerate() {
        if (r - o).abs() > 0.006 {
            bad.push(format!(
                "{ctx}: device {i} weights {r:.2} MiB loaded, {o:.2} replayed"
            ));
        }
    }
    eprintln!(
        "| {} | {} | {} MiB | {} | {:?} / {} | {:?} |",
        c.model,
        c.devices,
        c.budget_mib,
        replay.flags.join(" "),
        real.n_ctx,
        real.fit_ok,
        real.model_mib
    );
    bad
}

#[test]
fn fit_replay_chooses_what_llama_server_chose() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(t) = llama_tools::find(&root) else {
        return;
    };
    let Some(rpc_bin) = t.rpc_server_or_skip() else {
        return;
    };
    let dir = gen_models(&t);
    let total = total_memory();
    let started = std::time::Instant::now();
    let bad: Vec<String> = CASES
        .iter()
        .flat_map(|c| check(&t, &rpc_bin, &dir, c, total))
        .collect();
    eprintln!(
        "{} cases in {:.1} s",
        CASES.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
