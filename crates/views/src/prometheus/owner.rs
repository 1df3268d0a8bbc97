//! Per-owner sums (docs/DESIGN.md concept 7): every process's measured memory on a device,
//! summed by owner, whatever `--processes` bounds the per-process series to. Processes with no
//! owner read (the root cgroup, an unreadable one) are one series of their own,
//! `owner_kind="none"`, so that the family adds up to the device's attributed bytes and, with
//! `gpuledger_device_memory_unattributed_bytes`, to its used memory.

use super::family::{Family, Val};
use gpuledger_model::{Owner, Snapshot};
use std::collections::BTreeMap;

/// The family's name.
pub const OWNER_MEMORY: &str = "gpuledger_owner_memory_bytes";

/// A label read off an owner (`None`: unknown, left out).
type OwnerLabel = fn(&Owner) -> Option<String>;

/// Which series a process's usage adds to: the device's position, and the owner's kind and
/// label (`None`: no owner read).
type SumKey<'a> = (usize, Option<(&'a str, &'a str)>);

/// The labels of one owner's series: the device, then the owner's kind, label and ids. Kept as
/// data: the order here is the exposition's.
/// The Slurm names are the job's environment's (each cut to 128 characters where read).
const LABELS: [(&str, OwnerLabel); 14] = [
    ("owner_kind", |o| Some(o.kind.as_str().to_string())),
    ("owner", |o| Some(o.label.clone())),
    ("pod_uid", |o| o.pod_uid.clone()),
    ("namespace", |o| o.namespace.clone()),
    ("pod", |o| o.pod_name.clone()),
    ("container_name", |o| o.container_name.clone()),
    ("qos_class", |o| o.qos_class.clone()),
    ("container", |o| o.container_ref()),
    ("slurm_job", |o| o.slurm_job.map(|j| j.to_string())),
    ("slurm_job_name", |o| o.slurm_job_name.clone()),
    ("slurm_partition", |o| o.slurm_partition.clone()),
    ("slurm_account", |o| o.slurm_account.clone()),
    ("unit", |o| o.unit.clone()),
    ("user", |o| o.user.clone()),
];

/// One device's sum for one owner (`None`: processes with no owner).
struct Sum<'a> {
    owner: Option<&'a Owner>,
    bytes: u64,
    /// At least one process's memory is known: a sum of nothing but unknowns is not 0.
    known: bool,
}

pub(super) fn owners(out: &mut String, snap: &Snapshot) {
    // (device position, owner kind and label) → sum, in device then owner order.
    let mut sums: BTreeMap<SumKey, Sum> = BTreeMap::new();
    for p in &snap.processes {
        let key = p
            .owner
            .as_ref()
            .map(|o| (o.kind.as_str(), o.label.as_str()));
        for u in &p.usage {
            let Some(dev) = snap.devices.iter().position(|d| d.uuid == u.device) else {
                continue;
            };
            let s = sums.entry((dev, key)).or_insert(Sum {
                owner: p.owner.as_ref(),
                bytes: 0,
                known: false,
            });
            if let Some(b) = u.memory_bytes {
                s.bytes = s.bytes.saturating_add(b);
                s.known = true;
            }
        }
    }
    let mut f = Family::new(
        out,
        OWNER_MEMORY,
        "gauge",
        "Measured device memory of every process of one owner (a pod, a Slurm job, a container, a systemd unit, a session), summed per device; owner_kind=\"none\" holds the processes whose owner could not be read. Adds up to the device's attributed bytes.",
    );
    for ((dev, _), s) in &sums {
        let d = &snap.devices[*dev];
        let index = d.index.to_string();
        let values: Vec<(&str, Option<String>)> = match s.owner {
            Some(o) => LABELS.iter().map(|(k, get)| (*k, get(o))).collect(),
            None => vec![("owner_kind", Some("none".into()))],
        };
        let mut labels: Vec<(&str, Option<&str>)> = vec![
            ("device", Some(d.uuid.as_str())),
            ("index", Some(index.as_str())),
        ];
        labels.extend(values.iter().map(|(k, v)| (*k, v.as_deref())));
        f.sample(&labels, s.known.then_some(Val::U(s.bytes)));
    }
}
