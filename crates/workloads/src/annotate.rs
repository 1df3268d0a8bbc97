//! Identification on the collection path, cached: facts (maps, fds, sockets) are read once per
//! process and refreshed on a slow cadence, never every round (docs/DESIGN.md concept 7).

use crate::identify::identify_in;
use crate::process_estimate::{estimate_process, Dev, Outcome};
use gpuledger_lang::Said;
use gpuledger_model::{EstimatedMemory, NoEstimate, Snapshot, Workload};
use gpuledger_sources::procfs::{staggered, ProcReader};
use gpuledger_sources::Annotate;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Re-read a process's facts at most this long after the last reading (at least half of it,
/// spread by pid: see [`staggered`]): a server can load a model or open a port after start.
const REFRESH: Duration = Duration::from_secs(30);
/// A process whose facts said the same thing twice in a row waits twice as long for the next
/// reading, up to this; a change in its GPU memory (a model loaded or freed) re-reads at once.
const MAX_REFRESH: Duration = Duration::from_secs(300);
/// Never re-read sooner than this, whatever the memory does (a training job's allocator can grow
/// for minutes: one reading per round would cost a `maps` read of thousands of lines each time).
const MIN_REFRESH: Duration = Duration::from_secs(3);

use crate::asking::{Asking, Background, Job, Key};
use crate::live::Asker;

/// What a process's rows show of the estimated ledger: the estimate, or why there is none (with
/// what the runtime reported), shared with each round's snapshot.
#[derive(Clone, Default)]
struct Shown {
    estimate: Option<Arc<EstimatedMemory>>,
    no_estimate: Option<Arc<NoEstimate>>,
}

impl From<Outcome> for Shown {
    fn from(o: Outcome) -> Shown {
        match o {
            Some(Ok(e)) => Shown {
                estimate: Some(Arc::new(e)),
                no_estimate: None,
            },
            Some(Err(n)) => Shown {
                estimate: None,
                no_estimate: Some(Arc::new(n)),
            },
            None => Shown::default(),
        }
    }
}

/// What was concluded about one process, and when its facts were read.
struct Known {
    workload: Arc<Workload>,
    ports: Vec<u16>,
    estimate: Shown,
    /// The estimate with the runtime's own answers, from the background asker (kept across
    /// re-readings until the next answer: a view does not flip back to the flags' floor).
    answered: Option<Shown>,
    /// Model files this reading refused (a budget, a file out of its folder, not the format),
    /// as the snapshot's notes say them.
    skipped: Vec<String>,
    at: Instant,
    /// How long this reading stands, and the GPU memory the process held when it was made.
    period: Duration,
    gpu_bytes: Option<u64>,
}

impl Known {
    /// Put what was concluded on the process's row (shared, not copied: the JSON is the same).
    fn show(&self, p: &mut gpuledger_model::Process) {
        p.workload = Some(Arc::clone(&self.workload));
        p.listen_ports = self.ports.clone();
        let shown = self.answered.as_ref().unwrap_or(&self.estimate);
        p.estimate = shown.estimate.clone();
        p.no_estimate = shown.no_estimate.clone();
    }

    /// Whether the reading still stands at `now` for a process holding `gpu_bytes`.
    fn fresh(&self, pid: u32, now: Instant, gpu_bytes: Option<u64>) -> bool {
        let age = now.duration_since(self.at);
        age < MIN_REFRESH
            || (age < staggered(pid, self.period) && !memory_moved(self.gpu_bytes, gpu_bytes))
    }
}

/// The next period after a re-reading: longer when it concluded what the last one did.
fn next_period(old: Option<&Known>, workload: &Workload, ports: &[u16]) -> Duration {
    match old {
        Some(k) if *k.workload == *workload && k.ports == ports => (k.period * 2).min(MAX_REFRESH),
        _ => REFRESH,
    }
}

/// A change in a process's GPU memory large enough to mean a model was loaded or freed: more than
/// 64 MiB and more than 5 % (an allocator's breathing stays under that).
fn memory_moved(then: Option<u64>, now: Option<u64>) -> bool {
    match (then, now) {
        (Some(a), Some(b)) => {
            let d = a.abs_diff(b);
            d > 64 << 20 && d > a.max(b) / 20
        }
        (None, None) => false,
        _ => true,
    }
}

#[derive(Default)]
pub struct Identifier {
    cache: HashMap<Key, Known>,
    /// This machine's measured runtime overhead (a saved probe): bytes and its label.
    overhead: Option<(u64, Said)>,
    asking: Asking,
    background: Option<Background>,
    /// What reading model headers may cost per round.
    headers: crate::safetensors::Budget,
}

impl Identifier {
    pub fn new() -> Self {
        Self::default()
    }

