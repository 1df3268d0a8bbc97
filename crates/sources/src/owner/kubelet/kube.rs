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
//!    device ids pod-resources lists (NVIDIA's device plugin names a GPU by its UUID, a
//!    time-slicing replica `<UUID>::<n>`). Taken only when exactly one listed pod was assigned
//!    those GPUs and exactly one pod UID on the node uses them; on a GPU shared by several pods
//!    this cannot tell them apart, and says so.
//!
//! Asked only when some GPU process is in a pod, at most once per [`REFRESH`] unless a pod not
//! yet named appears, and always within [`DEADLINE`].

use super::h2::{CallError, Conn};
use super::proto::{self, Devices, Pod};
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

/// Both calls on one connection within `deadline`.
pub fn query(socket: &Path, deadline: Duration, max_message: usize) -> Result<Listing, String> {
    let words = |e: CallError| format!("kubelet pod-resources API at {}: {e}", socket.display());
    let mut c = Conn::open(socket, deadline, max_message).map_err(|e| match e {
        // The path is in the message already.
        CallError::Absent(s) | CallError::Connect(s) => format!("kubelet pod-resources API: {s}"),
        e => words(e),
    })?;
    let list = c.call("/v1.PodResourcesLister/List", &[]).map_err(words)?;
    let pods = proto::list_response(&list).map_err(|e| {
        format!(
            "kubelet pod-resources API at {}: List: {e}",
            socket.display()
        )
    })?;
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
    listing: Result<&Listing, &str>,
    logs: Result<&HashMap<String, LogName>, &str>,
) -> (usize, usize) {
    let by_gpu = device_join(snap, listing.ok());
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
    listing: Result<&Listing, &str>,
    logs: Result<&HashMap<String, LogName>, &str>,
) -> String {
    let logs = match logs {
        Ok(_) => "no container log link names its container id".to_string(),
        Err(e) => format!("container log links unreadable ({e})"),
    };
    match listing {
        Err(e) => format!("pod UID only: {logs}; {e}"),
        Ok(_) => format!(
            "pod UID only: {logs}, and the GPUs it uses were not assigned to exactly one pod the kubelet lists (a shared GPU, or not assigned through a device plugin)"
        ),
    }
}

/// Pod UID → names by the GPUs its processes use (join 2 in the module comment).
fn device_join(
    snap: &Snapshot,
    listing: Option<&Listing>,
) -> HashMap<String, Result<Found, String>> {
    let mut out = HashMap::new();
    let Some(l) = listing else {
        return out;
    };
    // GPU UUID → pod UIDs using it; pod UID → GPU UUIDs.
    let mut uids_of: HashMap<&str, HashSet<&str>> = HashMap::new();
    let mut gpus_of: HashMap<&str, HashSet<&str>> = HashMap::new();
    for p in &snap.processes {
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
                        .any(|d| d.device_ids.iter().any(|id| device_id_names_gpu(id, g)))
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
    last: Option<(Instant, Result<Listing, String>)>,
    /// Failed questions in a row.
    failures: u32,
}

impl KubeNames {
    pub fn new(socket: PathBuf, container_logs: PathBuf) -> Self {
        KubeNames {
            socket,
            container_logs,
            last: None,
            failures: 0,
        }
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
        }
        let Some((_, listing)) = &self.last else {
            return;
        };
        let (named, unnamed) = name_pods(
            snap,
            listing.as_ref().map_err(String::as_str),
            logs.as_ref().map_err(String::as_str),
        );
        if let Ok(l) = listing {
            snap.device_assignments = assignments(l, snap);
        }
        snap.sources.push(status(listing, named, unnamed));
    }
}

/// The device-plugin assignments of the listing that name one of the snapshot's GPUs.
fn assignments(l: &Listing, snap: &Snapshot) -> Vec<DeviceAssignment> {
    let mut out = Vec::new();
    for p in &l.pods {
        for c in &p.containers {
            for d in &c.devices {
                for id in &d.device_ids {
                    if snap
                        .devices
                        .iter()
                        .any(|g| device_id_names_gpu(id, &g.uuid))
                    {
                        out.push(DeviceAssignment {
                            resource: redact_text(&d.resource_name),
                            device_id: redact_text(id),
                            namespace: redact_text(&p.namespace),
                            pod: redact_text(&p.name),
                            container: redact_text(&c.name),
                        });
                    }
                }
            }
        }
    }
    out
}

/// The wait before asking again after `failures` failed questions in a row.
fn retry_gap(failures: u32) -> Duration {
    MIN_GAP
        .saturating_mul(1u32 << failures.saturating_sub(1).min(8))
        .min(MAX_GAP)
}

fn status(listing: &Result<Listing, String>, named: usize, unnamed: usize) -> SourceStatus {
    match listing {
        Ok(l) => {
            let gpus = l.allocatable.as_ref().map_or_else(
                |e| format!("GetAllocatableResources failed: {e}"),
                |d| {
                    let n: usize = d
                        .iter()
                        .filter(|d| d.resource_name.contains("gpu"))
                        .map(|d| d.device_ids.len())
                        .sum();
                    format!("{n} allocatable GPU device ids")
                },
            );
            SourceStatus::new(
                "kubelet",
                SourceState::Ok,
                format!(
                    "{} pods listed, {gpus}; {named} GPU processes named, {unnamed} by pod UID only",
                    l.pods.len()
                ),
            )
        }
        Err(e) => SourceStatus::new(
            "kubelet",
            SourceState::Unavailable,
            format!("{e}; {named} GPU processes named from container log links, {unnamed} by pod UID only"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(device_id_names_gpu(g, g));
        assert!(device_id_names_gpu(&format!("{g}::3"), g));
        assert!(device_id_names_gpu(&g.to_lowercase(), g));
        assert!(!device_id_names_gpu(&format!("{g}3"), g));
        assert!(!device_id_names_gpu("GPU-5c9e", g));
        assert!(!device_id_names_gpu(
            "MIG-5c9e2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c",
            g
        ));
    }

    #[test]
    fn failures_back_off_to_five_minutes() {
        let gaps: Vec<u64> = (0..12).map(|f| retry_gap(f).as_secs()).collect();
        assert_eq!(gaps, [5, 5, 10, 20, 40, 80, 160, 300, 300, 300, 300, 300]);
    }
}
