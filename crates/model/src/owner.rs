//! Who a process belongs to (docs/DESIGN.md concept 7: "an owner is the unit of who"): a
//! Kubernetes pod, a Slurm job, a container, a systemd unit, a login session or a user's own
//! services, as the process's cgroup says. `gpuledger-sources` reads it (one parser for the
//! rule); here are its shape, the short label every view shows, and the per-owner sums of
//! `snapshot --group-by` ([`group_memory`]).
//!
//! What a cgroup path cannot say comes from the kubelet (`gpuledger-sources`' `owner::kube`): a
//! pod's name, namespace and container name, and the devices its container was assigned. When
//! the kubelet cannot be asked, a pod is named by its UID, and grouping by namespace says why.

use crate::{Process, Snapshot};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// What kind of owner a cgroup path names, strongest first: a pod's processes are also in a
/// container, a Slurm task may run in a container of its job, and so on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OwnerKind {
    /// A Kubernetes pod (`kubepods…pod<UID>`), with its container when the path names one.
    Pod,
    /// A Slurm job (`job_<id>` under `slurmstepd.scope` or `/slurm/uid_<uid>/`).
    SlurmJob,
    /// A container outside Kubernetes (Docker, podman, containerd, CRI-O).
    Container,
    /// A systemd service or scope (`ollama.service`), of the system or of a user's manager.
    Unit,
    /// A login session (`session-3.scope` of `user-1000.slice`).
    Session,
    /// A user's slice or service manager without a finer unit (desktop applications).
    User,
}

impl OwnerKind {
    /// The JSON spelling (`slurm-job`).
    pub fn as_str(self) -> &'static str {
        match self {
            OwnerKind::Pod => "pod",
            OwnerKind::SlurmJob => "slurm-job",
            OwnerKind::Container => "container",
            OwnerKind::Unit => "unit",
            OwnerKind::Session => "session",
            OwnerKind::User => "user",
        }
    }

    /// Owners that say more than the USER column already does: a view shows an OWNER column
    /// when some process has one of these.
    pub fn beyond_user(self) -> bool {
        !matches!(self, OwnerKind::Session | OwnerKind::User)
    }
}

/// Why a pod's name and namespace are unknown before the kubelet was asked (the cgroup path has
/// only the UID); the kubelet lookup replaces it with its own reason, or clears it.
pub fn pod_names_unavailable() -> gpuledger_lang::Said {
    gpuledger_lang::Said::new("report-pod-names-unavailable", vec![])
}

/// A device the kubelet assigned to a container (its pod-resources `List`), kept per snapshot so
/// that a view can name the pod a GPU was given to (dcgm-exporter's Kubernetes labels), idle or
/// not. Only assignments naming one of the snapshot's devices are kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceAssignment {
    /// The device plugin's resource (`nvidia.com/gpu`) and its id for the device.
    pub resource: String,
    pub device_id: String,
    pub namespace: String,
    pub pod: String,
    pub container: String,
    /// The UUID of the GPU the id names, as the kubelet source resolved it ([`device_id_names_gpu`]
    /// with the GPU's device node): needed where the id is not the UUID (GKE's `nvidia<N>`).
    /// Absent in snapshots recorded before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
}

impl DeviceAssignment {
    /// Does this assignment give (part of) GPU `uuid`?
    pub fn names_gpu(&self, uuid: &str) -> bool {
        match &self.gpu {
            Some(g) => g.eq_ignore_ascii_case(uuid),
            None => device_id_names_gpu(&self.device_id, uuid, None, &[]),
        }
    }
}

/// Does a device plugin's id name (part of) the GPU with this `uuid`, device node
/// `/dev/nvidia<minor>` (`None`: not known) and MIG devices `mig` (their UUIDs)? One rule for
/// every join of kubelet devices to measured GPUs. The forms:
/// - NVIDIA's device plugin: the GPU's UUID or one of its MIG devices' (`MIG-…`), either
///   followed by `::<n>` for one of its time-slicing or MPS replicas;
/// - GKE's device plugin: the device node, `nvidia<N>`, and its shares: `nvidia<N>/vgpu<n>`
///   (time-sharing), `nvidia<N>/gi<g>` (a MIG GPU instance), `nvidia<N>/gi<g>/vgpu<n>`.
pub fn device_id_names_gpu(id: &str, uuid: &str, minor: Option<u32>, mig: &[String]) -> bool {
    if let Some(n) = gke_device_node(id) {
        return minor == Some(n);
    }
    let device = id.split_once("::").map_or(id, |(d, _)| d);
    device.eq_ignore_ascii_case(uuid) || mig.iter().any(|m| device.eq_ignore_ascii_case(m))
}