    /// Use a measured per-process overhead (from `gpuledger probe --save`) in CUDA estimates.
    pub fn with_overhead(mut self, overhead: Option<(u64, Said)>) -> Self {
        self.overhead = overhead;
        self
    }

    /// Ask the runtimes' own APIs (see [`crate::asking`]).
    pub fn asking(mut self, asking: Asking) -> Self {
        self.asking = asking;
        self
    }

    /// The budget for reading model headers in each round ([`crate::safetensors::Budget`]).
    pub fn header_budget(mut self, budget: crate::safetensors::Budget) -> Self {
        self.headers = budget;
        self
    }
}

impl Annotate for Identifier {
    fn annotate(&mut self, snap: &mut Snapshot, procs: &ProcReader) {
        let now = Instant::now();
        let devices: Vec<Dev> = snap
            .devices
            .iter()
            .map(|d| {
                (
                    d.uuid.clone(),
                    d.vendor,
                    d.memory.total_bytes,
                    d.memory.free_bytes,
                    d.compute_capability,
                )
            })
            .collect();
        // One budget for reading model headers, shared by the processes re-read this round.
        let round = crate::safetensors::Round::new(self.headers);
        let asker = self.asking.round_asker();
        let mut answers = self.answers(procs);
        // A set: with hundreds of processes a list's `contains` below is quadratic.
        let mut seen = std::collections::HashSet::with_capacity(snap.processes.len());
        for p in &mut snap.processes {
            // A process we cannot see in /proc has no facts to read.
            if p.metadata_unavailable.is_some() {
                continue;
            }
            let key = (p.pid, p.start_time);
            seen.insert(key);
            let gpu_bytes = p.usage.iter().map(|u| u.memory_bytes).sum::<Option<u64>>();
            let fresh = self
                .cache
                .get(&key)
                .is_some_and(|k| k.fresh(p.pid, now, gpu_bytes));
            if !fresh {
                let facts = gpuledger_sources::process_facts(procs, p.pid);
                let workload = identify_in(&facts, procs);
                let device = p
                    .usage
                    .iter()
                    .find_map(|u| devices.iter().find(|(id, ..)| *id == u.device));
                p.listen_ports.clone_from(&facts.listen_ports);
                let estimate =
                    self.estimate_of(p, &workload, procs, device, &round, asker.as_ref());
                let (skipped, later) = skip_notes(p.pid, &workload, round.take_skips());
                // Skipped for this round's budget only: read again soon, not a period later.
                let period = if later {
                    MIN_REFRESH
                } else {
                    next_period(self.cache.get(&key), &workload, &facts.listen_ports)
                };
                self.cache.insert(
                    key,
                    Known {
                        workload: Arc::new(workload),
                        ports: facts.listen_ports,
                        estimate: estimate.into(),
                        answered: self.cache.get(&key).and_then(|k| k.answered.clone()),
                        skipped,
                        at: now,
                        period,
                        gpu_bytes,
                    },
                );
            }
            if let Some(k) = self.cache.get_mut(&key) {
                if let Some(a) = answers.remove(&key) {
                    k.answered = Some(a.into());
                }
                k.show(p);
                snap.notes.extend(k.skipped.iter().cloned().map(Into::into));
            }
        }
        rpc_shares(snap);
        // Forget processes that are gone (a reused PID has another start time anyway).
        self.cache.retain(|k, _| seen.contains(k));
        if let Some(b) = &mut self.background {
            b.retain(&seen);
        }
    }
}

impl Identifier {
    /// The background asker's answers since the last round (starting it on the first round).
    fn answers(&mut self, procs: &ProcReader) -> HashMap<Key, Outcome> {
        match (self.asking, &mut self.background) {
            (Asking::Background(_), Some(b)) => b.take(),
            (Asking::Background(_), None) => {
                self.background = Some(Background::new(procs.root().to_path_buf()));
                HashMap::new()
            }
            _ => HashMap::new(),
        }
    }

    /// The estimate for `p`, read now, with the runtime's answers when asked inline; a job for
    /// the background asker when it asks there.
    fn estimate_of(
        &mut self,
        p: &gpuledger_model::Process,
        workload: &Workload,
        procs: &ProcReader,
        device: Option<&Dev>,
        round: &crate::safetensors::Round,
        asker: Option<&Asker>,
    ) -> Outcome {
        let may = crate::asking::may_ask(p, workload, procs);
        let inline = asker.filter(|_| may == Ok(true));
        let overhead = self.overhead.clone();
        let mut e = estimate_process(p, workload, procs, device, round, overhead, inline);
        match (self.asking, may, &mut self.background) {
            (_, Err(note), _) => match e.as_mut() {
                Some(Ok(e)) => e.not_modelled.push(note),
                Some(Err(n)) => {
                    let why = std::mem::take(&mut n.why);
                    n.why = Said::joined("report-said-list", vec![why, note]).unwrap_or_default();
                }
                None => {}
            },
            (Asking::Background(timeout), Ok(true), Some(b)) => b.submit(Job {
                key: (p.pid, p.start_time),
                process: p.clone(),
                workload: workload.clone(),
                device: device.cloned(),
                overhead: self.overhead.clone(),
                timeout,
            }),
            _ => {}
        }
        e
    }
}

