//! `explain` and `snapshot` for vLLM, SGLang and ComfyUI processes: real processes started with
//! the runtimes' real command lines (`python3 -m vllm.entrypoints.openai.api_server --model DIR
//! ...`; tests/cli/fake_runtime.py stands in for the runtime and serves recorded HTTP answers on its
//! own loopback port), the fake NVML charging them GPU memory, the real /proc. The model folders
//! hold the published TinyLlama config.json and safetensors files the real package wrote.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) const DEVICE_TOTAL: u64 = 25769803776; // 24 GiB
pub(crate) const MEASURED: u64 = 22548578304; // 21 GiB charged to the process

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A running stand-in runtime, killed on drop (its engine child exits when it goes).
pub(crate) struct Fake {
    pub(crate) child: Child,
    port: u16,
    engine: u32,
    /// Every titled child, in the order FAKE_CHILD_COMM names them.
    pub(crate) engines: Vec<u32>,
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The packages and script paths the real command lines name, each running fake_runtime.main()
/// under a `__main__` guard (multiprocessing's spawn imports the main module again); a
/// `train.py` that runs one rank of the `torchrun` stand-in.
pub(crate) fn stage(dir: &Path) -> PathBuf {
    let pk = dir.join("pkgs");
    let run = "import fake_runtime\nif __name__ == \"__main__\":\n    fake_runtime.main()\n";
    for (p, body) in [
        ("vllm/__init__.py", ""),
        ("vllm/entrypoints/__init__.py", ""),
        ("vllm/entrypoints/openai/__init__.py", ""),
        ("vllm/entrypoints/openai/api_server.py", run),
        ("sglang/__init__.py", ""),
        ("sglang/launch_server.py", run),
        ("ComfyUI/main.py", run),
        ("train.py", "import fake_runtime\nfake_runtime.rank()\n"),
    ] {
        let f = pk.join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, body).unwrap();
    }
    pk
}

pub(crate) fn start(dir: &Path, py: &Path, args: &[&str], env: &[(&str, String)]) -> Fake {
    let pk = stage(dir);
    let ready = dir.join(format!("ready-{}", args.len()));
    let _ = std::fs::remove_file(&ready);
    let mut c = Command::new(py);
    c.args(args)
        .current_dir(&pk)
        .env(
            "PYTHONPATH",
            format!(
                "{}:{}",
                pk.display(),
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/cli")
                    .display()
            ),
        )
        .env("FAKE_READY", &ready)
        .stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    let child = c.spawn().expect("spawn python3");
    let mut f = Fake {
        child,
        port: 0,
        engine: 0,
        engines: Vec::new(),
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(t) = std::fs::read_to_string(&ready) {
            let mut it = t.split_whitespace().map(|x| x.parse::<u32>().unwrap());
            f.port = it.next().unwrap() as u16;
            f.engines = it.collect();
            f.engine = f.engines[0];
            if let Some((_, titles)) = env.iter().find(|(k, _)| *k == "FAKE_CHILD_COMM") {
                // READY comes after each child set its title (the kernel keeps 15 bytes).
                for (title, pid) in titles.split(',').zip(&f.engines) {
                    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap();
                    assert_eq!(comm.trim_end(), &title[..title.len().min(15)]);
                }
            }
            return f;
        }
        assert!(
            Instant::now() < deadline,
            "the stand-in runtime did not start"
        );
        assert!(
            f.child.try_wait().unwrap().is_none(),
            "the stand-in runtime exited"
        );
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// A model folder: TinyLlama's published config.json and the package-written shards + index.
pub(crate) fn model_dir(dir: &Path) -> PathBuf {
    let m = dir.join("TinyLlama-1.1B-Chat-v1.0");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::copy(
        repo().join("fixtures/vllm/tinyllama-1.1b-chat-config.json"),
        m.join("config.json"),
    )
    .unwrap();
    for e in std::fs::read_dir(repo().join("fixtures/safetensors/sharded")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, m.join(p.file_name().unwrap())).unwrap();
    }
    m
}

/// vLLM's rotary cos/sin cache for the staged TinyLlama config (2,048 positions × 64 rotary dims
/// × 2 B): part of its weights figure, held whole by every rank (`runtimes/vllm/rope.rs`).
pub(crate) const TINYLLAMA_ROPE: u64 = 2048 * 64 * 2;

/// The sharded fixture's tensor bytes, as the safetensors package wrote them.
pub(crate) fn package_total() -> u64 {
    let v: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo().join("fixtures/safetensors/expected.json")).unwrap(),
    )
    .unwrap();
    v["files"]["sharded/total_size"].as_u64().unwrap()
}

