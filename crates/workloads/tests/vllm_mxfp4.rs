//! gpt-oss's MXFP4 experts as vLLM holds them, against the weights vLLM printed
//! ("Model loading took …", fixtures/vllm/README.md cites each log): the checkpoint is written
//! here as header-only safetensors files (sparse: no tensor data) with the published tensor
//! table of openai/gpt-oss-20b / -120b, whose byte totals must equal the published index's
//! `total_size` before anything is compared.

use gpuledger_workloads::runtimes::hf::ModelConfig;
use gpuledger_workloads::runtimes::vllm::moe_quant::{in_log, Mxfp4Backend};
use gpuledger_workloads::runtimes::vllm::{self, ModelFacts, VllmSettings};
use gpuledger_workloads::safetensors::read_model;
use std::path::Path;

const GIB: f64 = (1u64 << 30) as f64;

#[path = "../../../testing/gpt_oss.rs"]
mod gpt_oss;
use gpt_oss::{GptOss, GPT_OSS_120B, GPT_OSS_20B};

/// The model's facts as vLLM's recipe reads them, from a folder the test writes.
fn facts(g: &GptOss) -> ModelFacts {
    // A folder per call: the tests run side by side, and one rewriting a folder another is
    // reading gave a half-written config.json.
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let parent = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("vllm-mxfp4-{}-{n}", std::process::id()));
    let dir = g.write(&parent);
    let cfg = dir.join("config.json");
    let facts = ModelFacts {
        gguf: None,
        dir: dir.clone(),
        found: "test".into(),
        config: ModelConfig::parse(&std::fs::read(&cfg).unwrap(), &cfg).unwrap(),
        weights: read_model(&dir.join("model.safetensors")).unwrap(),
    };
    // What the recipe needs was read: the sparse files go.
    std::fs::remove_dir_all(&parent).unwrap();
    facts
}

fn settings(cmd: &str) -> VllmSettings {
    let argv: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
    VllmSettings::from_args(&argv, "test").unwrap()
}

/// kserve/kserve#4657 (vLLM 0.10.1, gpt-oss-20b, one GPU): the Marlin warning, then
/// `Model loading took 13.7194 GiB`.
const KSERVE_4657_MARLIN: &str = "kserve-container (EngineCore_0 pid=144) WARNING 08-21 11:11:22 [marlin_utils_fp4.py:196] Your GPU does not have native support for FP4 computation but FP4 quantization is being used. Weight-only FP4 compression will be used leveraging the Marlin kernel. This may degrade performance for compute-heavy workloads.";

fn with_marlin(cmd: &str) -> VllmSettings {
    let mut s = settings(cmd);
    s.mxfp4_backend = in_log(KSERVE_4657_MARLIN, "vllm.log");
    assert_eq!(
        s.mxfp4_backend.as_ref().map(|b| b.backend),
        Some(Mxfp4Backend::Marlin)
    );
    s
}

fn assert_near(what: &str, got: u64, printed_gib: f64, tol: f64) {
    let g = got as f64 / GIB;
    let off = (g - printed_gib) / printed_gib;
    assert!(
        off.abs() <= tol,
        "{what}: {g:.4} GiB estimated vs {printed_gib} GiB printed ({:+.2} %)",
        off * 100.0
    );
}

#[test]
fn the_written_checkpoints_weigh_what_the_published_indexes_say() {
    // model.safetensors.index.json `total_size` of each published checkpoint.
    assert_eq!(facts(&GPT_OSS_20B).weights.tensor_bytes(), 13_761_264_768);
    assert_eq!(facts(&GPT_OSS_120B).weights.tensor_bytes(), 65_248_815_744);
    assert_eq!(GPT_OSS_20B.tensors().len(), 459);
}