/// An `rpc-server` serving a device of a llama-server here carries that device's part of the
/// server's estimate (by the port its `--rpc` names).
fn rpc_shares(snap: &mut Snapshot) {
    let shares: Vec<(usize, EstimatedMemory)> = snap
        .processes
        .iter()
        .enumerate()
        .filter(|(_, p)| p.estimate.is_none())
        .filter_map(|(i, p)| {
            let m = p.workload.as_ref()?.member.as_ref()?;
            let root = m
                .root_pid
                .filter(|_| m.role_kind == gpuledger_model::RoleKind::RpcDevice)?;
            let of = snap
                .processes
                .iter()
                .find(|r| r.pid == root)?
                .estimate
                .as_ref()?;
            let d = of.device_shares.iter().find(|d| {
                d.endpoint
                    .as_deref()
                    .and_then(|e| e.rsplit(':').next()?.parse::<u16>().ok())
                    .is_some_and(|port| p.listen_ports.contains(&port))
            })?;
            Some((i, crate::process_estimate::rpc_share(root, of, d)))
        })
        .collect();
    for (i, e) in shares {
        snap.processes[i].estimate = Some(Arc::new(e));
        // Its own recipe found no model (an rpc-server loads none): the share replaces that.
        snap.processes[i].no_estimate = None;
    }
}

