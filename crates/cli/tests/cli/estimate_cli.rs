//! `gpuledger estimate` end to end: a generated GGUF header, llama-server flags, and the fit check
//! against the fake NVML's devices (measured) beside the estimate.

use crate::support::*;

use gpuledger_workloads::gguf::writer::GgufWriter;
use gpuledger_workloads::gguf::{GgmlType, MetaValue};
use std::path::{Path, PathBuf};
use std::process::Output;

const GIB: u64 = 1 << 30;

/// A llama model with 16 GiB of F16 layer weights (a sparse file: only the header is written).
pub(crate) fn big_model(dir: &Path) -> PathBuf {
    let f16 = GgmlType::from_name("f16").unwrap();
    let mut w = GgufWriter::new();
    w.kv("general.architecture", MetaValue::String("llama".into()))
        .kv("llama.block_count", MetaValue::U32(16))
        .kv("llama.context_length", MetaValue::U32(32768))
        .kv("llama.embedding_length", MetaValue::U32(4096))
        .kv("llama.attention.head_count", MetaValue::U32(32))
        .kv("llama.attention.head_count_kv", MetaValue::U32(8))
        .kv("llama.vocab_size", MetaValue::U32(32000));
    w.tensor("token_embd.weight", &[4096, 32000], f16);
    for il in 0..16 {
        // 4096 x 131072 x 2 B = 1 GiB per layer
        w.tensor(&format!("blk.{il}.ffn_up.weight"), &[4096, 131072], f16);
    }
    w.tensor("output.weight", &[4096, 32000], f16);
    let p = dir.join("big-00001-of-00001.gguf");
    w.write(&p).unwrap();
    p
}

/// [`big_model`] in a temp dir of its own, and the two-GPU machine to fit it on.
struct Bench {
    d: tempfile::TempDir,
    model: PathBuf,
    m: Machine,
}

impl Bench {
    fn new() -> Self {
        let d = tempfile::tempdir().unwrap();
        let model = big_model(d.path());
        Bench {
            d,
            model,
            m: Machine::two_gpus(),
        }
    }

    /// `gpuledger estimate MODEL FLAGS` on the fake NVML.
    fn estimate(&self, flags: &[&str]) -> Output {
        self.estimate_with(fake_nvml(), flags)
    }

    /// `gpuledger estimate MODEL FLAGS` with the NVML library `lib`.
    fn estimate_with(&self, lib: &Path, flags: &[&str]) -> Output {
        let model = self.model.to_str().unwrap();
        self.m
            .run_with(lib, &[&["estimate", model][..], flags].concat())
    }
}