#[test]
fn gpt_oss_20b_with_marlin_weighs_what_vllm_loaded() {
    let m = facts(&GPT_OSS_20B);
    let e = vllm::estimate(
        &m,
        &with_marlin("vllm serve openai/gpt-oss-20b"),
        Some(80 << 30),
        None,
    );
    let w = e.summary.weights_gpu_bytes;
    // 12.82 GiB of files; the floor was 6.6 % under, Marlin's padding alone 0.35 % under
    // (13.6711 GiB), with the float32 rotary cache (131,072 × 64 × 4 B) 0.12 % under: 13.7023.
    assert_near("gpt-oss-20b, Marlin", w, 13.7194, 0.0015);
    assert!(w as f64 / GIB < 13.7194);
    let rope = e
        .inputs
        .iter()
        .find(|i| i.name == "rotary cos/sin cache")
        .expect("the rotary cache is an input");
    assert!(
        rope.value.contains("original 4096 × factor 32, yarn") && rope.value.contains("float32"),
        "{}",
        rope.value
    );
    let why = e.summary.why.unwrap();
    assert!(!why.contains('≥'), "{why}");
    let input = e
        .inputs
        .iter()
        .find(|i| i.name == "MXFP4 experts as vLLM pads them")
        .expect("the padding is an input");
    assert!(
        input.value.contains("hidden 2880 → 3072") && input.value.contains("2880 → 2944"),
        "{}",
        input.value
    );
    assert!(
        !e.summary.not_modelled.iter().any(|n| n.contains("floor")),
        "{:?}",
        e.summary.not_modelled
    );
}

#[test]
fn gpt_oss_120b_with_marlin_weighs_what_vllm_loaded() {
    // vllm-project/vllm#23278 (v0.10.x, H100, Marlin): `Model loading took 65.9651 GiB`;
    // the floor was 60.77 GiB (-7.9 %), Marlin's padding alone 65.8972 (-0.10 %), with the
    // rotary cache 65.9285 (-0.06 %).
    let m = facts(&GPT_OSS_120B);
    let e = vllm::estimate(
        &m,
        &with_marlin("vllm serve openai/gpt-oss-120b"),
        Some(80 << 30),
        None,
    );
    assert_near(
        "gpt-oss-120b, Marlin",
        e.summary.weights_gpu_bytes,
        65.9651,
        0.0008,
    );
}

#[test]
fn an_unknown_kernel_keeps_the_floor_and_names_every_backend() {
    let m = facts(&GPT_OSS_20B);
    let e = vllm::estimate(
        &m,
        &settings("vllm serve openai/gpt-oss-20b"),
        Some(80 << 30),
        None,
    )
    .summary;
    // The checkpoint's bytes and the rotary cache, which every backend holds alike.
    assert_eq!(e.weights_gpu_bytes, 13_761_264_768 + 131_072 * 64 * 4);
    assert!(e.why.unwrap().contains("≥"));
    let n = e
        .not_modelled
        .iter()
        .find(|n| n.contains("which MXFP4 MoE kernel"))
        .expect("the unknown kernel is said");
    for b in ["Marlin 13.67 GiB", "Triton 12.82 GiB", "FlashInfer"] {
        assert!(n.contains(b), "{b} in {n}");
    }
}

#[test]
fn tensor_parallel_ranks_pad_their_own_share() {
    // TP 4 splits each expert's intermediate 2880 into 720, which Marlin pads to 768: the
    // rank holds more than a quarter of the single-GPU experts. No public log gives a rank's
    // figure at TP 4, so this checks the split, not a printed number.
    let m = facts(&GPT_OSS_120B);
    let one = vllm::estimate(&m, &with_marlin("vllm serve m"), None, None).summary;
    let four = vllm::estimate(
        &m,
        &with_marlin("vllm serve m --tensor-parallel-size 4"),
        None,
        None,
    );
    // Every rank also holds the whole float32 rotary cache.
    let rope = 131_072 * 64 * 4;
    assert!((four.summary.weights_gpu_bytes - rope) * 4 > one.weights_gpu_bytes - rope);
    let input = four
        .inputs
        .iter()
        .find(|i| i.name == "MXFP4 experts as vLLM pads them")
        .unwrap();
    assert!(input.value.contains("720 → 768"), "{}", input.value);
}

#[test]
fn sglang_says_its_quantised_experts_are_a_floor() {
    use gpuledger_workloads::runtimes::sglang::{self, SglangSettings};
    let m = facts(&GPT_OSS_20B);
    let argv: Vec<String> = "python3 -m sglang.launch_server --model-path openai/gpt-oss-20b"
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let s = SglangSettings::from_args(&argv, "test").unwrap();
    let e = sglang::estimate(&m, &s, Some(80 << 30), None).summary;
    assert_eq!(e.weights_gpu_bytes, 13_761_264_768);
    assert!(
        e.not_modelled
            .iter()
            .any(|n| n.contains("32 mxfp4 experts") && n.contains("a floor")),
        "{:?}",
        e.not_modelled
    );
}