/// The snapshot's notes for the model files a process's reading skipped (which, and why), and
/// whether one was skipped for the round's budget only.
fn skip_notes(pid: u32, w: &Workload, skips: Vec<crate::safetensors::Skip>) -> (Vec<String>, bool) {
    let later = skips
        .iter()
        .any(|s| s.kind == crate::safetensors::ErrorKind::Round);
    let notes = skips
        .into_iter()
        .map(|s| {
            format!(
                "pid {pid} ({}): model not read: {}: {}",
                w.kind.label(),
                s.path.display(),
                s.why
            )
        })
        .collect();
    (notes, later)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn a_model_load_or_free_is_a_change_and_allocator_noise_is_not() {
        assert!(!memory_moved(Some(8_000 * MIB), Some(8_040 * MIB)));
        // 40 MiB of 8,000: noise (under 64 MiB). 500 MiB: a change.
        assert!(memory_moved(Some(8_000 * MIB), Some(8_500 * MIB)));
        // A small process growing from 300 MiB (CUDA context) to a loaded 4 GiB model.
        assert!(memory_moved(Some(300 * MIB), Some(4_096 * MIB)));
        assert!(!memory_moved(Some(300 * MIB), Some(350 * MIB)));
        assert!(memory_moved(None, Some(MIB)) && memory_moved(Some(MIB), None));
        assert!(!memory_moved(None, None));
    }

    #[test]
    fn a_reading_that_says_the_same_again_waits_longer_up_to_the_cap() {
        let w = Workload {
            kind: gpuledger_model::WorkloadKind::LlamaCpp,
            model: Some("/m/a.gguf".into()),
            model_name: None,
            confidence: gpuledger_model::Confidence::High,
            evidence: Vec::new(),
            missing: Vec::new(),
            member: None,
        };
        let known = |period| Known {
            answered: None,
            workload: Arc::new(w.clone()),
            ports: vec![8000],
            estimate: Shown::default(),
            skipped: Vec::new(),
            at: Instant::now(),
            period,
            gpu_bytes: Some(300 * MIB),
        };
        assert_eq!(next_period(None, &w, &[8000]), REFRESH);
        assert_eq!(next_period(Some(&known(REFRESH)), &w, &[8000]), REFRESH * 2);
        assert_eq!(
            next_period(Some(&known(MAX_REFRESH)), &w, &[8000]),
            MAX_REFRESH
        );
        // A port opened since: back to the short period.
        assert_eq!(
            next_period(Some(&known(MAX_REFRESH)), &w, &[8000, 8001]),
            REFRESH
        );
        // Fresh until the period (spread by pid) ends, or at once when the memory moved.
        let k = known(MAX_REFRESH);
        assert!(k.fresh(42, k.at + REFRESH, Some(300 * MIB)));
        assert!(!k.fresh(42, k.at + REFRESH, Some(4_096 * MIB)));
        // ...but not sooner than MIN_REFRESH after the last reading.
        assert!(k.fresh(42, k.at + MIN_REFRESH / 2, Some(4_096 * MIB)));
        assert!(!k.fresh(42, k.at + MAX_REFRESH, Some(300 * MIB)));
    }

    /// llama-server over a local GPU and an rpc-server on this machine: the server's own
    /// estimate is its local device's part, the rpc-server's the RPC device's.
    #[test]
    fn an_rpc_server_carries_its_devices_part_of_the_servers_estimate() {
        use crate::estimate::{estimate, Backend, Setting};
        use crate::gguf::writer::GgufWriter;
        use crate::gguf::{GgmlType, GgufModel, MetaValue};
        use gpuledger_model::test_support::{process, snapshot, TAKEN_AT};
        use gpuledger_model::{Confidence, Member, Workload, WorkloadKind};
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("m.gguf");
        let f16 = GgmlType::from_name("F16").unwrap();
        let mut w = GgufWriter::new();
        w.kv("general.architecture", MetaValue::String("llama".into()));
        for (k, v) in [
            ("block_count", 8),
            ("context_length", 4096),
            ("embedding_length", 1024),
            ("attention.head_count", 8),
            ("attention.head_count_kv", 8),
            ("vocab_size", 1000),
        ] {
            w.kv(&format!("llama.{k}"), MetaValue::U32(v));
        }
        w.tensor("token_embd.weight", &[1024, 1000], f16);
        for il in 0..8 {
            w.tensor(&format!("blk.{il}.ffn_up.weight"), &[1024, 4096], f16);
        }
        w.tensor("output.weight", &[1024, 1000], f16);
        w.write(&path).unwrap();
        let args: Vec<String> = "-c 4096 -ngl 99 -ts 1,1 --rpc 127.0.0.1:50052"
            .split(' ')
            .map(String::from)
            .collect();
        let mut s = crate::LlamaSettings::from_args(&args).unwrap();
        s.backend = Setting::runtime(Backend::Cuda, "test");
        let e = estimate(&GgufModel::open(&path).unwrap(), &s).unwrap();
        assert_eq!(e.devices.len(), 2);
        let (rpc, local) = (&e.devices[0], &e.devices[1]);
        let m = crate::process_estimate::summary(&e);
        assert_eq!(m.weights_gpu_bytes, local.weights_bytes);
        assert_eq!(m.kv_cache_gpu_bytes, Some(local.kv_bytes));
        assert!(m.total_gpu_bytes < e.total_gpu_bytes);
        let member = |root, role: &str| Workload {
            kind: WorkloadKind::LlamaCpp,
            model: None,
            model_name: None,
            confidence: Confidence::High,
            evidence: Vec::new(),
            missing: Vec::new(),
            member: Some(Member {
                root_pid: root,
                role: role.into(),
                role_kind: gpuledger_model::RoleKind::RpcDevice,
                evidence: "test".into(),
            }),
        };
        let mut server = process(300, "GPU-0", Some(1 << 30));
        server.estimate = Some(Arc::new(m));
        let mut rpc_proc = process(400, "GPU-1", Some(1 << 30));
        rpc_proc.workload = Some(Arc::new(member(Some(300), "rpc device")));
        rpc_proc.listen_ports = vec![50052];
        // Another rpc-server, on a port this llama-server does not name: nothing to carry.
        let mut other = process(401, "GPU-1", Some(1 << 30));
        other.workload = Some(Arc::new(member(Some(300), "rpc device")));
        other.listen_ports = vec![50053];
        let mut snap = snapshot(TAKEN_AT, vec![], vec![server, rpc_proc, other]);
        rpc_shares(&mut snap);
        let got = snap.processes[1].estimate.as_ref().unwrap();
        assert_eq!(got.weights_gpu_bytes, rpc.weights_bytes);
        assert_eq!(got.kv_cache_gpu_bytes, Some(rpc.kv_bytes));
        assert_eq!(got.compute_gpu_bytes, Some(rpc.compute_bytes));
        let why = got.why.as_ref().unwrap();
        assert!(why.starts_with("RPC0 of pid 300"), "{got:?}");
        // The page and the views say it in the reader's language; the JSON keeps the English.
        let cn = why.in_lang(gpuledger_lang::Lang::ZhCn);
        assert!(cn.starts_with("PID 300 的模型在 RPC0 上的部分："), "{cn}");
        assert!(
            got.is_partial(),
            "the rpc-server's own overhead is not known"
        );
        assert!(snap.processes[2].estimate.is_none());
    }
}
