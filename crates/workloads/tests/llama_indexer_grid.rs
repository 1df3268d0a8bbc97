//! Sparse-attention indexer caches and Gemma 3n against the real thing: tiny GGUF files of
//! deepseek32, glm-dsa, minimax-m3, dots3note (DSA + sliding window), hy_v4 (with and without
//! its indexer), glm5-next (KDA + DSA with a k-pool indexer) and gemma3n
//! (tests/gen_models_indexer.py, llama.cpp b11434's keys and shapes), loaded by the real
//! llama-server over one `ggml-rpc-server` device (a CPU backend served as a GPU-like device, so
//! device/host placement is real) in the flag sets: default slots, `-np 1` at 16k,
//! `-np 2 -no-kvu -fa off`, and a quantised cache (`QUANTISED`).
//!
//! Compared field by field with the estimate: the context, each cache's summary line (the
//! attention cache, the indexer's own cache, the sliding-window cache) and the recurrent state,
//! the KV buffers on the device and the host to the printed 0.01 MiB, the weights per device
//! within 1 %, the output buffer, and the compute buffers within 10 % unless the estimate says
//! it is approximate (then the figures are only reported). `GPULEDGER_GRID_ONLY=a,b` runs only
//! those models. Skips without the tools, fails under CI=true (see testing/llama_tools.rs).

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;

use gpuledger_workloads::estimate::{estimate, Backend, Setting};
use gpuledger_workloads::gguf::GgufModel;
use gpuledger_workloads::llama_log::{parse_llama_log, BufferKind, LlamaLog};
use gpuledger_workloads::{Estimate, LlamaSettings};

#[path = "../../../testing/llama_tools.rs"]
mod llama_tools;
use llama_tools::{run_until_loaded, server_build, start_rpc, LlamaTools};

const MIB: f64 = 1024.0 * 1024.0;

const MODELS: &[&str] = &[
    "deepseek32-dsa",
    "glm-dsa-all",
    "glm-dsa-types",
    "minimax-m3-msa",
    "dots3note-dsa-swa",
    "hy-v4-dsa",
    "hy-v4-full",
    "glm5-next-kpool",
    "gemma3n-ple",
];

/// What the compute estimate must name as not replayed, for the models whose graph has a part
/// the replay does not build (their compute is then only reported).
const SAID_APPROXIMATE: &[(&str, &str)] = &[
    ("dots3note-dsa-swa", "MLA attention"),
    ("hy-v4-dsa", "hyper-connections"),
    ("hy-v4-full", "hyper-connections"),
    ("glm5-next-kpool", "hyper-connections"),
];

/// The models whose indexer graph the replay writes (compute/dsa.rs): their compute must be
/// within 10 % even though the estimate still calls other parts (MLA, MoE routing, hy_v4's
/// hyper-connections) approximate.
const INDEXER_REPLAYED: &[&str] = &[
    "deepseek32-dsa",
    "glm-dsa-all",
    "glm-dsa-types",
    "dots3note-dsa-swa",
    "hy-v4-dsa",
    "minimax-m3-msa",
];

/// Flag sets run for one model only: minimax-m3 with MSA over two streams (flash attention on
/// and one stream per sequence), where its graph loops over the streams.
const EXTRA_FLAG_SETS: &[(&str, &[&str])] =
    &[("minimax-m3-msa", &["-np", "2", "-no-kvu", "-c", "4096"])];

/// The models also run with a q8_0 cache (the indexer's keys take `-ctk`'s type).
const QUANTISED: &[&str] = &[
    "deepseek32-dsa",
    "dots3note-dsa-swa",
    "hy-v4-dsa",
    "glm5-next-kpool",
];

/// The flag sets (every one with the whole model on the RPC device).
const FLAG_SETS: &[&[&str]] = &[
    &["-c", "4096"],
    &["-np", "1", "-c", "16384"],
    &["-np", "2", "-no-kvu", "-fa", "off", "-c", "4096"],
    &["-np", "1", "-c", "4096", "-ctk", "q8_0", "-ctv", "q8_0"],
];

fn gen_models(t: &LlamaTools) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("llama-indexer-models");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gen_models_indexer.py");
    let st = Command::new(&t.python)
        .arg(&script)
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("run gen_models_indexer.py");
    assert!(st.success(), "gen_models_indexer.py failed");
    dir
}

fn mib(b: u64) -> f64 {
    b as f64 / MIB
}

/// MiB of one kind on the RPC device and on the host.
fn split(log: &LlamaLog, kind: &BufferKind) -> (f64, f64, usize) {
    let lines: Vec<_> = log.buffers.iter().filter(|b| &b.kind == kind).collect();
    let dev = lines
        .iter()
        .filter(|b| b.backend.starts_with("RPC"))
        .map(|b| b.mib)
        .sum();
    let host = lines
        .iter()
        .filter(|b| !b.backend.starts_with("RPC"))
        .map(|b| b.mib)
        .sum();
    (dev, host, lines.len())
}

