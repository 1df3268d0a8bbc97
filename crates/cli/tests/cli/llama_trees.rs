//! One AI workload, several processes, as real running processes read through the real /proc
//! (issue #26): Ollama's `ollama serve` with the runner of each generation, and llama.cpp's
//! `llama-server` over `ggml-rpc-server`s. The process the (fake) NVML lists must carry the
//! estimate or its share, its role and its group's root in `snapshot` (table and JSON),
//! `explain`, `serve`'s `/metrics` and the live view.
//!
//! The Ollama processes are copies of the Python interpreter (`ollama_tree.py`) that rewrite
//! their own argument area, so /proc shows the command line each Ollama version builds, read
//! from its source at that tag (github.com/ollama/ollama; cited at each generation). Skipped
//! (failed under CI=true) without Python; the llama.cpp test is skipped without the tools
//! `.ci/setup-llama.sh` builds.

use crate::llama_tools;
use crate::serve_support::{get, serve};
use crate::support::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The model's KV cache per token: 36 layers × (K + V) × 8 KV heads × 128 × 2 bytes (f16), from
/// the header [`ollama_models`] writes.
const KV_PER_TOKEN: u64 = 36 * 2 * 8 * 128 * 2;

/// What the fake NVML says the runner holds.
const RUNNER_BYTES: u64 = 7_516_192_768;

/// One GPU; `pid` holds [`RUNNER_BYTES`] on it.
fn one_gpu(pid: u32) -> String {
    format!(
        "driver|version=550.54.15\n\
         device|index=0|name=NVIDIA GeForce RTX 4090|uuid=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee|pci=00000000:65:00.0|total=25757220864|used=9000000000|free=16757220864|reserved=300000000|gpu=3|mem=1|temp=38|power_mw=21000|limit_mw=450000|gfx_mhz=210|sm_mhz=210|mem_mhz=405|pcie_gen=4|pcie_width=16|pcie_max_gen=4|pcie_max_width=16\n\
         compute|dev=0|pid={pid}|mem={RUNNER_BYTES}\n"
    )
}

// Every generation loads the same model header (support::ollama_models, a Qwen3 8B shape): an
// anachronism for v0.3 and v0.5, which changes nothing these tests look at.

/// v0.3.14: the C++ `ollama_llama_server` (a copy of llama.cpp's server example,
/// `llm/ext_server`) extracted to `$TMPDIR/ollamaNNN/runners/cuda_v12/` (`runners/common.go`
/// `extractRunners`); `llm/server.go` `NewLlamaServer`: `--model --ctx-size --batch-size
/// --embedding --n-gpu-layers --threads --parallel --port`, `--ctx-size` = num_ctx 2048 ×
/// OLLAMA_NUM_PARALLEL (`server/sched.go`).
const V03: Gen = Gen {
    version: "0.3.14",
    program: "tmp/ollama3208993108/runners/cuda_v12/ollama_llama_server",
    args: "--model {blob} --ctx-size 8192 --batch-size 512 --embedding --n-gpu-layers 37 --threads 8 --parallel 4 --port {port}",
    env: &[("OLLAMA_NUM_PARALLEL", "4")],
    ps_context: None,
};

/// v0.5.7: the Go runner built as `lib/ollama/runners/cuda_v12_avx/ollama_llama_server`, started
/// as `runner` (`llm/server.go`: `finalParams := []string{"runner"}`), the same flags without
/// `--embedding` (the command line of ollama/ollama#8098).
const V05: Gen = Gen {
    version: "0.5.7",
    program: "lib/ollama/runners/cuda_v12_avx/ollama_llama_server",
    args: "runner --model {blob} --ctx-size 8192 --batch-size 512 --n-gpu-layers 37 --threads 104 --parallel 4 --port {port}",
    env: &[("OLLAMA_NUM_PARALLEL", "4")],
    ps_context: None,
};

