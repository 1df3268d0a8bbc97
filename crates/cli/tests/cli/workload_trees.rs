//! One AI workload, many processes and GPUs (issue #26): real process trees with the runtimes'
//! real titles and command lines (tests/cli/fake_runtime.py stands in for each process), one
//! fake NVML GPU per process that holds memory, and the real /proc. Each tree is checked in every
//! view that shows a process: `snapshot` (table and JSON), `explain PID`, `serve`'s /metrics and,
//! for vLLM V1 TP 4, the live view in tmux. Each member that holds memory carries its rank's
//! share of the estimate beside its own GPU's measured memory.
//!
//! The trees, as the runtimes build them:
//! - vLLM V1: the API server → `VLLM::EngineCore` → `VLLM::Worker_TP0..n-1` (titles that replace
//!   the command line); with TP 1 the engine core runs the model itself.
//! - vLLM V0 (v0.6/v0.7): the API server spawns its engine (`MQLLMEngine`, command line
//!   `python -c "from multiprocessing.spawn import spawn_main; ..." --multiprocessing-fork`),
//!   which runs rank 0 itself and starts ranks 1..n-1 as multiprocessing children
//!   (`MultiprocessingDistributedExecutor`): forks (the engine's own command line) or spawns.
//!   Python's resource tracker is one more child of the server.
//! - SGLang: `python -m sglang.launch_server` → `sglang::scheduler_TP0..n-1` (one per GPU) and
//!   `sglang::detokenizer` (no GPU memory).
//! - torchrun: `python /path/bin/torchrun --nproc_per_node=2 train.py` → `python -u train.py`
//!   per rank, with RANK, LOCAL_RANK and WORLD_SIZE set as torch's LocalElasticAgent sets them.

use crate::explain_runtimes::{model_dir, package_total, repo, stage, start, Fake, TINYLLAMA_ROPE};
use crate::serve_support::{get, serve};
use crate::support::*;
use crate::tui_tmux::{line_with, Tmux};
use serde_json::Value;
use std::path::{Path, PathBuf};

const GIB: u64 = 1 << 30;
const DEVICE_TOTAL: u64 = 24 * GIB;

/// A running tree: the stand-in (killed on drop, its descendants follow), its root's pid, and
/// the processes that hold GPU memory, one per GPU in order.
struct Tree {
    _fake: Fake,
    _dir: tempfile::TempDir,
    root: u32,
    label: &'static str,
    members: Vec<Member>,
}

/// A process that holds GPU memory: its role and, from the model's files and the runtime's
/// flags, what its share of the estimate must be.
struct Member {
    pid: u32,
    role: &'static str,
    weights: u64,
    total: u64,
}

/// What GPU `i` measures for its process: (21 - i) GiB.
fn measured(i: usize) -> u64 {
    (21 - i as u64) * GIB
}

/// The fake NVML: one 24 GiB GPU per member, member `i` on GPU `i`.
fn gpus(t: &Tree) -> (tempfile::TempDir, PathBuf) {
    let mut s = "driver|version=550.54.15\n".to_string();
    for (i, m) in t.members.iter().enumerate() {
        let used = measured(i);
        s += &format!(
            "device|index={i}|name=NVIDIA GeForce RTX 4090|uuid=GPU-{i}|total={DEVICE_TOTAL}|used={used}|free={}|gpu=1|mem=1\ncompute|dev={i}|pid={}|mem={used}\n",
            DEVICE_TOTAL - used,
            m.pid
        );
    }
    scenario(&s)
}

fn whole_gib(b: u64) -> String {
    assert!(b.is_multiple_of(GIB), "{b} is not whole GiB");
    format!("{} GiB", b / GIB)
}

