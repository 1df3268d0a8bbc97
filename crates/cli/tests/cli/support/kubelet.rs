//! A kubelet for the shared node: the pod-resources v1 server of `fixtures/kubelet/` (Python
//! grpcio, from the published proto) on a unix socket, and the container log links the
//! kubelet makes, naming the node's pods (`node.rs`).

use super::node::{NODE_G0, NODE_G1, PODS};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Namespace, pod name and container names (in the order of `PODS`' processes).
pub const POD_NAMES: [(&str, &str, &[&str]); 3] = [
    ("team-a", "chat-7d9f8b6c5d-x2k4p", &["vllm"]),
    ("team-b", "notebook-alice-0", &["jupyter"]),
    ("team-b", "embedder-0", &["tei", "tokenizer"]),
];

/// A pod with GPU1 to itself and no process on it: namespace, name, container.
pub const IDLE_POD: (&str, &str, &str) = ("team-c", "render-0", "blender");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A Python with grpcio (`.ci/setup-grpc.sh`); `None` after saying why, a failure under CI.
pub fn grpc_python() -> Option<PathBuf> {
    let candidates: Vec<PathBuf> = std::env::var_os("GPULEDGER_GRPC_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([root().join("target/grpc-venv/bin/python"), "python3".into()])
        .collect();
    let found = candidates.iter().find(|py| {
        Command::new(py)
            .args(["-c", "import grpc, grpc_tools"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if found.is_none() {
        let why = format!(
            "no Python with grpcio and grpcio-tools (tried {candidates:?}); run .ci/setup-grpc.sh"
        );
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
        eprintln!("SKIPPED: {why}");
    }
    found.cloned()
}

pub struct Kubelet {
    child: Child,
    dir: tempfile::TempDir,
}

impl Drop for Kubelet {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Kubelet {
    /// The node's kubelet: each container assigned one time-slicing replica of GPU0 but the
    /// second container of the third pod, which has no GPU; and [`IDLE_POD`] with GPU1.
    pub fn start(py: &Path) -> Kubelet {
        Kubelet::start_without(py, None)
    }

    /// The same, with pod `gone` (an index into `PODS`) deleted: the kubelet neither lists it
    /// nor keeps its log links, while its processes still hold GPU memory.
    pub fn start_without(py: &Path, gone: Option<usize>) -> Kubelet {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("containers");
        std::fs::create_dir(&logs).unwrap();
        let mut pods = Vec::new();
        let mut replica = 0;
        for (i, ((uid, _, procs), (ns, pod, names))) in PODS.iter().zip(POD_NAMES).enumerate() {
            if gone == Some(i) {
                continue;
            }
            let mut containers = Vec::new();
            for ((_, ctr, _), name) in procs.iter().zip(names.iter()) {
                let target = format!("/var/log/pods/{ns}_{pod}_{uid}/{name}/0.log");
                let link = logs.join(format!("{pod}_{ns}_{name}-{ctr}.log"));
                std::os::unix::fs::symlink(target, link).unwrap();
                let devices = if *name == "tokenizer" {
                    serde_json::json!([])
                } else {
                    replica += 1;
                    serde_json::json!([{"resource_name": "nvidia.com/gpu",
                        "device_ids": [format!("{NODE_G0}::{}", replica - 1)]}])
                };
                containers.push(serde_json::json!({"name": name, "devices": devices}));
            }
            pods.push(serde_json::json!({"name": pod, "namespace": ns, "containers": containers}));
        }
        // An idle pod given GPU1 whole (no process of it runs yet).
        pods.push(serde_json::json!({"name": IDLE_POD.1, "namespace": IDLE_POD.0, "containers": [
            {"name": IDLE_POD.2, "devices": [{"resource_name": "nvidia.com/gpu", "device_ids": [NODE_G1]}]}]}));
        let mut ids: Vec<String> = (0..4).map(|n| format!("{NODE_G0}::{n}")).collect();
        ids.push(NODE_G1.into());
        let node = serde_json::json!({"pods": pods, "allocatable": [
            {"resource_name": "nvidia.com/gpu", "device_ids": ids}]});
        let node_file = dir.path().join("node.json");
        std::fs::write(&node_file, node.to_string()).unwrap();
        let mut child = Command::new(py)
            .arg(root().join("fixtures/kubelet/podresources_server.py"))
            .arg("normal")
            .arg(dir.path().join("kubelet.sock"))
            .arg(&node_file)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(
            line.trim(),
            "ready",
            "the pod-resources server did not start"
        );
        Kubelet { child, dir }
    }

    /// The global options that point gpuledger at this kubelet.
    pub fn args(&self) -> Vec<String> {
        let p = |s: &str| self.dir.path().join(s).to_string_lossy().into_owned();
        vec![
            "--kubelet-socket".into(),
            p("kubelet.sock"),
            "--container-logs".into(),
            p("containers"),
        ]
    }
}
