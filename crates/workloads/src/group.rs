//! Which workload of several processes a GPU process belongs to, and its role there: the one
//! owner of the grouping rule (docs/DESIGN.md concept 7).
//!
//! Serving engines are not one process. The process the GPU lists is often not the one the user
//! started: vLLM's `VLLM::EngineCore` and `VLLM::Worker_TP1` under its API server, SGLang's
//! `sglang::scheduler_TP0`, Ollama's runner under `ollama serve`, a vLLM V0 engine started through
//! Python's multiprocessing (whose command line names no runtime at all), the ranks `torchrun`
//! starts. The rule, per GPU process:
//!
//! 1. Walk up its ancestors (at most [`MAX_DEPTH`]) to the nearest one whose own command line
//!    names a runtime: that is the root (the server, `torchrun`).
//! 2. A process identification could not name (a multiprocessing child) takes the root's runtime,
//!    with the root's command line as evidence.
//! 3. The role comes from the process's own title (the runtime's
//!    [`crate::runtimes::Runtime::role`]), else from the rank variables a launcher sets (`RANK`,
//!    `WORLD_SIZE`), else, for untitled multiprocessing children (vLLM V0's), from their place in
//!    the tree ([`MpPlace`]) as the runtime's [`MpLayout`] reads it, else it is the root's `child`.
//!
//! Every runtime fact (what names a root, a role, a layout, a member found apart from its
//! parents) comes from the registered runtimes ([`Registry`]); this file names none.

use crate::runtimes::{MpLayout, MpPlace, Registry, Seen, RUNTIMES};
use gpuledger_lang::Said;
use gpuledger_model::{Evidence, EvidenceKind, Member, RoleKind, Workload, WorkloadKind};
use gpuledger_sources::procfs::{ProcReader, ProcessFacts};

/// How far up a process's ancestors the root is looked for (server → engine core → worker is
/// two levels; a shell or `uv run` in between adds one or two).
pub const MAX_DEPTH: usize = 4;

/// The rank variables launchers set for each process (torchrun, accelerate, DeepSpeed); none can
/// hold a secret.
const RANK_VARS: &[&str] = &["RANK", "WORLD_SIZE", "LOCAL_RANK"];

/// An ancestor's command line and name, as a runtime is recognised in them.
struct Ancestor {
    pid: u32,
    comm: String,
    args: Vec<String>,
    joined: String,
    lower: String,
}

impl Ancestor {
    fn read(procs: &ProcReader, pid: u32) -> Option<(Ancestor, u32)> {
        let stat = procs.stat(pid).ok()?;
        let args = procs.args(pid).unwrap_or_default();
        let joined = args.join(" ");
        let lower = joined.to_ascii_lowercase();
        let a = Ancestor {
            pid,
            comm: stat.comm,
            args,
            joined,
            lower,
        };
        Some((a, stat.ppid))
    }

    fn seen<'a>(&'a self, prog: &'a str) -> Seen<'a> {
        Seen {
            prog,
            comm: &self.comm,
            args: &self.args,
            joined: &self.joined,
            lower: &self.lower,
            mapped: &[],
        }
    }

    /// The program's file name, without `.exe`.
    fn prog(&self) -> &str {
        let arg0 = self.args.first().map(String::as_str).unwrap_or("");
        let prog = arg0.rsplit(['/', '\\']).next().unwrap_or(arg0);
        prog.trim_end_matches(".exe")
    }

    /// The runtime kind this ancestor's own command line names as a root (a launcher's too).
    fn names(&self, runtimes: &Registry) -> Option<WorkloadKind> {
        runtimes.names_root(&self.seen(self.prog()))
    }
}

/// Find the workload `w` (identified from `f` alone) belongs to, and set its membership. A
/// process that is its own root (it started no one above it that names a runtime) is left as it
/// is, unless a launcher's rank variables say it is a rank.
pub fn join(f: &ProcessFacts, w: &mut Workload, procs: &ProcReader) {
    join_with(&RUNTIMES, f, w, procs);
}

