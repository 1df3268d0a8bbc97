//! `explain --log` of a vLLM process serving gpt-oss-20b: the MXFP4 kernel its log names sizes
//! the experts as vLLM pads them, and the estimate meets the `Model loading took` line of the
//! same log (kserve/kserve#4657's lines; fixtures/vllm/README.md), where the file's bytes were
//! a floor 6.6 % under.

use crate::explain_runtimes::{start, DEVICE_TOTAL, MEASURED};
use crate::support::{ok_stdout, on_live_proc, python, scenario};

#[path = "../../../../testing/gpt_oss.rs"]
mod gpt_oss;

/// `explain PID --json` (and its text) on a fake RTX 4090 charging `pid`; `cc`: the compute
/// capability NVML reports (none: an old driver's NOT_SUPPORTED).
fn explain(pid: u32, cc: Option<&str>, extra: &[&str]) -> (serde_json::Value, String) {
    let cc = cc.map_or(String::new(), |c| format!("|cc={c}"));
    let (_d, sc) = scenario(&format!(
        "driver|version=550.54.15\ndevice|index=0|name=NVIDIA GeForce RTX 4090|uuid=GPU-1|total={DEVICE_TOTAL}|used={MEASURED}|free={}|gpu=1|mem=1{cc}\ncompute|dev=0|pid={pid}|mem={MEASURED}\n",
        DEVICE_TOTAL - MEASURED
    ));
    let p = pid.to_string();
    let mut a = vec!["explain", p.as_str()];
    a.extend(extra);
    let text = ok_stdout(&on_live_proc(&sc).args(&a).output().unwrap());
    a.push("--json");
    let json = ok_stdout(&on_live_proc(&sc).args(&a).output().unwrap());
    (serde_json::from_str(&json).unwrap(), text)
}

#[test]
fn the_kernel_named_in_the_log_sizes_gpt_oss_experts() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let m = gpt_oss::GPT_OSS_20B.write(dir.path());
    let f = start(
        dir.path(),
        &py,
        &[
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            m.to_str().unwrap(),
        ],
        &[],
    );
    let log = dir.path().join("vllm.log");
    std::fs::write(
        &log,
        "(EngineCore_0 pid=144) WARNING 08-21 11:11:22 [marlin_utils_fp4.py:196] Your GPU does not have native support for FP4 computation but FP4 quantization is being used. Weight-only FP4 compression will be used leveraging the Marlin kernel. This may degrade performance for compute-heavy workloads.\n\
(EngineCore_0 pid=144) INFO 08-21 11:11:23 [gpu_model_runner.py:2007] Model loading took 13.7194 GiB and 14.309837 seconds\n",
    )
    .unwrap();
    let weights = |v: &serde_json::Value| {
        v["estimated"]["runtime"]["summary"]["weights_gpu_bytes"]
            .as_u64()
            .unwrap()
    };
    // Neither the log nor the GPU says which kernel (Hopper: it depends on the packages).
    let (plain, _) = explain(f.child.id(), Some("9.0"), &["--no-probe"]);
    assert_eq!(
        weights(&plain),
        13_761_264_768 + 131_072 * 64 * 4,
        "without the log: the floor (the checkpoint's bytes and the float32 rotary cache)"
    );
    let (v, text) = explain(
        f.child.id(),
        None,
        &["--no-probe", "--log", log.to_str().unwrap()],
    );
    let r = &v["estimated"]["runtime"];
    let printed = r["summary"]["reported"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["what"] == "model loading took")
        .and_then(|x| x["bytes"].as_u64())
        .unwrap();
    let off = weights(&v) as f64 / printed as f64 - 1.0;
    // Marlin's padding and the rotary cache: 13.7023 GiB, 0.12 % under.
    assert!(
        off.abs() < 0.0015,
        "{:+.2} % off the log's figure",
        off * 100.0
    );
    let input = r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "MXFP4 experts as vLLM pads them")
        .expect("the padding is an input");
    assert!(
        input["source"]
            .to_string()
            .contains("leveraging the Marlin kernel"),
        "{input}"
    );
    assert!(text.contains("Marlin"), "{text}");
    // The same in Chinese: the padding's words and the MoE notes are the catalogue's.
    let (_, cn) = explain(
        f.child.id(),
        None,
        &[
            "--lang",
            "zh-CN",
            "--no-probe",
            "--log",
            log.to_str().unwrap(),
        ],
    );
    assert!(cn.contains("vLLM 填充后的 MXFP4 专家 = 每层 "), "{cn}");
    // What vLLM printed stays its own words: the figures it reported by its log's names and
    // the log line that named the kernel.
    let own = |l: &String| l.contains("model loading took") || l.contains("vllm.log: …");
    let left: Vec<String> = crate::languages::english_sentences(&cn)
        .into_iter()
        .filter(|l| !own(l))
        .collect();
    assert!(left.is_empty(), "{}", left.join("\n"));
    // An RTX 4090 (8.9, as its NVML says) leaves vLLM only Marlin: the same figure, no log.
    let (ada, _) = explain(f.child.id(), Some("8.9"), &["--no-probe"]);
    assert_eq!(weights(&ada), weights(&v));
    let snap = ok_stdout(
        &on_live_proc(
            &scenario("driver|version=550.54.15\ndevice|index=0|name=x|uuid=GPU-1|total=1|used=0|free=1|cc=8.9\n").1,
        )
        .args(["snapshot", "--json"])
        .output()
        .unwrap(),
    );
    let snap: serde_json::Value = serde_json::from_str(&snap).unwrap();
    assert_eq!(
        snap["devices"][0]["compute_capability"],
        serde_json::json!({"major": 8, "minor": 9})
    );
}
