//! `explain` end to end: identification from a recorded /proc tree and a live probe answered on
//! loopback, through the real binary and the fake NVML.

use crate::support::*;

#[test]
fn explain_llama_server_with_evidence_and_live_state() {
    let m = Machine::two_gpus();
    m.procs.maps(
        4242,
        &[
            "/opt/llama/llama-server",
            "/opt/llama/libggml-cuda.so",
            "/models/qwen3-8b-q4_k_m.gguf",
        ],
    );
    let answered = m.run_answering(
        4242,
        555001,
        vec![
            (
                "/props",
                200,
                r#"{"default_generation_settings":{"n_ctx":32768},"total_slots":4,"model_path":"/models/qwen3-8b-q4_k_m.gguf"}"#,
            ),
            (
                "/slots",
                200,
                r#"[{"id":0,"is_processing":true},{"id":1,"is_processing":false},{"id":2,"is_processing":false},{"id":3,"is_processing":false}]"#,
            ),
            ("/metrics", 501, "{}"),
        ],
        &["explain", "4242", "--json"],
    );
    let v = json_of(&answered.out);
    let requests = answered.requests;
    assert_eq!(requests.len(), 3);
    assert!(
        requests
            .iter()
            .all(|r| !r.to_ascii_lowercase().contains("authorization")),
        "no key is ever sent"
    );

    assert_eq!(v["pid"], 4242);
    assert_eq!(v["process"]["usage"][0]["memory_bytes"], 17179869184u64);
    let w = &v["workload"];
    assert_eq!(w["kind"], "llama-cpp");
    assert_eq!(w["confidence"], "high");
    assert_eq!(w["model"], "/models/qwen3-8b-q4_k_m.gguf");
    let kinds: Vec<&str> = w["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    for k in [
        "executable",
        "cmdline",
        "library",
        "model-file",
        "listening-port",
        "http",
    ] {
        assert!(kinds.contains(&k), "evidence {k} missing: {kinds:?}");
    }
    assert_eq!(v["live"]["n_ctx"], 32768);
    assert_eq!(v["live"]["total_slots"], 4);
    assert_eq!(v["live"]["slots_busy"], 1);
    assert!(v["live"]["unavailable"][0]
        .as_str()
        .unwrap()
        .contains("--metrics"));
    let text = serde_json::to_string(&v).unwrap();
    assert!(
        !text.contains("SECRET1"),
        "the API key never reaches an output"
    );
}

#[test]
fn explain_text_and_snapshot_workload_column() {
    let m = Machine::two_gpus();
    m.procs.maps(
        4242,
        &["/opt/llama/libggml-cuda.so", "/models/qwen3-8b-q4_k_m.gguf"],
    );
    m.procs.maps(
        5151,
        &["/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so"],
    );
    let out = m.run(&["explain", "4242", "--no-probe"]);
    assert_ok(&out);
    let t = String::from_utf8(out.stdout).unwrap();
    assert!(t.contains("MEASURED (reported by the driver)"), "{t}");
    assert!(
        t.contains("GPU0 NVIDIA H200: 16 GiB (nvml, C), SM 85%"),
        "{t}"
    );
    assert!(
        t.contains("llama.cpp · qwen3-8b-q4_k_m (confidence high)"),
        "{t}"
    );
    assert!(t.contains("missing: listening port"), "{t}");
    // Issue 25 D7: an evidence line names its kind once ("[executable] executable …" and
    // "[model file] model file …" said it twice).
    assert!(
        t.contains("[model file] /models/qwen3-8b-q4_k_m.gguf"),
        "{t}"
    );
    for kind in ["executable", "model file", "library", "command line"] {
        assert!(!t.contains(&format!("[{kind}] {kind}")), "{kind}: {t}");
    }
    assert!(t.contains("n/a: --no-probe given"), "{t}");
    assert!(!t.contains("SECRET1"));

    let v = m.json(&["snapshot", "--json"]);
    let p = |pid: u64| process(&v, pid).clone();
    assert_eq!(p(4242)["workload"]["kind"], "llama-cpp");
    assert_eq!(p(5151)["workload"]["kind"], "pytorch");
    assert_eq!(p(1200)["workload"]["kind"], "compositor");
    assert_eq!(p(6001)["workload"]["kind"], "ollama");
    assert!(
        p(9999)["workload"].is_null(),
        "an exited process has no facts to identify"
    );
    let t = String::from_utf8(m.run(&["snapshot"]).stdout).unwrap();
    assert!(t.contains("llama.cpp · qwen3-8b-q4_k_m"), "{t}");
}

#[test]
fn explain_api_key_server_and_unknown_pid() {
    let m = Machine::two_gpus();
    let v = json_of(
        &m.run_answering(
            4242,
            555002,
            vec![
                ("/props", 401, r#"{"error":{"code":401}}"#),
                ("/health", 200, r#"{"status":"ok"}"#),
            ],
            &["explain", "4242", "--json"],
        )
        .out,
    );
    assert_eq!(v["live"]["auth_required"], true);
    assert!(v["workload"]["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["showed"].as_str().unwrap().contains("401")));

    let out = m.run(&["explain", "31337"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no process 31337"));
}
