//! The owner of a process from the text of `/proc/<pid>/cgroup` (one parser for the rule, and
//! for the container id the snapshot's `container` field carries): a Kubernetes pod and its
//! container, a Slurm job and step, a container outside Kubernetes, a systemd unit, a login
//! session. The path shapes, each with where it was seen, are recorded under
//! `fixtures/cgroup/` (README there).
//!
//! The file has one line per hierarchy, `ID:CONTROLLERS:PATH` (`proc(5)`): cgroup v2 has one,
//! `0::/path`; v1 one per controller, which need not agree (Slurm v1 moves its tasks in the
//! controllers it uses, leaving `name=systemd` at `slurmd.service`). Every line is read and
//! the one naming the strongest owner wins (pod, Slurm job, container, unit or session, user),
//! ties to the unified line, then `name=systemd`, then the first.
//!
//! Path shapes (systemd and cgroupfs drivers):
//! - Kubernetes: `kubepods[-<qos>]-pod<UID with _>.slice` (systemd; a kind node prefixes
//!   `kubelet-`) or `kubepods/[<qos>/]pod<UID>` (cgroupfs), no QoS level for `guaranteed`;
//!   the container below it is `cri-containerd-<id>.scope`, `crio-<id>.scope`,
//!   `docker-<id>.scope`, containerd's unconverted `<slice>:cri-containerd:<id>`, or the bare
//!   id (cgroupfs).
//! - Slurm: `/system.slice/[<node>_]slurmstepd.scope/job_<id>/step_<step>/user/task_<n>`
//!   (cgroup/v2 plugin) and `/slurm[_<node>]/uid_<uid>/job_<id>/step_<step>/task_<n>`
//!   (cgroup/v1 plugin).
//!
//! Pods and jobs are taken by position, never by a segment's name alone: their trees must
//! start at the kubelet's or slurmd's cgroup roots (`roots`), as a user can make any cgroup
//! inside its own delegated subtree.
//! - Containers: `docker-<id>.scope`, `/docker/<id>`, `libpod-<id>.scope` (podman; its monitor
//!   `libpod-conmon-<id>.scope` is not the container).
//! - systemd: `<name>.service` (the innermost), `user-<uid>.slice/session-<id>.scope`,
//!   `user@<uid>.service/…` (a user's own services and application scopes).
//!
//! Segments `..` are dropped: a reader in another cgroup namespace sees paths outside its root
//! as `/../../…` (kernel `Documentation/admin-guide/cgroup-v2.rst`, "Namespace").

use gpuledger_model::{redact_text, Owner, OwnerKind};

/// The kubelet's pod-resources socket (its `--pod-resources-endpoint` default) and its
/// container log links: where pod names come from (`kube`).
pub const DEFAULT_KUBELET_SOCKET: &str = "/var/lib/kubelet/pod-resources/kubelet.sock";
pub const DEFAULT_CONTAINER_LOGS: &str = "/var/log/containers";

/// Segments read per path; a deeper one is cut (real paths have fewer than 12).
const MAX_SEGMENTS: usize = 64;

