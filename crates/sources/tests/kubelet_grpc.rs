//! The kubelet pod-resources client against a real gRPC server (Python grpcio, generated from
//! the published proto in `fixtures/kubelet/`) over a real unix socket: a normal answer, then
//! a socket that refuses, hangs, answers garbage or too much, and a gRPC error status.
//! Needs `grpcio` and `grpcio-tools` (`.ci/setup-grpc.sh`); skips with the reason without them,
//! and fails instead under CI.
#![cfg(unix)]

use gpuledger_model::{Owner, OwnerKind, Process, Snapshot, Usage};
use gpuledger_sources::owner::kube::{
    container_log_names, name_pods, query, DeviceNodes, KubeNames, Listing,
};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SHARED: &str = "GPU-5c9e2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c";
const WHOLE: &str = "GPU-9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
const MAX: usize = 16 << 20;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A Python with grpcio and grpcio-tools: `GPULEDGER_GRPC_PYTHON`, the venv
/// `.ci/setup-grpc.sh` makes, or `python3`; `Err` says why none is usable.
fn python() -> Result<PathBuf, String> {
    let candidates: Vec<PathBuf> = std::env::var_os("GPULEDGER_GRPC_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([root().join("target/grpc-venv/bin/python"), "python3".into()])
        .collect();
    for py in &candidates {
        let ok = Command::new(py)
            .args(["-c", "import grpc, grpc_tools"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Ok(py.clone());
        }
    }
    Err(format!(
        "no Python with grpcio and grpcio-tools (tried {candidates:?}); run .ci/setup-grpc.sh"
    ))
}

/// The Python, or `None` after printing why (a failure under CI, which installs it).
fn python_or_skip() -> Option<PathBuf> {
    match python() {
        Ok(p) => Some(p),
        Err(why) if std::env::var_os("CI").is_some() => panic!("{why}"),
        Err(why) => {
            eprintln!("SKIPPED: {why}");
            None
        }
    }
}

struct Server {
    child: Child,
    _dir: tempfile::TempDir,
    socket: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(py: &Path, mode: &str) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("kubelet.sock");
    let mut child = Command::new(py)
        .arg(root().join("fixtures/kubelet/podresources_server.py"))
        .args([mode, socket.to_str().unwrap()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "ready", "the {mode} server did not start");
    Server {
        child,
        _dir: dir,
        socket,
    }
}

fn pod_process(pid: u32, uid: &str, ctr: &str, gpu: &str, mem: u64) -> Process {
    let cgroup = format!(
        "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{}.slice/cri-containerd-{ctr}.scope\n",
        uid.replace('-', "_")
    );
    let o: Owner = gpuledger_sources::owner::owner_from_cgroup(&cgroup).unwrap();
    assert_eq!(o.kind, OwnerKind::Pod);
    let mut p = Process::new(pid);
    p.owner = Some(o);
    let mut u = Usage::new(gpu, "nvml");
    u.memory_bytes = Some(mem);
    p.usage.push(u);
    p
}

fn ctr(n: u8) -> String {
    format!("{n:x}").repeat(64)
}

fn uid(n: u8) -> String {
    format!("{n}{n}{n}{n}{n}{n}{n}{n}-0000-4000-8000-00000000000{n}")
}

/// Three pods time-sliced on one GPU, one pod with a GPU of its own.
fn node() -> Snapshot {
    let mut s = Snapshot::new("2026-12-01T00:00:00Z".into(), Default::default());
    s.processes = vec![
        pod_process(11, &uid(1), &ctr(1), SHARED, 6 << 30),
        pod_process(12, &uid(2), &ctr(2), SHARED, 3 << 30),
        pod_process(13, &uid(3), &ctr(3), SHARED, 1 << 30),
        pod_process(14, &uid(4), &ctr(4), WHOLE, 20 << 30),
    ];
    s
}

fn listing(py: &Path) -> Listing {
    let server = serve(py, "normal");
    query(&server.socket, Duration::from_secs(2), MAX).unwrap()
}

#[test]
fn lists_pods_containers_and_their_devices() {
    let Some(py) = python_or_skip() else { return };
    let l = listing(&py);
    let names: Vec<(&str, &str)> = l
        .pods
        .iter()
        .map(|p| (p.namespace.as_str(), p.name.as_str()))
        .collect();
    assert_eq!(names.len(), 5);
    assert!(names.contains(&("research", "trainer-0")));
    let chat = &l.pods[0];
    assert_eq!(chat.containers[0].name, "vllm");
    assert_eq!(
        chat.containers[0].devices[0].device_ids,
        vec![format!("{SHARED}::0")]
    );
    assert!(chat.containers[1].devices.is_empty());
    let alloc = l.allocatable.as_ref().unwrap();
    assert_eq!(alloc[0].resource_name, "nvidia.com/gpu");
    assert_eq!(alloc[0].device_ids.len(), 5);
}

#[test]
fn log_links_name_each_pod_on_a_shared_gpu_and_the_kubelet_adds_its_devices() {
    let Some(py) = python_or_skip() else { return };
    let l = listing(&py);
    let logs = tempfile::tempdir().unwrap();
    for (pod, ns, c, n) in [
        ("llm-chat-7d9f8b6c5d-x2k4p", "team-a", "vllm", 1),
        ("notebook-alice-0", "team-b", "jupyter", 2),
        ("embedder-5f6b9c8d7-qw9zt", "team-b", "tei", 3),
    ] {
        // As the kubelet makes them: a link into /var/log/pods/<ns>_<pod>_<uid>/<container>/.
        let target = format!("/var/log/pods/{ns}_{pod}_{}/{c}/0.log", uid(n));
        let link = logs.path().join(format!("{pod}_{ns}_{c}-{}.log", ctr(n)));
        std::os::unix::fs::symlink(target, link).unwrap();
    }
    let links = container_log_names(logs.path()).unwrap();
    let mut s = node();
    let (named, unnamed) = name_pods(&mut s, Ok(&l), Ok(&links), &DeviceNodes::default());
    assert_eq!((named, unnamed), (4, 0));
    let o = |i: usize| s.processes[i].owner.clone().unwrap();
    assert_eq!(o(0).label, "team-a/llm-chat-7d9f8b6c5d-x2k4p/vllm");
    assert_eq!(
        o(0).assigned_devices,
        vec![format!("nvidia.com/gpu={SHARED}::0")]
    );
    assert_eq!(o(1).label, "team-b/notebook-alice-0/jupyter");
    assert_eq!(o(2).namespace.as_deref(), Some("team-b"));
    // No link for the trainer: its GPU is its own, so the devices name it.
    assert_eq!(o(3).label, "research/trainer-0/pytorch");
    assert!(o(3).names_unavailable_reason.is_none());
    let g = gpuledger_model::group_memory(&s, gpuledger_model::GroupBy::Namespace);
    assert!(g.notes.is_empty(), "{:?}", g.notes);
}

#[test]
fn without_log_links_a_shared_gpu_keeps_its_pods_by_uid_and_says_why() {
    let Some(py) = python_or_skip() else { return };
    let l = listing(&py);
    let mut s = node();
    let (named, unnamed) = name_pods(
        &mut s,
        Ok(&l),
        Err("/nonexistent: not found"),
        &DeviceNodes::default(),
    );
    assert_eq!((named, unnamed), (1, 3));
    let o = s.processes[0].owner.clone().unwrap();
    assert!(o.label.starts_with("pod 11111111"), "{}", o.label);
    let why = o.names_unavailable_reason.unwrap();
    assert!(why.contains("shared GPU"), "{why}");
    assert_eq!(
        s.processes[3].owner.as_ref().unwrap().label,
        "research/trainer-0/pytorch"
    );
}

/// `query` on `socket`, its error and how long it took.
fn fails(socket: &Path, deadline: Duration) -> (String, Duration) {
    let t = Instant::now();
    let e = query(socket, deadline, MAX).unwrap_err();
    (e.to_string(), t.elapsed())
}

#[test]
fn an_absent_or_refusing_socket_is_said_in_words_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (e, took) = fails(&dir.path().join("none.sock"), Duration::from_secs(2));
    assert!(e.contains("no socket at"), "{e}");
    assert!(took < Duration::from_millis(500));
    // A socket file nobody listens on any more (a stopped kubelet).
    let path = dir.path().join("stale.sock");
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    let (e, took) = fails(&path, Duration::from_secs(2));
    assert!(e.contains("connection refused"), "{e}");
    assert!(took < Duration::from_millis(500));
}

#[test]
fn a_hanging_server_costs_the_deadline_and_no_more() {
    let Some(py) = python_or_skip() else { return };
    let server = serve(&py, "hang");
    let (e, took) = fails(&server.socket, Duration::from_millis(400));
    assert!(e.contains("no answer within 400 ms"), "{e}");
    assert!(took >= Duration::from_millis(390), "{took:?}");
    assert!(took < Duration::from_millis(1_200), "{took:?}");
}

#[test]
fn garbage_is_not_a_grpc_answer() {
    let Some(py) = python_or_skip() else { return };
    let server = serve(&py, "garbage");
    let (e, took) = fails(&server.socket, Duration::from_secs(2));
    assert!(
        e.contains("not a gRPC answer: the server did not start with HTTP/2 SETTINGS"),
        "{e}"
    );
    assert!(took < Duration::from_secs(1), "{took:?}");
}

#[test]
fn an_oversized_answer_is_refused_before_it_is_read_whole() {
    let Some(py) = python_or_skip() else { return };
    let server = serve(&py, "oversized");
    let (e, _) = fails(&server.socket, Duration::from_secs(5));
    assert!(e.contains("over the 16777216-byte limit"), "{e}");
}

#[test]
fn a_grpc_error_status_is_reported_with_its_message() {
    let Some(py) = python_or_skip() else { return };
    let server = serve(&py, "unimplemented");
    let (e, _) = fails(&server.socket, Duration::from_secs(2));
    assert!(e.contains("gRPC status 12 (unimplemented)"), "{e}");
    assert!(e.contains("List is off on this kubelet"), "{e}");
}

/// The kubelet's words never start a line of their own in NOTES or SOURCES: a newline in its
/// gRPC message (sent percent-encoded by grpcio) comes out escaped, like ESC and CR.
#[test]
fn a_newline_from_the_kubelet_forges_no_line() {
    let Some(py) = python_or_skip() else { return };
    let server = serve(&py, "forged-lines");
    let (e, _) = fails(&server.socket, Duration::from_secs(2));
    assert!(e.contains("gRPC status 7 (permission denied)"), "{e}");
    assert!(!e.contains(['\n', '\r', '\u{1b}']), "{e:?}");
    assert!(e.contains("denied\\u000akubelet: 110 pods listed"), "{e}");
    let mut k = KubeNames::new(server.socket.clone(), "/nonexistent".into());
    let mut s = node();
    k.apply(&mut s);
    let status = s.sources.iter().find(|x| x.name == "kubelet").unwrap();
    assert!(!status.detail.contains('\n'), "{:?}", status.detail);
    // Each pod's reason (what the snapshot's NOTES quote) as well.
    for p in &s.processes {
        let why = p
            .owner
            .as_ref()
            .unwrap()
            .names_unavailable_reason
            .as_ref()
            .unwrap();
        assert!(
            why.contains("denied\\u000a") && !why.contains('\n'),
            "{why:?}"
        );
    }
}

#[test]
fn a_hanging_kubelet_costs_one_round_its_deadline_then_is_not_asked_again_at_once() {
    let Some(py) = python_or_skip() else { return };
    let server = serve(&py, "hang");
    let mut k = KubeNames::new(server.socket.clone(), "/nonexistent".into());
    let mut s = node();
    let t = Instant::now();
    k.apply(&mut s);
    let first = t.elapsed();
    assert!(
        first >= Duration::from_millis(1_900) && first < Duration::from_secs(3),
        "{first:?}"
    );
    let status = s.sources.iter().find(|x| x.name == "kubelet").unwrap();
    assert!(
        status.detail.contains("no answer within 2000 ms"),
        "{}",
        status.detail
    );
    let why = s.processes[0]
        .owner
        .as_ref()
        .unwrap()
        .names_unavailable_reason
        .clone();
    assert!(why.unwrap().contains("no answer within 2000 ms"));
    // The next rounds reuse the failure (and its reason) instead of waiting again.
    let mut s = node();
    let t = Instant::now();
    k.apply(&mut s);
    assert!(
        t.elapsed() < Duration::from_millis(200),
        "{:?}",
        t.elapsed()
    );
    assert!(s.sources.iter().any(|x| x.name == "kubelet"));
}