/// Run one model with one flag set; the report row and what disagreed.
fn check(t: &LlamaTools, rpc_bin: &Path, dir: &Path, model: &str, flags: &[&str]) -> Row {
    let rpc = start_rpc(rpc_bin, 1);
    let path = dir.join(format!("{model}.gguf"));
    let mut args: Vec<String> = flags.iter().map(|a| a.to_string()).collect();
    args.extend(["-ngl", "99", "--rpc"].map(String::from));
    args.push(rpc.endpoints[0].clone());
    let mut cmd = Command::new(&t.server);
    cmd.arg("-m")
        .arg(&path)
        .args(["--host", "127.0.0.1", "--port", "0", "-t", "2", "-lv", "4"])
        .args(["--no-warmup", "--no-repack"])
        .args(&args)
        .env("LD_LIBRARY_PATH", t.server.parent().unwrap());
    let text = run_until_loaded(&mut cmd);
    drop(rpc);
    let ctx = format!("{model} {flags:?}");
    let log_path = dir.join(format!("{model}{}.log", flags.join("_")));
    std::fs::write(&log_path, &text).unwrap();
    if !text.contains("compute buffer size") {
        return Row::failed(format!(
            "{ctx}: the server did not load (log: {})",
            log_path.display()
        ));
    }
    let log = parse_llama_log(&text);
    let mut settings = LlamaSettings::from_args(&args).unwrap();
    settings.backend = Setting::runtime(Backend::Cpu, "a CPU build: the RPC device only");
    settings.llama_build = Setting::runtime(server_build(&text), "the server's build line");
    let e = estimate(&GgufModel::open(&path).unwrap(), &settings).unwrap();
    let mut r = Row {
        cells: vec![format!("{model} {}", flags.join(" "))],
        bad: Vec::new(),
    };
    r.context(&log, &e, &ctx);
    r.caches(&log, &e, &ctx);
    r.buffers(&log, &e, &ctx, INDEXER_REPLAYED.contains(&model));
    if let Some(&(_, w)) = SAID_APPROXIMATE.iter().find(|(m, _)| *m == model) {
        let parts = &e.compute.approximate_parts;
        r.expect(
            parts.iter().any(|p| p.contains(w)),
            format!("{ctx}: the compute estimate does not say \"{w}\" is approximate: {parts:?}"),
        );
    }
    r
}

/// One case's table row and its disagreements.
struct Row {
    cells: Vec<String>,
    bad: Vec<String>,
}

impl Row {
    fn failed(why: String) -> Row {
        Row {
            cells: vec![why.clone()],
            bad: vec![why],
        }
    }

    fn expect(&mut self, ok: bool, what: String) {
        if !ok {
            self.bad.push(what);
        }
    }

    fn context(&mut self, log: &LlamaLog, e: &Estimate, ctx: &str) {
        let c = &e.context;
        let logged = (log.n_ctx, log.n_seq_max, log.kv_unified);
        let est = (Some(c.n_ctx), Some(c.n_seq_max), Some(c.kv_unified));
        self.expect(
            logged == est,
            format!("{ctx}: n_ctx/n_seq/unified logged {logged:?}, estimated {est:?}"),
        );
    }

    /// Each cache's summary line in llama.cpp's order: the attention cache (dots3note: its DSA
    /// layers'), the indexer's own (DSA, MSA, glm5-next's hybrid_idx), the sliding-window cache
    /// (iSWA, dots3note's DSA-iSWA); cells, layers and MiB (the indexer's K and V too) exact; and
    /// the recurrent state where there is one (glm5-next's KDA layers).
    fn caches(&mut self, log: &LlamaLog, e: &Estimate, ctx: &str) {
        let kv = &e.kv_cache;
        let mut est = vec![(
            "attention",
            kv.cells_full,
            kv.layers_full,
            kv.full_bytes,
            None,
        )];
        if let Some(ix) = &kv.indexer {
            let kv_split = Some((ix.k_bytes, ix.v_bytes));
            est.push(("indexer", kv.cells_full, ix.layers, ix.bytes, kv_split));
        }
        if let Some(cells) = kv.cells_swa {
            est.push(("SWA", cells, kv.layers_swa, kv.swa_bytes, None));
        }
        let p2 = |x: f64| format!("{x:.2}");
        if log.kv_sizes.len() != est.len() {
            self.bad.push(format!(
                "{ctx}: {} cache lines logged {:?}, {} estimated",
                log.kv_sizes.len(),
                log.kv_sizes,
                est.len()
            ));
        }
        let mut shown = Vec::new();
        for (l, &(what, cells, layers, bytes, split)) in log.kv_sizes.iter().zip(&est) {
            let mut ok =
                p2(l.mib) == p2(mib(bytes)) && l.layers == layers as u64 && l.cells == cells;
            if let Some((k, v)) = split {
                ok &= p2(l.k_mib) == p2(mib(k)) && p2(l.v_mib) == p2(mib(v));
            }
            self.expect(
                ok,
                format!(
                    "{ctx}: {what} cache logged {l:?}, estimated {:.2} MiB / {cells} cells / \
                     {layers} layers (K+V {split:?})",
                    mib(bytes)
                ),
            );
            shown.push(format!("{what} {:.2}/{:.2}", l.mib, mib(bytes)));
        }
        let rs_log = log.rs_sizes.first().map(|r| p2(r.mib));
        let rs_est = kv.recurrent_bytes.map(|b| p2(mib(b)));
        self.expect(
            rs_log == rs_est,
            format!("{ctx}: recurrent state logged {rs_log:?} MiB, estimated {rs_est:?}"),
        );
        if let (Some(l), Some(r)) = (rs_log, rs_est) {
            shown.push(format!("RS {l}/{r}"));
        }
        self.cells.push(shown.join(", "));
    }

