//! Pod names, namespaces, container names and assigned devices for the pods the cgroups name.
//!
//! **The join.** A process's cgroup gives its pod UID and container id. The kubelet's
//! pod-resources API (`v1.PodResourcesLister/List`) gives, per pod, its name and namespace and,
//! per container, its name and the devices it was assigned, but neither the pod UID nor the
//! container id. So the two meet through a third, exact source when it is there, and through
//! the devices when not:
//! 1. the kubelet's container log links, `/var/log/containers/<pod>_<namespace>_<container>-<id>.log`
//!    (kubelet `kuberuntime` `logSymlink`, made for every CRI runtime), each pointing into
//!    `/var/log/pods/<namespace>_<pod>_<uid>/<container>/`: container id → pod, namespace,
//!    container name, checked against the cgroup's UID. Pod, namespace and container names are
//!    DNS labels or subdomains, without `_`, so the name splits unambiguously. Then
//!    pod-resources adds the container's devices by (namespace, pod, container name).
//! 2. without those links: the GPUs the process holds memory on (NVML's UUIDs) against the
//!    device ids pod-resources lists (NVIDIA's device plugin names a GPU by its UUID or, with
//!    MIG on, by its MIG devices' UUIDs (from NVML), a time-slicing replica `<UUID>::<n>`;
//!    GKE's by its device node, `nvidia<N>[/gi<g>][/vgpu<n>]`, matched through the driver's
//!    `/proc/driver/nvidia/gpus`). Taken only when exactly one
//!    listed pod was assigned those GPUs and exactly one pod UID on the node uses them (the MPS
//!    daemon's own pod, which holds memory on every GPU it serves, is no user); on a GPU shared
//!    by several pods this cannot tell them apart, and says so.
//!
//! Asked only when some GPU process is in a pod, at most once per [`REFRESH`] unless a pod not
//! yet named appears, and always within [`DEADLINE`].

use super::h2::{CallError, Conn};
use super::proto::{self, Devices, Pod};
use crate::procfs::nvidia_gpus::{driver_gpus, minor_of, DriverGpu};
use gpuledger_lang::Said;
use gpuledger_model::owner::device_id_names_gpu;
use gpuledger_model::{
    redact_text, DeviceAssignment, OwnerKind, Snapshot, SourceState, SourceStatus,
};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One connection, both calls, connect to last byte.
pub const DEADLINE: Duration = Duration::from_secs(2);
/// The largest answer accepted (a node of 110 pods answers a few tens of kilobytes).
pub const MAX_MESSAGE: usize = 16 << 20;
/// How long a listing is reused while every pod it must name is in it.
pub const REFRESH: Duration = Duration::from_secs(30);
/// The least time between two questions, even when a new pod appears or the last one failed;
/// doubled after each failure in a row up to [`MAX_GAP`], so that a kubelet that hangs costs a
/// round its [`DEADLINE`] rarely, not every round (docs/DESIGN.md concept 8).
const MIN_GAP: Duration = Duration::from_secs(5);
const MAX_GAP: Duration = Duration::from_secs(300);
/// Log links read per round at most.
const MAX_LOG_LINKS: usize = 100_000;

/// What the kubelet said: its pods, and the devices it can hand out (`None` with the reason
/// when `GetAllocatableResources` failed: older kubelets lack it).
#[derive(Debug, Clone)]
pub struct Listing {
    pub pods: Vec<Pod>,
    pub allocatable: Result<Vec<Devices>, String>,
}

/// A connection's failure said in the catalogue's words, naming the socket.
fn connect_said(key: &'static str, path: &str) -> Said {
    Said::new(key, vec![("path", path.into())])
}