fn nvml_scenario(pid: u32) -> (tempfile::TempDir, PathBuf) {
    scenario(&format!(
        "driver|version=550.54.15\ndevice|index=0|name=NVIDIA GeForce RTX 4090|uuid=GPU-1|total={DEVICE_TOTAL}|used={MEASURED}|free={}|gpu=1|mem=1\ncompute|dev=0|pid={pid}|mem={MEASURED}\n",
        DEVICE_TOTAL - MEASURED
    ))
}

pub(crate) fn run(pid: u32, args: &[&str]) -> String {
    let (_d, sc) = nvml_scenario(pid);
    let out = on_live_proc(&sc).args(args).output().unwrap();
    ok_stdout(&out)
}

pub(crate) fn explain(pid: u32, extra: &[&str]) -> (serde_json::Value, String) {
    let p = pid.to_string();
    let mut a = vec!["explain", p.as_str()];
    a.extend(extra);
    let text = run(pid, &a);
    a.push("--json");
    (serde_json::from_str(&run(pid, &a)).unwrap(), text)
}

fn snapshot_process(pid: u32, extra: &[&str]) -> serde_json::Value {
    let mut a = vec!["snapshot", "--json"];
    a.extend(extra);
    let v: serde_json::Value = serde_json::from_str(&run(pid, &a)).unwrap();
    process(&v, pid.into()).clone()
}