/// The device node number of a GKE device id, or `None` when `id` is not one.
fn gke_device_node(id: &str) -> Option<u32> {
    fn number(s: &str) -> Option<u32> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    }
    let mut parts = id.split('/');
    let node = number(parts.next()?.strip_prefix("nvidia")?)?;
    let rest: Vec<&str> = parts.collect();
    let share = |p: &str, prefix: &str| p.strip_prefix(prefix).and_then(number).is_some();
    let ok = match rest.as_slice() {
        [] => true,
        [a] => share(a, "vgpu") || share(a, "gi"),
        [a, b] => share(a, "gi") && share(b, "vgpu"),
        _ => false,
    };
    ok.then_some(node)
}

/// The owner of a process, read from `/proc/PID/cgroup`. Every id is what the path says;
/// nothing is looked up elsewhere but the user name of a uid (from the same machine's
/// `/etc/passwd`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    pub kind: OwnerKind,
    /// The short label views show: `pod 3f2a1b9c…/ctr 9b1c0d2e…`, `job 4711 (alice)`,
    /// `unit ollama.service`, `docker:8f2a6c3e1b4d`, `session 3 (alice)`.
    pub label: String,
    /// Kubernetes pod UID, dashes restored (the systemd driver writes them as `_`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_uid: Option<String>,
    /// `guaranteed`, `burstable` or `besteffort`, from the kubelet's QoS level in the path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qos_class: Option<String>,
    /// The pod's namespace and name: only from the kubelet (never guessed from the path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_name: Option<String>,
    /// The container's name in the pod spec (from the kubelet, like the pod's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_name: Option<String>,
    /// The devices the kubelet assigned to the container (pod-resources API), as
    /// `<resource>=<device id>` (`nvidia.com/gpu=GPU-…::2` for a time-slicing replica) or
    /// `dra:<driver>/<pool>/<device>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assigned_devices: Vec<String>,
    /// Why `namespace` and `pod_name` are unknown ([`pod_names_unavailable`]), for a pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub names_unavailable_reason: Option<gpuledger_lang::Said>,
    /// Container id (64 hex) and the runtime whose naming the path uses (`containerd`,
    /// `cri-o`, `docker`, `podman`; `kubepods` when the cgroupfs driver does not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// Slurm job id and step (`0`, `batch`, `extern`, `interactive`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_job: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_step: Option<String>,
    /// What an operator reads of a Slurm job: its name, partition and account, from the job's
    /// environment (`SLURM_JOB_NAME`, `SLURM_JOB_PARTITION`, `SLURM_JOB_ACCOUNT`) of one of its
    /// processes; `slurm_source` says which process and what came from where.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_job_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_partition: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_account: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_source: Option<String>,
    /// The owning user's uid: from the path (`user-1000.slice`, `uid_1000`), or for a Slurm job
    /// under cgroup v2 (whose path has none) the uid its task runs as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// The systemd unit (`ollama.service`, `app-gnome-kitty-3842.scope`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// The logind session id (`3`, `c1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Why the path was not taken at its word: it is shaped like a pod's or a Slurm job's but
    /// lies where such an owner cannot be (a user's delegated systemd subtree, where that user
    /// may create any cgroup), so the process is shown as that user's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<gpuledger_lang::Said>,
    /// The cgroup path the owner was read from.
    pub cgroup: String,
}

/// The first `n` characters of `s`, with `…` when cut.
fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n).collect();
        t.push('…');
        t
    }
}