/// Both calls on one connection within `deadline`.
pub fn query(socket: &Path, deadline: Duration, max_message: usize) -> Result<Listing, Said> {
    let path = socket.display().to_string();
    let api_error = |e: String| {
        let args = vec![("path", path.as_str().into()), ("error", e.into())];
        Said::new("report-kubelet-api-error", args)
    };
    let mut c = Conn::open(socket, deadline, max_message).map_err(|e| match e {
        // The OS's answer in the catalogue's words; the others are the protocol's own.
        CallError::Absent => connect_said("report-kubelet-no-socket", &path),
        CallError::Refused => connect_said("report-kubelet-refused", &path),
        CallError::Denied => connect_said("report-kubelet-denied", &path),
        // The path is in the OS's words already.
        CallError::Connect(w) => {
            Said::new("report-kubelet-connect-failed", vec![("error", w.into())])
        }
        e => api_error(e.to_string()),
    })?;
    let list = c
        .call("/v1.PodResourcesLister/List", &[])
        .map_err(|e| api_error(e.to_string()))?;
    let pods = proto::list_response(&list).map_err(|e| api_error(format!("List: {e}")))?;
    let allocatable = c
        .call("/v1.PodResourcesLister/GetAllocatableResources", &[])
        .map_err(|e| e.to_string())
        .and_then(|b| proto::allocatable_response(&b).map_err(|e| e.to_string()));
    Ok(Listing { pods, allocatable })
}

/// A container as its log link names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogName {
    pub namespace: String,
    pub pod: String,
    pub container: String,
    /// From the link's target (`/var/log/pods/<ns>_<pod>_<uid>/…`), when readable.
    pub pod_uid: Option<String>,
}

/// Container id → names, from the links in `dir`.
pub fn container_log_names(dir: &Path) -> Result<HashMap<String, LogName>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out = HashMap::new();
    for entry in entries.take(MAX_LOG_LINKS).flatten() {
        let name = entry.file_name();
        let Some((id, mut n)) = name.to_str().and_then(parse_log_name) else {
            continue;
        };
        n.pod_uid = std::fs::read_link(entry.path())
            .ok()
            .and_then(|t| uid_from_pod_log_dir(&t, &n));
        out.insert(id, n);
    }
    Ok(out)
}

/// `<pod>_<namespace>_<container>-<64 hex>.log` → (id, names).
pub fn parse_log_name(file: &str) -> Option<(String, LogName)> {
    let stem = file.strip_suffix(".log")?;
    let mut parts = stem.splitn(3, '_');
    let (pod, namespace, rest) = (parts.next()?, parts.next()?, parts.next()?);
    let (container, id) = rest.rsplit_once('-')?;
    let ok = |s: &str| !s.is_empty() && !s.contains('_');
    if !(ok(pod) && ok(namespace) && ok(container))
        || id.len() != 64
        || !id.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return None;
    }
    let n = LogName {
        namespace: namespace.into(),
        pod: pod.into(),
        container: container.into(),
        pod_uid: None,
    };
    Some((id.to_ascii_lowercase(), n))
}

/// The UID in a link target `/var/log/pods/<ns>_<pod>_<uid>/<container>/<n>.log`, when the
/// directory names the same pod.
fn uid_from_pod_log_dir(target: &Path, n: &LogName) -> Option<String> {
    let dir = target.parent()?.parent()?.file_name()?.to_str()?;
    let uid = dir.strip_prefix(&format!("{}_{}_", n.namespace, n.pod))?;
    Some(uid.to_ascii_lowercase())
}

fn assigned(c: &proto::Container) -> Vec<String> {
    let mut v: Vec<String> = c
        .devices
        .iter()
        .flat_map(|d| {
            d.device_ids
                .iter()
                .map(move |id| format!("{}={id}", d.resource_name))
        })
        .collect();
    v.extend(c.dra_devices.iter().map(|d| format!("dra:{d}")));
    v
}

/// Names found for one process.
#[derive(Clone)]
struct Found {
    namespace: String,
    pod: String,
    container: Option<String>,
    devices: Vec<String>,
}

