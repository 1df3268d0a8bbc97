//! One run of the indexer grids (llama_indexer_grid.rs, llama_indexer_grid2.rs): a tiny model
//! loaded by the real llama-server over one `ggml-rpc-server` device (a CPU backend served as a
//! GPU-like device, so device/host placement is real), and every buffer it prints compared with
//! the estimate: the context, each cache's summary line (the attention cache, the indexer's own
//! cache, the sliding-window cache, the recurrent state) and the KV and RS buffers on the device
//! and the host to the printed 0.01 MiB, the weights per device within 1 %, the output buffer,
//! and the compute buffers within 10 % unless the estimate says it is approximate (then the
//! figures are only reported). The including test declares `mod llama_tools`
//! (testing/llama_tools.rs).

use std::path::Path;
use std::process::Command;

use gpuledger_workloads::estimate::{estimate, Backend, Setting};
use gpuledger_workloads::gguf::GgufModel;
use gpuledger_workloads::llama_log::{parse_llama_log, BufferKind, LlamaLog};
use gpuledger_workloads::{Estimate, LlamaSettings};

use super::llama_tools::{run_until_loaded, server_build, start_rpc, LlamaTools};

const MIB: f64 = 1024.0 * 1024.0;

/// The table's heading, for the rows `check` returns.
pub const TABLE_HEAD: &str = "| case | caches MiB (logged/est.) | compressed caches and states | recurrent state | weights device/host | compute device+host (logged / est.) |";

fn mib(b: u64) -> f64 {
    b as f64 / MIB
}

/// MiB of one kind on the RPC device and on the host.
fn split(log: &LlamaLog, kind: &BufferKind) -> (f64, f64, usize) {
    let lines: Vec<_> = log.buffers.iter().filter(|b| &b.kind == kind).collect();
    let dev = lines
        .iter()
        .filter(|b| b.backend.starts_with("RPC"))
        .map(|b| b.mib)
        .sum();
    let host = lines
        .iter()
        .filter(|b| !b.backend.starts_with("RPC"))
        .map(|b| b.mib)
        .sum();
    (dev, host, lines.len())
}

/// Run one model with one flag set; the report row and what disagreed. `said`: words the
/// compute estimate must name as approximate (a graph part the replay does not build). The
/// compute is held to 10 % on the device and on the host whatever the estimate calls it.
pub fn check(
    t: &LlamaTools,
    rpc_bin: &Path,
    dir: &Path,
    model: &str,
    flags: &[&str],
    said: Option<&str>,
) -> Row {
    let rpc = start_rpc(rpc_bin, 1);
    let path = dir.join(format!("{model}.gguf"));
    let mut args: Vec<String> = flags.iter().map(|a| a.to_string()).collect();
    args.extend(["-ngl", "99", "--rpc"].map(String::from));
    args.push(rpc.endpoints[0].clone());
    let mut cmd = Command::new(&t.server);
    cmd.arg("-m")
        .arg(&path)
        .args(["--host", "127.0.0.1", "--port", "0", "-t", "2", "-lv", "4"])
        .args(["--no-warmup", "--no-repack"])
        .args(&args)
        .env("LD_LIBRARY_PATH", t.server.parent().unwrap());
    let text = run_until_loaded(&mut cmd);
    drop(rpc);
    let ctx = format!("{model} {flags:?}");
    let log_path = dir.join(format!("{model}{}.log", flags.join("_")));
    std::fs::write(&log_path, &text).unwrap();
    if !text.contains("compute buffer size") {
        return Row::failed(format!(
            "{ctx}: the server did not load (log: {})",
            log_path.display()
        ));
    }
    let log = parse_llama_log(&text);
    let mut settings = LlamaSettings::from_args(&args).unwrap();
    settings.backend = Setting::runtime(Backend::Cpu, "a CPU build: the RPC device only");
    settings.llama_build = Setting::runtime(server_build(&text), "the server's build line");
    let e = estimate(&GgufModel::open(&path).unwrap(), &settings).unwrap();
    let mut r = Row {
        cells: vec![format!("{model} {}", flags.join(" "))],
        bad: Vec::new(),
    };
    r.context(&log, &e, &ctx);
    r.caches(&log, &e, &ctx);
    r.compressed(&log, &text, &e, &ctx);
    r.recurrent(&log, &e, &ctx);
    r.buffers(&log, &e, &ctx);
    if let Some(w) = said {
        let parts = &e.compute.approximate_parts;
        r.expect(
            parts.iter().any(|p| p.contains(w)),
            format!("{ctx}: the compute estimate does not say \"{w}\" is approximate: {parts:?}"),
        );
    }
    r
}

