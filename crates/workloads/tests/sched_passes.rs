//! The compute buffers replayed pass by pass and backend by backend against what the real
//! llama-server (b11434) printed, without running it. fixtures/llama-logs/sched/ holds, per case,
//! the lines llama.cpp's backend scheduler printed while the context reserved its graphs
//! (`-lv 5` and `GGML_SCHED_DEBUG=1`; see its README for the command): each graph reserve
//! (`graph_reserve: reserving a graph for ubatch with n_tokens = ...`), that pass's splits
//! (`## SPLIT #i: backend # n inputs: [name (size)] ...`), then each backend's compute buffer
//! and the number of copies the scheduler keeps (4 with pipeline parallelism).
//!
//! Each logged pass is compared with the replay of the pass of the same micro-batch
//! ([`sched_passes`]: the prompt pass, `min(n_ctx, n_ubatch)` tokens, and the generation pass,
//! one token per sequence): the number of splits, each split's backend, and the sizes of the
//! inputs it copies from another backend as `GGML_SCHED_DEBUG` prints them (whole KiB below a
//! MiB, whole MiB above). Then each backend's compute buffer, the largest over the passes (ggml
//! keeps a buffer when a later pass needs less), to the printed 0.01 MiB. llama.cpp does not
//! print a pass's own buffer sizes (ggml-alloc's "reallocating" line is compiled out of release
//! builds), so buffers are checked per backend, splits per pass. A failure names the case, the
//! pass and the backend.

use std::path::{Path, PathBuf};

use gpuledger_workloads::estimate::{sched_passes, Backend, SchedPass, Setting};
use gpuledger_workloads::LlamaSettings;

mod fit_fixture;

const HOST: u8 = u8::MAX;
/// The RPC servers' ports when the fixtures were captured: they name the devices in the log.
const FIRST_PORT: u16 = 50352;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/llama-logs")
}

/// One graph reserve as logged: its micro-batch and its splits (backend, input sizes).
#[derive(Debug, Default)]
struct Pass {
    n_tokens: u64,
    splits: Vec<(u8, Vec<String>)>,
}

#[derive(Debug, Default)]
struct Logged {
    header: Vec<(String, String)>,
    passes: Vec<Pass>,
    /// Each backend's compute buffer, as printed (MiB with two decimals).
    buffers: Vec<(u8, String)>,
    copies: Option<u64>,
}

/// The scheduler's backend of a name as llama.cpp prints it: `CPU`, or an RPC device
/// `RPC0[127.0.0.1:PORT]` (every RPC buffer type is named RPC0; the endpoint tells them apart).
fn backend(name: &str) -> u8 {
    let name = name.trim();
    if name == "CPU" {
        return HOST;
    }
    let port: u16 = name
        .rsplit_once(':')
        .and_then(|(_, p)| p.trim_end_matches(']').parse().ok())
        .unwrap_or_else(|| panic!("backend {name:?}"));
    (port - FIRST_PORT) as u8
}

fn backend_name(b: u8) -> String {
    if b == HOST {
        "CPU".into()
    } else {
        format!("RPC{b} (port {})", FIRST_PORT + u16::from(b))
    }
}

/// `fmt_size` of ggml-backend.cpp: whole MiB from 1 MiB, else whole KiB.
fn fmt_size(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{}M", bytes >> 20)
    } else {
        format!("{}K", bytes >> 10)
    }
}

/// The number after `key = ` in `line`.
fn field(line: &str, key: &str) -> u64 {
    let rest = line.split_once(&format!("{key} =")).unwrap().1;
    let n: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    n.parse().unwrap()
}

/// `## SPLIT #i: BACKEND # n inputs: [name (size)] ...`
fn split(line: &str) -> (u8, Vec<String>) {
    let rest = line.split_once(": ").unwrap().1;
    let (name, rest) = rest.split_once(" # ").unwrap();
    let (count, inputs) = rest.split_once(" inputs").unwrap();
    let sizes: Vec<String> = inputs
        .split('[')
        .skip(1)
        .map(|i| {
            let (_, size) = i.rsplit_once('(').unwrap();
            size.split(')').next().unwrap().trim().to_string()
        })
        .collect();
    assert_eq!(
        sizes.len(),
        count.trim().parse::<usize>().unwrap(),
        "{line}"
    );
    (backend(name), sizes)
}

fn parse(text: &str) -> Logged {
    let mut l = Logged::default();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("# ") {
            let (k, v) = h.split_once(": ").unwrap_or((h.trim_end_matches(':'), ""));
            l.header.push((k.into(), v.into()));
        } else if line.starts_with("graph_reserve: reserving a graph") {
            l.passes.push(Pass {
                n_tokens: field(line, "n_tokens"),
                ..Pass::default()
            });
        } else if line.starts_with("## SPLIT") {
            l.passes.last_mut().unwrap().splits.push(split(line));
        } else if let Some(rest) = line.strip_prefix("sched_reserve: ") {
            if let Some((name, size)) = rest.split_once(" compute buffer size = ") {
                let mib = size.trim().trim_end_matches("MiB").trim();
                l.buffers.push((backend(name), mib.to_string()));
            } else if rest.contains("sched copies") {
                l.copies = Some(field(rest, "sched copies"));
            }
        }
    }
    l
}