/// [`join`] with the runtimes of `runtimes`.
pub fn join_with(runtimes: &Registry, f: &ProcessFacts, w: &mut Workload, procs: &ProcReader) {
    let own = runtimes.for_kind(w.kind);
    if let Some(member) = own.and_then(|r| r.member_apart(f, procs)) {
        w.member = Some(member);
        return;
    }
    let is_ai = runtimes.is_ai(w.kind);
    let root = find_root(runtimes, f, procs);
    // The environment is read only where a rank can matter: an AI process (a launcher's rank
    // without a runtime above it) or a process under a runtime's root whose title names no role.
    // A browser or a compositor costs no `environ` read (collection reads it for every process
    // it is asked about).
    let rank = || {
        let env = gpuledger_sources::environ::named(procs.root(), f.pid, RANK_VARS);
        rank_role(&env.unwrap_or_default())
    };
    let Some((root, kind)) = root else {
        if let Some(role) = is_ai.then(rank).flatten() {
            w.member = Some(Member {
                root_pid: None,
                role,
                role_kind: RoleKind::Rank,
                evidence: rank_vars(f.pid),
            });
        }
        return;
    };
    // A process known only by a framework's libraries (PyTorch) under a serving engine is that
    // engine's.
    let yields = own.is_some_and(|r| r.yields_to_root(w.kind)) && w.kind != kind;
    if !is_ai || yields {
        adopt(f, w, &root, kind);
    }
    let own = runtimes.for_kind(w.kind);
    // The root's command line as its runtime reads it (a vLLM `--config` file included): the
    // same reading the recipe makes.
    let root_args = runtimes
        .read_args(kind, &root.args, procs.root(), root.pid)
        .0;
    // A worker whose title replaced its command line serves the model its root names.
    if w.model.is_none() && runtimes.is_ai(w.kind) {
        w.model = crate::runtimes::model_arg(runtimes, kind, root.prog(), &root_args);
    }
    let own_role = own.and_then(|r| r.role(&own_seen(f), &root_args));
    let rank = if own_role.is_none() { rank() } else { None };
    let ((role_kind, role), how) = match (own_role, rank) {
        (Some(role), _) => {
            let title = Said::new("report-member-title", vec![("title", title(f).into())]);
            (role, title)
        }
        (None, Some(role)) => ((RoleKind::Rank, role), rank_vars(f.pid)),
        (None, None) => match own
            .and_then(|r| r.multiprocessing())
            .and_then(|layout| mp_role(f, layout, &root, &root_args, procs))
        {
            Some((role, how)) => (role, how.into()),
            None => (
                (RoleKind::Child, "child".to_string()),
                Said::new("report-member-descendant", vec![]),
            ),
        },
    };
    w.member = Some(Member {
        root_pid: Some(root.pid),
        role,
        role_kind,
        evidence: Said::new(
            "report-member-rooted",
            vec![
                ("how", how.into()),
                ("root", root.pid.to_string().into()),
                ("command", short(&root.joined).into()),
                ("pid", f.pid.to_string().into()),
            ],
        ),
    });
}

/// How a rank was known: its launcher's variables.
fn rank_vars(pid: u32) -> Said {
    Said::new(
        "report-member-rank-vars",
        vec![("pid", pid.to_string().into())],
    )
}

/// The nearest ancestor whose command line names a runtime (or a launcher), and that kind.
fn find_root(
    runtimes: &Registry,
    f: &ProcessFacts,
    procs: &ProcReader,
) -> Option<(Ancestor, WorkloadKind)> {
    let mut pid = procs.stat(f.pid).ok()?.ppid;
    for _ in 0..MAX_DEPTH {
        if pid <= 1 {
            return None;
        }
        let (a, ppid) = Ancestor::read(procs, pid)?;
        if let Some(kind) = a.names(runtimes) {
            return Some((topmost_fork(a, ppid, procs), kind));
        }
        pid = ppid;
    }
    None
}

/// The server itself where `a` is a fork of it (the same command line: vLLM V1's engine core
/// forked from its API server, whose workers are forks of it in turn), at most [`MAX_DEPTH`]
/// levels up.
fn topmost_fork(mut a: Ancestor, mut ppid: u32, procs: &ProcReader) -> Ancestor {
    for _ in 0..MAX_DEPTH {
        if ppid <= 1 {
            break;
        }
        match Ancestor::read(procs, ppid) {
            Some((parent, up)) if parent.args == a.args && !a.args.is_empty() => {
                a = parent;
                ppid = up;
            }
            _ => break,
        }
    }
    a
}