/// One case's table row and its disagreements.
pub struct Row {
    pub cells: Vec<String>,
    pub bad: Vec<String>,
}

impl Row {
    fn failed(why: String) -> Row {
        Row {
            cells: vec![why.clone()],
            bad: vec![why],
        }
    }

    fn expect(&mut self, ok: bool, what: String) {
        if !ok {
            self.bad.push(what);
        }
    }

    fn context(&mut self, log: &LlamaLog, e: &Estimate, ctx: &str) {
        let c = &e.context;
        let logged = (log.n_ctx, log.n_seq_max, log.kv_unified);
        let est = (Some(c.n_ctx), Some(c.n_seq_max), Some(c.kv_unified));
        self.expect(
            logged == est,
            format!("{ctx}: n_ctx/n_seq/unified logged {logged:?}, estimated {est:?}"),
        );
    }

    /// Each cache's summary line in llama.cpp's order: the attention cache (dots3note: its DSA
    /// layers'), the indexer's own (DSA, MSA, QSA, glm5-next's hybrid_idx), the sliding-window
    /// cache (iSWA, dots3note's DSA-iSWA, DeepSeek V4's raw window cache); cells, layers and MiB
    /// (the indexer's K and V too) exact. DeepSeek V4's compressed caches follow (`compressed`).
    fn caches(&mut self, log: &LlamaLog, e: &Estimate, ctx: &str) {
        let kv = &e.kv_cache;
        let mut est = vec![(
            "attention",
            kv.cells_full,
            kv.layers_full,
            kv.full_bytes,
            None,
        )];
        // DeepSeek V4's indexer cache is the last of its compressed ones.
        if let Some(ix) = kv.indexer.as_ref().filter(|_| kv.compressed.is_empty()) {
            let kv_split = Some((ix.k_bytes, ix.v_bytes));
            est.push(("indexer", kv.cells_full, ix.layers, ix.bytes, kv_split));
        }
        if let Some(cells) = kv.cells_swa {
            est.push(("SWA", cells, kv.layers_swa, kv.swa_bytes, None));
        }
        let p2 = |x: f64| format!("{x:.2}");
        let more = if kv.compressed.is_empty() {
            0
        } else {
            usize::MAX
        };
        if log.kv_sizes.len() != est.len() && more == 0 || log.kv_sizes.len() < est.len() {
            self.bad.push(format!(
                "{ctx}: {} cache lines logged {:?}, {} estimated",
                log.kv_sizes.len(),
                log.kv_sizes,
                est.len()
            ));
        }
        let mut shown = Vec::new();
        for (l, &(what, cells, layers, bytes, split)) in log.kv_sizes.iter().zip(&est) {
            let mut ok =
                p2(l.mib) == p2(mib(bytes)) && l.layers == layers as u64 && l.cells == cells;
            if let Some((k, v)) = split {
                ok &= p2(l.k_mib) == p2(mib(k)) && p2(l.v_mib) == p2(mib(v));
            }
            self.expect(
                ok,
                format!(
                    "{ctx}: {what} cache logged {l:?}, estimated {:.2} MiB / {cells} cells / \
                     {layers} layers (K+V {split:?})",
                    mib(bytes)
                ),
            );
            shown.push(format!("{what} {:.2}/{:.2}", l.mib, mib(bytes)));
        }
        self.cells.push(shown.join(", "));
    }

    /// DeepSeek V4's compressed caches (the summary lines after the raw cache's: CSA, HCA, the
    /// indexer's) and its compressor states (`llama_dsv4_comp_state: <name> ratio = ...,
    /// size = X MiB`), name by name.
    fn compressed(&mut self, log: &LlamaLog, text: &str, e: &Estimate, ctx: &str) {
        let kv = &e.kv_cache;
        if kv.compressed.is_empty() {
            self.cells.push("-".into());
            return;
        }
        let p2 = |x: f64| format!("{x:.2}");
        let mut est: Vec<(String, u64, String)> = kv
            .compressed
            .iter()
            .filter(|c| !c.name.ends_with("state"))
            .map(|c| (c.name.to_string(), c.layers as u64, p2(mib(c.bytes))))
            .collect();
        if let Some(ix) = &kv.indexer {
            est.push(("lid".into(), ix.layers as u64, p2(mib(ix.bytes))));
        }
        let logged: Vec<(String, u64, String)> = log
            .kv_sizes
            .iter()
            .skip(2)
            .zip(&est)
            .map(|(l, (name, ..))| (name.clone(), l.layers, p2(l.mib)))
            .collect();
        let states_log: Vec<(String, String)> = text
            .lines()
            .filter_map(|l| {
                l.split_once("llama_dsv4_comp_state: ")?
                    .1
                    .split_once(" ratio = ")
            })
            .filter_map(|(name, rest)| {
                let size = rest.rsplit_once("size =")?.1.trim().trim_end_matches("MiB");
                Some((format!("{name} state"), p2(size.trim().parse().ok()?)))
            })
            .collect();
        let states_est: Vec<(String, String)> = kv
            .compressed
            .iter()
            .filter(|c| c.name.ends_with("state"))
            .map(|c| (c.name.to_string(), p2(mib(c.bytes))))
            .collect();
        self.expect(
            logged == est && log.kv_sizes.len() == 2 + est.len(),
            format!("{ctx}: compressed caches logged {logged:?}, estimated {est:?}"),
        );
        self.expect(
            states_log == states_est,
            format!("{ctx}: compressor states logged {states_log:?}, estimated {states_est:?}"),
        );
        let mut cell: Vec<String> = logged
            .iter()
            .zip(&est)
            .map(|((n, _, l), (_, _, e))| format!("{n} {l}/{e}"))
            .collect();
        cell.extend(
            states_log
                .iter()
                .zip(&states_est)
                .map(|((n, l), (_, e))| format!("{n} {l}/{e}")),
        );
        self.cells.push(cell.join(", "));
    }