impl Owner {
    /// An owner of `kind` read from `cgroup`, every id unknown; [`Owner::relabel`] once they
    /// are set.
    pub fn new(kind: OwnerKind, cgroup: impl Into<String>) -> Self {
        Owner {
            kind,
            label: String::new(),
            pod_uid: None,
            qos_class: None,
            namespace: None,
            pod_name: None,
            container_name: None,
            assigned_devices: Vec::new(),
            names_unavailable_reason: None,
            container_id: None,
            runtime: None,
            slurm_job: None,
            slurm_step: None,
            slurm_job_name: None,
            slurm_partition: None,
            slurm_account: None,
            slurm_source: None,
            uid: None,
            user: None,
            unit: None,
            session: None,
            note: None,
            cgroup: cgroup.into(),
        }
    }

    /// The container as the snapshot's `container` field spells it: `<runtime>://<id>`.
    pub fn container_ref(&self) -> Option<String> {
        let id = self.container_id.as_deref()?;
        Some(format!(
            "{}://{id}",
            self.runtime.as_deref().unwrap_or("container")
        ))
    }

    /// `alice`, or `uid 1000` when the name is unknown.
    fn who(&self) -> Option<String> {
        self.user
            .clone()
            .or_else(|| self.uid.map(|u| format!("uid {u}")))
    }

    /// The short label, made from the ids (set [`Owner::label`] with it after changing them).
    pub fn make_label(&self) -> String {
        let with_who = |s: String| match self.who() {
            Some(w) => format!("{s} ({w})"),
            None => s,
        };
        match self.kind {
            OwnerKind::Pod => {
                let pod = match (&self.namespace, &self.pod_name) {
                    (Some(ns), Some(name)) => format!("{ns}/{name}"),
                    _ => format!("pod {}", short(self.pod_uid.as_deref().unwrap_or("?"), 8)),
                };
                match (&self.container_name, &self.container_id) {
                    (Some(name), _) => format!("{pod}/{name}"),
                    (None, Some(id)) => format!("{pod}/ctr {}", short(id, 8)),
                    (None, None) => pod,
                }
            }
            OwnerKind::SlurmJob => self.job_label(),
            OwnerKind::Container => match &self.container_id {
                Some(id) => format!(
                    "{}:{}",
                    self.runtime.as_deref().unwrap_or("container"),
                    id.chars().take(12).collect::<String>()
                ),
                None => "container".into(),
            },
            OwnerKind::Unit => {
                let unit = format!("unit {}", self.unit.as_deref().unwrap_or("?"));
                // A user manager's unit says whose; a system unit's user is the USER column.
                if self.uid.is_some() {
                    with_who(unit)
                } else {
                    unit
                }
            }
            OwnerKind::Session => with_who(format!(
                "session {}",
                self.session.as_deref().unwrap_or("?")
            )),
            OwnerKind::User => format!("user {}", self.who().unwrap_or_else(|| "?".into())),
        }
    }

    /// `job 4711 train-llama (alice, partition gpu, account ml)`: what is known of it.
    fn job_label(&self) -> String {
        let mut s = format!(
            "job {}",
            self.slurm_job.map_or("?".into(), |j| j.to_string())
        );
        if let Some(name) = &self.slurm_job_name {
            s.push(' ');
            s.push_str(name);
        }
        let parts: Vec<String> = [
            self.who(),
            self.slurm_partition
                .as_ref()
                .map(|p| format!("partition {p}")),
            self.slurm_account.as_ref().map(|a| format!("account {a}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !parts.is_empty() {
            s.push_str(&format!(" ({})", parts.join(", ")));
        }
        s
    }

    /// Set [`Owner::label`] from the ids.
    pub fn relabel(&mut self) {
        self.label = self.make_label();
    }
}

/// What `snapshot --group-by` sums memory by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GroupBy {
    Pod,
    Namespace,
    Container,
    Job,
    User,
    Unit,
    Owner,
}

impl GroupBy {
    pub const ALL: [GroupBy; 7] = [
        GroupBy::Pod,
        GroupBy::Namespace,
        GroupBy::Container,
        GroupBy::Job,
        GroupBy::User,
        GroupBy::Unit,
        GroupBy::Owner,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Pod => "pod",
            GroupBy::Namespace => "namespace",
            GroupBy::Container => "container",
            GroupBy::Job => "job",
            GroupBy::User => "user",
            GroupBy::Unit => "unit",
            GroupBy::Owner => "owner",
        }
    }