/// v0.11.4: `ollama runner` (serve runs itself), llama.cpp engine, parameters on the command
/// line (fixtures/ollama/runner-cmdlines.txt line 1, from ollama/ollama#9509).
const V011: Gen = Gen {
    version: "0.11.4",
    program: "bin/ollama",
    args: "runner --model {blob} --ctx-size 8192 --batch-size 512 --n-gpu-layers 37 --threads 10 --parallel 1 --port {port}",
    env: &[
        ("OLLAMA_NUM_PARALLEL", "1"),
        ("OLLAMA_CONTEXT_LENGTH", "8192"),
    ],
    ps_context: Some(8192),
};

/// v0.12.7: Ollama's own Go engine, parameters in the `/load` request
/// (fixtures/ollama/runner-cmdlines.txt line 3, from ollama/ollama#12846).
const V012_GO: Gen = Gen {
    version: "0.12.7",
    program: "bin/ollama",
    args: "runner --ollama-engine --model {blob} --port {port}",
    env: &[("OLLAMA_NUM_PARALLEL", "1")],
    ps_context: Some(8192),
};

/// v0.30.0: upstream llama-server from `lib/ollama/` (`llm/llama_server.go`: `--model --port
/// --host 127.0.0.1 --no-webui --offline -c num_ctx×P -np P`, the log flags, `--flash-attn`).
const V030: Gen = Gen {
    version: "0.30.0",
    program: "lib/ollama/llama-server",
    args: "--model {blob} --port {port} --host 127.0.0.1 --no-webui --offline -c 8192 -np 2 --log-verbosity 4 --no-log-prefix --no-log-timestamps --flash-attn auto",
    env: &[("OLLAMA_NUM_PARALLEL", "2")],
    ps_context: Some(4096),
};

