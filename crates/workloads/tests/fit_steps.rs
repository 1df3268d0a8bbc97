//! `--fit` replayed step by step against what the real llama-server logged, without running it:
//! fixtures/llama-logs/fit/ holds, per case of `llama_fit.rs`, the lines llama.cpp's fitting
//! printed (`-lv 4`) and the model's header as text (see its README for the command). Each step
//! is compared on its own, so a failure names it: step 1's projection, step 2's context, every
//! layer arrangement steps 3 and 4 projected (llama.cpp's "memory for test allocation"), each
//! device's final layers, and the outcome.

use std::path::{Path, PathBuf};

use gpuledger_workloads::estimate::{
    fit, Backend, FitOutcome, FitReplay, FitStage, Fitting, Setting,
};
use gpuledger_workloads::LlamaSettings;

mod fit_fixture;

const MIB: i64 = 1 << 20;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/llama-logs/fit")
}

/// The integers in a piece of text, in order.
fn numbers(s: &str) -> Vec<i64> {
    s.split(|c: char| !c.is_ascii_digit() && c != '-')
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// What one case's log says, step by step.
#[derive(Default, Debug)]
struct Logged {
    header: Vec<(String, String)>,
    /// Step 1: projected MiB and free MiB.
    projected: Option<(i64, i64)>,
    /// Step 2: "from A to B" of each context line, or the line when it changes nothing.
    context: Vec<String>,
    /// Steps 3 and 4: each arrangement (n_layer, n_part, overflow type, MiB) per device.
    probes: Vec<Vec<(i64, i64, i64, i64)>>,
    /// Each device's final line: layers, overflowing (step 4), MiB used.
    devices: Vec<(i64, Option<i64>, i64)>,
    ok: bool,
}

fn parse(text: &str) -> Logged {
    let mut l = Logged::default();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("# ") {
            let (k, v) = h.split_once(": ").unwrap();
            l.header.push((k.into(), v.into()));
            continue;
        }
        // The function's name, then the message.
        let Some((_, msg)) = line.split_once(": ") else {
            continue;
        };
        if msg.starts_with("projected to use") && l.projected.is_none() {
            let n = numbers(msg);
            l.projected = Some((n[0], n[1]));
        } else if msg.starts_with("context size") || msg.contains("-> no change") {
            l.context.push(context_key(msg));
        } else if msg.starts_with("memory for test allocation") {
            l.probes.push(Vec::new());
        } else if msg.starts_with("id=") && msg.contains("n_part=") {
            let n = numbers(msg);
            l.probes.last_mut().unwrap().push((n[1], n[2], n[3], n[4]));
        } else if let Some(dev) = msg.strip_prefix("  - ").filter(|d| d.contains(" layers")) {
            let (_, rest) = dev
                .rsplit_once("): ")
                .or_else(|| dev.split_once(": "))
                .unwrap();
            let n = numbers(rest);
            l.devices.push(if rest.contains("overflowing") {
                (n[0], Some(n[1]), n[2])
            } else {
                (n[0], None, n[1])
            });
        } else if msg.starts_with("successfully fit params") {
            l.ok = true;
        }
    }
    l
}

/// A context line reduced to what must agree: the sizes it names.
fn context_key(msg: &str) -> String {
    let n = numbers(msg.split(" -> ").next().unwrap_or(msg));
    format!("{n:?}")
}

fn header<'a>(l: &'a Logged, k: &str) -> &'a str {
    &l.header.iter().find(|(h, _)| h == k).unwrap().1
}

/// Replay the case the log's header describes.
fn replay(l: &Logged, dir: &Path) -> FitReplay {
    let model_name = header(l, "model");
    let tsv = std::fs::read_to_string(fixtures().join(format!("{model_name}.tsv"))).unwrap();
    let model = fit_fixture::rebuild(&tsv, &dir.join(format!("{model_name}.gguf")));
    let devices: usize = header(l, "devices").parse().unwrap();
    let total: u64 = header(l, "total_bytes").parse().unwrap();
    let mut args: Vec<String> = header(l, "args").split(' ').map(String::from).collect();
    if devices > 0 {
        let rpc: Vec<String> = (0..devices)
            .map(|i| format!("127.0.0.1:{}", 50052 + i))
            .collect();
        args.extend(["--rpc".into(), rpc.join(",")]);
    }
    let mut s = LlamaSettings::from_args(&args).unwrap();
    s.backend = Setting::runtime(Backend::Cpu, "a CPU build: RPC devices only");
    if let Ok(b) = header(l, "build").parse() {
        s.llama_build = Setting::runtime(Some(b), "the server's build line");
    }
    s.devices.free = Setting::runtime(vec![total; devices.max(1)], "the machine's memory");
    match fit(&model, &s).unwrap() {
        Fitting::Replayed(f) => f.replay,
        other => panic!("{other:?}"),
    }
}