    /// Where the processes that have no such owner go (`not in a Kubernetes pod`).
    fn outside(self) -> &'static str {
        match self {
            GroupBy::Pod | GroupBy::Namespace => "not in a Kubernetes pod",
            GroupBy::Container => "not in a container",
            GroupBy::Job => "not in a Slurm job",
            GroupBy::User => "user unknown",
            GroupBy::Unit => "not in a systemd unit",
            GroupBy::Owner => "owner unknown (cgroup unreadable, or the root cgroup)",
        }
    }
}

impl fmt::Display for GroupBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for GroupBy {
    type Err = gpuledger_lang::Said;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GroupBy::ALL
            .into_iter()
            .find(|g| g.as_str() == s)
            .ok_or_else(|| {
                let all: Vec<&str> = GroupBy::ALL.iter().map(|g| g.as_str()).collect();
                let args = vec![
                    ("given", format!("{s:?}").into()),
                    ("choices", all.join(", ").into()),
                ];
                gpuledger_lang::Said::new("report-err-not-grouping", args)
            })
    }
}

/// The label of the one group every pod of unknown namespace falls in.
pub const NAMESPACE_UNKNOWN: &str =
    "namespace unknown (the kubelet could not name the pod; see notes)";

/// The group `p` falls in under `by`: `(key, label)`, or `None` when it has no such owner.
pub fn group_key(p: &Process, by: GroupBy) -> Option<(String, String)> {
    let o = p.owner.as_ref();
    match by {
        GroupBy::Pod => {
            let o = o.filter(|o| o.kind == OwnerKind::Pod)?;
            let uid = o.pod_uid.clone()?;
            let label = match (&o.namespace, &o.pod_name) {
                // The UID kept short: a pod re-created under the same name is another pod.
                (Some(ns), Some(n)) => format!("{ns}/{n} ({})", short(&uid, 8)),
                _ => format!("pod {uid}"),
            };
            Some((uid, label))
        }
        GroupBy::Namespace => {
            let o = o.filter(|o| o.kind == OwnerKind::Pod)?;
            Some(match &o.namespace {
                Some(ns) => (ns.clone(), format!("namespace {ns}")),
                None => (String::new(), NAMESPACE_UNKNOWN.into()),
            })
        }
        GroupBy::Container => {
            let c = o.and_then(Owner::container_ref).or(p.container.clone())?;
            let label = match o.filter(|o| o.kind == OwnerKind::Pod) {
                Some(o) => format!("{c} (pod {})", o.pod_uid.as_deref().unwrap_or("?")),
                None => c.clone(),
            };
            Some((c, label))
        }
        GroupBy::Job => {
            let o = o.filter(|o| o.kind == OwnerKind::SlurmJob)?;
            let job = o.slurm_job?;
            Some((job.to_string(), o.job_label()))
        }
        GroupBy::User => {
            let u = p.user.clone().or(p.uid.map(|u| format!("uid {u}")))?;
            Some((u.clone(), format!("user {u}")))
        }
        GroupBy::Unit => {
            let o = o.filter(|o| o.kind == OwnerKind::Unit)?;
            let unit = o.unit.clone()?;
            // One name, two units: a user manager's `jupyter.service` is not the system's.
            let key = match o.uid {
                Some(uid) => format!("{unit}@{uid}"),
                None => unit,
            };
            Some((key, o.label.clone()))
        }
        GroupBy::Owner => {
            let o = o?;
            Some((format!("{}:{}", o.kind.as_str(), o.label), o.label.clone()))
        }
    }
}

/// One group's share of one device: measured memory summed, unknown memory counted apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// The grouping value (pod UID, job id, unit, user, ...); `null` for the processes that
    /// have no such owner; `""` for pods whose namespace is not known (never a namespace's
    /// name: Kubernetes does not allow an empty one).
    pub key: Option<String>,
    pub label: String,
    /// Processes of the group on this device.
    pub processes: u32,
    /// Their measured memory on this device (known values only).
    pub memory_bytes: u64,
    /// Processes of the group whose memory on this device is unknown (inside unattributed).
    pub memory_unknown_processes: u32,
    pub pids: Vec<u32>,
}

