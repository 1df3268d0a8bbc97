//! `explain` and `snapshot` of an Ollama runner, through the real binary and the fake NVML: a
//! recorded /proc tree with the runner under `ollama serve` (its environment holds Ollama's
//! settings and a secret), a models folder with a blob and its manifest, and `/api/ps` answered on
//! loopback by the serve process's port.

use crate::support::*;
use gpuledger_workloads::gguf::writer::GgufWriter;
use gpuledger_workloads::gguf::{GgmlType, MetaValue};
use std::path::Path;

const MIB: u64 = 1 << 20;

/// One GPU; the runner (pid 4242) holds 7 GiB on it.
const ONE_GPU: &str = "\
driver|version=550.54.15
device|index=0|name=NVIDIA GeForce RTX 4090|uuid=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee|pci=00000000:65:00.0|total=25757220864|used=9000000000|free=16757220864|reserved=300000000|gpu=3|mem=1|temp=38|power_mw=21000|limit_mw=450000|gfx_mhz=210|sm_mhz=210|mem_mhz=405|pcie_gen=4|pcie_width=16|pcie_max_gen=4|pcie_max_width=16
compute|dev=0|pid=4242|mem=7516192768
";

/// `ollama serve` (900) and its runner (4242, parent 900) with `runner_args`.
fn tree(blob: &Path, runner_args: &[&str]) -> ProcTree {
    let t = ProcTree::new();
    t.add(
        900,
        "ollama",
        1000,
        400_000,
        &["/usr/local/bin/ollama", "serve"],
    );
    t.add(4242, "ollama", 1000, 500_000, runner_args);
    t.parent(4242, 900);
    std::fs::write(
        t.root().join("900/environ"),
        "HOME=/home/alice\0OLLAMA_NUM_PARALLEL=2\0OLLAMA_CONTEXT_LENGTH=8192\0OLLAMA_KEEP_ALIVE=10m\0OLLAMA_API_KEY=SECRET-OLLAMA-KEY\0HF_TOKEN=SECRET-HF\0",
    )
    .unwrap();
    let b = blob.display().to_string();
    t.maps(
        4242,
        &[
            "/usr/local/bin/ollama",
            "/usr/local/lib/ollama/cuda_v12/libggml-cuda.so",
            &b,
        ],
    );
    t
}

/// Stands in `runner_args` for the blob's path.
const BLOB: &str = "<blob>";

/// The runner of Ollama's own Go engine, which no recipe models.
const GO_ENGINE: &[&str] = &[
    "/usr/local/bin/ollama",
    "runner",
    "--ollama-engine",
    "--model",
    BLOB,
    "--port",
    "42059",
];

/// Ollama's own runner (the llama.cpp engine) on the blob.
pub(crate) const RUNNER: &[&str] = &[
    "/usr/local/bin/ollama",
    "runner",
    "--model",
    BLOB,
    "--port",
    "40123",
];

/// [`ONE_GPU`] with [`tree`]: the models folder (in the returned temp dir) and the runner started
/// with `runner_args`, [`BLOB`] among them.
pub(crate) fn ollama(runner_args: &[&str]) -> (tempfile::TempDir, Machine) {
    let d = tempfile::tempdir().unwrap();
    let blob = ollama_models(d.path(), true);
    let b = blob.display().to_string();
    let args: Vec<&str> = runner_args
        .iter()
        .map(|a| if *a == BLOB { b.as_str() } else { a })
        .collect();
    let m = Machine::new(ONE_GPU, tree(&blob, &args));
    (d, m)
}

/// `/api/ps` answered by `ollama serve` (900, socket `inode`) while `args` run.
fn with_ps(m: &Machine, inode: u64, args: &[&str]) -> Answered {
    m.run_answering(900, inode, vec![("/api/ps", 200, OLLAMA_PS)], args)
}