/// A process identification could not name takes its root's runtime: a vLLM V0 engine started
/// through multiprocessing runs `python -c "from multiprocessing.spawn import spawn_main; ..."`.
fn adopt(f: &ProcessFacts, w: &mut Workload, root: &Ancestor, kind: WorkloadKind) {
    w.kind = kind;
    w.evidence.push(Evidence {
        kind: EvidenceKind::Parent,
        showed: Said::new(
            "report-ev-descendant",
            vec![
                ("pid", root.pid.to_string().into()),
                ("command", short(&root.joined).into()),
                ("kind", kind.label().into()),
            ],
        ),
        source: format!(
            "/proc/{}/stat parent chain, /proc/{}/cmdline",
            f.pid, root.pid
        ),
    });
}

/// The marker of a child that Python's multiprocessing started with `spawn` (its command line is
/// `python -c "from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5,
/// pipe_handle=7)" --multiprocessing-fork`); a `fork` child keeps its parent's command line.
const SPAWN_MAIN: &str = "from multiprocessing.spawn import spawn_main";

fn is_mp_child(args: &[String], parent_args: &[String]) -> bool {
    args.iter().any(|a| a.starts_with(SPAWN_MAIN)) || (!args.is_empty() && args == parent_args)
}

/// The multiprocessing children of `parent` (whose command line is `parent_args`), in the order
/// they started (start time, then pid). Python's resource tracker, also a child, is not one.
fn mp_children(procs: &ProcReader, parent: u32, parent_args: &[String]) -> Vec<u32> {
    let mut kids: Vec<(u64, u32)> = procs
        .pids()
        .unwrap_or_default()
        .into_iter()
        .take(100_000)
        .filter_map(|p| {
            let st = procs.stat(p).ok()?;
            (st.ppid == parent && is_mp_child(&procs.args(p)?, parent_args))
                .then_some((st.start_time, p))
        })
        .collect();
    kids.sort_unstable();
    kids.into_iter().map(|(_, p)| p).collect()
}

/// A role for a process with no title and no rank variables, from its place among the
/// multiprocessing children under its root, as its runtime's `layout` reads that place.
fn mp_role(
    f: &ProcessFacts,
    layout: &dyn MpLayout,
    root: &Ancestor,
    root_args: &[String],
    procs: &ProcReader,
) -> Option<((RoleKind, String), String)> {
    let parent = procs.stat(f.pid).ok()?.ppid;
    let parent_args = procs.args(parent).unwrap_or_default();
    if !is_mp_child(&f.cmdline, &parent_args) {
        return None;
    }
    let place = if parent == root.pid {
        let forked = f.cmdline == root.args;
        if forked && layout.root_runs_engine(root_args) {
            let kids = mp_children(procs, parent, &parent_args);
            let index = kids.iter().position(|&p| p == f.pid)?;
            MpPlace::Worker {
                index,
                of: kids.len(),
                under_root: true,
            }
        } else {
            MpPlace::Engine {
                workers: mp_children(procs, f.pid, &f.cmdline).len(),
                forked,
            }
        }
    } else {
        let grand = procs.stat(parent).ok()?.ppid;
        if grand != root.pid || !is_mp_child(&parent_args, &root.args) {
            return None;
        }
        let kids = mp_children(procs, parent, &parent_args);
        let index = kids.iter().position(|&p| p == f.pid)?;
        MpPlace::Worker {
            index,
            of: kids.len(),
            under_root: false,
        }
    };
    let role = layout.role(place, root_args)?;
    let how = match place {
        MpPlace::Engine { workers, forked } => format!(
            "a multiprocessing child{} of the server with {workers} multiprocessing children of its own (/proc/*/stat parents, /proc/{}/cmdline)",
            if forked { " (a fork: the server's command line)" } else { "" },
            f.pid
        ),
        MpPlace::Worker { index, of, .. } => format!(
            "multiprocessing child {} of {of} that pid {parent} started, in start order (/proc/*/stat)",
            index + 1
        ),
    };
    Some((role, how))
}

/// `rank 3/8` from a launcher's variables.
fn rank_role(env: &[(String, String)]) -> Option<String> {
    let get = |k: &str| {
        env.iter()
            .find(|(n, _)| n == k)
            .and_then(|(_, v)| v.trim().parse::<u64>().ok())
    };
    let (rank, world) = (get("RANK")?, get("WORLD_SIZE")?);
    (rank < world).then(|| format!("rank {rank}/{world}"))
}