/// The owner `cgroup` (the text of `/proc/<pid>/cgroup`) names; `None` when no line names one
/// (the root cgroup, a bare slice, an unknown layout, garbage). The label is made without user
/// names: the caller adds them ([`Owner::relabel`]).
pub fn owner_from_cgroup(cgroup: &str) -> Option<Owner> {
    let mut best: Option<(u8, u8, Owner)> = None;
    for (n, line) in cgroup.lines().enumerate() {
        let mut parts = line.splitn(3, ':');
        let (Some(_id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if !path.starts_with('/') {
            continue;
        }
        let Some(owner) = from_path(path) else {
            continue;
        };
        let strength = 6 - owner.kind as u8;
        // Among equals: the unified line, then systemd's own hierarchy, then file order.
        let line_rank = match controllers {
            "" => 0,
            "name=systemd" => 1,
            _ => 2u8.saturating_add(n.min(200) as u8),
        };
        let better = best
            .as_ref()
            .is_none_or(|(s, l, _)| strength > *s || (strength == *s && line_rank < *l));
        if better {
            best = Some((strength, line_rank, owner));
        }
    }
    best.map(|(_, _, mut o)| {
        o.relabel();
        o
    })
}

/// What one path names, before user names.
#[derive(Default)]
struct Found {
    pod_uid: Option<String>,
    qos: Option<&'static str>,
    container: Option<(&'static str, String)>,
    job: Option<u64>,
    step: Option<String>,
    uid: Option<u32>,
    session: Option<String>,
    /// The innermost `.service` outside a user manager, then any `.scope` (`init.scope`).
    unit: Option<String>,
    scope: Option<String>,
    /// Inside `user@<uid>.service`: its innermost service, or scope.
    user_unit: Option<String>,
    user_manager: bool,
    /// Why a pod- or job-shaped path was not taken as one.
    note: Option<gpuledger_lang::Said>,
}

fn from_path(path: &str) -> Option<Owner> {
    let segs: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".." && *s != ".")
        .take(MAX_SEGMENTS)
        .collect();
    let mut f = Found::default();
    let pod = roots::pod_tree(&segs);
    if let Some(p) = &pod {
        f.pod_uid = Some(p.uid.clone());
        f.qos = Some(p.qos);
    }
    if let Some(j) = roots::slurm_tree(&segs) {
        f.job = Some(j.job);
        f.step = j.step.map(clean);
        f.uid = j.uid;
    }
    f.note = roots::doubt(&segs, pod.is_some(), f.job.is_some());
    for (i, seg) in segs.iter().enumerate() {
        // containerd's `<slice>:<prefix>:<id>` (its systemd form, not converted to a path).
        let (seg, colon) = match seg.split_once(':') {
            Some((slice, rest)) => (slice, Some(rest)),
            None => (*seg, None),
        };
        let parent = i.checked_sub(1).map(|p| segs[p]);
        // A container around the pod (a kind or minikube node) is not the pod's.
        let in_pod = pod.as_ref().is_some_and(|p| i >= p.at);
        if pod.as_ref().is_some_and(|p| i == p.at) {
            f.container = None;
        }
        // The innermost container wins (podman nests `libpod-<id>.scope/container`).
        let colon_form = colon.and_then(|rest| {
            let (prefix, id) = rest.split_once(':')?;
            container_in(&format!("{prefix}-{id}.scope"))
        });
        if let Some(c) = colon_form.or_else(|| container_in(seg)) {
            f.container = Some(c);
        } else if is_id(seg) && in_pod {
            f.container = Some(("kubepods", seg.to_ascii_lowercase()));
        } else if is_id(seg) && parent == Some("docker") {
            f.container = Some(("docker", seg.to_ascii_lowercase()));
        }
        systemd_segment(&mut f, seg);
    }
    if f.note.is_some() {
        // The look-alike's container id is as made up as its pod.
        f.container = None;
    }
    owner_of(f, path)
}

/// A `.slice`, `.service` or `.scope` segment: sessions, users, units.
fn systemd_segment(f: &mut Found, seg: &str) {
    if let Some(u) = seg
        .strip_prefix("user-")
        .and_then(|s| s.strip_suffix(".slice"))
        .and_then(|u| u.parse().ok())
    {
        f.uid = Some(u);
    } else if let Some(u) = seg
        .strip_prefix("user@")
        .and_then(|s| s.strip_suffix(".service"))
        .and_then(|u| u.parse().ok())
    {
        f.uid = Some(u);
        f.user_manager = true;
    } else if let Some(s) = seg
        .strip_prefix("session-")
        .and_then(|s| s.strip_suffix(".scope"))
        .filter(|s| !s.is_empty())
    {
        f.session = Some(clean(s));
    } else if seg.ends_with(".service") || seg.ends_with(".scope") {
        let is_service = seg.ends_with(".service");
        if f.user_manager {
            if is_service
                || f.user_unit
                    .as_deref()
                    .is_none_or(|u| !u.ends_with(".service"))
            {
                f.user_unit = Some(clean(seg));
            }
        } else if is_service {
            f.unit = Some(clean(seg));
        } else {
            f.scope = Some(clean(seg));
        }
    }
}

/// The owner a path's findings make, strongest kind first.
fn owner_of(f: Found, path: &str) -> Option<Owner> {
    let kind = if f.pod_uid.is_some() {
        OwnerKind::Pod
    } else if f.job.is_some() {
        OwnerKind::SlurmJob
    } else if f.container.is_some() {
        OwnerKind::Container
    } else if f.session.is_some() {
        OwnerKind::Session
    } else if f.user_manager
        && f.user_unit
            .as_deref()
            .is_some_and(|u| u.ends_with(".service"))
    {
        OwnerKind::Unit
    } else if f.user_manager || (f.uid.is_some() && f.unit.is_none() && f.scope.is_none()) {
        OwnerKind::User
    } else if f.unit.is_some() || f.scope.is_some() {
        OwnerKind::Unit
    } else {
        return None;
    };
    let mut o = Owner::new(kind, clean(path));
    if let Some((runtime, id)) = f.container {
        o.runtime = Some(runtime.into());
        o.container_id = Some(id);
    }
    o.pod_uid = f.pod_uid;
    o.qos_class = f.qos.map(str::to_string);
    if kind == OwnerKind::Pod {
        o.names_unavailable_reason = Some(gpuledger_model::owner::pod_names_unavailable());
    }
    o.note = f.note;
    o.slurm_job = f.job;
    o.slurm_step = f.step.filter(|_| f.job.is_some());
    o.uid = f.uid;
    o.session = f.session;
    o.unit = match kind {
        OwnerKind::Unit if f.user_manager => f.user_unit,
        OwnerKind::User => f.user_unit,
        OwnerKind::Unit => f.unit.or(f.scope),
        // A container's or a job's scope is not the owner people mean.
        _ => None,
    };
    if kind == OwnerKind::Unit && !f.user_manager {
        // A system unit's user is the process's own; the path's uid would be a slice's.
        o.uid = None;
    }
    Some(o)
}

/// A pod UID: a UUID, or a static pod's 32-hex config hash; hex digits and dashes.
pub(crate) fn pod_uid(s: &str) -> Option<String> {
    let ok = (8..=64).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
        && s.bytes().any(|b| b.is_ascii_hexdigit());
    ok.then(|| s.to_ascii_lowercase())
}

/// A container segment: `<runtime prefix><64 hex>[.scope]`.
pub(crate) fn container_in(seg: &str) -> Option<(&'static str, String)> {
    let stem = seg.strip_suffix(".scope").unwrap_or(seg);
    for (prefix, runtime) in [
        ("docker-", "docker"),
        ("libpod-", "podman"),
        ("cri-containerd-", "containerd"),
        ("crio-", "cri-o"),
    ] {
        if let Some(id) = stem.strip_prefix(prefix).filter(|id| is_id(id)) {
            return Some((runtime, id.to_ascii_lowercase()));
        }
    }
    None
}

pub(crate) fn is_id(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A name from a path, as every label is: secrets redacted (a transient unit's name is chosen
/// by whoever started it).
fn clean(s: &str) -> String {
    redact_text(s)
}

mod roots;
pub mod slurm;

// The kubelet's names for pods (a gRPC client of its unix socket).
#[cfg(unix)]
pub mod kubelet;
#[cfg(unix)]
pub use kubelet::kube;

#[cfg(all(test, unix))]
mod tests;