    /// The recurrent state's summary line, where the model has one (a hybrid's).
    fn recurrent(&mut self, log: &LlamaLog, e: &Estimate, ctx: &str) {
        let logged = log.rs_sizes.first().map(|r| format!("{:.2}", r.mib));
        let est = e.kv_cache.recurrent_bytes.map(|b| format!("{:.2}", mib(b)));
        self.expect(
            logged == est,
            format!("{ctx}: recurrent state logged {logged:?} MiB, estimated {est:?}"),
        );
        self.cells.push(match (logged, est) {
            (None, None) => "-".into(),
            (l, e) => format!("{}/{}", l.unwrap_or_default(), e.unwrap_or_default()),
        });
    }

    /// KV and RS, weights, output and compute buffers on the device and the host, the compute
    /// each within 10 %.
    fn buffers(&mut self, log: &LlamaLog, e: &Estimate, ctx: &str) {
        let (kg, kh, n) = split(log, &BufferKind::Kv);
        // The recurrent state is in the estimate's KV figures too (`recurrent_bytes`).
        let (rg, rh, nr) = split(log, &BufferKind::Rs);
        let (kg, kh, n) = (kg + rg, kh + rh, n + nr);
        let tol = 0.006 * n as f64;
        let (ekg, ekh) = (mib(e.kv_cache.gpu_bytes), mib(e.kv_cache.host_bytes));
        self.expect(
            (kg - ekg).abs() <= tol && (kh - ekh).abs() <= tol,
            format!("{ctx}: KV buffers logged {kg:.2}+{kh:.2}, estimated {ekg:.2}+{ekh:.2}"),
        );
        let (wg, wh, _) = split(log, &BufferKind::Model);
        let (ewg, ewh) = (mib(e.weights.gpu_bytes), mib(e.weights.host_bytes));
        let near = |a: f64, b: f64| (a - b).abs() <= (0.01 * b).max(0.011);
        self.expect(
            near(wg, ewg) && near(wh, ewh),
            format!("{ctx}: weights logged {wg:.2}+{wh:.2}, estimated {ewg:.2}+{ewh:.2}"),
        );
        self.cells
            .push(format!("{wg:.2}/{ewg:.2} host {wh:.2}/{ewh:.2}"));
        let (og, oh, _) = split(log, &BufferKind::Output);
        let eo = mib(e.output.host_bytes);
        self.expect(
            (og + oh - eo).abs() <= 0.006,
            format!("{ctx}: output logged {:.2}, estimated {eo:.2}", og + oh),
        );
        let (cg, ch, _) = split(log, &BufferKind::Compute);
        let (ecg, ech) = (mib(e.compute.gpu_bytes), mib(e.compute.host_bytes));
        let approx = e.compute.approximate;
        // The device and the host each (the sum alone could hide a device/host swap), for every
        // model: a part named approximate is no licence to miss (issue #35).
        let near = |logged: f64, est: f64| (0.9..=1.1).contains(&(est / logged));
        self.expect(
            near(cg, ecg) && near(ch, ech),
            format!(
                "{ctx}: compute device/host logged {cg:.2}/{ch:.2}, estimated {ecg:.2}/{ech:.2} \
                 (each within 10 %?)"
            ),
        );
        self.cells.push(format!(
            "{cg:.2}+{ch:.2} / {ecg:.2}+{ech:.2} ({})",
            if approx {
                "stated approximate"
            } else {
                "exact"
            }
        ));
    }
}