    /// KV (with the recurrent state's, which the estimate's cache line holds too), weights,
    /// output and compute buffers on the device and the host (`within_10`: the compute within
    /// 10 % even where the estimate says it is approximate).
    fn buffers(&mut self, log: &LlamaLog, e: &Estimate, ctx: &str, within_10: bool) {
        let (kg, kh, n) = split(log, &BufferKind::Kv);
        let (rg, rh, nr) = split(log, &BufferKind::Rs);
        let (kg, kh) = (kg + rg, kh + rh);
        let tol = 0.006 * (n + nr) as f64;
        let (ekg, ekh) = (mib(e.kv_cache.gpu_bytes), mib(e.kv_cache.host_bytes));
        self.expect(
            (kg - ekg).abs() <= tol && (kh - ekh).abs() <= tol,
            format!("{ctx}: KV buffers logged {kg:.2}+{kh:.2}, estimated {ekg:.2}+{ekh:.2}"),
        );
        let (wg, wh, _) = split(log, &BufferKind::Model);
        let (ewg, ewh) = (mib(e.weights.gpu_bytes), mib(e.weights.host_bytes));
        let near = |a: f64, b: f64| (a - b).abs() <= (0.01 * b).max(0.011);
        self.expect(
            near(wg, ewg) && near(wh, ewh),
            format!("{ctx}: weights logged {wg:.2}+{wh:.2}, estimated {ewg:.2}+{ewh:.2}"),
        );
        self.cells
            .push(format!("{wg:.2}/{ewg:.2} host {wh:.2}/{ewh:.2}"));
        let (og, oh, _) = split(log, &BufferKind::Output);
        let eo = mib(e.output.host_bytes);
        self.expect(
            (og + oh - eo).abs() <= 0.006,
            format!("{ctx}: output logged {:.2}, estimated {eo:.2}", og + oh),
        );
        let (cg, ch, _) = split(log, &BufferKind::Compute);
        let (ecg, ech) = (mib(e.compute.gpu_bytes), mib(e.compute.host_bytes));
        let ratio = (ecg + ech) / (cg + ch);
        let approx = e.compute.approximate;
        self.expect(
            (approx && !within_10) || (0.9..=1.1).contains(&ratio),
            format!("{ctx}: compute logged {cg:.2}+{ch:.2}, estimated {ecg:.2}+{ech:.2} (exact?)"),
        );
        self.cells.push(format!(
            "{cg:.2}+{ch:.2} / {ecg:.2}+{ech:.2} ({})",
            if approx {
                "stated approximate"
            } else {
                "exact"
            }
        ));
    }
}

#[test]
fn indexer_caches_and_gemma3n_match_the_real_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(t) = llama_tools::find(&root) else {
        return;
    };
    let Some(rpc_bin) = t.rpc_server_or_skip() else {
        return;
    };
    let dir = gen_models(&t);
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    // GPULEDGER_GRID_ONLY=a,b: only those models (for working on one architecture).
    let only = std::env::var("GPULEDGER_GRID_ONLY").unwrap_or_default();
    let picked = |m: &&&str| only.is_empty() || only.split(',').any(|o| o == **m);
    for model in MODELS.iter().filter(picked) {
        let extra = EXTRA_FLAG_SETS.iter().filter(|(m, _)| m == model);
        for flags in FLAG_SETS.iter().chain(extra.map(|(_, f)| f)) {
            let quantised = flags.contains(&"q8_0");
            if quantised && !QUANTISED.contains(model) {
                continue;
            }
            let r = check(&t, &rpc_bin, &dir, model, flags);
            rows.push(format!("| {} |", r.cells.join(" | ")));
            bad.extend(r.bad);
        }
    }
    eprintln!(
        "| case | caches MiB (logged/est.) | weights device/host | compute device+host (logged / est.) |\n{}\n({} runs in {:.0} s)",
        rows.join("\n"),
        rows.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