/// The groups on one device, with the device's unattributed memory kept apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceGroups {
    pub device: String,
    pub index: u32,
    pub name: Option<String>,
    pub used_bytes: Option<u64>,
    /// Groups, most memory first; the group of processes without such an owner (key `null`)
    /// comes last.
    pub groups: Vec<Group>,
    /// Used minus every process's measured memory: no owner's (driver, other namespaces,
    /// processes whose memory is unknown).
    pub unattributed_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_attributed_bytes: Option<u64>,
}

/// Schema id of [`OwnerGroups`] as JSON (`snapshot --group-by ... --json`).
pub const GROUPS_SCHEMA: &str = "gpuledger.groups/1";

/// Measured memory per owner per device (`snapshot --group-by`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OwnerGroups {
    /// [`GROUPS_SCHEMA`].
    pub schema: String,
    pub group_by: GroupBy,
    pub taken_at: String,
    pub devices: Vec<DeviceGroups>,
    /// What the grouping cannot say, in words ([`NAMESPACE_UNKNOWN`], [`pod_names_unavailable`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<gpuledger_lang::Said>,
}

/// Sum each device's measured per-process memory by owner (`by`). Processes without such an
/// owner form one group of their own (key `None`); the device's unattributed memory is never
/// given to any group. The groups of a device add up to its attributed bytes.
pub fn group_memory(snap: &Snapshot, by: GroupBy) -> OwnerGroups {
    let devices = snap
        .devices
        .iter()
        .map(|d| {
            let mut groups: BTreeMap<Option<String>, Group> = BTreeMap::new();
            for p in &snap.processes {
                for u in p.usage.iter().filter(|u| u.device == d.uuid) {
                    let (key, label) = match group_key(p, by) {
                        Some((k, l)) => (Some(k), l),
                        None => (None, by.outside().to_string()),
                    };
                    let g = groups.entry(key.clone()).or_insert_with(|| Group {
                        key,
                        label,
                        processes: 0,
                        memory_bytes: 0,
                        memory_unknown_processes: 0,
                        pids: Vec::new(),
                    });
                    g.processes += 1;
                    g.pids.push(p.pid);
                    match u.memory_bytes {
                        Some(b) => g.memory_bytes = g.memory_bytes.saturating_add(b),
                        None => g.memory_unknown_processes += 1,
                    }
                }
            }
            let mut groups: Vec<Group> = groups.into_values().collect();
            for g in &mut groups {
                g.pids.sort_unstable();
                g.pids.dedup();
            }
            groups.sort_by(|a, b| {
                a.key
                    .is_none()
                    .cmp(&b.key.is_none())
                    .then(b.memory_bytes.cmp(&a.memory_bytes))
                    .then(a.label.cmp(&b.label))
            });
            DeviceGroups {
                device: d.uuid.clone(),
                index: d.index,
                name: d.name.clone(),
                used_bytes: d.memory.used_bytes,
                groups,
                unattributed_bytes: d.ledger.unattributed_bytes,
                over_attributed_bytes: d.ledger.over_attributed_bytes,
            }
        })
        .collect();
    let pods = snap
        .processes
        .iter()
        .any(|p| p.owner.as_ref().is_some_and(|o| o.kind == OwnerKind::Pod));
    let mut notes: Vec<gpuledger_lang::Said> = Vec::new();
    if pods && matches!(by, GroupBy::Pod | GroupBy::Namespace) {
        for p in &snap.processes {
            let Some(o) = p.owner.as_ref().filter(|o| o.kind == OwnerKind::Pod) else {
                continue;
            };
            if o.namespace.is_none() {
                let why = o.names_unavailable_reason.clone();
                let why = why.unwrap_or_else(pod_names_unavailable);
                if !notes.contains(&why) {
                    notes.push(why);
                }
            }
        }
    }
    OwnerGroups {
        schema: GROUPS_SCHEMA.into(),
        group_by: by,
        taken_at: snap.taken_at.clone(),
        devices,
        notes,
    }
}

#[cfg(test)]
mod tests;