/// `snapshot --json`, `snapshot` and `explain --json` of the runner, on the live /proc.
fn look(t: &Tree) -> (tempfile::TempDir, PathBuf, Value, String, Value) {
    let (sd, sc) = scenario(&one_gpu(t.runner));
    let proc_root = Path::new("/proc");
    let snap = json_of(&gpuledger(
        fake_nvml(),
        &sc,
        proc_root,
        &["snapshot", "--json"],
    ));
    let table = ok_stdout(&gpuledger(fake_nvml(), &sc, proc_root, &["snapshot"]));
    let pid = t.runner.to_string();
    let out = gpuledger(fake_nvml(), &sc, proc_root, &["explain", &pid, "--json"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("SECRET"));
    (sd, sc, snap, table, json_of(&out))
}

/// What the collection round estimates for one generation (the one place per scenario where
/// the snapshot's estimate is asserted; `snapshot` asks serve's `/api/ps` as explain does):
/// the recipe, the context and its slots.
struct Est {
    recipe: &'static str,
    n_ctx: u64,
    slots: u64,
}

/// A generation's tree through `snapshot` (table and JSON) and `explain` (JSON and text): the
/// runner carries the estimate (or says in words why there is none), its role `runner` and
/// `ollama serve` as its root; measured, reported (`/api/ps`) and estimated stay apart.
fn check(g: &Gen, kind: &str, est: Option<Est>) -> Value {
    let Some(py) = python() else {
        return Value::Null;
    };
    let t = ollama_tree(&py, g);
    let (_sd, sc, snap, table, ex) = look(&t);
    let (runner, root) = (t.runner, t.serve.id());
    let ctx = format!("Ollama {}", g.version);
    assert!(!snap.to_string().contains("SECRET") && !table.contains("SECRET"));

    // snapshot --json: the row the GPU lists, its workload, role and root.
    let p = process(&snap, runner.into());
    assert_eq!(p["usage"][0]["memory_bytes"], RUNNER_BYTES, "{ctx}: {p}");
    assert_eq!(p["workload"]["kind"], kind, "{ctx}: {p}");
    let m = &p["workload"]["member"];
    assert_eq!(m["role"], "runner", "{ctx}: {m}");
    assert_eq!(m["root_pid"], root, "{ctx}: {m}");
    assert!(
        m["evidence"].as_str().unwrap().contains(" serve`)"),
        "{ctx}: {m}"
    );
    // snapshot's table: the measured row names the role; the estimated one carries it too.
    let row = |section: &str| {
        let from = table.find(section).unwrap_or_else(|| panic!("{table}"));
        table[from..]
            .lines()
            .find(|l| l.trim_start().starts_with(&runner.to_string()))
            .map(str::to_string)
    };
    let measured = row("PROCESSES (measured)").expect(&table);
    // The model by the name Ollama's manifest gives its blob, not the blob's digest.
    assert!(measured.contains("· qwen3:8b · runner"), "{ctx}:\n{table}");
    assert_eq!(p["workload"]["model_name"], "qwen3:8b", "{ctx}: {p}");

    // ---- The estimate, as the collection round makes it. ----
    match &est {
        Some(e) => {
            let pe = &p["estimate"];
            assert_eq!(pe["recipe"], e.recipe, "{ctx}: {pe}");
            assert_eq!(pe["n_ctx"], e.n_ctx, "{ctx}: {pe}");
            assert_eq!(
                pe["kv_cache_gpu_bytes"],
                e.n_ctx * KV_PER_TOKEN,
                "{ctx}: {pe}"
            );
            let why = pe["why"].as_str().unwrap();
            let slots = match e.slots {
                1 => "1 slot".to_string(),
                n => format!("{n} slots"),
            };
            // The lead as explain's: /api/ps said until when the model stays loaded.
            assert!(
                why.starts_with(
                    "qwen3:8b kept loaded until 2026-12-01 14:32 (+01:00) (OLLAMA_KEEP_ALIVE=10m): "
                ) && why.ends_with(&format!("for {} tokens × {slots}", e.n_ctx / e.slots)),
                "{ctx}: {why}"
            );
            // Ollama's own figure beside it, as the runtime reported it.
            assert!(
                pe["reported"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|r| r["what"] == "size_vram" && r["bytes"] == PS_SIZE),
                "{ctx}: {pe}"
            );
            let est_row = row("ESTIMATED").unwrap_or_else(|| panic!("{ctx}:\n{table}"));
            assert!(
                est_row.contains(" runner ")
                    && est_row.contains("GPU0")
                    && est_row.contains(e.recipe),
                "{ctx}: {est_row}"
            );
        }
        None => {
            assert!(p["estimate"].is_null(), "{ctx}: no figure is invented: {p}");
            // Why, in words, and Ollama's own figure beside it: the runtime's, not an estimate.
            let ne = &p["no_estimate"];
            assert!(
                ne["why"].as_str().unwrap().contains("no recipe models it"),
                "{ctx}: {p}"
            );
            assert!(
                ne["reported"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|r| r["what"] == "size_vram" && r["bytes"] == PS_SIZE),
                "{ctx}: {ne}"
            );
            let row = row("ESTIMATED").unwrap_or_else(|| panic!("{ctx}:\n{table}"));
            assert!(
                row.contains("no estimate") && row.contains("size_vram 6.83 GiB"),
                "{ctx}: {row}"
            );
        }
    }

    // explain --json: measured, reported by Ollama (/api/ps on serve's port), estimated apart.
    assert_eq!(ex["process"]["usage"][0]["memory_bytes"], RUNNER_BYTES);
    assert_eq!(ex["workload"]["member"]["root_pid"], root, "{ctx}");
    let e = &ex["estimated"];
    let api_ps = format!("GET http://127.0.0.1:{}/api/ps", t.port);
    match &est {
        Some(want) => {
            assert_eq!(e["recipe"], want.recipe, "{ctx}: {e}");
            assert_eq!(e["measured_gpu_bytes"], RUNNER_BYTES, "{ctx}: {e}");
            let vram = e["reported"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["what"] == "size_vram")
                .unwrap_or_else(|| panic!("{ctx}: {e}"));
            assert_eq!(vram["bytes"], PS_SIZE, "{ctx}");
            assert_eq!(vram["source"], api_ps, "{ctx}");
            let total = e["estimate"]["total_gpu_bytes"].as_u64().unwrap();
            assert_ne!(
                total, RUNNER_BYTES,
                "{ctx}: the estimate is not the measurement"
            );
            assert_ne!(total, PS_SIZE, "{ctx}: nor Ollama's own figure");
            assert!(
                e["why"].as_str().unwrap().starts_with(
                    "qwen3:8b kept loaded until 2026-12-01 14:32 (+01:00) (OLLAMA_KEEP_ALIVE=10m): "
                ),
                "{ctx}: {e}"
            );
        }
        None => {
            // No recipe: said in words, with what the command line and /api/ps say.
            let why = e["unavailable"]
                .as_str()
                .unwrap_or_else(|| panic!("{ctx}: {e}"));
            assert!(why.contains("no recipe models it"), "{ctx}: {why}");
            assert!(
                why.contains(&format!(
                    "{api_ps} says qwen3:8b: size 6.83 GiB, size_vram 6.83 GiB"
                )),
                "{ctx}: {why}"
            );
            assert!(e.get("estimate").is_none(), "{ctx}: {e}");
            // The side by side holds Ollama's figure, not "publishes no figure".
            assert!(
                e["reported"]
                    .as_array()
                    .is_some_and(|r| r.iter().any(|r| r["what"] == "size_vram")),
                "{ctx}: {e}"
            );
        }
    }
    // explain's text: the group, rooted at serve, with this process's role and share.
    let text = ok_stdout(&gpuledger(
        fake_nvml(),
        &sc,
        Path::new("/proc"),
        &["explain", &runner.to_string()],
    ));
    assert!(
        text.contains(&format!(
            "WORKLOAD PROCESSES (rooted at pid {root}; 7 GiB measured in all"
        )),
        "{ctx}:\n{text}"
    );
    let member = text
        .lines()
        .find(|l| l.contains("← this process"))
        .unwrap_or_else(|| panic!("{ctx}:\n{text}"));
    assert!(
        member.contains(&runner.to_string())
            && member.contains("runner")
            && member.contains("GPU0 7 GiB"),
        "{ctx}: {member}"
    );
    assert_eq!(
        member.contains("estimated share"),
        est.is_some(),
        "{ctx}: {member}"
    );
    ex
}

/// v0.3.14's C++ server: the estimate, with n_batch as that server takes it (`--batch-size`,
/// told apart from v0.4.0's Go runner by `/api/version`).
#[test]
fn ollama_v0_3_cpp_server_tree() {
    let ex = check(
        &V03,
        "ollama-runner",
        Some(Est {
            recipe: "ollama/runner (llama.cpp)",
            n_ctx: 8192,
            slots: 4,
        }),
    );
    if ex.is_null() {
        return;
    }
    let c = &ex["estimated"]["estimate"]["context"];
    assert_eq!(c["n_batch"], 512, "{c}");
    assert_eq!(c["kv_unified"], true, "{c}");
}

/// v0.5.7's `ollama_llama_server runner`: one unified cache (its llama.cpp predates per-slot
/// streams), n_batch = --batch-size × --parallel.
#[test]
fn ollama_v0_5_runner_tree() {
    let ex = check(
        &V05,
        "ollama-runner",
        Some(Est {
            recipe: "ollama/runner (llama.cpp)",
            n_ctx: 8192,
            slots: 4,
        }),
    );
    if ex.is_null() {
        return;
    }
    let c = &ex["estimated"]["estimate"]["context"];
    assert_eq!(
        (c["n_batch"].as_u64(), c["kv_unified"].as_bool()),
        (Some(2048), Some(true)),
        "{c}"
    );
}

/// v0.11.4's `ollama runner` (llama.cpp engine, flags on the command line).
#[test]
fn ollama_v0_11_runner_tree() {
    check(
        &V011,
        "ollama-runner",
        Some(Est {
            recipe: "ollama/runner (llama.cpp)",
            n_ctx: 8192,
            slots: 1,
        }),
    );
}

/// v0.12.7's `ollama runner --ollama-engine`: Ollama's own Go engine has no recipe; said so.
#[test]
fn ollama_go_engine_tree_has_no_recipe_and_says_so() {
    check(&V012_GO, "ollama-runner", None);
}

/// v0.30's upstream llama-server child of `ollama serve`.
#[test]
fn ollama_v0_30_llama_server_tree() {
    check(
        &V030,
        "llama-cpp",
        Some(Est {
            recipe: "ollama/llama-server (llama.cpp)",
            n_ctx: 8192,
            slots: 2,
        }),
    );
}

/// `serve`'s `/metrics` on v0.5.7's tree: the runner's series carry the workload, its role, its
/// root and the device, for the measured memory and for the estimate beside it.
#[test]
fn ollama_runner_series_in_prometheus() {
    let Some(py) = python() else { return };
    let t = ollama_tree(&py, &V05);
    let (_sd, sc) = scenario(&one_gpu(t.runner));
    let s = serve(fake_nvml(), &sc, Path::new("/proc"), &[]);
    let pid = format!("pid=\"{}\"", t.runner);
    let labels = [
        "workload=\"ollama-runner\"".to_string(),
        "role=\"runner\"".to_string(),
        format!("workload_root=\"{}\"", t.serve.id()),
    ];
    let device = "device=\"GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee\"";
    let end = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let body = loop {
        let r = get(s.addr, "/metrics");
        assert_eq!(r.status, 200);
        if r.body
            .lines()
            .any(|l| l.starts_with("gpuledger_process_estimated_total_bytes{") && l.contains(&pid))
        {
            break r.body;
        }
        assert!(std::time::Instant::now() < end, "{}", r.body);
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let series = |name: &str| {
        body.lines()
            .find(|l| l.starts_with(&format!("{name}{{")) && l.contains(&pid))
            .unwrap_or_else(|| panic!("no {name} for {pid}:\n{body}"))
            .to_string()
    };
    let mem = series("gpuledger_process_memory_bytes");
    assert!(
        mem.contains(device)
            && labels.iter().all(|l| mem.contains(l))
            && mem.ends_with(&format!(" {RUNNER_BYTES}")),
        "{mem}"
    );
    let est = series("gpuledger_process_estimated_total_bytes");
    assert!(
        est.contains(device) && labels.iter().all(|l| est.contains(l)),
        "{est}"
    );
    let kv = body
        .lines()
        .find(|l| {
            l.starts_with("gpuledger_process_estimated_memory_bytes{")
                && l.contains(&pid)
                && l.contains("component=\"kv_cache\"")
        })
        .unwrap_or_else(|| panic!("{body}"));
    assert!(kv.ends_with(&format!(" {}", 8192 * KV_PER_TOKEN)), "{kv}");
}

/// The live view in tmux (120×40) until `pred` holds on its screen, which is returned. `None`
/// (skipped, failed under CI=true) without tmux.
fn live_view_until(sc: &Path, what: &str, pred: impl Fn(&str) -> bool) -> Option<String> {
    if Command::new("tmux").arg("-V").output().is_err() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "tmux is required (run .ci/setup-tmux.sh)"
        );
        eprintln!("SKIPPED: tmux not installed");
        return None;
    }
    let d = tempfile::tempdir().unwrap();
    let sock = d.path().join("tmux.sock");
    let tmux = |args: &[&str]| {
        isolate(&mut Command::new("tmux"))
            .arg("-S")
            .arg(&sock)
            .args(args)
            .output()
            .expect("run tmux")
    };
    let cmd = format!(
        "FAKE_NVML_SCENARIO='{}' NO_COLOR= '{}' --nvml-lib '{}' --proc-root /proc -d 0.5; sleep 60",
        sc.display(),
        env!("CARGO_BIN_EXE_gpuledger"),
        fake_nvml().display(),
    );
    let out = tmux(&[
        "new-session",
        "-d",
        "-s",
        "gl",
        "-x",
        "120",
        "-y",
        "40",
        &cmd,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let end = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let screen = loop {
        let s =
            String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", "gl"]).stdout).into_owned();
        if pred(&s) {
            break s;
        }
        if std::time::Instant::now() > end {
            let _ = tmux(&["kill-server"]);
            panic!("timed out waiting for {what}; screen:\n{s}");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let _ = tmux(&["kill-server"]);
    assert!(screen.lines().all(|l| l.chars().count() <= 120), "{screen}");
    Some(screen)
}

/// The live view of v0.30's tree: the llama-server child's row names its role.
#[test]
fn ollama_tree_in_the_live_view() {
    let Some(py) = python() else { return };
    let t = ollama_tree(&py, &V030);
    let (_sd, sc) = scenario(&one_gpu(t.runner));
    let pid = t.runner.to_string();
    let Some(s) = live_view_until(&sc, "the runner's row", |s| {
        s.lines().any(|l| l.contains(&pid) && l.contains("runner"))
    }) else {
        return;
    };
    // The table's row (the first line naming the pid): the model by Ollama's name for it, and
    // the role.
    let row = s.lines().find(|l| l.contains(&pid)).unwrap();
    assert!(
        row.contains("llama-server")
            && row.contains("llama.cpp · qwen3:8b · runner ")
            && row.contains(" 7 GiB"),
        "{s}"
    );
    assert!(!s.contains("SECRET"), "{s}");
}

/// A llama-server kept running (killed when dropped) and its log so far.
struct Running {
    child: Child,
    log: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start `cmd` (a llama-server) and wait until it listens; panics with its log if it does not
/// within 60 s.
fn start_loaded(cmd: &mut Command) -> Running {
    use std::io::Read;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn llama-server");
    let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    for r in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let log = log.clone();
        std::thread::spawn(move || {
            let mut r = r;
            let mut buf = [0u8; 8192];
            while let Ok(n @ 1..) = r.read(&mut buf) {
                log.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
    }
    let s = Running { child, log };
    let end = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let text = s.log.lock().unwrap().clone();
        if ["server is listening", "listening on http"]
            .iter()
            .any(|m| text.contains(m))
        {
            return s;
        }
        assert!(
            std::time::Instant::now() < end && !text.contains("exiting due to"),
            "llama-server did not load:\n{text}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// MiB of the buffers of `kind` (`model`, `KV`, `compute`) the log prints for the RPC device at
/// `endpoint` (`RPC0[127.0.0.1:PORT] model buffer size =    1.23 MiB`).
fn logged_mib(log: &str, endpoint: &str, kind: &str) -> f64 {
    log.lines()
        .filter(|l| l.contains(&format!("[{endpoint}] {kind} buffer size")))
        .filter_map(|l| {
            l.split('=')
                .nth(1)?
                .trim()
                .strip_suffix("MiB")?
                .trim()
                .parse::<f64>()
                .ok()
        })
        .sum()
}

/// llama.cpp over RPC: the real llama-server (`-ngl 99 -ts 1,1 --rpc A,B`) over two real
/// `ggml-rpc-server`s. The fake NVML charges the llama-server on GPU0 and each rpc-server on a
/// GPU of its own; each rpc-server is the server's `rpc device`, carries its device's part of
/// the server's estimate (equal to what the server printed for that device's weights and KV
/// cache), and the parts add up to the server's whole estimate.
#[test]
fn llama_server_over_rpc_servers_is_one_workload() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(tools) = llama_tools::find(&root) else {
        return;
    };
    let Some(rpc_bin) = tools.rpc_server_or_skip() else {
        return;
    };
    let dir = tools.gen_models(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("llama-tree-models"),
        &["llama-deep"],
    );
    let rpc = llama_tools::start_rpc(&rpc_bin, 2);
    let port = crate::serve_support::free_port().to_string();
    let server = start_loaded(
        Command::new(&tools.server)
            .arg("-m")
            .arg(dir.join("llama-deep.gguf"))
            .args([
                "--host",
                "127.0.0.1",
                "--port",
                &port,
                "-t",
                "2",
                "-lv",
                "4",
            ])
            .args([
                "--no-warmup",
                "-c",
                "512",
                "--no-repack",
                "-ngl",
                "99",
                "-ts",
                "1,1",
            ])
            .args(["--rpc", &rpc.endpoints.join(",")])
            .env("LD_LIBRARY_PATH", tools.server.parent().unwrap()),
    );
    let log = server.log.lock().unwrap().clone();
    let (spid, rpids) = (server.child.id(), rpc.pids());
    let dev = |i: usize| {
        format!("device|index={i}|name=NVIDIA GeForce RTX 4090|uuid=GPU-{i}|total=25757220864|used=2000000000|free=23757220864|gpu=1|mem=1\n")
    };
    let (_sd, sc) = scenario(&format!(
        "driver|version=550.54.15\n{}{}{}compute|dev=0|pid={spid}|mem=400000000\n\
         compute|dev=1|pid={}|mem=300000000\ncompute|dev=2|pid={}|mem=300000000\n",
        dev(0),
        dev(1),
        dev(2),
        rpids[0],
        rpids[1]
    ));
    let proc_root = Path::new("/proc");
    let snap = json_of(&gpuledger(
        fake_nvml(),
        &sc,
        proc_root,
        &["snapshot", "--json"],
    ));
    let server_p = process(&snap, spid.into()).clone();
    assert_eq!(server_p["workload"]["kind"], "llama-cpp", "{server_p}");
    let ex = json_of(&gpuledger(
        fake_nvml(),
        &sc,
        proc_root,
        &["explain", &spid.to_string(), "--json"],
    ));
    let whole = &ex["estimated"]["estimate"];
    let shares = whole["devices"]
        .as_array()
        .unwrap_or_else(|| panic!("{whole}"));
    let mut sum = server_p["estimate"]["total_gpu_bytes"]
        .as_u64()
        .unwrap_or(0);
    let mut rows = Vec::new();
    for (i, (rpid, endpoint)) in rpids.iter().zip(&rpc.endpoints).enumerate() {
        let p = process(&snap, (*rpid).into());
        let m = &p["workload"]["member"];
        assert_eq!(m["role"], "rpc device", "{p}");
        assert_eq!(m["root_pid"], spid, "{p}");
        assert_eq!(p["usage"][0]["device"], format!("GPU-{}", i + 1), "{p}");
        // ---- The rpc-server's share, as the collection round makes it. ----
        let e = &p["estimate"];
        let d = shares
            .iter()
            .find(|d| d["endpoint"] == endpoint.as_str())
            .unwrap_or_else(|| panic!("{endpoint} in {whole}"));
        assert_eq!(e["weights_gpu_bytes"], d["weights_bytes"], "{e}");
        assert_eq!(e["kv_cache_gpu_bytes"], d["kv_bytes"], "{e}");
        assert!(
            e["why"]
                .as_str()
                .unwrap()
                .starts_with(&format!("RPC{i} of pid {spid}")),
            "{e}"
        );
        sum += e["total_gpu_bytes"].as_u64().unwrap();
        // What the real server printed for this device: weights and KV cache to the printed
        // 0.01 MiB.
        let mib = |b: &Value| b.as_u64().unwrap() as f64 / (1u64 << 20) as f64;
        let (w_log, kv_log, c_log) = (
            logged_mib(&log, endpoint, "model"),
            logged_mib(&log, endpoint, "KV"),
            logged_mib(&log, endpoint, "compute"),
        );
        let (w_est, kv_est, c_est) = (
            mib(&e["weights_gpu_bytes"]),
            mib(&e["kv_cache_gpu_bytes"]),
            mib(&e["compute_gpu_bytes"]),
        );
        rows.push(format!(
            "RPC{i}[{endpoint}] weights {w_log:.2}/{w_est:.2} KV {kv_log:.2}/{kv_est:.2} compute {c_log:.2}/{c_est:.2} MiB (printed/ours)"
        ));
        assert!(w_log > 0.0, "no buffer lines for {endpoint} in:\n{log}");
        assert!((w_log - w_est).abs() <= 0.006, "{}", rows.join("\n"));
        assert!((kv_log - kv_est).abs() <= 0.006, "{}", rows.join("\n"));
        // Compute as llama_devices.rs holds it: within 10 %.
        assert!((c_log - c_est).abs() <= 0.10 * c_log, "{}", rows.join("\n"));
    }
    eprintln!(
        "{}\nllama-server's own part {} of the whole {} bytes",
        rows.join("\n"),
        server_p["estimate"]["total_gpu_bytes"],
        whole["total_gpu_bytes"]
    );
    // The members' parts add up to the server's whole estimate, and the snapshot's group says
    // so: rooted at the server, three members.
    assert_eq!(sum, whole["total_gpu_bytes"].as_u64().unwrap(), "{whole}");
    let g = snap["workload_groups"]
        .as_array()
        .and_then(|gs| gs.iter().find(|g| g["root_pid"] == spid))
        .unwrap_or_else(|| panic!("{}", snap["workload_groups"]));
    assert_eq!(g["members"].as_array().unwrap().len(), 3, "{g}");
    assert_eq!(g["estimated_bytes"], whole["total_gpu_bytes"], "{g}");

    // snapshot's table: each rpc-server's role; explain on one: the group, rooted at the server.
    let table = ok_stdout(&gpuledger(fake_nvml(), &sc, proc_root, &["snapshot"]));
    for r in &rpids {
        let row = table
            .lines()
            .find(|l| l.trim_start().starts_with(&r.to_string()) && l.contains("rpc device"))
            .unwrap_or_else(|| panic!("{table}"));
        assert!(row.contains("ggml-rpc-server"), "{row}");
    }
    let text = ok_stdout(&gpuledger(
        fake_nvml(),
        &sc,
        proc_root,
        &["explain", &rpids[1].to_string()],
    ));
    assert!(text.contains(&format!("(rooted at pid {spid};")), "{text}");
    for r in &rpids {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&r.to_string()))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            line.contains("rpc device") && line.contains("estimated share"),
            "{text}"
        );
    }
    // The same in Chinese: the rpc-server's share and how it joined, in the catalogue's words.
    let cn = ok_stdout(&gpuledger(
        fake_nvml(),
        &sc,
        proc_root,
        &["--lang", "zh-CN", "explain", &rpids[1].to_string()],
    ));
    assert!(
        cn.contains(&format!("PID {spid} 的 --rpc 指定了 127.0.0.1:")),
        "{cn}"
    );
    assert!(
        cn.contains("rpc-server 持有其 llama-server 通过 RPC 发来的层"),
        "{cn}"
    );
    for english in ["where this rpc-server listens", "holds the layers"] {
        assert!(!cn.contains(english), "{english}\n{cn}");
    }
    // The live view: the three members' rows, each rpc-server with its role.
    let rows = |s: &str| {
        rpids.iter().all(|r| {
            s.lines()
                .any(|l| l.contains(&format!(" {r} ")) && l.contains("· rpc device"))
        }) && s.lines().any(|l| l.contains(&format!(" {spid} ")))
    };
    if let Some(s) = live_view_until(&sc, "the rpc-servers' rows", rows) {
        assert!(s.contains("ggml-rpc-server"), "{s}");
    }
    drop(server);
}