#[test]
fn vllm_server_and_its_engine_core() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let m = model_dir(dir.path());
    let metrics = repo().join("fixtures/vllm/tinyllama-cpu-v0-metrics.txt");
    let routes = format!("{{\"/metrics\": {:?}}}", metrics.display().to_string());
    let f = start(
        dir.path(),
        &py,
        &[
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            m.to_str().unwrap(),
            "--gpu-memory-utilization",
            "0.5",
            "--max-model-len",
            "2048",
        ],
        &[
            ("FAKE_ROUTES", routes),
            ("FAKE_CHILD_COMM", "VLLM::EngineCore".into()),
        ],
    );
    let weights = package_total();

    // explain asks /metrics: the server's own gpu_memory_utilization (0.9) and block count win.
    let (v, text) = explain(f.child.id(), &[]);
    assert_eq!(v["workload"]["kind"], "vllm", "{}", v["workload"]);
    let est = &v["estimated"];
    let s = &est["runtime"]["summary"];
    assert_eq!(s["recipe"], "vllm");
    assert_eq!(s["weights_gpu_bytes"], weights + TINYLLAMA_ROPE);
    // 11,915 blocks × TinyLlama's 360,448-byte block.
    assert_eq!(s["kv_cache_gpu_bytes"], 11915u64 * 360448);
    assert_eq!(s["total_gpu_bytes"], (DEVICE_TOTAL as f64 * 0.9) as u64);
    let why = s["why"].as_str().unwrap();
    assert!(
        why.starts_with("vLLM reserves 90 % of this GPU (`--gpu-memory-utilization 0.9`, from its /metrics): 0.00 GiB weights, 4.00 GiB KV cache in 11,915 blocks of 16 tokens, the rest ("),
        "{why}"
    );
    // Measured stays measured: the driver's figure and the difference, nothing added.
    assert_eq!(est["measured_gpu_bytes"], MEASURED);
    assert_eq!(
        est["measured_minus_estimated_bytes"].as_i64().unwrap(),
        MEASURED as i64 - (DEVICE_TOTAL as f64 * 0.9) as i64
    );
    assert_eq!(v["process"]["usage"][0]["memory_bytes"], MEASURED);
    let reported = s["reported"].as_array().unwrap();
    assert!(
        reported.iter().any(|r| r["what"] == "num_gpu_blocks"
            && r["source"]
                .as_str()
                .unwrap()
                .starts_with(&format!("GET http://127.0.0.1:{}/metrics", f.port))),
        "{reported:?}"
    );
    let inputs = est["runtime"]["inputs"].as_array().unwrap();
    assert!(inputs
        .iter()
        .any(|i| i["name"] == "max_model_len" && i["value"] == "2048"));
    assert!(text.contains("MEASURED (reported by the driver)"), "{text}");
    assert!(
        text.contains("ESTIMATED (computed from config.json"),
        "{text}"
    );
    assert!(text.contains(why), "{text}");
    assert!(text.contains("runtime reports"), "{text}");

    // --no-probe: the command line's 0.5, and the KV cache is not invented.
    let (v, _) = explain(f.child.id(), &["--no-probe"]);
    let s = &v["estimated"]["runtime"]["summary"];
    assert_eq!(s["kv_cache_gpu_bytes"], serde_json::Value::Null);
    assert_eq!(s["total_gpu_bytes"], DEVICE_TOTAL / 2);
    assert!(s["not_modelled"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("block count")));

    // The collection path asks /metrics as explain does: the snapshot carries the same ledger.
    let p = snapshot_process(f.child.id(), &[]);
    assert_eq!(p["estimate"]["recipe"], "vllm", "{p}");
    assert_eq!(
        p["estimate"]["total_gpu_bytes"],
        (DEVICE_TOTAL as f64 * 0.9) as u64
    );
    assert_eq!(p["estimate"]["kv_cache_gpu_bytes"], 11915u64 * 360448);
    // --no-probe: the flags alone, and the KV cache is not invented.
    let p = snapshot_process(f.child.id(), &["--no-probe"]);
    assert_eq!(p["estimate"]["total_gpu_bytes"], DEVICE_TOTAL / 2);
    assert_eq!(p["estimate"]["kv_cache_gpu_bytes"], serde_json::Value::Null);

    // The engine process (the one the GPU lists): it listens on nothing, so the server it
    // descends from is asked, and its KV cache is vLLM's own block count as on the server.
    let (v, text) = explain(f.engine, &[]);
    // Its live state is its server's, asked on the server's port (a real worker's own ports are
    // vLLM's internal sockets, which answer no HTTP).
    assert_eq!(v["live"]["server"], "vllm", "{}", v["live_unavailable"]);
    let member = &v["workload"]["member"];
    assert_eq!(member["role"], "engine core", "{}", v["workload"]);
    assert_eq!(member["root_pid"], f.child.id());
    assert!(text.contains("engine core"), "{text}");
    // The workload's processes as measured: the engine core holds the memory, not the server.
    assert_eq!(v["group"]["root_pid"], f.child.id());
    assert_eq!(v["group"]["members"][0]["pid"], f.engine);
    assert_eq!(v["group"]["measured_gpu_bytes"], MEASURED);
    // Beside it, the member's estimated share from the collection round, which asked the
    // server's /metrics too (0.9 of the GPU).
    let reserved = (DEVICE_TOTAL as f64 * 0.9) as u64;
    assert_eq!(v["group"]["members"][0]["estimated_gpu_bytes"], reserved);
    assert_eq!(v["group"]["estimated_gpu_bytes"], reserved);
    assert!(text.contains("(estimated share 21.6 GiB)"), "{text}");
    assert!(
        text.contains(&format!(
            "WORKLOAD PROCESSES (rooted at pid {}",
            f.child.id()
        )),
        "{text}"
    );
    let s = &v["estimated"]["runtime"]["summary"];
    assert_eq!(s["kv_cache_gpu_bytes"], 11915u64 * 360448, "{s}");
    assert_eq!(s["total_gpu_bytes"], (DEVICE_TOTAL as f64 * 0.9) as u64);

    // The engine process: its title replaced its command line; the server's is used.
    let (v, _) = explain(f.engine, &["--no-probe"]);
    assert_eq!(v["workload"]["kind"], "vllm", "{}", v["workload"]);
    let r = &v["estimated"]["runtime"];
    assert_eq!(r["summary"]["total_gpu_bytes"], DEVICE_TOTAL / 2, "{r}");
    let src = r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "gpu_memory_utilization")
        .unwrap()["source"]
        .clone();
    // The one input type: a flag, written with where it was read.
    assert_eq!(src["kind"], "flag", "{src}");
    let src = src["flag"].as_str().unwrap().to_string();
    assert!(
        src.contains(&format!(
            "/proc/{}/cmdline (the parent server",
            f.child.id()
        )),
        "{src}"
    );
}