#[test]
fn explain_ollama_runner_shows_measured_reported_and_estimated_apart() {
    let (_d, m) = ollama(RUNNER);
    let Answered {
        out,
        requests: reqs,
        port,
    } = m.run_answering(
        900,
        777001,
        vec![
            ("/api/ps", 200, OLLAMA_PS),
            ("/api/version", 200, r#"{"version":"0.12.11"}"#),
        ],
        &["explain", "4242", "--json"],
    );
    assert_eq!(reqs.len(), 2);
    assert!(reqs[0].starts_with("GET /api/ps "), "{}", reqs[0]);
    assert!(reqs[1].starts_with("GET /api/version "), "{}", reqs[1]);
    let raw = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        !raw.contains("SECRET"),
        "no secret-looking variable is ever read"
    );
    let v = json_of(&out);
    assert_eq!(v["workload"]["kind"], "ollama-runner");
    // Measured: the driver's figure, untouched by the estimate.
    assert_eq!(v["process"]["usage"][0]["memory_bytes"], 7516192768u64);
    let e = &v["estimated"];
    assert_eq!(e["measured_gpu_bytes"], 7516192768u64);
    assert_eq!(e["recipe"], "ollama/runner (llama.cpp)");
    // /api/ps context_length 4096 per slot × OLLAMA_NUM_PARALLEL=2 from the serve parent.
    let est = &e["estimate"];
    assert_eq!(est["context"]["n_ctx"], 8192);
    assert_eq!(est["context"]["n_seq_max"], 2);
    assert_eq!(est["context"]["kv_unified"], false);
    // Each slot's cache is the 576 MiB ollama/ollama#12147's runner printed for 4096 cells.
    assert_eq!(est["kv_cache"]["bytes"], 2 * 576 * MIB);
    assert_eq!(est["kv_cache"]["cells_full"], 4096);
    assert_eq!(est["kv_cache"]["streams"], 2);
    let why = e["why"].as_str().unwrap();
    assert!(
        why.starts_with(
            "qwen3:8b kept loaded until 2026-12-01 14:32 (+01:00) (OLLAMA_KEEP_ALIVE=10m): "
        ) && why.ends_with("1.12 GiB KV cache for 4096 tokens × 2 slots"),
        "{why}"
    );
    let rep = e["reported"].as_array().unwrap();
    let vram = rep.iter().find(|r| r["what"] == "size_vram").unwrap();
    assert_eq!(vram["bytes"], 7335301120u64);
    assert_eq!(
        vram["source"],
        format!("GET http://127.0.0.1:{port}/api/ps")
    );
    // Every input says where it came from.
    let inputs = est["inputs"].as_array().unwrap();
    let c = inputs.iter().find(|i| i["name"] == "-c").unwrap();
    assert!(c["source"].to_string().contains("/api/ps"), "{c}");
    // Ollama 0.12.11 (GET /api/version) ran its runner without flash attention by default.
    assert_eq!(est["context"]["flash_attn"], false);
    let fa = inputs.iter().find(|i| i["name"] == "-fa").unwrap();
    assert!(fa["source"].to_string().contains("0.12.11"), "{fa}");
    let np = inputs.iter().find(|i| i["name"] == "-np").unwrap();
    assert!(
        np["source"].to_string().contains("/proc/900/environ"),
        "{np}"
    );
}

#[test]
fn explain_text_and_snapshot_of_an_ollama_runner() {
    let (_d, m) = ollama(RUNNER);
    let out = with_ps(&m, 777002, &["explain", "4242"]).out;
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "SIDE BY SIDE (never added together)",
        "measured (driver):    7 GiB",
        "reported (runtime):   size_vram ",
        "why: qwen3:8b kept loaded until",
        "recipe: ollama/runner (llama.cpp)",
    ] {
        assert!(text.contains(want), "{want:?} missing:\n{text}");
    }
    assert!(!text.contains("SECRET"));

    // The snapshot (no HTTP on the collection path): num_ctx from OLLAMA_CONTEXT_LENGTH, and the
    // estimate beside the measurement, not in it.
    let v = m.json(&["snapshot", "--json"]);
    let p = process(&v, 4242);
    assert_eq!(p["usage"][0]["memory_bytes"], 7516192768u64);
    let est = &p["estimate"];
    assert_eq!(est["recipe"], "ollama/runner (llama.cpp)");
    assert_eq!(est["n_ctx"], 16384);
    assert_eq!(est["kv_cache_gpu_bytes"], 2 * 2 * 576 * MIB);
    let why = est["why"].as_str().unwrap();
    assert!(
        why.starts_with("qwen3:8b loaded by Ollama's runner: ")
            && why.contains("KV cache for 8192 tokens × 2 slots"),
        "{why}"
    );
    assert!(!serde_json::to_string(&v).unwrap().contains("SECRET"));
}

#[test]
fn explain_ollama_go_engine_says_no_recipe_in_words() {
    let (_d, m) = ollama(GO_ENGINE);
    let v = json_of(&with_ps(&m, 777003, &["explain", "4242", "--json"]).out);
    let why = v["estimated"]["unavailable"].as_str().unwrap();
    assert!(
        why.contains("Go engine") && why.contains("no recipe"),
        "{why}"
    );
    assert!(why.contains("--ollama-engine"), "{why}");
    assert!(
        why.contains("/api/ps says qwen3:8b") && why.contains("context 4096"),
        "{why}"
    );
    assert!(
        v["estimated"].get("estimate").is_none(),
        "no figure is invented"
    );
}