/// Names every pod-owned process `logs` or `listing` can name; the others keep their UID and
/// get the reason. Returns how many were named and how many not.
pub fn name_pods(
    snap: &mut Snapshot,
    listing: Result<&Listing, &Said>,
    logs: Result<&HashMap<String, LogName>, &str>,
    nodes: &DeviceNodes,
) -> (usize, usize) {
    let by_gpu = device_join(snap, listing.ok(), nodes);
    let (mut named, mut unnamed) = (0, 0);
    for p in &mut snap.processes {
        let Some(o) = p.owner.as_mut().filter(|o| o.kind == OwnerKind::Pod) else {
            continue;
        };
        let from_logs = o
            .container_id
            .as_ref()
            .and_then(|id| logs.ok()?.get(id))
            .filter(|n| n.pod_uid.is_none() || n.pod_uid == o.pod_uid);
        let found = match from_logs {
            Some(n) => {
                let c = listing.ok().and_then(|l| {
                    let pod = l
                        .pods
                        .iter()
                        .find(|q| q.namespace == n.namespace && q.name == n.pod)?;
                    pod.containers.iter().find(|c| c.name == n.container)
                });
                Ok(Found {
                    namespace: n.namespace.clone(),
                    pod: n.pod.clone(),
                    container: Some(n.container.clone()),
                    devices: c.map(assigned).unwrap_or_default(),
                })
            }
            None => o
                .pod_uid
                .as_ref()
                .and_then(|u| by_gpu.get(u))
                .cloned()
                .unwrap_or_else(|| Err(unnamed_reason(listing, logs))),
        };
        match found {
            Ok(f) => {
                // Names pass the same secret redaction as every name read from the machine.
                o.namespace = Some(redact_text(&f.namespace));
                o.pod_name = Some(redact_text(&f.pod));
                o.container_name = f.container.as_deref().map(redact_text);
                o.assigned_devices = f.devices.iter().map(|d| redact_text(d)).collect();
                o.names_unavailable_reason = None;
                named += 1;
            }
            Err(why) => {
                o.names_unavailable_reason = Some(why);
                unnamed += 1;
            }
        }
        o.relabel();
    }
    (named, unnamed)
}

fn unnamed_reason(
    listing: Result<&Listing, &Said>,
    logs: Result<&HashMap<String, LogName>, &str>,
) -> Said {
    let logs = match logs {
        Ok(_) => Said::new("report-kubelet-no-log-link", vec![]),
        Err(e) => Said::new("report-kubelet-logs-unreadable", vec![("error", e.into())]),
    };
    match listing {
        Err(e) => Said::new(
            "report-kubelet-uid-only",
            vec![("logs", logs.into()), ("error", e.clone().into())],
        ),
        Ok(_) => Said::new(
            "report-kubelet-uid-only-shared",
            vec![("logs", logs.into())],
        ),
    }
}

/// What device plugins name each GPU of a snapshot by, besides its UUID: its device node
/// number (`/dev/nvidia<N>`, from the driver's list: GKE's ids) and its MIG devices' UUIDs
/// (from NVML: NVIDIA's plugin with MIG on), by the GPU's UUID.
#[derive(Debug, Clone, Default)]
pub struct DeviceNodes {
    gpus: HashMap<String, (Option<u32>, Vec<String>)>,
}

impl DeviceNodes {
    pub fn new(snap: &Snapshot, driver: &[DriverGpu]) -> Self {
        let gpus = snap
            .devices
            .iter()
            .map(|d| {
                let minor = minor_of(driver, &d.uuid, d.pci_bus_id.as_deref());
                (d.uuid.to_ascii_lowercase(), (minor, d.mig_devices.clone()))
            })
            .collect();
        DeviceNodes { gpus }
    }

    /// Does device-plugin `id` name (part of) GPU `uuid`?
    pub fn names(&self, id: &str, uuid: &str) -> bool {
        match self.gpus.get(&uuid.to_ascii_lowercase()) {
            Some((minor, mig)) => device_id_names_gpu(id, uuid, *minor, mig),
            None => device_id_names_gpu(id, uuid, None, &[]),
        }
    }
}

/// The MPS daemons (`nvidia-cuda-mps-control` and the `nvidia-cuda-mps-server` it starts) hold
/// memory on every GPU they serve, in the pod of NVIDIA's MPS control daemon: that pod is not a
/// user sharing the GPU. The kernel's name is cut to 15 bytes, so the executable's counts too.
fn is_mps_daemon(p: &gpuledger_model::Process) -> bool {
    let exe = p
        .exe
        .as_deref()
        .and_then(|e| Path::new(e).file_name()?.to_str());
    matches!(
        exe,
        Some("nvidia-cuda-mps-control" | "nvidia-cuda-mps-server")
    ) || p.name.as_deref() == Some("nvidia-cuda-mps")
}