#[test]
fn sglang_server_info() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let m = model_dir(dir.path());
    let info = dir.path().join("server_info.json");
    std::fs::write(
        &info,
        format!(
            r#"{{"model_path":{:?},"tp_size":1,"mem_fraction_static":0.8,"kv_cache_dtype":"auto","context_length":2048,"max_total_num_tokens":150000}}"#,
            m.display().to_string()
        ),
    )
    .unwrap();
    let routes = format!("{{\"/get_server_info\": {:?}}}", info.display().to_string());
    let f = start(
        dir.path(),
        &py,
        &[
            "-m",
            "sglang.launch_server",
            "--model-path",
            m.to_str().unwrap(),
            "--port",
            "0",
        ],
        &[("FAKE_ROUTES", routes)],
    );
    let (v, text) = explain(f.child.id(), &[]);
    assert_eq!(v["workload"]["kind"], "sglang", "{}", v["workload"]);
    assert_eq!(v["live"]["server"], "sglang");
    let s = &v["estimated"]["runtime"]["summary"];
    // 150,000 tokens × (2 × 22 layers × 4 KV heads × 64 × 2 B).
    assert_eq!(s["kv_cache_gpu_bytes"], 150000u64 * 22528);
    assert_eq!(s["total_gpu_bytes"], (DEVICE_TOTAL as f64 * 0.8) as u64);
    assert_eq!(s["compute_gpu_bytes"], serde_json::Value::Null);
    assert!(
        text.contains("SGLang keeps 80 % of this GPU as a static pool"),
        "{text}"
    );
    // The inputs' names and the KV formula in Traditional Chinese; the JSON as in English.
    let pid = f.child.id().to_string();
    let tw = run(f.child.id(), &["--lang", "zh-TW", "explain", &pid]);
    for says in [
        "每個 token 的 KV 位元組數（每個 rank） = 22528",
        "（推導：2（K、V）× 22 層 × 每個 rank 4 個 KV 頭（4 / TP 1）× 頭大小 64 × 2 B",
        "裝置顯示記憶體總量 = ",
    ] {
        assert!(tw.contains(says), "{says}\n{tw}");
    }
    for english in [
        "KV bytes per token",
        " layers × ",
        "KV heads per rank",
        "device memory total",
    ] {
        assert!(!tw.contains(english), "{english}\n{tw}");
    }
    let left = crate::languages::english_sentences(&tw);
    assert!(left.is_empty(), "{}", left.join("\n"));
    assert_eq!(
        run(
            f.child.id(),
            &["--lang", "zh-TW", "explain", &pid, "--json"]
        ),
        run(f.child.id(), &["explain", &pid, "--json"])
    );
    // Without the server's answer the fraction SGLang chose is unknown, and said so.
    let (v, _) = explain(f.child.id(), &["--no-probe"]);
    let s = &v["estimated"]["runtime"]["summary"];
    assert_eq!(s["kv_cache_gpu_bytes"], serde_json::Value::Null);
    assert_eq!(s["total_gpu_bytes"], package_total());
    assert!(s["why"].as_str().unwrap().contains("not known here"));
}

