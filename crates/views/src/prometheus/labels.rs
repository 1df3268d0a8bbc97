//! The labels that say which process a series is about: built once per process and shared by
//! the measured and the estimated per-process families.

use super::family::safe;
use gpuledger_model::{OwnerKind, Process, Usage, WorkloadKind};

/// `workload` is the identified kind's stable id (`llama-cpp`, `ollama`, `pytorch`, ...; absent
/// when unidentified); `model` is the model file's base name without `.gguf` (a full path says
/// more about the machine than about the model), redacted like every label.
pub(super) fn workload_labels(p: &Process) -> (Option<String>, Option<String>) {
    let Some(w) = &p.workload else {
        return (None, None);
    };
    let kind = match w.kind {
        WorkloadKind::Unknown => None,
        k => serde_json::to_value(k)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string)),
    };
    (kind, safe(w.model_shown()))
}

/// The labels that say which process a series is about, built once per process and shared by
/// every per-process family.
pub(super) struct ProcessLabels {
    pub(super) pid: String,
    pub(super) name: Option<String>,
    pub(super) user: Option<String>,
    pub(super) container: Option<String>,
    /// Its owner's ids (from the cgroup): the pod, the Slurm job, the systemd unit.
    pub(super) pod_uid: Option<String>,
    /// The pod's namespace, name and container name, when the kubelet named them.
    pub(super) namespace: Option<String>,
    pub(super) pod: Option<String>,
    pub(super) container_name: Option<String>,
    pub(super) slurm_job: Option<String>,
    pub(super) unit: Option<String>,
    pub(super) workload: Option<String>,
    pub(super) model: Option<String>,
    /// For a process of a workload of several: its role (`worker TP1/2`) and the root's pid, so
    /// a dashboard can sum a workload's GPUs.
    pub(super) role: Option<String>,
    pub(super) workload_root: Option<String>,
    /// The one device the process was measured on, which its estimate is then a share of (a
    /// tensor-parallel worker's GPU); `None` for several or none.
    pub(super) only_device: Option<String>,
}

impl ProcessLabels {
    pub(super) fn of(p: &Process) -> Self {
        let (workload, model) = workload_labels(p);
        let member = p.workload.as_ref().and_then(|w| w.member.as_ref());
        let owner = p.owner.as_ref();
        ProcessLabels {
            pid: p.pid.to_string(),
            name: safe(p.name.as_deref()),
            user: safe(p.user.as_deref()),
            container: safe(p.container.as_deref()),
            pod_uid: owner.and_then(|o| o.pod_uid.clone()),
            namespace: owner.and_then(|o| safe(o.namespace.as_deref())),
            pod: owner.and_then(|o| safe(o.pod_name.as_deref())),
            container_name: owner.and_then(|o| safe(o.container_name.as_deref())),
            slurm_job: owner.and_then(|o| o.slurm_job).map(|j| j.to_string()),
            unit: owner
                .filter(|o| o.kind == OwnerKind::Unit)
                .and_then(|o| safe(o.unit.as_deref())),
            workload,
            model,
            role: member.map(|m| m.role.clone()),
            workload_root: member.and_then(|m| m.root_pid).map(|r| r.to_string()),
            only_device: match p.usage.as_slice() {
                [u] => Some(u.device.clone()),
                _ => None,
            },
        }
    }

    /// Labels of the process's use of one device (measured families).
    pub(super) fn on_device<'a>(&'a self, u: &'a Usage) -> [(&'static str, Option<&'a str>); 16] {
        [
            ("device", Some(u.device.as_str())),
            ("pid", Some(self.pid.as_str())),
            ("name", self.name.as_deref()),
            ("user", self.user.as_deref()),
            ("container", self.container.as_deref()),
            ("pod_uid", self.pod_uid.as_deref()),
            ("namespace", self.namespace.as_deref()),
            ("pod", self.pod.as_deref()),
            ("container_name", self.container_name.as_deref()),
            ("slurm_job", self.slurm_job.as_deref()),
            ("unit", self.unit.as_deref()),
            ("workload", self.workload.as_deref()),
            ("model", self.model.as_deref()),
            ("role", self.role.as_deref()),
            ("workload_root", self.workload_root.as_deref()),
            ("source", Some(u.memory_source.as_str())),
        ]
    }

    /// Labels of a figure about the whole process (estimated, or reported by its runtime): its
    /// one device when it holds one, so that a member's figure joins its own GPU's measured
    /// memory on `(pid, device)`; each family adds its own last label.
    pub(super) fn of_process(&self) -> Vec<(&'static str, Option<&str>)> {
        vec![
            ("device", self.only_device.as_deref()),
            ("pid", Some(self.pid.as_str())),
            ("name", self.name.as_deref()),
            ("user", self.user.as_deref()),
            ("workload", self.workload.as_deref()),
            ("model", self.model.as_deref()),
            ("role", self.role.as_deref()),
            ("workload_root", self.workload_root.as_deref()),
        ]
    }
}