/// Pod UID → names by the GPUs its processes use (join 2 in the module comment).
fn device_join(
    snap: &Snapshot,
    listing: Option<&Listing>,
    nodes: &DeviceNodes,
) -> HashMap<String, Result<Found, Said>> {
    let mut out = HashMap::new();
    let Some(l) = listing else {
        return out;
    };
    // GPU UUID → pod UIDs using it; pod UID → GPU UUIDs.
    let mut uids_of: HashMap<&str, HashSet<&str>> = HashMap::new();
    let mut gpus_of: HashMap<&str, HashSet<&str>> = HashMap::new();
    for p in snap.processes.iter().filter(|p| !is_mps_daemon(p)) {
        let Some(uid) = p.owner.as_ref().and_then(|o| o.pod_uid.as_deref()) else {
            continue;
        };
        for u in &p.usage {
            uids_of.entry(u.device.as_str()).or_default().insert(uid);
            gpus_of.entry(uid).or_default().insert(u.device.as_str());
        }
    }
    for (uid, gpus) in gpus_of {
        if gpus.iter().any(|g| uids_of[g].len() != 1) {
            continue;
        }
        // (pod, container) pairs whose devices name every GPU this pod uses.
        let hits: Vec<(&Pod, &proto::Container)> = l
            .pods
            .iter()
            .flat_map(|p| p.containers.iter().map(move |c| (p, c)))
            .filter(|(_, c)| {
                gpus.iter().all(|g| {
                    c.devices
                        .iter()
                        .any(|d| d.device_ids.iter().any(|id| nodes.names(id, g)))
                })
            })
            .collect();
        let pods: HashSet<(&str, &str)> = hits
            .iter()
            .map(|(p, _)| (p.namespace.as_str(), p.name.as_str()))
            .collect();
        if pods.len() != 1 {
            continue;
        }
        let (pod, c) = hits[0];
        out.insert(
            uid.to_string(),
            Ok(Found {
                namespace: pod.namespace.clone(),
                pod: pod.name.clone(),
                // A container name only when one container of the pod has the GPUs.
                container: (hits.len() == 1).then(|| c.name.clone()),
                devices: if hits.len() == 1 {
                    assigned(c)
                } else {
                    Vec::new()
                },
            }),
        );
    }
    out
}

/// Asks the kubelet across rounds: reuses a listing while it names every pod, and never asks
/// more often than every 5 s, backing off after failures (`retry_gap`).
pub struct KubeNames {
    pub socket: PathBuf,
    pub container_logs: PathBuf,
    /// Where the driver's GPU list is read (`<root>/driver/nvidia/gpus`); `None`: not read.
    pub proc_root: Option<PathBuf>,
    last: Option<(Instant, Result<Listing, Said>)>,
    /// The driver's GPUs, read with each new listing.
    driver: Result<Vec<DriverGpu>, String>,
    /// Failed questions in a row.
    failures: u32,
}

impl KubeNames {
    pub fn new(socket: PathBuf, container_logs: PathBuf) -> Self {
        KubeNames {
            socket,
            container_logs,
            proc_root: None,
            last: None,
            driver: Err("not read".into()),
            failures: 0,
        }
    }

    /// Also match GKE's device ids, through the driver's GPU list under `proc_root`.
    pub fn with_proc_root(mut self, proc_root: PathBuf) -> Self {
        self.proc_root = Some(proc_root);
        self
    }