#[test]
fn comfyui_weights_from_open_files_only() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("sd_xl_base.safetensors");
    std::fs::copy(repo().join("fixtures/safetensors/numpy.safetensors"), &st).unwrap();
    let pt = dir.path().join("upscaler.pt");
    std::fs::write(&pt, vec![7u8; 12345]).unwrap();
    let f = start(
        dir.path(),
        &py,
        &["ComfyUI/main.py", "--listen", "127.0.0.1"],
        &[
            ("FAKE_MAP", st.display().to_string()),
            ("FAKE_OPEN", pt.display().to_string()),
            ("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True".into()),
        ],
    );
    let (v, text) = explain(f.child.id(), &["--no-probe"]);
    assert_eq!(v["workload"]["kind"], "comfyui", "{}", v["workload"]);
    let s = &v["estimated"]["runtime"]["summary"];
    let exp: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo().join("fixtures/safetensors/expected.json")).unwrap(),
    )
    .unwrap();
    let st_bytes: u64 = exp["files"]["numpy.safetensors"]["tensors"]
        .as_object()
        .unwrap()
        .values()
        .map(|t| t["bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(s["weights_gpu_bytes"], st_bytes + 12345, "{s}");
    assert_eq!(s["kv_cache_gpu_bytes"], serde_json::Value::Null);
    assert_eq!(s["compute_gpu_bytes"], serde_json::Value::Null);
    assert_eq!(s["n_ctx"], serde_json::Value::Null);
    let nm: Vec<&str> = strings(&s["not_modelled"]);
    assert!(
        nm.iter()
            .any(|n| n.contains("caching allocator") && n.contains("expandable_segments:True")),
        "{nm:?}"
    );
    assert!(nm.iter().any(|n| n.contains("activations")), "{nm:?}");
    let inputs = v["estimated"]["runtime"]["inputs"].as_array().unwrap();
    assert!(inputs
        .iter()
        .any(|i| i["value"].as_str().unwrap().contains("file size")
            && i["source"]["kind"] == "file"
            && i["source"]["detail"].as_str().unwrap().ends_with("/fd")));
    assert!(text.contains("ComfyUI has"), "{text}");
}

#[test]
fn a_bad_model_folder_is_a_reason_not_a_failure() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("broken");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::copy(
        repo().join("fixtures/vllm/tinyllama-1.1b-chat-config.json"),
        m.join("config.json"),
    )
    .unwrap();
    // A shard whose header claims 200 MB.
    let mut b = 200_000_000u64.to_le_bytes().to_vec();
    b.extend_from_slice(b"{}");
    std::fs::write(m.join("model.safetensors"), b).unwrap();
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
    let (v, _) = explain(f.child.id(), &["--no-probe"]);
    let why = v["estimated"]["unavailable"].as_str().unwrap();
    assert!(
        why.contains("model.safetensors") && why.contains("over the limit"),
        "{why}"
    );
}