#[test]
fn estimate_json_with_fit_check_on_each_device() {
    let b = Bench::new();

    // GPU1 (RTX 4090): 16,757,220,864 B free < 16 GiB of layers + output + KV + overhead.
    // --fit off: the settings as given (the replay is the next test's). It does not fit: exit
    // status 3.
    let v = json_with_status(
        &b.estimate(&[
            "-c", "8192", "-np", "1", "--device", "1", "--fit", "off", "--json",
        ]),
        3,
    );
    let e = &v["estimate"];
    assert_eq!(e["context"]["n_ctx"], 8192);
    assert_eq!(e["kv_cache"]["bytes"], 16 * 8192 * 2048 * 2);
    let w_gpu = e["weights"]["gpu_bytes"].as_u64().unwrap();
    assert_eq!(w_gpu, 16 * GIB + 4096 * 32000 * 2, "layers + output.weight");
    assert_eq!(
        e["weights"]["host_bytes"],
        4096 * 32000 * 2,
        "token_embd on the host"
    );
    // A llama on CUDA with every layer offloaded: the scheduler's device/host split is replayed,
    // nothing in the compute figure is approximate (the graph's ffn_up tensors stand for layers).
    assert_eq!(e["compute"]["approximate"], false, "{}", e["compute"]);
    assert!(e["compute"]["gpu_bytes"].as_u64().unwrap() > 0);
    assert!(e["compute"]["host_bytes"].as_u64().unwrap() > 0);
    let fit = &v["fit"];
    assert_eq!(fit["available"], true);
    assert_eq!(fit["device"], "GPU1 NVIDIA GeForce RTX 4090");
    assert_eq!(fit["free_bytes"], 16757220864u64);
    assert_eq!(fit["fits"], false);
    assert_eq!(fit["needed_bytes"], e["total_gpu_bytes"]);
    // Who holds GPU1 now, largest first: llama-server 4 GiB, pid 9999 1 GiB, Xorg-like 512 MiB.
    let pids: Vec<u64> = fit["holders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["pid"].as_u64().unwrap())
        .collect();
    assert_eq!(pids, [4242, 9999, 1200]);
    assert_eq!(fit["holders"][0]["memory_bytes"], 4294967296u64);
    // What would fit, each checked: fewer layers (-ngl was left to --fit, which is off), or the
    // H200. A smaller -c does not: the layers alone are 16 GiB.
    let flags: Vec<&str> = v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["flags"].as_str().unwrap())
        .collect();
    assert!(flags.contains(&"--device 0"), "{flags:?}");
    assert!(!flags.iter().any(|f| f.starts_with("-c ")), "{flags:?}");
    let ngl = flags
        .iter()
        .find_map(|f| f.strip_prefix("-ngl "))
        .expect("-ngl N among the changes");
    let with = |ngl: &str| {
        b.estimate(&[
            "-c", "8192", "-np", "1", "--device", "1", "--fit", "off", "-ngl", ngl, "--json",
        ])
    };
    assert_eq!(json_of(&with(ngl))["fit"]["fits"], true, "-ngl {ngl}");
    let more = (ngl.parse::<u32>().unwrap() + 1).to_string();
    assert_eq!(
        with(&more).status.code(),
        Some(3),
        "-ngl {more} is the most"
    );

    // GPU0 (H200, 110 GB free): fits, and the backend came from the device's vendor.
    let v = json_of(&b.estimate(&["-c", "8192", "--json"]));
    assert_eq!(v["fit"]["fits"], true);
    let backend = v["estimate"]["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "backend")
        .unwrap()
        .clone();
    assert_eq!(backend["value"], "cuda");
    assert_eq!(backend["source"]["kind"], "default");
}

/// llama-server's --fit (on by default) replayed on the live device: GPU1 has 16,757,220,864 B
/// free, the model at -c 8192 needs more, so layers stay on the host until 1 GiB is left.
#[test]
fn estimate_replays_fit_on_the_live_device() {
    let b = Bench::new();
    let v = json_of(&b.estimate(&["-c", "8192", "-np", "1", "--device", "1", "--json"]));
    let e = &v["estimate"];
    let f = &e["fit"];
    assert_eq!(f["status"], "fitted", "{f}");
    assert_eq!(f["free_bytes"][0], 16757220864u64);
    assert_eq!(f["margin_bytes"][0], 1024 * 1024 * 1024);
    let ngl = f["n_gpu_layers"].as_u64().unwrap();
    assert!((1..17).contains(&ngl), "{f}");
    assert_eq!(
        f["flags"],
        serde_json::json!(["-c 8192", format!("-ngl {ngl}")])
    );
    // The estimate is for the chosen settings, within the margin without the overhead
    // (llama.cpp's projection does not know the CUDA context: its margin covers it).
    assert_eq!(e["context"]["n_ctx"], 8192);
    let used = e["total_gpu_bytes_without_overhead"].as_u64().unwrap();
    assert!(used <= 16757220864 - 1024 * 1024 * 1024, "{used}");
    // One more layer would not have fitted.
    let more = json_of(&b.estimate(&[
        "-c",
        "8192",
        "-np",
        "1",
        "--device",
        "1",
        "--fit",
        "off",
        "-ngl",
        &(ngl + 1).to_string(),
        "--json",
    ]));
    let more = more["estimate"]["total_gpu_bytes_without_overhead"]
        .as_u64()
        .unwrap();
    assert!(more > 16757220864 - 1024 * 1024 * 1024, "{more}");
    // In words, with the flags that pin the choice.
    let text = String::from_utf8(
        b.estimate(&["-c", "8192", "-np", "1", "--device", "1"])
            .stdout,
    )
    .unwrap();
    assert!(text.contains("--fit replayed (fitted)"), "{text}");
    // One flag per line, and one verdict: the first projection is not printed.
    assert!(text.contains("\n    -c 8192\n"), "{text}");
    assert!(text.contains(&format!("\n    -ngl {ngl}\n")), "{text}");
    assert!(!text.contains("projected to use"), "{text}");
}

/// Two NVIDIA GPUs: llama-server would use both. One GPU is estimated unless --gpus says more,
/// and a note says so; --gpus 2 splits the layers by the live GPUs' free memory (110 GB and
/// 16.7 GB) and the fit check is GPU0's part.
#[test]
fn estimate_on_a_machine_with_two_gpus_says_llama_server_would_use_both() {
    let b = Bench::new();
    let v = json_of(&b.estimate(&["-c", "8192", "--fit", "off", "--json"]));
    let notes: Vec<&str> = v["estimate"]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("this machine has 2 GPUs") && n.contains("--gpus 2")),
        "{notes:?}"
    );
    // An H200 and a 4090 are two NVIDIA GPUs, not two of one kind: each is named.
    assert!(
        notes
            .iter()
            .any(|n| n.contains("H200") && n.contains("4090")),
        "{notes:?}"
    );
    assert!(
        !notes.iter().any(|n| n.contains("of this kind")),
        "{notes:?}"
    );
    assert!(v["estimate"].get("devices").is_none());
    let v = json_of(&b.estimate(&["-c", "8192", "--fit", "off", "--gpus", "2", "--json"]));
    let d = v["estimate"]["devices"].as_array().unwrap();
    assert_eq!(d.len(), 2, "{d:?}");
    let layers: Vec<u64> = d.iter().map(|x| x["layers"].as_u64().unwrap()).collect();
    // 17 entries (16 layers + output) cut at the free-memory share 110/(110+16.7) = 0.87.
    assert!(layers[0] > layers[1] && layers[1] >= 1, "{layers:?}");
    let share0: u64 = ["weights_bytes", "kv_bytes", "compute_bytes"]
        .iter()
        .map(|k| d[0][k].as_u64().unwrap())
        .sum();
    let overhead = v["estimate"]["overhead"]["gpu_bytes"].as_u64().unwrap_or(0);
    assert_eq!(v["fit"]["needed_bytes"], share0 + overhead);
    assert!(!notes_of(&v)
        .iter()
        .any(|n| n.contains("this machine has 2 GPUs")));
}

