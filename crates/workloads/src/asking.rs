//! Asking the runtimes' own APIs on the collection path, so that the process the GPU lists
//! carries what its runtime says (vLLM's block count from `/metrics`, SGLang's
//! `/get_server_info`, Ollama's `/api/ps`, LM Studio's loaded context) in every view, not only in
//! `explain`.
//!
//! A round never waits on a server it does not have to (docs/DESIGN.md concept 8): a one-round
//! `snapshot` asks inline, each request bounded by its timeout; the live view, `serve`, `watch`
//! and `record` ask from one background thread and take the answer in a later round, keeping the
//! last one meanwhile. Only runtimes whose recipe reads its API are asked, only on this machine's
//! own `/proc` (a recorded tree's ports are another moment), only on loopback and only in our own
//! network namespace (a container's 127.0.0.1 is not ours). On Windows the ports and the parent
//! come from the OS (the TCP owner tables, a process snapshot), so it is asked there too; a
//! process in another network compartment (a Windows container) is not told apart there.

use crate::live::Asker;
use crate::process_estimate::Outcome;
use gpuledger_lang::Said;
use gpuledger_model::{Process, Workload};
use gpuledger_sources::procfs::ProcReader;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Whether and how collection asks the runtimes' APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Asking {
    /// Never (explain asks on its own; `--no-probe`).
    #[default]
    Off,
    /// In the round itself, each request bounded by the timeout: one-round commands.
    Inline(Duration),
    /// From a background thread; the answer is used from a later round on.
    Background(Duration),
}

impl Asking {
    /// One round's loopback answers, each request made once: asked inline only.
    pub fn round_asker(self) -> Option<Asker> {
        match self {
            Asking::Inline(t) => Some(Asker::new(t)),
            _ => None,
        }
    }
}

/// The timeout each loopback request gets unless a command says otherwise (`explain`'s default).
pub const TIMEOUT: Duration = Duration::from_millis(500);

/// Whether `p` (in workload `w`) may be asked: `Ok(false)` when there is nothing to ask (no
/// recipe reads an API, or the `/proc` is a recording), `Err` with the note to show when it is
/// not asked for a reason the user should know.
pub(crate) fn may_ask(p: &Process, w: &Workload, procs: &ProcReader) -> Result<bool, Said> {
    if !crate::runtimes::is_ai(w.kind) || !crate::runtimes::reads_api(w) || !procs.is_live() {
        return Ok(false);
    }
    other_network(procs, p.pid).map_or(Ok(true), Err)
}

/// Why `pid`'s loopback ports are not ours to ask, when it runs in another network namespace
/// (a container): its 127.0.0.1 is another host's, and a server there is not the one we reach.
pub fn other_network(procs: &ProcReader, pid: u32) -> Option<Said> {
    (procs.shares_our_network(pid) == Some(false))
        .then(|| Said::new("report-live-other-netns", vec![]))
}

/// A process to estimate with its runtime's answers, off the collection thread.
pub(crate) struct Job {
    pub key: Key,
    pub process: Process,
    pub workload: Workload,
    pub device: Option<crate::process_estimate::Dev>,
    pub overhead: Option<(u64, Said)>,
    pub timeout: Duration,
}

/// A process: its pid and start time (a reused pid has another start time).
pub(crate) type Key = (u32, Option<u64>);

/// The background asker: one thread, started on the first job; jobs already queued for a
/// process are not queued again.
pub(crate) struct Background {
    proc_root: PathBuf,
    tx: Option<Sender<Job>>,
    done: Arc<Mutex<HashMap<Key, Outcome>>>,
    queued: HashSet<Key>,
}

impl Background {
    pub fn new(proc_root: PathBuf) -> Self {
        Background {
            proc_root,
            tx: None,
            done: Arc::default(),
            queued: HashSet::new(),
        }
    }

    /// Queue `job` unless one for the same process is still waiting.
    pub fn submit(&mut self, job: Job) {
        if !self.queued.insert(job.key) {
            return;
        }
        let tx = self.tx.get_or_insert_with(|| {
            let (tx, rx) = mpsc::channel();
            let (root, done) = (self.proc_root.clone(), Arc::clone(&self.done));
            // A thread that cannot start leaves collection as it was: no answers, no failure.
            let _ = std::thread::Builder::new()
                .name("gpuledger-ask".into())
                .spawn(move || work(&root, &rx, &done));
            tx
        });
        let _ = tx.send(job);
    }

    /// The answers that came since the last call: per process, its estimate with the answers,
    /// or why there is none.
    pub fn take(&mut self) -> HashMap<Key, Outcome> {
        let got = std::mem::take(&mut *self.done.lock().unwrap_or_else(|e| e.into_inner()));
        for k in got.keys() {
            self.queued.remove(k);
        }
        got
    }

    /// Forget what is queued for processes that are gone.
    pub fn retain(&mut self, alive: &HashSet<Key>) {
        self.queued.retain(|k| alive.contains(k));
    }
}

fn work(root: &std::path::Path, rx: &Receiver<Job>, done: &Mutex<HashMap<Key, Outcome>>) {
    for job in rx {
        // A reader of its own: the collection thread's reader is busy with the next round.
        let procs = ProcReader::new(root);
        let round = crate::safetensors::Round::default();
        let e = crate::process_estimate::estimate_process(
            &job.process,
            &job.workload,
            &procs,
            job.device.as_ref(),
            &round,
            job.overhead,
            Some(&Asker::new(job.timeout)),
        );
        done.lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(job.key, e);
    }
}