#[test]
fn vllm_console_script_with_a_hub_model_and_its_log() {
    if python().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    stage(dir.path());
    // The hub cache the process itself would use (HF_HOME), with refs/main naming the snapshot.
    let repo_dir = dir
        .path()
        .join("hf/hub/models--TinyLlama--TinyLlama-1.1B-Chat-v1.0");
    let snap = repo_dir.join("snapshots/fe8a4ea1ffedaf415f4da2f062534de366a451e6");
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::create_dir_all(repo_dir.join("refs")).unwrap();
    std::fs::write(
        repo_dir.join("refs/main"),
        "fe8a4ea1ffedaf415f4da2f062534de366a451e6",
    )
    .unwrap();
    let m = model_dir(dir.path());
    for e in std::fs::read_dir(&m).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, snap.join(p.file_name().unwrap())).unwrap();
    }
    // pip's console script: `#!/path/to/python3` then the entry point; comm becomes `vllm`.
    let real_py = Command::new("python3")
        .args([
            "-c",
            "import sys, os; print(os.path.realpath(sys.executable))",
        ])
        .output()
        .unwrap();
    let real_py = String::from_utf8(real_py.stdout).unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("vllm");
    std::fs::write(
        &script,
        format!(
            "#!{}\nimport fake_runtime\nfake_runtime.main()\n",
            real_py.trim()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let f = start(
        dir.path(),
        &script,
        &[
            "serve",
            "TinyLlama/TinyLlama-1.1B-Chat-v1.0",
            "--gpu-memory-utilization",
            "0.6",
        ],
        &[
            ("HF_HOME", dir.path().join("hf").display().to_string()),
            ("HF_TOKEN", "hf_notarealsecret0123456789".into()),
        ],
    );
    // The recorded log, after the start-up line vLLM's API server prints first (its release).
    let log = dir.path().join("vllm.log");
    std::fs::write(
        &log,
        format!(
            "INFO 12-01 10:00:00 api_server.py:712] vLLM API server version 0.8.2\n{}",
            std::fs::read_to_string(repo().join("fixtures/vllm/llama-3.1-8b-rtx3090-v0.log"))
                .unwrap()
        ),
    )
    .unwrap();
    let (v, text) = explain(
        f.child.id(),
        &["--no-probe", "--log", log.to_str().unwrap()],
    );
    assert_eq!(v["workload"]["kind"], "vllm", "{}", v["workload"]);
    let r = &v["estimated"]["runtime"];
    let model = r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "model")
        .unwrap();
    assert_eq!(model["value"], snap.display().to_string());
    assert!(
        model["source"]["kind"] == "file"
            && model["source"]["detail"]
                .as_str()
                .unwrap()
                .contains("HF_HOME/hub), refs/main = fe8a4ea1"),
        "{model}"
    );
    assert_eq!(
        r["summary"]["total_gpu_bytes"],
        (DEVICE_TOTAL as f64 * 0.6) as u64
    );
    // The log's own figures sit beside the estimate, as reported, with the log as source.
    let rep = r["summary"]["reported"].as_array().unwrap();
    let loading = rep
        .iter()
        .find(|f| f["what"] == "model loading took")
        .expect("weights line from the log");
    assert_eq!(loading["bytes"], (14.9888 * (1u64 << 30) as f64) as u64);
    assert_eq!(loading["source"], log.display().to_string());
    assert!(rep
        .iter()
        .any(|f| f["what"] == "GPU blocks" && f["text"] == "1,952"));
    // The release the log names picks vLLM's KV rules (no /version asked, no package mapped).
    let rules = r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "vLLM KV rules")
        .unwrap();
    let src = rules["source"].to_string();
    assert!(
        src.contains("0.8.2") && src.contains("the log given with --log"),
        "{rules}"
    );
    // Only the hub-cache names were read from the environment: no token anywhere.
    let all = format!("{v}{text}");
    assert!(!all.contains("hf_notarealsecret"), "a secret leaked");
}