fn header<'a>(l: &'a Logged, k: &str) -> &'a str {
    &l.header.iter().find(|(h, _)| h == k).unwrap().1
}

/// The replay of the case the log's header describes.
fn replay(l: &Logged, dir: &Path) -> Vec<SchedPass> {
    let model_name = header(l, "model");
    // The model's header as text: the same generated models as the fit fixtures.
    let tsv = fixtures().join(format!("fit/{model_name}.tsv"));
    let model = fit_fixture::rebuild(
        &std::fs::read_to_string(tsv).unwrap(),
        &dir.join(format!("{model_name}.gguf")),
    );
    let devices: u16 = header(l, "devices").parse().unwrap();
    let mut args: Vec<String> = header(l, "args")
        .split_whitespace()
        .map(String::from)
        .collect();
    let rpc: Vec<String> = (0..devices)
        .map(|i| format!("127.0.0.1:{}", FIRST_PORT + i))
        .collect();
    args.extend(["--rpc".into(), rpc.join(",")]);
    let mut s = LlamaSettings::from_args(&args).unwrap();
    s.backend = Setting::runtime(Backend::Cpu, "a CPU build: RPC devices only");
    let build = header(l, "build").parse().ok();
    s.llama_build = Setting::runtime(build, "the server's build line");
    sched_passes(&model, &s).unwrap()
}

/// Where the replay and the log part, pass by pass and backend by backend.
fn compare(name: &str, l: &Logged, ours: &[SchedPass]) -> Vec<String> {
    let mut bad = Vec::new();
    for (i, logged) in l.passes.iter().enumerate() {
        let Some(r) = ours.iter().find(|p| p.n_tokens == logged.n_tokens) else {
            bad.push(format!(
                "{name}: pass {i} ({} tokens) logged, no replayed pass of that size",
                logged.n_tokens
            ));
            continue;
        };
        let what = format!("{name}: pass {i} ({} tokens)", logged.n_tokens);
        let replayed: Vec<(u8, Vec<String>)> = r
            .splits
            .iter()
            .map(|s| (s.backend, s.inputs.iter().map(|&b| fmt_size(b)).collect()))
            .collect();
        if replayed.len() != logged.splits.len() {
            let names = |v: &[(u8, Vec<String>)]| -> Vec<String> {
                v.iter().map(|(b, _)| backend_name(*b)).collect()
            };
            bad.push(format!(
                "{what}: {} splits {:?} logged, {} {:?} replayed",
                logged.splits.len(),
                names(&logged.splits),
                replayed.len(),
                names(&replayed)
            ));
            continue;
        }
        for (k, (lg, rp)) in logged.splits.iter().zip(&replayed).enumerate() {
            if lg != rp {
                bad.push(format!(
                    "{what}: split #{k} on {} with inputs {:?} logged, on {} with {:?} replayed",
                    backend_name(lg.0),
                    lg.1,
                    backend_name(rp.0),
                    rp.1
                ));
            }
        }
    }
    let mib = |b: u64| format!("{:.2}", b as f64 / 1048576.0);
    for (b, printed) in &l.buffers {
        let largest = ours
            .iter()
            .map(|p| match *b {
                HOST => p.host_bytes,
                d => p.device_bytes.get(d as usize).copied().unwrap_or(0),
            })
            .max()
            .unwrap_or(0);
        if mib(largest) != *printed {
            bad.push(format!(
                "{name}: {} compute buffer {printed} MiB printed, {} replayed (largest of the \
                 passes: {:?})",
                backend_name(*b),
                mib(largest),
                ours.iter()
                    .map(|p| (
                        p.n_tokens,
                        mib(if *b == HOST {
                            p.host_bytes
                        } else {
                            p.device_bytes.get(*b as usize).copied().unwrap_or(0)
                        })
                    ))
                    .collect::<Vec<_>>()
            ));
        }
    }
    if let (Some(copies), Some(r)) = (l.copies, ours.first()) {
        if copies != r.copies {
            bad.push(format!(
                "{name}: sched copies {copies} logged, {} replayed",
                r.copies
            ));
        }
    }
    bad
}

#[test]
fn each_reserve_pass_splits_and_sizes_as_llama_server_printed() {
    let dir = tempfile::tempdir().unwrap();
    let mut logs: Vec<PathBuf> = std::fs::read_dir(fixtures().join("sched"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    assert!(logs.len() >= 8, "{} sched logs", logs.len());
    let mut bad = Vec::new();
    for p in &logs {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let l = parse(&std::fs::read_to_string(p).unwrap());
        assert!(
            l.passes.len() >= 3 && !l.buffers.is_empty(),
            "{name}: no reserve passes or buffers in the log"
        );
        bad.extend(compare(&name, &l, &replay(&l, dir.path())));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