fn notes_of(v: &serde_json::Value) -> Vec<String> {
    v["estimate"]["notes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|n| n.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// A CUDA estimate run by the tests has the recipe's own overhead, whatever probe this machine
/// saved (`probe_cli::a_probe_saved_on_this_machine_does_not_reach_the_tests` runs this with one).
#[test]
fn estimate_overhead_is_the_recipes_own() {
    let b = Bench::new();
    let v = json_of(&b.estimate(&["-c", "8192", "--json"]));
    let o = &v["estimate"]["overhead"];
    let what = o["what"].as_str().unwrap();
    assert!(
        what.starts_with("CUDA context, kernels and cuBLAS workspace") && !what.contains("probe"),
        "{o}"
    );
    assert_eq!(o["approximate"], true, "{o}");
}

/// `--rpc` on a machine with no GPU: the devices are the RPC servers alone (no assumed CUDA0),
/// so `--free` gives one figure per server and `--fit` is replayed over them.
#[test]
fn rpc_servers_without_a_local_gpu_are_the_only_devices() {
    let b = Bench::new();
    let no_nvml = Path::new("/nonexistent/libnvidia-ml.so.1");
    let out = b.estimate_with(
        no_nvml,
        &[
            "-c",
            "4096",
            "--rpc",
            "10.0.0.1:50052,10.0.0.2:50052",
            "--free",
            "10GiB,10GiB",
            "--json",
        ],
    );
    let v = json_of(&out);
    let names: Vec<&str> = v["estimate"]["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["RPC0", "RPC1"]);
    let f = &v["estimate"]["fit"];
    assert_eq!(f["status"], "fitted", "{f}");
    assert_eq!(f["free_bytes"], serde_json::json!([10 * GIB, 10 * GIB]));
    assert!(notes_of(&v).iter().any(|n| n.contains("no local GPU seen")));
}

#[test]
fn estimate_text_says_when_the_fit_check_is_not_available() {
    let b = Bench::new();
    let no_nvml = Path::new("/nonexistent/libnvidia-ml.so.1");
    let out = b.estimate_with(no_nvml, &["-ngl", "8", "-ctk", "q8_0"]);
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    // -ngl counts the output layer first: 8 = output + the last 7 repeating layers.
    assert!(
        text.contains("7/16 repeating layers on GPU, output layer on GPU"),
        "{text}"
    );
    assert!(text.contains("flag -ctk"), "{text}");
    assert!(
        text.contains("fit: fit check not available: no GPU found"),
        "{text}"
    );
    let v = json_of(&b.estimate_with(no_nvml, &["--json"]));
    assert_eq!(v["fit"]["available"], false);
    assert!(v["fit"]["reason"]
        .as_str()
        .unwrap()
        .contains("no GPU found"));
    assert!(
        v["fit"].get("fits").is_none(),
        "no verdict without a measurement"
    );

    // A GPU index that does not exist is an error (it returned 0), in text and
    // JSON alike, and no estimate is printed as if it had been checked.
    for json in [false, true] {
        let flags: &[&str] = if json {
            &["--device", "7", "--json"]
        } else {
            &["--device", "7"]
        };
        let out = b.estimate(flags);
        assert_eq!(out.status.code(), Some(1), "{flags:?}");
        let err = stderr_of(&out);
        assert!(
            err.contains(
                "--device 7: there is no GPU 7 (found GPU0 NVIDIA H200, GPU1 NVIDIA GeForce RTX 4090)"
            ),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "{}", stdout_of(&out));
    }
    // Asked for by index on a machine with no GPU at all: an error too; without --device the
    // estimate stands alone (no GPU is a normal state).
    let out = b.estimate_with(no_nvml, &["--device", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("--device 1: no GPU found"),
        "{}",
        stderr_of(&out)
    );
    // --no-fit-check asks for no device: nothing to refuse.
    assert_ok(&b.estimate(&["--device", "7", "--no-fit-check"]));
}

#[test]
fn estimate_errors_name_the_file_or_flag() {
    let b = Bench::new();
    let junk = b.d.path().join("junk.gguf");
    std::fs::write(
        &junk,
        b"GGUF\x03\0\0\0\xff\xff\xff\xff\xff\xff\xff\x0f\0\0\0\0\0\0\0\0",
    )
    .unwrap();
    let out = b.m.run(&["estimate", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("junk.gguf: tensor count")
            && err.contains("exceeds what a 24 B file can hold"),
        "{err}"
    );

    let out = b.estimate(&["-ctk", "q9_9"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a bad flag value is a usage error"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("-ctk: unsupported cache type \"q9_9\""));
    // No model word and no -m: bad usage that says how to name it.
    let out = b.m.run(&["estimate", "-c", "4096", "-hf", "org/repo"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no model") && err.contains("-hf downloads it"),
        "{err}"
    );
    // Where llama.cpp keeps what -hf downloaded (common/hf-cache.cpp): LLAMA_CACHE first.
    let out =
        b.m.command(&["estimate", "-hf", "org/repo"])
            .env("LLAMA_CACHE", "/srv/llama-cache")
            .output()
            .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("here: /srv/llama-cache (from $LLAMA_CACHE)") && err.contains("HF_HOME"),
        "{err}"
    );

    // A context that does not fit llama-server's 32-bit int is refused, not wrapped to n_ctx 0;
    // the same rule for every integer the recipe reads.
    for (flag, v) in [
        ("-c", "18446744073709551615"),
        ("-ub", "4294967296"),
        ("-ngl", "4294967296"),
        ("--n-gpu-layers", "-4294967296"),
    ] {
        let out = b.estimate(&[flag, v]);
        assert_eq!(out.status.code(), Some(2), "{flag} {v}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("{flag}: {v} does not fit")) && err.contains("2147483647"),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "no estimate is printed");
    }
    let out = b.estimate(&["--llama-build", "latest"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--llama-build: \"latest\""));
}

#[test]
fn estimate_shows_the_runtime_log_beside_the_estimate() {
    let b = Bench::new();
    // Lines in llama-server's format (build 7e4c0a9, -lv 4).
    let log = b.d.path().join("server.log");
    std::fs::write(
        &log,
        "0.00.031.900 I load_tensors:   CPU_Mapped model buffer size =   250.00 MiB\n\
         0.00.031.901 I load_tensors:        CUDA0 model buffer size = 16634.00 MiB\n\
         0.00.032.690 I llama_kv_cache:        CUDA0 KV buffer size =  1024.00 MiB\n\
         0.00.035.094 I sched_reserve:        CUDA0 compute buffer size =   300.75 MiB\n",
    )
    .unwrap();
    let logs = log.to_str().unwrap();
    let v = json_of(&b.estimate(&["-c", "8192", "--log", logs, "--json"]));
    let rep = v["reported"].as_array().unwrap();
    let find = |line: &str, place: &str| {
        rep.iter()
            .find(|r| r["line"] == line && r["place"] == place)
            .unwrap()
            .clone()
    };
    assert_eq!(find("compute", "gpu")["reported_bytes"], 315359232u64); // 300.75 MiB
    assert_eq!(find("KV cache", "gpu")["reported_bytes"], 1u64 << 30);
    // 16 layers x 8192 cells x (1024 + 1024) x 2 B
    assert_eq!(find("KV cache", "gpu")["estimated_bytes"], 1u64 << 29);
    assert_eq!(find("weights", "host")["reported_bytes"], 250u64 << 20);
    assert!(
        find("output", "host")["reported_bytes"].is_null(),
        "no output line in the log"
    );

    // A file without buffer lines is an error that says how to get them.
    std::fs::write(&log, "hello\n").unwrap();
    let out = b.estimate(&["--log", logs]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("start llama-server with -lv 4"));
}

/// A MoE model (qwen3moe) whose 18 GiB of experts do not fit GPU1: 6 layers, each with three
/// expert tensors of 128 experts × 2048 × 2048 F16 (1 GiB each).
fn moe_model(dir: &Path) -> PathBuf {
    let f16 = GgmlType::from_name("f16").unwrap();
    let f32 = GgmlType::from_name("f32").unwrap();
    let mut w = GgufWriter::new();
    w.kv("general.architecture", MetaValue::String("qwen3moe".into()));
    for (k, v) in [
        ("block_count", 6),
        ("context_length", 32768),
        ("embedding_length", 2048),
        ("feed_forward_length", 6144),
        ("attention.head_count", 32),
        ("attention.head_count_kv", 4),
        ("attention.key_length", 128),
        ("attention.value_length", 128),
        ("vocab_size", 32000),
        ("expert_count", 128),
        ("expert_used_count", 8),
        ("expert_feed_forward_length", 2048),
    ] {
        w.kv(&format!("qwen3moe.{k}"), MetaValue::U32(v));
    }
    w.tensor("token_embd.weight", &[2048, 32000], f16);
    for il in 0..6 {
        let b = |t: &str| format!("blk.{il}.{t}");
        w.tensor(&b("attn_norm.weight"), &[2048], f32)
            .tensor(&b("attn_q.weight"), &[2048, 4096], f16)
            .tensor(&b("attn_k.weight"), &[2048, 512], f16)
            .tensor(&b("attn_v.weight"), &[2048, 512], f16)
            .tensor(&b("attn_output.weight"), &[4096, 2048], f16)
            .tensor(&b("ffn_norm.weight"), &[2048], f32)
            .tensor(&b("ffn_gate_inp.weight"), &[2048, 128], f32);
        for e in ["gate", "up", "down"] {
            w.tensor(&b(&format!("ffn_{e}_exps.weight")), &[2048, 2048, 128], f16);
        }
    }
    w.tensor("output_norm.weight", &[2048], f32)
        .tensor("output.weight", &[2048, 32000], f16);
    let p = dir.join("moe.gguf");
    w.write(&p).unwrap();
    p
}

#[test]
fn estimate_splits_moe_weights_where_the_overrides_put_them() {
    let d = tempfile::tempdir().unwrap();
    let model = moe_model(d.path());
    let m = Machine::two_gpus();
    let model = model.to_str().unwrap();
    let run = |flags: &[&str]| {
        let base = [
            "estimate", model, "-c", "4096", "-ngl", "99", "--device", "1",
        ];
        m.run(&[&base[..], flags].concat())
    };
    let all = json_with_status(&run(&["--json"]), 3);
    assert_eq!(
        all["fit"]["fits"], false,
        "18 GiB of experts on a 16 GiB GPU"
    );
    // The cheapest change: the experts of the first N layers on the host, checked (18 GiB of
    // experts over 6 layers: 3 GiB each; 16.7 GB free less the dense part and the rest).
    let changes = all["changes"].as_array().unwrap();
    let moe = changes
        .iter()
        .find_map(|c| c["flags"].as_str()?.strip_prefix("--n-cpu-moe "))
        .expect("--n-cpu-moe N among the changes");
    let v = json_of(&run(&["--n-cpu-moe", moe, "--json"]));
    assert_eq!(v["fit"]["fits"], true, "--n-cpu-moe {moe}: {v}");
    let fewer = (moe.parse::<u32>().unwrap() - 1).to_string();
    let v = json_with_status(&run(&["--n-cpu-moe", &fewer, "--json"]), 3);
    assert_eq!(v["fit"]["fits"], false, "--n-cpu-moe {fewer} is not enough");
    let gpu = |v: &serde_json::Value| v["estimate"]["weights"]["gpu_bytes"].as_u64().unwrap();
    let v = json_of(&run(&["--cpu-moe", "--json"]));
    assert_eq!(gpu(&all) - gpu(&v), 18 * GIB);
    assert_eq!(v["fit"]["fits"], true, "with the experts on the host: {v}");
    let o = &v["estimate"]["weights"]["overrides"][0];
    assert_eq!(o["given"], "--cpu-moe");
    assert_eq!(o["buffer_type"], "CPU");
    assert_eq!(o["place"], "host");
    assert_eq!(
        (o["tensors"].as_u64(), o["bytes"].as_u64()),
        (Some(18), Some(18 * GIB))
    );
    // --n-cpu-moe N: the experts of the first N layers; -ot in the order given.
    let v = json_of(&run(&["--n-cpu-moe", "4", "--json"]));
    assert_eq!(gpu(&all) - gpu(&v), 12 * GIB);
    let v = json_of(&run(&[
        "-ot",
        r"blk\.5\.ffn_up_exps=CUDA0",
        "-ot",
        "exps=CPU",
        "--json",
    ]));
    assert_eq!(gpu(&all) - gpu(&v), 17 * GIB);
    // The text says what each override placed, and names none as not modelled.
    let text = ok_stdout(&run(&["--n-cpu-moe", "4"]));
    assert!(
        text.contains("--n-cpu-moe 4: 12 tensors (12 GiB) on host"),
        "{text}"
    );
    assert!(!text.contains("not modelled"), "{text}");
}