/// Where the replay and the log part, step by step; `mib`: also each projection's MiB.
fn compare(name: &str, l: &Logged, r: &FitReplay, mib: bool) -> Vec<String> {
    let m = |x: i64| if mib { x } else { 0 };
    let mut bad = Vec::new();
    let ours = |stage: FitStage| -> Vec<&str> {
        r.steps
            .iter()
            .filter(|s| s.stage == stage)
            .map(|s| s.text.as_str())
            .collect()
    };
    let first = ours(FitStage::Project).first().map(|t| numbers(t));
    if let (Some((used, free)), Some(n)) = (l.projected, first) {
        if (m(n[0]), n[1]) != (m(used), free) {
            bad.push(format!(
                "{name}: step 1 projected {used} of {free} MiB logged, {} of {} replayed",
                n[0], n[1]
            ));
        }
    }
    let ctx: Vec<String> = ours(FitStage::Context)
        .iter()
        .map(|t| context_key(t))
        .collect();
    if ctx != l.context {
        bad.push(format!(
            "{name}: step 2 context {:?} logged, {ctx:?} replayed",
            l.context
        ));
    }
    for (i, logged) in l.probes.iter().enumerate() {
        let Some(p) = r.probes.get(i) else {
            bad.push(format!(
                "{name}: steps 3-4 probe {i} {logged:?} logged, not replayed"
            ));
            break;
        };
        let replayed: Vec<(i64, i64, i64, i64)> = p
            .layers
            .iter()
            .zip(&p.used)
            .map(|(&(n, part, o), &u)| (n.into(), part.into(), o.into(), m(u / MIB)))
            .collect();
        let logged: Vec<_> = logged.iter().map(|&(a, b, c, u)| (a, b, c, m(u))).collect();
        if replayed != logged {
            bad.push(format!(
                "{name}: steps 3-4 probe {i} (n_layer, n_part, overflow, MiB) {logged:?} logged, \
                 {replayed:?} replayed"
            ));
        }
    }
    if r.probes.len() > l.probes.len() {
        bad.push(format!(
            "{name}: steps 3-4 {} probes logged, {} replayed",
            l.probes.len(),
            r.probes.len()
        ));
    }
    let devices: Vec<(i64, Option<i64>, i64)> = [FitStage::Layers, FitStage::Experts]
        .iter()
        .flat_map(|&st| ours(st))
        .map(|t| {
            let rest = t.split_once(": ").unwrap().1;
            let n = numbers(rest);
            if rest.contains("overflowing") {
                (n[0], Some(n[1]), m(n[2]))
            } else {
                (n[0], None, m(n[1]))
            }
        })
        .collect();
    let logged: Vec<_> = l.devices.iter().map(|&(a, b, u)| (a, b, m(u))).collect();
    if devices != logged {
        bad.push(format!(
            "{name}: per-device layers (layers, overflowing, MiB) {:?} logged, {devices:?} replayed",
            l.devices
        ));
    }
    let ok = matches!(r.outcome, FitOutcome::Fitted | FitOutcome::Unchanged);
    if ok != l.ok {
        bad.push(format!(
            "{name}: outcome: fit ok {} logged, {:?} replayed",
            l.ok, r.outcome
        ));
    }
    bad
}

/// Every case's steps against its log; `mib`: the projected MiB too.
fn check_all(mib: bool) {
    let dir = tempfile::tempdir().unwrap();
    let mut logs: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    assert!(
        logs.len() >= 10,
        "{} fit logs in {:?}",
        logs.len(),
        fixtures()
    );
    let mut bad = Vec::new();
    for p in &logs {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let l = parse(&std::fs::read_to_string(p).unwrap());
        let r = replay(&l, dir.path());
        bad.extend(compare(&name, &l, &r, mib));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The decisions: step 2's context sizes, every layer arrangement steps 3 and 4 tried (in
/// order: the searches' path), each device's final layers, the outcome.
#[test]
fn each_fit_step_decides_as_llama_server_logged() {
    check_all(false);
}

/// The projections' MiB as well: each device's model, context and compute buffers as
/// llama.cpp's `no_alloc` projection sizes them (its prompt pass is sized by
/// `ggml_backend_sched_reserve_size`, which drops the norms' pinned backends).
#[test]
fn each_fit_projection_is_llama_servers_to_the_mib() {
    check_all(true);
}
