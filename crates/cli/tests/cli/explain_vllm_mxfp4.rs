//! `explain --log` of a vLLM process serving gpt-oss-20b: the MXFP4 kernel its log names sizes
//! the experts as vLLM pads them, and the estimate meets the `Model loading took` line of the
//! same log (kserve/kserve#4657's lines; fixtures/vllm/README.md), where the file's bytes were
//! a floor 6.6 % under.

use crate::explain_runtimes::{explain, start};
use crate::support::python;

#[path = "../../../../testing/gpt_oss.rs"]
mod gpt_oss;

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
    let (plain, _) = explain(f.child.id(), &["--no-probe"]);
    assert_eq!(
        weights(&plain),
        13_761_264_768,
        "without the log: the floor"
    );
    let (v, text) = explain(
        f.child.id(),
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
    assert!(
        off.abs() < 0.005,
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
}