    /// Names the snapshot's pods and says how it went as the `kubelet` source (nothing when no
    /// GPU process is in a pod).
    pub fn apply(&mut self, snap: &mut Snapshot) {
        let uids: HashSet<String> = snap
            .processes
            .iter()
            .filter_map(|p| p.owner.as_ref()?.pod_uid.clone())
            .collect();
        // A node with pods asks even with no GPU process in one: its GPUs' assignments are
        // still worth knowing (an idle pod holding a whole GPU).
        if uids.is_empty() && !self.socket.exists() {
            return;
        }
        let logs = container_log_names(&self.container_logs);
        let listed_all = |l: &Listing| {
            let listed: HashSet<(&str, &str)> = l
                .pods
                .iter()
                .map(|p| (p.namespace.as_str(), p.name.as_str()))
                .collect();
            logs.as_ref().is_ok_and(|m| {
                m.values()
                    .filter(|n| n.pod_uid.as_ref().is_some_and(|u| uids.contains(u)))
                    .all(|n| listed.contains(&(n.namespace.as_str(), n.pod.as_str())))
            })
        };
        let stale = match &self.last {
            None => true,
            Some((at, r)) => {
                let age = at.elapsed();
                let gap = retry_gap(self.failures);
                match r {
                    Ok(l) => age >= REFRESH || (age >= gap && !listed_all(l)),
                    Err(_) => age >= gap,
                }
            }
        };
        if stale {
            let r = query(&self.socket, DEADLINE, MAX_MESSAGE);
            self.failures = if r.is_ok() {
                0
            } else {
                self.failures.saturating_add(1)
            };
            self.last = Some((Instant::now(), r));
            self.driver = match &self.proc_root {
                Some(root) => driver_gpus(root),
                None => Err("no procfs root given".into()),
            };
        }
        let Some((_, listing)) = &self.last else {
            return;
        };
        let nodes = DeviceNodes::new(snap, self.driver.as_deref().unwrap_or_default());
        let (named, unnamed) = name_pods(
            snap,
            listing.as_ref(),
            logs.as_ref().map_err(String::as_str),
            &nodes,
        );
        let mut st = status(listing, named, unnamed);
        if let Ok(l) = listing {
            let (kept, unmatched) = assignments(l, snap, &nodes);
            snap.device_assignments = kept;
            let more = unmatched_words(&unmatched, &self.driver);
            st.detail = Said::joined("report-said-list", [vec![st.detail], more].concat())
                .unwrap_or_default();
        }
        snap.sources.push(st);
    }
}

/// The device-plugin assignments of the listing that name one of the snapshot's GPUs, and the
/// GPU-looking ids that name none of them (said in the source's status).
fn assignments(
    l: &Listing,
    snap: &Snapshot,
    nodes: &DeviceNodes,
) -> (Vec<DeviceAssignment>, Vec<String>) {
    let (mut out, mut unmatched) = (Vec::new(), Vec::new());
    for p in &l.pods {
        for c in &p.containers {
            for d in &c.devices {
                for id in &d.device_ids {
                    let Some(g) = snap.devices.iter().find(|g| nodes.names(id, &g.uuid)) else {
                        if d.resource_name.starts_with("nvidia.com/") {
                            unmatched.push(id.clone());
                        }
                        continue;
                    };
                    out.push(DeviceAssignment {
                        resource: redact_text(&d.resource_name),
                        device_id: redact_text(id),
                        namespace: redact_text(&p.namespace),
                        pod: redact_text(&p.name),
                        container: redact_text(&c.name),
                        gpu: Some(g.uuid.clone()),
                    });
                }
            }
        }
    }
    (out, unmatched)
}

/// What the status says about assigned NVIDIA ids that name no GPU of the snapshot: MIG
/// devices NVML did not list under any GPU, and GKE's device nodes the driver's list did not
/// give; nothing when all matched.
fn unmatched_words(unmatched: &[String], driver: &Result<Vec<DriverGpu>, String>) -> Vec<Said> {
    let mig = unmatched.iter().filter(|id| id.starts_with("MIG-")).count();
    let node = unmatched
        .iter()
        .filter(|id| id.starts_with("nvidia"))
        .count();
    let mut out = Vec::new();
    if mig > 0 {
        out.push(Said::new(
            "report-kubelet-mig-unmatched",
            vec![("n", mig.into())],
        ));
    }
    if node > 0 {
        let why = match driver {
            Err(e) => Said::new(
                "report-kubelet-driver-unreadable",
                vec![("error", redact_text(e).into())],
            ),
            Ok(_) => Said::new("report-kubelet-no-gpu-node", vec![]),
        };
        let args = vec![("n", node.into()), ("why", why.into())];
        out.push(Said::new("report-kubelet-node-unmatched", args));
    }
    out
}

/// The wait before asking again after `failures` failed questions in a row.
fn retry_gap(failures: u32) -> Duration {
    MIN_GAP
        .saturating_mul(1u32 << failures.saturating_sub(1).min(8))
        .min(MAX_GAP)
}