fn own_seen(f: &ProcessFacts) -> Seen<'_> {
    Seen {
        prog: "",
        comm: f.comm.as_deref().unwrap_or(""),
        args: &f.cmdline,
        joined: "",
        lower: "",
        mapped: &f.mapped_files,
    }
}

/// The process's title: its command line when set with setproctitle, else its name.
fn title(f: &ProcessFacts) -> String {
    match f.cmdline.as_slice() {
        [one] => one.clone(),
        _ => f.comm.clone().unwrap_or_default(),
    }
}

/// A command line cut for a sentence.
fn short(s: &str) -> String {
    const MAX: usize = 80;
    match s.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// A recorded /proc entry: stat with its parent, the command line, and an environment.
    fn proc_entry(root: &Path, pid: u32, ppid: u32, comm: &str, cmd: &str, env: &str) {
        let d = root.join(pid.to_string());
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("stat"),
            format!("{pid} ({comm}) S {ppid} 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 {pid} 1 2\n"),
        )
        .unwrap();
        std::fs::write(d.join("cmdline"), cmd.replace(' ', "\0") + "\0").unwrap();
        std::fs::write(d.join("environ"), env.replace(' ', "\0")).unwrap();
    }

    fn joined(root: &Path, pid: u32) -> Workload {
        let procs = ProcReader::new(root);
        crate::identify::identify_in(&procs.facts(pid), &procs)
    }

    /// LM Studio: the app (an AppImage here) runs the model in its `node` helper, the process
    /// nvidia-smi lists as `…/.lmstudio/.internal/utils/node` (lmstudio-bug-tracker#940).
    #[test]
    fn lm_studios_node_helper_is_its_engine() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        proc_entry(r, 600, 1, "lm-studio", "/tmp/.mount_LM-StuX1/lm-studio", "");
        proc_entry(
            r,
            601,
            600,
            "node",
            "/home/u/.lmstudio/.internal/utils/node",
            "",
        );
        let w = joined(r, 601);
        assert_eq!(w.kind, WorkloadKind::LmStudio);
        let m = w.member.unwrap();
        assert_eq!(
            (m.root_pid, m.role.as_str()),
            (Some(600), "engine (node helper)")
        );
    }

    /// llama.cpp over RPC: `rpc-server -p 50052` started apart from the llama-server whose
    /// `--rpc 127.0.0.1:50052` uses it (llama.cpp's tools/rpc README setup).
    #[test]
    fn an_rpc_server_is_a_device_of_the_llama_server_that_names_its_port() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        proc_entry(
            r,
            300,
            1,
            "llama-server",
            "/opt/llama.cpp/build/bin/llama-server -m /models/q.gguf -ngl 99 --rpc 192.168.88.10:50052,127.0.0.1:50052",
            "",
        );
        proc_entry(
            r,
            400,
            1,
            "rpc-server",
            "/opt/llama.cpp/build/bin/rpc-server -p 50052",
            "",
        );
        let procs = ProcReader::new(r);
        let mut f = procs.facts(400);
        f.listen_ports = vec![50052];
        let w = crate::identify::identify_in(&f, &procs);
        assert_eq!(w.kind, WorkloadKind::LlamaCpp);
        let m = w.member.clone().unwrap();
        assert_eq!((m.root_pid, m.role.as_str()), (Some(300), "rpc device"));
        assert!(m.evidence.contains("127.0.0.1:50052"), "{}", m.evidence);
        assert!(
            w.short_label().ends_with("· rpc device"),
            "{}",
            w.short_label()
        );
        // Listening on a port no local llama-server names: a device of a client out of sight.
        f.listen_ports = vec![50053];
        let m = crate::identify::identify_in(&f, &procs).member.unwrap();
        assert_eq!((m.root_pid, m.role.as_str()), (None, "rpc device"));
        assert!(m.evidence.contains("(50053)"), "{}", m.evidence);
    }

    /// The process trees vLLM V1 (TP 2), vLLM V0 (multiprocessing spawn), SGLang (TP 2), Ollama
    /// and torchrun build, with their real titles and command lines.
    #[test]
    fn members_of_each_runtime_get_their_root_and_role() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        // vLLM V1: API server → engine core → one worker per TP rank (titles replace argv).
        proc_entry(
            r,
            100,
            1,
            "vllm",
            "/usr/bin/python3 /usr/local/bin/vllm serve Qwen/Qwen2-7B --tensor-parallel-size 2",
            "",
        );
        proc_entry(r, 101, 100, "VLLM::EngineCor", "VLLM::EngineCore", "");
        // A title read from the kernel's name alone (15 bytes).
        proc_entry(
            r,
            103,
            100,
            "VLLM::EngineCor",
            "/usr/bin/python3 /usr/local/bin/vllm serve Qwen/Qwen2-7B",
            "",
        );
        proc_entry(r, 102, 101, "VLLM::Worker_TP", "VLLM::Worker_TP1", "");
        // vLLM V0: the engine through Python's multiprocessing, its command line names no runtime.
        proc_entry(
            r,
            200,
            1,
            "python3",
            "python3 -m vllm.entrypoints.openai.api_server --model /m",
            "",
        );
        proc_entry(r, 201, 200, "python3", "/usr/bin/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, pipe_handle=7) --multiprocessing-fork", "");
        // SGLang: the server and its schedulers.
        proc_entry(
            r,
            300,
            1,
            "python3",
            "python3 -m sglang.launch_server --model-path /m --tp-size 2",
            "",
        );
        proc_entry(r, 301, 300, "sglang::schedul", "sglang::scheduler_TP0", "");
        // Ollama: the runner under `ollama serve`.
        proc_entry(r, 400, 1, "ollama", "/usr/local/bin/ollama serve", "");
        proc_entry(
            r,
            401,
            400,
            "ollama",
            "/usr/local/bin/ollama runner --model /b --port 4",
            "",
        );
        // torchrun: one rank per GPU, told its rank in the environment.
        proc_entry(
            r,
            500,
            1,
            "torchrun",
            "/usr/bin/python3 /usr/local/bin/torchrun --nproc-per-node 8 train.py",
            "",
        );
        proc_entry(
            r,
            503,
            500,
            "python3",
            "/usr/bin/python3 -u train.py --lr 1e-4",
            "RANK=3 WORLD_SIZE=8 LOCAL_RANK=3 HF_TOKEN=hf_secret ",
        );
        // A process on its own: no membership.
        proc_entry(r, 600, 1, "python3", "python3 train.py", "");

        let member = |pid| joined(r, pid).member.map(|m| (m.root_pid, m.role));
        assert_eq!(member(101), Some((Some(100), "engine core".into())));
        // With TP 2 the engine core runs no model; each worker carries its share.
        let procs = ProcReader::new(r);
        let estimate_of = |pid: u32, title: &str| {
            let mut p = gpuledger_model::Process::new(pid);
            p.cmdline = Some(vec![title.to_string()]);
            let w = joined(r, pid);
            let ctx = crate::runtimes::ProcessContext::read(&p, w.kind, &procs, Some(80 << 30));
            RUNTIMES
                .for_kind(w.kind)
                .and_then(|r| r.recipe())
                .unwrap()
                .estimate(&ctx, &w)
        };
        let e = estimate_of(101, "VLLM::EngineCore").unwrap_err();
        assert!(e.contains("holds no model with 2 ranks"), "{e}");
        let e = estimate_of(102, "VLLM::Worker_TP1")
            .err()
            .unwrap_or_default();
        assert!(!e.contains("holds no model"), "{e}");
        assert_eq!(member(102), Some((Some(100), "worker TP1/2".into())));
        // The worker's title named no model: it serves its root's (`vllm serve MODEL`).
        assert_eq!(
            joined(r, 102).short_label(),
            "vLLM · Qwen2-7B · worker TP1/2"
        );
        assert_eq!(joined(r, 301).model.as_deref(), Some("/m"));
        assert_eq!(member(103), Some((Some(100), "engine core".into())));
        let v0 = joined(r, 201);
        assert_eq!(v0.kind, WorkloadKind::Vllm, "{v0:?}");
        assert_eq!(v0.member.as_ref().unwrap().root_pid, Some(200));
        assert!(v0
            .evidence
            .iter()
            .any(|e| e.showed.contains("a descendant of pid 200")));
        assert_eq!(member(301), Some((Some(300), "scheduler TP0/2".into())));
        assert_eq!(member(401), Some((Some(400), "runner".into())));
        assert_eq!(joined(r, 401).kind, WorkloadKind::OllamaRunner);
        assert_eq!(member(503), Some((Some(500), "rank 3/8".into())));
        let rank = joined(r, 503).member.unwrap();
        assert!(!rank.evidence.contains("hf_secret"), "{rank:?}");
        assert_eq!(member(600), None);
        // The roots themselves are no one's member.
        assert_eq!(member(100), None);
        assert_eq!(member(400), None);
    }

    /// A recorded /proc entry whose arguments may hold spaces (a `-c` program), started at
    /// `start` clock ticks after boot.
    fn proc_argv(root: &Path, pid: u32, ppid: u32, start: u64, argv: &[&str]) {
        proc_entry(root, pid, ppid, "python3", "x", "");
        let d = root.join(pid.to_string());
        std::fs::write(d.join("cmdline"), argv.join("\0") + "\0").unwrap();
        std::fs::write(
            d.join("stat"),
            format!("{pid} (python3) S {ppid} 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 {start} 1 2\n"),
        )
        .unwrap();
    }

    /// vLLM V0's trees (v0.6/v0.7): the API server spawns its engine (`MQLLMEngine`, which runs
    /// rank 0), the engine starts ranks 1..n-1 with fork (their command line is the engine's)
    /// or spawn (`vllm serve` sets VLLM_WORKER_MULTIPROC_METHOD=spawn); with
    /// `--disable-frontend-multiprocessing` the server itself is the engine and its workers are
    /// its forks. V1 before titles: the engine core runs no model, all n ranks are its children.
    /// A real V0 TP 2 log (vllm-project/vllm#12664) shows it: NCCL rank 0 on cudaDev 0 in the
    /// engine's pid, rank 1 on cudaDev 1 in `(VllmWorkerProcess pid=…)`, beside the frontend's
    /// "Waiting for output from MQLLMEngine".
    #[test]
    fn untitled_multiprocessing_children_of_vllm_take_their_rank_from_the_tree() {
        let spawn = |fd: u32| {
            format!("from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, pipe_handle={fd})")
        };
        let tracker = "from multiprocessing.resource_tracker import main;main(5)";
        struct Case {
            name: &'static str,
            server: &'static str,
            /// (pid, parent, spawned with this pipe handle, else a fork of the parent), in the
            /// order they started
            tree: &'static [(u32, u32, Option<u32>)],
            want: &'static [(u32, Option<&'static str>)],
        }
        let cases = [
            Case {
                name: "V0 TP2, python -m (engine spawned, worker forked)",
                server: "python3 -m vllm.entrypoints.openai.api_server --model /m --tensor-parallel-size 2",
                tree: &[(11, 10, Some(7)), (12, 11, None)],
                want: &[(11, Some("engine TP0/2")), (12, Some("worker TP1/2"))],
            },
            Case {
                // Pids wrapped: the start order, not the pid order, is the rank order.
                name: "V0 TP4, vllm serve (workers spawned, pids out of start order)",
                server: "/usr/bin/python3 /usr/local/bin/vllm serve /m -tp 4",
                tree: &[(11, 10, Some(7)), (14, 11, Some(9)), (12, 11, Some(10)), (13, 11, Some(11))],
                want: &[(11, Some("engine TP0/4")), (14, Some("worker TP1/4")), (12, Some("worker TP2/4")), (13, Some("worker TP3/4"))],
            },
            Case {
                name: "V0 TP1: the engine alone",
                server: "python3 -m vllm.entrypoints.openai.api_server --model /m",
                tree: &[(11, 10, Some(7))],
                want: &[(11, Some("engine"))],
            },
            Case {
                name: "V0 TP2 --disable-frontend-multiprocessing: the server's fork",
                server: "python3 -m vllm.entrypoints.openai.api_server --model /m --tensor-parallel-size 2 --disable-frontend-multiprocessing",
                tree: &[(11, 10, None)],
                want: &[(11, Some("worker TP1/2"))],
            },
            Case {
                name: "V1 TP2 before titles: the engine core and two workers",
                server: "/usr/bin/python3 /usr/local/bin/vllm serve /m --tensor-parallel-size 2",
                tree: &[(11, 10, Some(7)), (12, 11, Some(9)), (13, 11, Some(10))],
                want: &[(11, Some("engine core")), (12, Some("worker TP0/2")), (13, Some("worker TP1/2"))],
            },
            Case {
                // The underscored spelling vLLM accepts (public command lines use it:
                // `--enforce_eager true`, vllm-project/vllm#22303): the roles read TP 2 as the
                // recipe does.
                name: "V0 TP2, underscored --tensor_parallel_size",
                server: "python3 -m vllm.entrypoints.openai.api_server --model /m --tensor_parallel_size 2",
                tree: &[(11, 10, Some(7)), (12, 11, None)],
                want: &[(11, Some("engine TP0/2")), (12, Some("worker TP1/2"))],
            },
            Case {
                name: "V0 TP2, the model after the flags, --tensor-parallel-size=2",
                server: "/usr/bin/python3 /usr/local/bin/vllm serve --tensor-parallel-size=2 --port 8000 /m",
                tree: &[(11, 10, Some(7)), (12, 11, None)],
                want: &[(11, Some("engine TP0/2")), (12, Some("worker TP1/2"))],
            },
            Case {
                // vLLM 0.7 with VLLM_USE_V1=1 (vllm-project/vllm#15469 runs 0.7.2 so): the
                // engine core, untitled, is a fork of the server under
                // VLLM_WORKER_MULTIPROC_METHOD=fork, and runs the model itself.
                name: "V1 TP1, the engine core forked and untitled",
                server: "/usr/bin/python3 /usr/local/bin/vllm serve /m",
                tree: &[(11, 10, None)],
                want: &[(11, Some("engine core"))],
            },
            Case {
                name: "V1 TP2, engine core and workers forked and untitled",
                server: "/usr/bin/python3 /usr/local/bin/vllm serve /m -tp 2",
                tree: &[(11, 10, None), (12, 11, None), (13, 11, None)],
                want: &[(11, Some("engine core")), (12, Some("worker TP0/2")), (13, Some("worker TP1/2"))],
            },
            Case {
                name: "TP4 with two workers: not a layout vLLM makes",
                server: "python3 -m vllm.entrypoints.openai.api_server --model /m --tensor-parallel-size 4",
                tree: &[(11, 10, Some(7)), (12, 11, None), (13, 11, None)],
                want: &[(11, None), (12, None)],
            },
        ];
        for c in cases {
            let t = tempfile::tempdir().unwrap();
            let r = t.path();
            let server: Vec<&str> = c.server.split(' ').collect();
            proc_argv(r, 10, 1, 100, &server);
            // Python's resource tracker, the server's child too: never a rank.
            proc_argv(r, 19, 10, 101, &["/usr/bin/python3", "-c", tracker]);
            let mut argv: std::collections::HashMap<u32, Vec<String>> = Default::default();
            argv.insert(10, server.iter().map(|a| a.to_string()).collect());
            for (start, &(pid, parent, fd)) in (200..).zip(c.tree) {
                let a: Vec<String> = match fd {
                    Some(fd) => [
                        "/usr/bin/python3".into(),
                        "-c".into(),
                        spawn(fd),
                        "--multiprocessing-fork".into(),
                    ]
                    .into(),
                    None => argv[&parent].clone(),
                };
                let refs: Vec<&str> = a.iter().map(String::as_str).collect();
                proc_argv(r, pid, parent, start, &refs);
                argv.insert(pid, a);
            }
            for &(pid, want) in c.want {
                let w = joined(r, pid);
                assert_eq!(w.kind, WorkloadKind::Vllm, "{}: {w:?}", c.name);
                let m = w.member.unwrap();
                assert_eq!(m.root_pid, Some(10), "{}", c.name);
                assert_eq!(
                    m.role,
                    want.unwrap_or("child"),
                    "{}: pid {pid}: {}",
                    c.name,
                    m.evidence
                );
            }
        }
    }

    #[test]
    fn ranks_need_both_variables_and_a_rank_inside_the_world() {
        let env = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(
            rank_role(&env(&[("RANK", "3"), ("WORLD_SIZE", "8")])).as_deref(),
            Some("rank 3/8")
        );
        assert_eq!(rank_role(&env(&[("RANK", "3")])), None);
        assert_eq!(rank_role(&env(&[("RANK", "8"), ("WORLD_SIZE", "8")])), None);
        assert_eq!(rank_role(&env(&[("RANK", "x"), ("WORLD_SIZE", "8")])), None);
    }
}