#[test]
fn vllm_tensor_parallel_workers_each_carry_their_share_on_their_own_gpu() {
    // `--tensor-parallel-size 2`: the API server holds no GPU memory; its two workers
    // (VLLM::Worker_TP0/1, titles that replace their command lines) hold one GPU each.
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let m = model_dir(dir.path());
    let f = start(
        dir.path(),
        &py,
        &[
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            m.to_str().unwrap(),
            "--tensor-parallel-size",
            "2",
            "--gpu-memory-utilization",
            "0.5",
        ],
        &[(
            "FAKE_CHILD_COMM",
            "VLLM::Worker_TP0,VLLM::Worker_TP1".into(),
        )],
    );
    let (server, w0, w1) = (f.child.id(), f.engines[0], f.engines[1]);
    let second = MEASURED - (1 << 30);
    let (_d, sc) = scenario(&format!(
        "driver|version=550.54.15\n\
         device|index=0|name=NVIDIA GeForce RTX 4090|uuid=GPU-1|total={DEVICE_TOTAL}|used={MEASURED}|free={}|gpu=1|mem=1\n\
         device|index=1|name=NVIDIA GeForce RTX 4090|uuid=GPU-2|total={DEVICE_TOTAL}|used={second}|free={}|gpu=1|mem=1\n\
         compute|dev=0|pid={w0}|mem={MEASURED}\ncompute|dev=1|pid={w1}|mem={second}\n",
        DEVICE_TOTAL - MEASURED,
        DEVICE_TOTAL - second
    ));
    let table = ok_stdout(&on_live_proc(&sc).args(["snapshot"]).output().unwrap());
    let est = &table[table.find("ESTIMATED").expect(&table)..];
    let row = |pid: u32| {
        est.lines()
            .find(|l| l.trim_start().starts_with(&pid.to_string()))
            .unwrap_or_else(|| panic!("{table}"))
            .to_string()
    };
    // Each worker: its role, its own GPU, its rank's share (half of 24 GiB × 0.5 each) beside
    // that GPU's measured memory.
    assert!(
        row(w0).contains("worker TP0/2") && row(w0).contains("GPU0"),
        "{table}"
    );
    assert!(
        row(w1).contains("worker TP1/2") && row(w1).contains("GPU1"),
        "{table}"
    );
    assert!(
        row(w1).contains("12 GiB") && row(w1).contains("20 GiB"),
        "{table}"
    );
    // The group: the workers' estimated shares (floors: the KV block count is not known
    // without asking the server) beside the sum of what their GPUs measured.
    assert!(
        est.contains(&format!(
            "group of pid {server} (vLLM · TinyLlama-1.1B-Chat-v1.0): 2 members, estimated ≥ 24 GiB in all beside 41 GiB measured"
        )),
        "{table}"
    );

    // JSON: each worker's estimate is its rank's share of the weights.
    let out = on_live_proc(&sc)
        .args(["snapshot", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&ok_stdout(&out)).unwrap();
    let p1 = process(&v, w1.into());
    assert_eq!(p1["workload"]["member"]["role"], "worker TP1/2", "{p1}");
    assert_eq!(p1["workload"]["member"]["root_pid"], server);
    assert_eq!(
        p1["estimate"]["weights_gpu_bytes"],
        package_total() / 2 + TINYLLAMA_ROPE
    );
    assert_eq!(p1["estimate"]["total_gpu_bytes"], DEVICE_TOTAL / 2);
    assert_eq!(p1["usage"][0]["memory_bytes"], second);
    // The group in one place: the members' shares summed beside their measured memory.
    let g = &v["workload_groups"][0];
    assert_eq!(g["root_pid"], server, "{g}");
    assert_eq!(g["members"].as_array().unwrap().len(), 2, "{g}");
    assert_eq!(g["estimated_bytes"], DEVICE_TOTAL, "{g}");
    assert_eq!(g["estimated_is_floor"], true, "{g}");
    assert!(g["measured_bytes"].as_u64().unwrap() > second, "{g}");

    // explain on one worker: the whole group, each member's share beside its own GPU.
    let text = ok_stdout(
        &on_live_proc(&sc)
            .args(["explain", &w1.to_string(), "--no-probe"])
            .output()
            .unwrap(),
    );
    assert!(
        text.contains(&format!("WORKLOAD PROCESSES (rooted at pid {server}; 41 GiB measured in all, 24 GiB estimated in all)")),
        "{text}"
    );
    assert!(
        text.contains("worker TP0/2     GPU0 21 GiB  (estimated share 12 GiB)"),
        "{text}"
    );
    assert!(
        text.contains("worker TP1/2     GPU1 20 GiB  (estimated share 12 GiB)  ← this process"),
        "{text}"
    );
}

/// vLLM's ledger in Chinese: the evidence, its rows, what its /metrics reported and where each
/// input came from are the catalogue's words; the JSON is the English one.
#[test]
fn vllm_explain_speaks_chinese_and_its_json_stays_english() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let m = model_dir(dir.path());
    let metrics = repo().join("fixtures/vllm/tinyllama-cpu-v0-metrics.txt");
    let routes = format!("{{\"/metrics\": {:?}}}", metrics.display().to_string());
    let args = [
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        m.to_str().unwrap(),
        "--max-model-len",
        "2048",
    ];
    let f = start(dir.path(), &py, &args, &[("FAKE_ROUTES", routes)]);
    let pid = f.child.id();
    let p = pid.to_string();
    let json = run(pid, &["explain", &p, "--json"]);
    assert_eq!(
        run(pid, &["--lang", "zh-CN", "explain", &p, "--json"]),
        json
    );
    let cn = run(pid, &["--lang", "zh-CN", "explain", &p]);
    for says in [
        "[命令行] vLLM 引擎（vllm.entrypoints 或 VLLM:: 进程标题）",
        "[监听端口] TCP 端口 ",
        "[HTTP 响应] vLLM 指标",
        "缺少：模型文件：命令行指定了 ",
        "激活值和 CUDA graph（预留的其余部分） 17.60 GiB",
        "n/a（包含在预留之内（CUDA 上下文、NCCL、cuBLAS",
        "num_gpu_blocks: 11,915 个块，每块 16 个 token",
        "（文件：命令行上的路径）",
        "weights = 0.00 GiB，6 个张量，3 个文件（张量：safetensors 文件头）",
        "tensor_parallel_size = 1（默认值（vLLM））",
        "（实测：驱动）",
        "混合模型的层分成若干 KV 组",
        "（假定：这里不知道正在运行的 vLLM 版本",
        "vLLM 的 KV 规则 = ",
        "每块 KV 字节数（每个 rank） = 360448（所有层合计每个 token 22528）",
        "（推导：2（K、V）× 22 层 × 每个 rank 4 个 KV 头（4 / TP 1）× 头大小 64 × 2 B",
        "× 每块 16 个 token）",
        "设备显存总量 = ",
        "旋转位置编码 cos/sin 缓存 = 0.00 GiB（2,048 个位置",
    ] {
        assert!(cn.contains(says), "{says}\n{cn}");
    }
    for english in [
        "vLLM engine",
        "listens on",
        "blocks of 16 tokens",
        "rest of the reservation",
        "path on the command line",
        "safetensors headers",
        "vLLM's)",
        "the driver)",
        "is not known here",
        "vLLM KV rules",
        "KV bytes per block",
        "per token over all layers",
        " layers × ",
        "device memory total",
        "rotary",
        "every rank",
    ] {
        assert!(!cn.contains(english), "{english}\n{cn}");
    }
    let left = crate::languages::english_sentences(&cn);
    assert!(left.is_empty(), "{}", left.join("\n"));
}

/// A hub model that is not in the process's own cache: the reason names the model and the
/// folder looked in, said in the reader's language, while the JSON keeps the English.
#[test]
fn a_hub_model_not_in_the_cache_is_said_in_the_language() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let hf = dir.path().join("hf");
    std::fs::create_dir_all(hf.join("hub")).unwrap();
    let args = [
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        "Org/Missing",
    ];
    let f = start(
        dir.path(),
        &py,
        &args,
        &[("HF_HOME", hf.display().to_string())],
    );
    let pid = f.child.id();
    let p = pid.to_string();
    let (v, _) = explain(pid, &["--no-probe"]);
    let why = v["estimated"]["unavailable"].as_str().unwrap();
    assert!(
        why.starts_with("model Org/Missing: ") && why.contains("models--Org--Missing/snapshots"),
        "{why}"
    );
    let tw = run(pid, &["--lang", "zh-TW", "explain", &p, "--no-probe"]);
    assert!(tw.contains("模型 Org/Missing："), "{tw}");
    let left = crate::languages::english_sentences(&tw);
    assert!(left.is_empty(), "{left:?}\n{tw}");
}