fn status(listing: &Result<Listing, Said>, named: usize, unnamed: usize) -> SourceStatus {
    let counts = vec![("named", named.into()), ("unnamed", unnamed.into())];
    match listing {
        Ok(l) => {
            let gpus = l.allocatable.as_ref().map_or_else(
                |e| {
                    Said::new(
                        "report-kubelet-allocatable-failed",
                        vec![("error", e.as_str().into())],
                    )
                },
                |d| {
                    let n: usize = d
                        .iter()
                        .filter(|d| d.resource_name.contains("gpu"))
                        .map(|d| d.device_ids.len())
                        .sum();
                    Said::new("report-kubelet-allocatable", vec![("n", n.into())])
                },
            );
            let mut args = vec![("pods", l.pods.len().into()), ("gpus", gpus.into())];
            args.extend(counts);
            SourceStatus::new(
                "kubelet",
                SourceState::Ok,
                Said::new("report-kubelet-ok", args),
            )
        }
        Err(e) => {
            let mut args = vec![("error", e.clone().into())];
            args.extend(counts);
            let detail = Said::new("report-kubelet-unavailable", args);
            SourceStatus::new("kubelet", SourceState::Unavailable, detail)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::{Process, Usage};

    #[test]
    fn log_link_names_split_on_underscores_and_need_a_full_id() {
        let id = "a".repeat(64);
        let (got, n) =
            parse_log_name(&format!("chat-7d9f-x2k4p_team-a_vllm-sidecar-{id}.log")).unwrap();
        assert_eq!(got, id);
        assert_eq!(
            (n.pod.as_str(), n.namespace.as_str()),
            ("chat-7d9f-x2k4p", "team-a")
        );
        assert_eq!(n.container, "vllm-sidecar");
        for bad in [
            format!("chat_team-a_vllm-{}.log", "a".repeat(63)),
            format!("chat_team-a_vllm-{id}.txt"),
            format!("chat_team-a-vllm-{id}.log"),
            format!("chat_team_a_vllm-{id}.log"),
            format!("_team-a_vllm-{id}.log"),
        ] {
            assert!(parse_log_name(&bad).is_none(), "{bad}");
        }
        let target = Path::new("/var/log/pods/team-a_chat_1234-abcd/vllm/0.log");
        let n = parse_log_name(&format!("chat_team-a_vllm-{id}.log"))
            .unwrap()
            .1;
        assert_eq!(
            uid_from_pod_log_dir(target, &n).as_deref(),
            Some("1234-abcd")
        );
        let other = Path::new("/var/log/pods/team-b_chat_1234-abcd/vllm/0.log");
        assert_eq!(uid_from_pod_log_dir(other, &n), None);
    }

    #[test]
    fn device_ids_name_a_gpu_itself_or_its_time_slicing_replicas() {
        let g = "GPU-5c9e2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c";
        let names = |id: &str| device_id_names_gpu(id, g, None, &[]);
        assert!(names(g));
        assert!(names(&format!("{g}::3")));
        assert!(names(&g.to_lowercase()));
        assert!(!names(&format!("{g}3")));
        assert!(!names("GPU-5c9e"));
        assert!(!names("MIG-5c9e2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c"));
        assert!(!names("MIG-5c9e2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c::1"));
    }

    /// NVIDIA's plugin with MIG on hands out MIG devices, `MIG-<UUID>` (MIG strategy single or
    /// mixed), `MIG-<UUID>::<n>` when time-sliced: they name the GPU NVML lists them under.
    #[test]
    fn mig_device_ids_name_their_parent_gpu() {
        let g = "GPU-5c9e2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c";
        let mig = [
            "MIG-0b3c1d2e-4f5a-5b6c-8d7e-9f0a1b2c3d4e".to_string(),
            "MIG-1c4d2e3f-5a6b-5c7d-9e8f-0a1b2c3d4e5f".to_string(),
        ];
        for id in [
            mig[1].clone(),
            format!("{}::3", mig[0]),
            mig[0].to_lowercase(),
        ] {
            assert!(device_id_names_gpu(&id, g, None, &mig), "{id}");
            assert!(!device_id_names_gpu(&id, g, None, &[]), "{id}");
        }
        assert!(!device_id_names_gpu("MIG-0b3c1d2e", g, None, &mig));
        assert!(device_id_names_gpu(g, g, None, &mig));
        // Through a snapshot: the MIG devices NVML listed under the GPU.
        let mut snap = Snapshot::new("2026-12-02T00:00:00Z".into(), Default::default());
        let mut d = gpuledger_model::Device::new(0, gpuledger_model::Vendor::Nvidia, g, "nvml");
        d.mig_devices = mig.to_vec();
        snap.devices.push(d);
        let nodes = DeviceNodes::new(&snap, &[]);
        assert!(nodes.names(&format!("{}::0", mig[1]), g));
        assert!(!nodes.names(&mig[1], "GPU-other"));
    }

    /// GKE's device plugin names a GPU by its device node (the forms its GPU sharing and MIG
    /// partitions use, as dcgm-exporter 4.5.3's tests list them): `nvidia0`, `nvidia0/vgpu1`,
    /// `nvidia0/gi3`, `nvidia0/gi3/vgpu0`. They name the GPU whose node is /dev/nvidia<N>,
    /// and nothing when that node is not known.
    #[test]
    fn gke_device_ids_name_the_gpu_of_their_device_node() {
        let g = "GPU-5c9e2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c";
        for id in [
            "nvidia2",
            "nvidia2/vgpu1",
            "nvidia2/gi3",
            "nvidia2/gi3/vgpu0",
        ] {
            assert!(device_id_names_gpu(id, g, Some(2), &[]), "{id}");
            assert!(!device_id_names_gpu(id, g, Some(0), &[]), "{id}");
            assert!(!device_id_names_gpu(id, g, None, &[]), "{id}");
        }
        for bad in [
            "nvidia",
            "nvidia2/",
            "nvidia2/vgpu",
            "nvidia2/vgpu1/gi3",
            "nvidia2/gi3/vgpu0/x",
            "nvidia-2",
            "nvidia2x",
            "nvidiactl",
        ] {
            assert!(!device_id_names_gpu(bad, g, Some(2), &[]), "{bad}");
        }
    }

    fn pod_gpu_process(pid: u32, uid: &str, gpu: &str, exe: Option<&str>) -> Process {
        let cgroup = format!(
            "0::/kubepods.slice/kubepods-pod{}.slice/cri-containerd-{}.scope\n",
            uid.replace('-', "_"),
            "c".repeat(64)
        );
        let mut p = Process::new(pid);
        p.owner = crate::owner::owner_from_cgroup(&cgroup);
        p.exe = exe.map(str::to_string);
        p.name = exe.map(|e| e.rsplit('/').next().unwrap().chars().take(15).collect());
        let mut u = Usage::new(gpu, "nvml");
        u.memory_bytes = Some(1 << 30);
        p.usage.push(u);
        p
    }

    fn pod(ns: &str, name: &str, ids: &[&str]) -> Pod {
        Pod {
            name: name.into(),
            namespace: ns.into(),
            containers: vec![proto::Container {
                name: "main".into(),
                devices: vec![Devices {
                    resource_name: "nvidia.com/gpu".into(),
                    device_ids: ids.iter().map(|s| s.to_string()).collect(),
                }],
                dra_devices: Vec::new(),
            }],
        }
    }

    /// A GKE node: GPU-B at /dev/nvidia1 time-shared (`nvidia1/vgpu0`), one pod using it; the
    /// driver's list gives the node numbers. Without that list the GKE ids name nothing and
    /// the status says why.
    #[test]
    fn a_gke_shared_gpu_names_its_one_pod_through_the_drivers_list() {
        let (a, b) = (
            "GPU-aaaaaaaa-0000-4000-8000-000000000000",
            "GPU-bbbbbbbb-0000-4000-8000-000000000000",
        );
        let mut snap = Snapshot::new("2026-12-02T00:00:00Z".into(), Default::default());
        for (i, u) in [a, b].into_iter().enumerate() {
            let mut d =
                gpuledger_model::Device::new(i as u32, gpuledger_model::Vendor::Nvidia, u, "nvml");
            d.pci_bus_id = Some(format!("00000000:{:02x}:00.0", 0x18 + i));
            snap.devices.push(d);
        }
        let uid = "11111111-0000-4000-8000-000000000001";
        snap.processes = vec![pod_gpu_process(7, uid, b, Some("/usr/bin/python3"))];
        let listing = Listing {
            pods: vec![
                pod("team-a", "chat-0", &["nvidia1/vgpu0"]),
                pod("team-b", "idle-0", &["nvidia0/gi2/vgpu1"]),
            ],
            allocatable: Ok(Vec::new()),
        };
        // The driver numbers the nodes by its own order: GPU-B is nvidia1, by its UUID; GPU-A
        // is found by its PCI address.
        let driver = [
            DriverGpu {
                uuid: Some(b.into()),
                bus: None,
                minor: 1,
            },
            DriverGpu {
                uuid: None,
                bus: Some("0000:18:00.0".into()),
                minor: 0,
            },
        ];
        let nodes = DeviceNodes::new(&snap, &driver);
        let mut named = snap.clone();
        assert_eq!(
            name_pods(&mut named, Ok(&listing), Err("none"), &nodes),
            (1, 0)
        );
        let o = named.processes[0].owner.as_ref().unwrap();
        assert_eq!(
            (o.namespace.as_deref(), o.pod_name.as_deref()),
            (Some("team-a"), Some("chat-0"))
        );
        let (kept, unmatched) = assignments(&listing, &snap, &nodes);
        let gpus: Vec<_> = kept
            .iter()
            .map(|k| (k.pod.as_str(), k.gpu.as_deref()))
            .collect();
        assert_eq!(gpus, [("chat-0", Some(b)), ("idle-0", Some(a))]);
        assert!(kept[0].names_gpu(b) && !kept[0].names_gpu(a));
        assert!(unmatched.is_empty());

        let none = DeviceNodes::new(&snap, &[]);
        let mut unnamed = snap.clone();
        assert_eq!(
            name_pods(&mut unnamed, Ok(&listing), Err("none"), &none),
            (0, 1)
        );
        let (kept, unmatched) = assignments(&listing, &snap, &none);
        assert!(kept.is_empty());
        let words = unmatched_words(
            &unmatched,
            &Err("/proc/driver/nvidia/gpus: not found".into()),
        );
        assert_eq!(
            words.iter().map(|w| w.as_str()).collect::<Vec<_>>(),
            ["2 device-node ids (GKE) not matched (the driver's GPU list is unreadable: /proc/driver/nvidia/gpus: not found)"]
        );
        let mig = ["MIG-5c9e2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c::0".to_string()];
        let words = unmatched_words(&mig, &Ok(Vec::new()));
        assert!(
            words[0].starts_with("1 MIG device ids not matched"),
            "{words:?}"
        );
        // Said in the reader's language, the figure kept.
        let zh = words[0].in_lang(gpuledger_lang::Lang::ZhCn);
        assert!(
            zh.contains('1') && zh.contains("MIG") && !zh.contains("not matched"),
            "{zh}"
        );
    }

    /// MPS: the control daemon's pod runs nvidia-cuda-mps-server, which holds memory on the
    /// GPU it serves; the one client pod is still the GPU's only user, so the devices name it.
    #[test]
    fn the_mps_daemons_pod_is_not_a_sharer() {
        let g = "GPU-aaaaaaaa-0000-4000-8000-000000000000";
        let mut snap = Snapshot::new("2026-12-02T00:00:00Z".into(), Default::default());
        let client = "11111111-0000-4000-8000-000000000001";
        let daemon = "22222222-0000-4000-8000-000000000002";
        snap.processes = vec![
            pod_gpu_process(7, client, g, Some("/usr/bin/python3")),
            pod_gpu_process(8, daemon, g, Some("/usr/bin/nvidia-cuda-mps-server")),
        ];
        let listing = Listing {
            pods: vec![pod("team-a", "train-0", &[&format!("{g}::0")])],
            allocatable: Ok(Vec::new()),
        };
        let nodes = DeviceNodes::default();
        let mut s = snap.clone();
        let (named, _) = name_pods(&mut s, Ok(&listing), Err("none"), &nodes);
        assert_eq!(named, 1);
        assert_eq!(
            s.processes[0].owner.as_ref().unwrap().pod_name.as_deref(),
            Some("train-0")
        );
        // The same server not recognised (another name): two pod UIDs share the GPU, no name.
        snap.processes[1].exe = Some("/usr/bin/some-server".into());
        snap.processes[1].name = Some("some-server".into());
        let (named, _) = name_pods(&mut snap, Ok(&listing), Err("none"), &nodes);
        assert_eq!(named, 0);
    }

    #[test]
    fn failures_back_off_to_five_minutes() {
        let gaps: Vec<u64> = (0..12).map(|f| retry_gap(f).as_secs()).collect();
        assert_eq!(gaps, [5, 5, 10, 20, 40, 80, 160, 300, 300, 300, 300, 300]);
    }
}