/// Ollama v0.30+: `ollama serve` starts upstream llama-server from `lib/ollama/` with the flags
/// `llm/llama_server.go` builds (`-c num_ctx×P -np P`, log flags, `--flash-attn`); the
/// llama-server recipe reads them, Ollama adds the model's name, `/api/ps` and the why.
#[test]
fn explain_ollama_llama_server_child() {
    let (_d, m) = ollama(&[
        "/usr/local/lib/ollama/llama-server",
        "--model",
        BLOB,
        "--port",
        "40123",
        "--host",
        "127.0.0.1",
        "--no-webui",
        "--offline",
        "-c",
        "8192",
        "-np",
        "2",
        "--log-verbosity",
        "4",
        "--no-log-prefix",
        "--no-log-timestamps",
        "--flash-attn",
        "auto",
    ]);
    // The process is llama-server, child of ollama.
    m.procs.rename(4242, "ollama", "llama-server");
    let v = json_of(&with_ps(&m, 777004, &["explain", "4242", "--json"]).out);
    assert_eq!(v["workload"]["kind"], "llama-cpp");
    let e = &v["estimated"];
    assert_eq!(e["recipe"], "ollama/llama-server (llama.cpp)");
    assert_eq!(e["estimate"]["context"]["n_ctx_seq"], 4096);
    assert_eq!(e["estimate"]["kv_cache"]["bytes"], 2 * 576 * MIB);
    let why = e["why"].as_str().unwrap();
    assert!(
        why.starts_with("qwen3:8b kept loaded until") && why.ends_with("for 4096 tokens × 2 slots"),
        "{why}"
    );
    assert!(e["reported"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["what"] == "size_vram"));
}

/// Under `root` (a stand-in for `/`): LM Studio's copy of Llama-3.1-8B (a GGUF header).
pub(crate) fn lm_studio_model(root: &Path) -> std::path::PathBuf {
    let dir =
        root.join("home/alice/.lmstudio/models/lmstudio-community/Meta-Llama-3.1-8B-Instruct-GGUF");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf");
    let mut w = GgufWriter::new();
    w.kv("general.architecture", MetaValue::String("llama".into()));
    for (k, v) in [
        ("block_count", 32),
        ("context_length", 131072),
        ("embedding_length", 4096),
        ("attention.head_count", 32),
        ("attention.head_count_kv", 8),
        ("vocab_size", 128256),
    ] {
        w.kv(&format!("llama.{k}"), MetaValue::U32(v));
    }
    let q = GgmlType::from_name("q4_0").unwrap();
    w.tensor("token_embd.weight", &[4096, 128256], q);
    w.tensor("output.weight", &[4096, 128256], q);
    w.write(&file).unwrap();
    file
}

/// [`lm_studio_model`], and a tree with the app (7000) and its engine (7001, parent 7000):
/// `~/.lmstudio/.internal/utils/node` running `llmworker.js`, with the GGUF and the CUDA backend
/// mapped.
fn lm_studio(root: &Path) -> ProcTree {
    let file = lm_studio_model(root);
    let node = "/home/alice/.lmstudio/.internal/utils/node";
    let t = ProcTree::new();
    t.add(
        7000,
        "LM Studio",
        1000,
        400_000,
        &["/opt/LM Studio/lm-studio"],
    );
    t.add(
        7001,
        "node",
        1000,
        500_000,
        &[
            node,
            "/home/alice/.lmstudio/llmster/0.0.6-1/.bundle/lib/llmworker.js",
        ],
    );
    t.parent(7001, 7000);
    let f = file.display().to_string();
    t.maps(
        7001,
        &[
            node,
            "/home/alice/.lmstudio/extensions/backends/llama.cpp-linux-x86_64-nvidia-cuda12-avx2-1.50.2/libggml-cuda.so",
            &f,
        ],
    );
    t
}