/// `python3 -m vllm.entrypoints.openai.api_server --model DIR ARGS...` with the stand-in's
/// children as `env` asks; `gpu`: which of the reported children hold a GPU, and their roles.
fn vllm(
    args: &[&str],
    env: &[(&str, &str)],
    gpu: &[(usize, &'static str)],
    ranks: u64,
) -> Option<Tree> {
    let py = python()?;
    let dir = tempfile::tempdir().unwrap();
    let m = model_dir(dir.path());
    let mut a = vec![
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        m.to_str().unwrap(),
        "--gpu-memory-utilization",
        "0.5",
    ];
    a.extend(args);
    let env: Vec<(&str, String)> = env.iter().map(|(k, v)| (*k, v.to_string())).collect();
    let f = start(dir.path(), &py, &a, &env);
    // Each rank's weights: the package-written shards split over the ranks, and vLLM's whole
    // rotary cache; its total: the reservation, --gpu-memory-utilization 0.5 of its own GPU.
    let members = gpu
        .iter()
        .map(|&(i, role)| Member {
            pid: f.engines[i],
            role,
            weights: package_total() / ranks + TINYLLAMA_ROPE,
            total: DEVICE_TOTAL / 2,
        })
        .collect();
    Some(Tree {
        root: f.child.id(),
        _fake: f,
        _dir: dir,
        label: "vLLM · TinyLlama-1.1B-Chat-v1.0",
        members,
    })
}

const V1_TP4_WORKERS: &str = "VLLM::Worker_TP0,VLLM::Worker_TP1,VLLM::Worker_TP2,VLLM::Worker_TP3";

fn vllm_v1_tp4() -> Option<Tree> {
    vllm(
        &["--tensor-parallel-size", "4"],
        &[
            ("FAKE_CHILD_COMM", "VLLM::EngineCore"),
            ("FAKE_GRANDCHILD_COMM", V1_TP4_WORKERS),
        ],
        // engines[0] is the engine core: with 4 ranks it holds no model and no GPU memory.
        &[
            (1, "worker TP0/4"),
            (2, "worker TP1/4"),
            (3, "worker TP2/4"),
            (4, "worker TP3/4"),
        ],
        4,
    )
}

/// The views every tree is checked in: snapshot (table, JSON), explain, serve's /metrics.
fn check_views(t: &Tree) {
    let (_d, sc) = gpus(t);
    check_table(t, &sc);
    check_json(t, &sc);
    check_explain(t, &sc);
    check_metrics(t, &sc);
}

/// Whole GiB as the views print them, else KiB with two decimals.
fn human(b: u64) -> String {
    if b.is_multiple_of(GIB) {
        whole_gib(b)
    } else if b > GIB {
        format!("{:.1} GiB", b as f64 / GIB as f64)
    } else {
        format!("{:.2} KiB", b as f64 / 1024.0)
    }
}

fn estimated_sum(t: &Tree) -> u64 {
    t.members.iter().map(|m| m.total).sum()
}

fn measured_sum(t: &Tree) -> u64 {
    (0..t.members.len()).map(measured).sum()
}

fn check_table(t: &Tree, sc: &Path) {
    let table = ok_stdout(&on_live_proc(sc).arg("snapshot").output().unwrap());
    let est = &table[table.find("ESTIMATED").expect(&table)..];
    for (i, m) in t.members.iter().enumerate() {
        let row = est
            .lines()
            .find(|l| l.trim_start().starts_with(&m.pid.to_string()))
            .unwrap_or_else(|| panic!("no row for {}:\n{table}", m.pid));
        // Its role, its own GPU, its share beside that GPU's measured memory.
        for want in [
            m.role.to_string(),
            format!("GPU{i}"),
            human(m.total),
            whole_gib(measured(i)),
        ] {
            assert!(row.contains(&want), "{want:?} not in {row:?}\n{table}");
        }
    }
    // The group in one line: the members' shares summed (a floor: each share has a part not
    // known without the runtime's answer, vLLM's KV blocks, SGLang's pool fraction, PyTorch's
    // activations) beside what their GPUs measured. One process is no group.
    let head = format!(
        "group of pid {} ({}): {} members, estimated ≥ ",
        t.root,
        t.label,
        t.members.len()
    );
    if t.members.len() == 1 {
        assert!(!est.contains("group of pid"), "{table}");
        return;
    }
    let line = line_with(est, &head);
    let (sum, rest) = line[line.find(&head).unwrap() + head.len()..]
        .split_once(" in all beside ")
        .unwrap_or_else(|| panic!("{line}"));
    assert_eq!(rest, format!("{} measured", whole_gib(measured_sum(t))));
    // The sum as printed (whole GiB, or KiB rounded for PyTorch's small files).
    let want = estimated_sum(t) as f64;
    assert!((printed_bytes(sum) - want).abs() <= want / 100.0, "{line}");
}

/// `15 KiB`, `48 GiB` as bytes.
fn printed_bytes(s: &str) -> f64 {
    let (n, unit) = s.split_once(' ').unwrap_or_else(|| panic!("{s}"));
    let scale = match unit {
        "B" => 1u64,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => panic!("unit of {s}"),
    };
    n.parse::<f64>().unwrap() * scale as f64
}

fn snapshot_json(sc: &Path) -> Value {
    let out = on_live_proc(sc)
        .args(["snapshot", "--json"])
        .output()
        .unwrap();
    serde_json::from_str(&ok_stdout(&out)).unwrap()
}

fn check_json(t: &Tree, sc: &Path) {
    let v = snapshot_json(sc);
    for (i, m) in t.members.iter().enumerate() {
        let p = process(&v, m.pid.into());
        let member = &p["workload"]["member"];
        assert_eq!(member["role"], m.role, "{p}");
        assert_eq!(member["root_pid"], t.root, "{p}");
        assert_eq!(p["estimate"]["weights_gpu_bytes"], m.weights, "{p}");
        assert_eq!(p["estimate"]["total_gpu_bytes"], m.total, "{p}");
        assert_eq!(p["usage"][0]["memory_bytes"], measured(i), "{p}");
        assert_eq!(p["usage"][0]["device"], format!("GPU-{i}"), "{p}");
    }
    let groups = v["workload_groups"].as_array().cloned().unwrap_or_default();
    let g = groups.iter().find(|g| g["root_pid"] == t.root);
    let Some(g) = g.filter(|_| t.members.len() > 1) else {
        assert!(g.is_none(), "one process is no group: {g:?}");
        return;
    };
    let want: Vec<u32> = t.members.iter().map(|m| m.pid).collect();
    assert_eq!(g["members"], serde_json::json!(want), "{g}");
    assert_eq!(g["estimated_bytes"], estimated_sum(t), "{g}");
    assert_eq!(g["estimated_is_floor"], true, "{g}");
    assert_eq!(g["measured_bytes"], measured_sum(t), "{g}");
}

/// explain on the last member: the whole group, each member's share beside its own GPU.
fn check_explain(t: &Tree, sc: &Path) {
    let last = t.members.last().unwrap();
    let pid = last.pid.to_string();
    let text = ok_stdout(&on_live_proc(sc).args(["explain", &pid]).output().unwrap());
    let head = format!("WORKLOAD PROCESSES (rooted at pid {}", t.root);
    let section = &text[text.find(&head).unwrap_or_else(|| panic!("{text}"))..];
    for (i, m) in t.members.iter().enumerate() {
        let line = section
            .lines()
            .find(|l| l.contains(&m.pid.to_string()))
            .unwrap_or_else(|| panic!("no line for {}:\n{text}", m.pid));
        for want in [
            m.role.to_string(),
            format!("GPU{i} {}", whole_gib(measured(i))),
            format!("(estimated share {})", human(m.total)),
        ] {
            assert!(line.contains(&want), "{want:?} not in {line:?}\n{text}");
        }
        assert_eq!(
            line.ends_with("← this process"),
            m.pid == last.pid,
            "{line}"
        );
    }
    let out = on_live_proc(sc)
        .args(["explain", &pid, "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(&ok_stdout(&out)).unwrap();
    assert_eq!(
        v["workload"]["member"]["role"], last.role,
        "{}",
        v["workload"]
    );
    assert_eq!(v["group"]["root_pid"], t.root);
    let members = v["group"]["members"].as_array().unwrap();
    assert_eq!(members.len(), t.members.len(), "{members:?}");
    for (j, m) in members.iter().zip(&t.members) {
        assert_eq!(j["pid"], m.pid);
        assert_eq!(j["estimated_gpu_bytes"], m.total, "{j}");
    }
}

/// serve's /metrics: each member's measured series and estimated total, on its own GPU, with
/// the workload, its role and the workload's root as labels.
fn check_metrics(t: &Tree, sc: &Path) {
    let s = serve(fake_nvml(), sc, Path::new("/proc"), &["--interval", "1s"]);
    let workload = match t.label.split(' ').next() {
        Some("vLLM") => "vllm",
        Some("SGLang") => "sglang",
        _ => "pytorch",
    };
    // The first series that is missing or differs, in one scrape.
    let wrong = |body: &str| -> Option<String> {
        for (i, mem) in t.members.iter().enumerate() {
            let labels = [
                format!(r#"device="GPU-{i}""#),
                format!(r#"pid="{}""#, mem.pid),
                format!(r#"workload="{workload}""#),
                format!(r#"role="{}""#, mem.role),
                format!(r#"workload_root="{}""#, t.root),
            ];
            for (family, value) in [
                ("gpuledger_process_memory_bytes{", measured(i)),
                ("gpuledger_process_estimated_total_bytes{", mem.total),
            ] {
                let line = body.lines().find(|l| {
                    l.starts_with(family) && labels.iter().all(|w| l.contains(w.as_str()))
                });
                match line {
                    Some(l) if l.ends_with(&format!("}} {value}")) => {}
                    Some(l) => return Some(format!("{l} is not {value}")),
                    None => return Some(format!("no {family} series with {labels:?}")),
                }
            }
        }
        None
    };
    // serve asks the runtime's API in the background: its answer shows a round or two later.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let m = get(s.addr, "/metrics");
        assert_eq!(m.status, 200);
        match wrong(&m.body) {
            None => return,
            Some(why) if std::time::Instant::now() > deadline => panic!("{why}:\n{}", m.body),
            Some(_) => std::thread::sleep(std::time::Duration::from_millis(200)),
        }
    }
}

#[test]
fn vllm_v1_tensor_parallel_4_workers_each_carry_their_share() {
    let Some(t) = vllm_v1_tp4() else { return };
    // The titles the kernel keeps (15 bytes) are the workers' names.
    for m in &t.members {
        let comm = std::fs::read_to_string(format!("/proc/{}/comm", m.pid)).unwrap();
        assert_eq!(comm.trim_end(), "VLLM::Worker_TP");
    }
    check_views(&t);
}

#[test]
fn vllm_v1_tp1_engine_core_carries_the_whole_estimate() {
    let Some(t) = vllm(
        &[],
        &[("FAKE_CHILD_COMM", "VLLM::EngineCore")],
        &[(0, "engine core")],
        1,
    ) else {
        return;
    };
    check_views(&t);
}

/// vLLM V0 with `--tensor-parallel-size 2`: the engine the server spawned holds GPU 0 (rank 0
/// runs in it), its multiprocessing child GPU 1. Neither has a title: their roles come from the
/// tree. Both ways V0 starts its workers: fork (`python -m`, VLLM_WORKER_MULTIPROC_METHOD's
/// default) and spawn (`vllm serve`, or CUDA already initialised).
#[test]
fn vllm_v0_tensor_parallel_2_engine_holds_rank_0_and_its_child_rank_1() {
    for method in ["fork", "spawn"] {
        let Some(t) = vllm(
            &["--tensor-parallel-size", "2"],
            &[("FAKE_V0_WORKERS", "1"), ("FAKE_V0_METHOD", method)],
            &[(0, "engine TP0/2"), (1, "worker TP1/2")],
            2,
        ) else {
            return;
        };
        let cmdline = |pid: u32| std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
        let (engine, worker) = (t.members[0].pid, t.members[1].pid);
        // The real command lines: the engine's is multiprocessing's, the worker's the engine's
        // own (fork) or multiprocessing's (spawn).
        let engine_line = String::from_utf8_lossy(&cmdline(engine)).replace('\0', " ");
        assert!(
            engine_line.contains("-c from multiprocessing.spawn import spawn_main; spawn_main(")
                && engine_line.ends_with("--multiprocessing-fork "),
            "{engine_line}"
        );
        let worker_line = String::from_utf8_lossy(&cmdline(worker)).replace('\0', " ");
        if method == "fork" {
            assert_eq!(worker_line, engine_line);
        } else {
            assert!(worker_line.contains("spawn_main("), "{worker_line}");
        }
        check_views(&t);
    }
}

/// The live view at 120×40 on the V1 TP 4 tree: each worker's row shows its role.
#[test]
fn live_view_shows_the_roles_of_vllm_tp4_workers() {
    let Some(tm) = Tmux::new() else { return };
    let Some(t) = vllm_v1_tp4() else { return };
    let (_d, sc) = gpus(&t);
    let cmd = format!(
        "FAKE_NVML_SCENARIO='{}' NO_COLOR= '{}' --nvml-lib '{}' -d 0.5; echo EXITED:$?; sleep 60",
        sc.display(),
        env!("CARGO_BIN_EXE_gpuledger"),
        fake_nvml().display(),
    );
    tm.session(120, 40, &cmd);
    let s = tm.wait("the workers' rows", 20, |s| {
        t.members.iter().all(|m| s.contains(&m.pid.to_string())) && s.contains("q quit")
    });
    for m in &t.members {
        let row = line_with(&s, &m.pid.to_string());
        assert!(row.contains(m.role), "{:?} not in {row:?}\n{s}", m.role);
    }
    // The selected row (the first worker): its share in the estimate pane, beside its GPU's
    // measured memory.
    assert!(
        line_with(&s, "total GPU").contains(&format!("≥ {}", whole_gib(t.members[0].total))),
        "{s}"
    );
    assert!(
        line_with(&s, "measured ").contains(&whole_gib(measured(0))),
        "{s}"
    );
    assert!(s.lines().all(|l| l.chars().count() <= 120), "{s}");
    // Tree view: the workload is one row under its root (the API server, no GPU process), with
    // the workers' total; f unfolds it to them.
    tm.keys(&["t"]);
    let s = tm.wait("the group's row", 10, |s| s.contains("▸ 4 processes"));
    let group = line_with(&s, "▸ 4 processes");
    assert!(group.contains(&format!(" {} ", t.root)), "{group}\n{s}");
    assert!(group.contains(t.label), "{group}\n{s}");
    let total = gpuledger_model::units::human_bytes(measured_sum(&t));
    assert!(group.contains(&total), "{group}: {total}\n{s}");
    assert!(!s.contains("worker TP1/4"), "folded:\n{s}");
    tm.keys(&["f"]);
    let s = tm.wait("the unfolded group", 10, |s| s.contains("▾ 4 processes"));
    for m in &t.members {
        assert!(line_with(&s, &m.pid.to_string()).contains(m.role), "{s}");
    }
    tm.exit_with("q");
}

/// SGLang `--tp 2`: two schedulers on two GPUs, a detokenizer with no GPU memory. The server
/// answers /get_server_info in the shape SGLang's http_server returns (its ServerArgs, the
/// scheduler's info, internal_states, version): explain uses it.
#[test]
fn sglang_tp2_schedulers_each_carry_their_share() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let m = model_dir(dir.path());
    let tokens = 150_000u64;
    let info = dir.path().join("server_info.json");
    std::fs::write(
        &info,
        serde_json::json!({
            "model_path": m, "tokenizer_path": m, "tokenizer_mode": "auto",
            "load_format": "auto", "dtype": "auto", "kv_cache_dtype": "auto",
            "context_length": null, "host": "127.0.0.1", "port": 30000,
            "mem_fraction_static": 0.8, "tp_size": 2, "dp_size": 1, "pp_size": 1,
            "chunked_prefill_size": 8192, "max_running_requests": null,
            "max_total_tokens": null, "attention_backend": "flashinfer",
            "max_total_num_tokens": tokens, "max_req_input_len": 2042,
            "internal_states": [{"last_gen_throughput": 0.0}],
            "version": "0.4.6.post5",
        })
        .to_string(),
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
            "--tp",
            "2",
        ],
        &[
            ("FAKE_ROUTES", routes),
            (
                "FAKE_CHILD_COMM",
                "sglang::scheduler_TP0,sglang::scheduler_TP1,sglang::detokenizer".into(),
            ),
        ],
    );
    let detokenizer = f.engines[2];
    let weights = package_total() / 2;
    // Snapshot side: collection asks the server's /get_server_info as explain does, so each
    // scheduler's total is SGLang's static pool fraction (0.8) of its GPU.
    let t = Tree {
        root: f.child.id(),
        label: "SGLang · TinyLlama-1.1B-Chat-v1.0",
        members: (0..2)
            .map(|i| Member {
                pid: f.engines[i],
                role: ["scheduler TP0/2", "scheduler TP1/2"][i],
                weights,
                total: (DEVICE_TOTAL as f64 * 0.8) as u64,
            })
            .collect(),
        _fake: f,
        _dir: dir,
    };
    check_views(&t);

    // explain on scheduler TP1 asks the server it descends from: the pool fraction and token
    // count SGLang reported, per rank (each holds half of TinyLlama's 4 KV heads).
    let (_d, sc) = gpus(&t);
    let w1 = t.members[1].pid;
    let out = on_live_proc(&sc)
        .args(["explain", &w1.to_string(), "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(&ok_stdout(&out)).unwrap();
    let s = &v["estimated"]["runtime"]["summary"];
    let cfg: Value = serde_json::from_slice(
        &std::fs::read(repo().join("fixtures/vllm/tinyllama-1.1b-chat-config.json")).unwrap(),
    )
    .unwrap();
    let n = |k: &str| cfg[k].as_u64().unwrap();
    let head_dim = n("hidden_size") / n("num_attention_heads");
    let per_token = 2 * n("num_hidden_layers") * (n("num_key_value_heads") / 2) * head_dim * 2;
    assert_eq!(s["kv_cache_gpu_bytes"], tokens * per_token, "{s}");
    assert_eq!(s["weights_gpu_bytes"], weights, "{s}");
    assert_eq!(
        s["total_gpu_bytes"],
        (DEVICE_TOTAL as f64 * 0.8) as u64,
        "{s}"
    );
    assert_eq!(v["workload"]["member"]["role"], "scheduler TP1/2");

    // The detokenizer is the workload's too, and holds no GPU memory: it is no group member.
    let out = on_live_proc(&sc)
        .args(["explain", &detokenizer.to_string(), "--no-probe", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(&ok_stdout(&out)).unwrap();
    assert_eq!(
        v["workload"]["member"]["role"], "detokenizer",
        "{}",
        v["workload"]
    );
    assert_eq!(v["workload"]["member"]["root_pid"], t.root);
    assert_eq!(
        v["process"]["usage"].as_array().map_or(0, Vec::len),
        0,
        "{}",
        v["process"]
    );
}

/// `torchrun --nproc_per_node=2 train.py`: the console script run by Python, as pip installs
/// it, starting `python -u train.py` per rank with torch's rank variables. Each rank maps the
/// package-written shards (a data-parallel replica: all of the weights on each GPU).
#[test]
fn torchrun_ranks_each_carry_their_replica_on_their_own_gpu() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pk = stage(dir.path());
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let torchrun = bin.join("torchrun");
    std::fs::write(&torchrun, "import fake_runtime\nfake_runtime.torchrun()\n").unwrap();
    let shards: Vec<String> = std::fs::read_dir(repo().join("fixtures/safetensors/sharded"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "safetensors"))
        .map(|p| p.display().to_string())
        .collect();
    assert_eq!(shards.len(), 3);
    let f = start(
        dir.path(),
        &py,
        &[
            torchrun.to_str().unwrap(),
            "--nproc_per_node=2",
            "train.py",
            "--lr",
            "1e-4",
        ],
        &[("FAKE_MAP", shards.join(":"))],
    );
    assert!(pk.join("train.py").is_file());
    // The ranks' own command lines and the variables torchrun set.
    for (rank, &pid) in f.engines.iter().enumerate() {
        let line = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap();
        assert_eq!(
            line,
            format!("{}\0-u\0train.py\0--lr\01e-4\0", py.display()),
            "rank {rank}"
        );
        let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
        let env = String::from_utf8_lossy(&env);
        for want in [
            format!("RANK={rank}"),
            format!("LOCAL_RANK={rank}"),
            "WORLD_SIZE=2".into(),
        ] {
            assert!(env.split('\0').any(|v| v == want), "{want} for rank {rank}");
        }
    }
    let t = Tree {
        root: f.child.id(),
        label: "PyTorch",
        members: (0..2)
            .map(|i| Member {
                pid: f.engines[i],
                role: ["rank 0/2", "rank 1/2"][i],
                weights: package_total(),
                total: package_total(),
            })
            .collect(),
        _fake: f,
        _dir: dir,
    };
    check_views(&t);
}
