//! A trial runtime, defined here and registered the one way a runtime is (a [`Registry`] line):
//! identification names it, counts it as AI, asks a server for its port, reads its model, and
//! grouping joins its workers to it, with no other code knowing of it. The trial borrows an
//! existing kind (`sglang`): a test cannot add a variant to the model's kind list, whose names are
//! a stable JSON format; nothing but the registration says what the kind is.

use gpuledger_model::{Confidence, EvidenceKind, RoleKind, WorkloadKind};
use gpuledger_sources::procfs::{ProcReader, ProcessFacts};
use gpuledger_workloads::group::join_with;
use gpuledger_workloads::identify::{identify, identify_with};
use gpuledger_workloads::runtimes::{Library, MpLayout, MpPlace, Registry, Runtime, Seen};
use std::path::Path;

const KIND: WorkloadKind = WorkloadKind::Sglang;

struct Trial;

static TRIAL_LIB: Library = Library {
    what: "trial engine library",
    prefixes: &["libtrial"],
};

/// The one registration line.
static TRIAL: Registry = Registry(&[&Trial]);

impl Runtime for Trial {
    fn kinds(&self) -> &'static [WorkloadKind] {
        &[KIND]
    }

    fn named(&self, seen: &Seen) -> Option<WorkloadKind> {
        (seen.prog == "trial-serve" || seen.comm.starts_with("trial::")).then_some(KIND)
    }

    /// A title (`trial::worker_1`) names a member, never a root.
    fn names_argv(&self, argv: &[String]) -> bool {
        argv.first().is_some_and(|a| !a.contains("::"))
    }

    fn is_server(&self, _kind: WorkloadKind) -> bool {
        true
    }

    fn library(&self, _kind: WorkloadKind) -> Option<&'static Library> {
        Some(&TRIAL_LIB)
    }

    fn model_in_args(&self, args: &[String]) -> Option<String> {
        let i = args.iter().position(|a| a == "--weights")?;
        args.get(i + 1).cloned()
    }

    fn role(&self, own: &Seen, _root_args: &[String]) -> Option<(RoleKind, String)> {
        let n = own.comm.strip_prefix("trial::worker_")?;
        Some((RoleKind::Worker, format!("worker {n}")))
    }

    fn multiprocessing(&self) -> Option<&'static dyn MpLayout> {
        Some(&Trial)
    }
}

impl MpLayout for Trial {
    fn root_runs_engine(&self, _root_args: &[String]) -> bool {
        false
    }

    fn role(&self, place: MpPlace, _root_args: &[String]) -> Option<(RoleKind, String)> {
        matches!(place, MpPlace::Engine { .. }).then(|| (RoleKind::Engine, "engine".into()))
    }
}

fn server_facts(ports: &[u16]) -> ProcessFacts {
    ProcessFacts {
        pid: 100,
        comm: Some("trial-serve".into()),
        exe: Some("/opt/trial/trial-serve".into()),
        cmdline: ["/opt/trial/trial-serve", "--weights", "/m/t.safetensors"]
            .map(String::from)
            .to_vec(),
        mapped_files: vec!["/opt/trial/libtrial.so".into()],
        listen_ports: ports.to_vec(),
        ..Default::default()
    }
}

#[test]
fn a_registered_runtime_is_identified_as_an_ai_server() {
    let w = identify_with(&TRIAL, &server_facts(&[]));
    assert_eq!(w.kind, KIND);
    assert!(TRIAL.is_ai(w.kind));
    // Named by its program and supported by its own library: two kinds of evidence.
    assert_eq!(w.confidence, Confidence::High, "{w:?}");
    assert!(w
        .evidence
        .iter()
        .any(|e| e.kind == EvidenceKind::Library && e.showed.starts_with("trial engine library")));
    // Its model, as its own reader finds it on the command line.
    assert_eq!(w.model.as_deref(), Some("/m/t.safetensors"));
    // A server that listens nowhere is said so; one that listens is not.
    assert!(
        w.missing.iter().any(|m| m.starts_with("listening port")),
        "{w:?}"
    );
    let listening = identify_with(&TRIAL, &server_facts(&[9000]));
    assert!(!listening
        .missing
        .iter()
        .any(|m| m.starts_with("listening port")));

    // Unregistered, the same process is nothing known: the registration did all of it.
    let plain = identify(&server_facts(&[]));
    assert_eq!(plain.kind, WorkloadKind::Unknown);
    assert!(!gpuledger_workloads::runtimes::is_ai(plain.kind));
    assert_eq!(plain.model, None);
}

fn proc_entry(root: &Path, pid: u32, ppid: u32, comm: &str, cmd: &str) {
    let d = root.join(pid.to_string());
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("stat"),
        format!("{pid} ({comm}) S {ppid} 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 {pid} 1 2\n"),
    )
    .unwrap();
    std::fs::write(d.join("cmdline"), cmd).unwrap();
}

#[test]
fn a_registered_runtime_groups_its_workers() {
    let root = std::env::temp_dir().join(format!("gpuledger-trial-{}", std::process::id()));
    let spawn = "python3\0-c\0from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, pipe_handle=7)\0--multiprocessing-fork\0";
    proc_entry(
        &root,
        100,
        1,
        "trial-serve",
        "/opt/trial/trial-serve\0--weights\0/m/t.safetensors\0",
    );
    proc_entry(&root, 101, 100, "trial::worker_1", "trial::worker_1\0");
    proc_entry(&root, 102, 100, "python3", spawn);
    let procs = ProcReader::new(&root);

    // A worker whose title replaced its command line: its role from its title, the model from
    // its root's command line.
    let worker = ProcessFacts {
        pid: 101,
        comm: Some("trial::worker_1".into()),
        exe: Some("/usr/bin/python3".into()),
        cmdline: vec!["trial::worker_1".into()],
        ..Default::default()
    };
    let mut w = identify_with(&TRIAL, &worker);
    assert_eq!(w.kind, KIND);
    join_with(&TRIAL, &worker, &mut w, &procs);
    let m = w.member.clone().expect("a member");
    assert_eq!(m.root_pid, Some(100));
    assert_eq!(
        (m.role_kind, m.role.as_str()),
        (RoleKind::Worker, "worker 1")
    );
    assert_eq!(w.model.as_deref(), Some("/m/t.safetensors"));

    // An untitled multiprocessing child takes the root's runtime and the role its layout gives.
    let child = ProcessFacts {
        pid: 102,
        comm: Some("python3".into()),
        exe: Some("/usr/bin/python3".into()),
        cmdline: spawn
            .split('\0')
            .filter(|a| !a.is_empty())
            .map(String::from)
            .collect(),
        ..Default::default()
    };
    let mut c = identify_with(&TRIAL, &child);
    join_with(&TRIAL, &child, &mut c, &procs);
    assert_eq!(c.kind, KIND);
    let m = c.member.expect("a member");
    assert_eq!((m.root_pid, m.role_kind), (Some(100), RoleKind::Engine));

    // Under the real registry nothing names the root: no workload to join.
    let mut plain = identify(&worker);
    gpuledger_workloads::group::join(&worker, &mut plain, &procs);
    assert_eq!(plain.member, None);
    std::fs::remove_dir_all(&root).unwrap();
}