/// LM Studio's engine: `~/.lmstudio/.internal/utils/node` running `llmworker.js` with the GGUF
/// mapped; the loaded context from `/api/v0/models` on its parent's port (the recorded answer in
/// fixtures/lmstudio).
#[test]
fn explain_lm_studio_engine() {
    let d = tempfile::tempdir().unwrap();
    let t = lm_studio(d.path());
    let body = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lmstudio/api-v0-models.json"),
    )
    .unwrap();
    // explain's generic probe asks the same endpoint on the engine's ports (none here); the
    // runtime ask goes to the parent's port.
    let m = Machine::new(&ONE_GPU.replace("pid=4242", "pid=7001"), t);
    let v = json_of(
        &m.run_answering(
            7000,
            888001,
            vec![("/api/v0/models", 200, body.clone())],
            &["explain", "7001", "--json"],
        )
        .out,
    );
    assert_eq!(v["workload"]["kind"], "lm-studio");
    let e = &v["estimated"];
    assert_eq!(e["recipe"], "lm-studio (llama.cpp engine)");
    assert_eq!(e["estimate"]["context"]["n_ctx"], 4096);
    // Llama-3.1-8B, 4096 tokens, f16: 512 MiB (half the 1024 MiB published for 8192).
    assert_eq!(e["estimate"]["kv_cache"]["bytes"], 512 * MIB);
    assert!(e["why"]
        .as_str()
        .unwrap()
        .starts_with("meta-llama-3.1-8b-instruct loaded by LM Studio with a 4096-token context: "));
    assert!(!e["not_modelled"].as_array().unwrap().is_empty());
    // The same in Chinese: the settings' sources too are the catalogue's sentences.
    let m = Machine::new(
        &ONE_GPU.replace("pid=4242", "pid=7001"),
        lm_studio(d.path()),
    );
    let cn = m.run_answering(
        7000,
        888002,
        vec![("/api/v0/models", 200, body)],
        &["--lang", "zh-CN", "explain", "7001"],
    );
    let cn = String::from_utf8(cn.out.stdout).unwrap();
    assert!(
        cn.contains("LM Studio 的加载设置在外部看不到：假定为一个序列"),
        "{cn}"
    );
    let left = crate::languages::english_sentences(&cn);
    assert!(left.is_empty(), "{}", left.join("\n"));
    // Without probes: the loaded context is unknown, said in words.
    let v = m.json(&["explain", "7001", "--json", "--no-probe"]);
    assert!(v["estimated"]["unavailable"]
        .as_str()
        .unwrap()
        .contains("/api/v0/models"));
}

/// `explain` in Chinese: the evidence, what was not found, why the API was not asked, what
/// Ollama reported and why there is no recipe are the catalogue's sentences; the JSON is the
/// English one whatever the language.
#[test]
fn explain_speaks_chinese_and_its_json_stays_english() {
    // A machine per run: the canned server answers one run, and the serve process would list
    // its port beside the next one's.
    let text = |lang: &str, inode: u64, json: bool| {
        let (d, m) = ollama(RUNNER);
        let mut args = vec!["--lang", lang, "explain", "4242"];
        if json {
            args.push("--json");
        }
        let a = with_ps(&m, inode, &args);
        // The answering server's port differs run to run.
        let out = String::from_utf8(a.out.stdout).unwrap();
        out.replace(&format!("127.0.0.1:{}", a.port), "127.0.0.1:PORT")
            .replace(d.path().to_str().unwrap(), "TMP")
    };
    let json = text("en", 777101, true);
    assert!(
        json.contains("the runtime names this model qwen3:8b"),
        "{json}"
    );
    assert_eq!(text("zh-CN", 777102, true), json);
    assert_eq!(text("zh-TW", 777103, true), json);
    let cn = text("zh-CN", 777104, false);
    for says in [
        "[父进程] ollama（PID 900）",
        "[模型文件] 运行时称此模型为 qwen3:8b",
        "[库] llama.cpp / ggml 库 ",
        "[GGUF 文件头] 架构 qwen3，36 层，",
        "n/a：看不到该进程监听任何 TCP 端口",
        "context_length: 每个槽位 4096 个 token",
        "expires_at: 保持加载至 2026-12-01 14:32 (+01:00)（OLLAMA_KEEP_ALIVE=10m）",
        "依据：qwen3:8b 保持加载至",
        "[工作负载] 运行器：其进程标题 `ollama`；工作负载的根进程是 PID 900",
        "Ollama 运行器 · qwen3:8b · 运行器（可信度：高）",
    ] {
        assert!(cn.contains(says), "{says}\n{cn}");
    }
    let tw = text("zh-TW", 777105, false);
    assert!(tw.contains("[父處理程序] ollama（PID 900）"), "{tw}");
    assert!(tw.contains("每個槽位 4096 個 token"), "{tw}");
    for english in [
        "the runtime names",
        "listens on no TCP port",
        "tokens per slot",
        "kept loaded until",
        "parent chain",
        "GGUF header",
    ] {
        assert!(
            !cn.contains(english) && !tw.contains(english),
            "{english}\n{cn}"
        );
    }
    let left = [&cn, &tw]
        .map(|t| crate::languages::english_sentences(t))
        .concat();
    assert!(left.is_empty(), "{}", left.join("\n"));
    // No recipe for the Go engine: why, in the reader's language.
    let (_d, m) = ollama(GO_ENGINE);
    let out = with_ps(&m, 777106, &["--lang", "zh-CN", "explain", "4242"]).out;
    let cn = String::from_utf8(out.stdout).unwrap();
    assert!(
        cn.contains("n/a：Ollama 自己的 Go 引擎（`ollama runner --ollama-engine`）自行分配权重"),
        "{cn}"
    );
    assert!(cn.contains("显示 qwen3:8b：size 6.83 GiB"), "{cn}");
    assert!(!cn.contains("no recipe models it"), "{cn}");
    let left = crate::languages::english_sentences(&cn);
    assert!(left.is_empty(), "{}", left.join("\n"));
}
