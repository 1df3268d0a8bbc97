//! What a `--fit` replay costs on deep models, counted (not timed): a replay runs for every
//! llama-server collection sees, so a crafted model must not make it stall (issue 40: 1,000
//! layers took 6.9 s, 2,000 layers 47.5 s). The replay reports its projections (each one estimate
//! of the whole model) and the tensor placements they made; both must grow about linearly with
//! the layers, also for a model built to make false position crawl (one huge layer).
//!
//! Wall times for a 7,000-layer model are printed (`--nocapture`), not asserted.

use std::path::PathBuf;
use std::time::Instant;

use gpuledger_workloads::estimate::{
    fit, fit_cached, Backend, FitOutcome, Fitting, GpuLayers, Setting,
};
use gpuledger_workloads::gguf::writer::GgufWriter;
use gpuledger_workloads::gguf::{GgmlType, GgufModel, MetaValue};
use gpuledger_workloads::LlamaSettings;

const MIB: u64 = 1 << 20;

/// A llama of `n` layers (4 MiB each, F32 1024 x 1024), layer 0 `first` times bigger; `experts`:
/// each layer also has 8 experts' FFN tensors (a qwen3moe).
fn deep(n: u32, first: u64, experts: bool) -> (PathBuf, GgufModel) {
    let f32t = GgmlType::from_name("F32").unwrap();
    let dir = std::env::temp_dir().join(format!("gl-fit-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("deep-{n}-{first}-{experts}.gguf"));
    let arch = if experts { "qwen3moe" } else { "llama" };
    let mut w = GgufWriter::new();
    w.kv("general.architecture", MetaValue::String(arch.into()));
    let mut kv = vec![
        ("block_count", n),
        ("context_length", 4096),
        ("embedding_length", 1024),
        ("attention.head_count", 8),
        ("attention.head_count_kv", 8),
        ("vocab_size", 1000),
    ];
    if experts {
        kv.extend([
            ("expert_count", 8),
            ("expert_used_count", 2),
            ("expert_feed_forward_length", 256),
        ]);
    }
    for (k, v) in kv {
        w.kv(&format!("{arch}.{k}"), MetaValue::U32(v));
    }
    w.tensor("token_embd.weight", &[1024, 1000], f32t);
    for il in 0..n {
        w.tensor(&format!("blk.{il}.attn_norm.weight"), &[1024], f32t);
        w.tensor(&format!("blk.{il}.attn_q.weight"), &[1024, 1024], f32t);
        if il == 0 {
            // Weights of the layer no op reads (so no compute buffer grows with them).
            w.tensor("blk.0.extra.weight", &[1024, 1024 * first], f32t);
        }
        if experts {
            w.tensor(&format!("blk.{il}.ffn_gate_inp.weight"), &[1024, 8], f32t);
            for e in ["up", "gate", "down"] {
                w.tensor(
                    &format!("blk.{il}.ffn_{e}_exps.weight"),
                    &[1024, 256, 8],
                    f32t,
                );
            }
        }
    }
    w.tensor("output_norm.weight", &[1024], f32t);
    w.tensor("output.weight", &[1024, 1000], f32t);
    w.write(&path).unwrap();
    let m = GgufModel::open(&path).unwrap();
    (path, m)
}

/// Fit onto one CUDA device with `free` bytes (no margin).
fn replay(m: &GgufModel, free: u64) -> (gpuledger_workloads::estimate::FitReplay, LlamaSettings) {
    let args: Vec<String> = ["-c", "512", "-fitt", "0"].map(String::from).to_vec();
    let mut s = LlamaSettings::from_args(&args).unwrap();
    s.backend = Setting::runtime(Backend::Cuda, "test");
    s.devices.free = Setting::runtime(vec![free], "test");
    match fit(m, &s).unwrap() {
        Fitting::Replayed(f) => (f.replay, f.settings),
        other => panic!("{other:?}"),
    }
}

/// Projections and placements for `n` layers, the giant first layer left on the host.
fn cost(n: u32, experts: bool) -> (u32, u64, std::time::Duration) {
    // Layer 0 a hundred times the rest: each false-position guess then moves about 1 % of the
    // way, and plain false position takes a guess per layer.
    let first = 100 * u64::from(n);
    let (path, m) = deep(n, first, experts);
    // Room for everything but layer 0: llama.cpp offloads the others and the output layer.
    let all = gpuledger_workloads::estimate::estimate(&m, &{
        let mut s = LlamaSettings::from_args(&["-c".into(), "512".into()]).unwrap();
        s.backend = Setting::runtime(Backend::Cuda, "test");
        s
    })
    .unwrap();
    let layer0 = 1024 * 1024 * first * 4;
    let free = all.total_gpu_bytes_without_overhead - layer0 + 8 * MIB;
    let t = Instant::now();
    let (r, s) = replay(&m, free);
    let took = t.elapsed();
    assert_eq!(r.outcome, FitOutcome::Fitted, "{:?}", r.steps);
    if !experts {
        // The search's answer is the boundary: that many layers fit, one more does not.
        let GpuLayers::Count(ngl) = s.n_gpu_layers.value else {
            panic!("{:?}", s.n_gpu_layers);
        };
        let used = |ngl: u32| {
            let a = format!("-c 512 --no-mmap -ngl {ngl}");
            let a: Vec<String> = a.split(' ').map(String::from).collect();
            let mut s = LlamaSettings::from_args(&a).unwrap();
            s.backend = Setting::runtime(Backend::Cuda, "test");
            let e = gpuledger_workloads::estimate::estimate(&m, &s).unwrap();
            e.total_gpu_bytes_without_overhead
        };
        assert!(used(ngl) <= free && used(ngl + 1) > free, "{ngl} of {n}");
    }
    std::fs::remove_file(path).unwrap();
    (r.projections, r.placements, took)
}

#[test]
fn replay_work_grows_linearly_with_layers_even_when_false_position_crawls() {
    for experts in [false, true] {
        let (p1, w1, t1) = cost(500, experts);
        let (p2, w2, t2) = cost(1000, experts);
        eprintln!(
            "experts {experts}: 500 layers {p1} projections, {w1} placements, {t1:?}; \
             1000 layers {p2} projections, {w2} placements, {t2:?}"
        );
        // Plain false position takes one guess per layer here (the huge layer 0 drags every
        // guess down to 1): hundreds of projections. Bisection after a few: tens.
        assert!(p2 <= p1 + 8, "projections {p1} -> {p2}");
        assert!(p2 < 64, "{p2} projections");
        assert!(w2 < w1 * 5 / 2, "placements {w1} -> {w2}");
    }
}

#[test]
#[ignore = "a timing report: cargo test --release -p gpuledger-workloads --test fit_cost -- --ignored --nocapture"]
fn seven_thousand_layers_report() {
    for experts in [false, true] {
        let (p, w, t) = cost(7000, experts);
        eprintln!("7000 layers, experts {experts}: {p} projections, {w} placements, {t:?}");
    }
}

#[test]
#[ignore = "timing"]
fn one_estimate_timing() {
    for n in [1000, 2000, 4000] {
        let (path, m) = deep(n, 1, false);
        let mut s = LlamaSettings::from_args(&["-c".into(), "512".into()]).unwrap();
        s.backend = Setting::runtime(Backend::Cuda, "test");
        let t = Instant::now();
        gpuledger_workloads::estimate::estimate(&m, &s).unwrap();
        eprintln!("{n}: {:?}", t.elapsed());
        std::fs::remove_file(path).unwrap();
    }
}

/// The collection path: a replay past its time budget stops (said in the outcome) and is
/// remembered for the file and settings whatever the free memory, so the next round costs no
/// projection; a replay that finished is asked again only for other free memory.
#[test]
fn the_collection_path_replays_a_crafted_model_once_within_its_budget() {
    let (path, m) = deep(3000, 300_000, false);
    let mut s = LlamaSettings::from_args(&["-c".into(), "512".into()]).unwrap();
    s.backend = Setting::runtime(Backend::Cuda, "test");
    s.devices.free = Setting::runtime(vec![4 << 30], "test");
    let t = Instant::now();
    let Fitting::Replayed(first) = fit_cached(&m, &s).unwrap() else {
        panic!("not replayed");
    };
    let took = t.elapsed();
    // An unoptimised build takes ~0.6 s per projection of 3,000 layers: the 250 ms budget
    // stops it after its first projections (a release build may finish: then it is remembered
    // for this free memory only).
    eprintln!(
        "{:?} in {took:?}, {} projections",
        first.replay.outcome, first.replay.projections
    );
    s.devices.free = Setting::runtime(vec![5 << 30], "test");
    let t = Instant::now();
    let Fitting::Replayed(again) = fit_cached(&m, &s).unwrap() else {
        panic!("not replayed");
    };
    if matches!(first.replay.outcome, FitOutcome::Stopped(_)) {
        assert!(t.elapsed() < took / 4, "{:?} then {:?}", took, t.elapsed());
        assert_eq!(again.replay, first.replay);
        let why = first.replay.outcome.reason().unwrap();
        assert!(why.contains("time budget"), "{why}");
    }
    std::fs::remove_file(path).unwrap();
}
