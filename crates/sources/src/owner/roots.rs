//! Where a pod's or a Slurm job's cgroup tree may start. A cgroup's name says nothing about who
//! made it: a user may create any cgroup inside its own delegated systemd subtree
//! (`user@<uid>.service`, `Delegate=yes`), `kubepods…` and `slurmstepd.scope` included, and
//! move its processes there. So a pod is taken only from a tree that starts at one of the
//! kubelet's cgroup roots, and a job only from one of slurmd's; those are places only root can
//! write. Any other pod- or job-shaped path is named as what it sits in, with a note.
//!
//! Kubelet roots (kubelet `pkg/kubelet/cm`, `--cgroup-root` default `/`; cgroupfs and systemd
//! drivers, v1 and v2): `/kubepods[/<qos>]/pod<UID>` and `/kubepods.slice/kubepods[-<qos>]-pod
//! <UID with _>.slice`; a kind node's `--cgroup-root=/kubelet` (`/kubelet/kubepods/…`,
//! `/kubelet.slice/kubelet-kubepods…`); the same below a node's own container cgroup (minikube
//! and kind nodes: `/docker/<id>/`, `/system.slice/docker-<id>.scope/`); containerd's
//! unconverted v1 form under `/system.slice/containerd.service/`; and a path seen from another
//! cgroup namespace (`/../..` dropped), which starts wherever that namespace's root is.
//!
//! Slurm roots (slurm.schedmd.com/cgroups.html and cgroup_v2.html): cgroup/v1
//! `/slurm/uid_<uid>/job_<id>/step_<step>` and `/slurm_<node>/…` (a build with
//! `--enable-multiple-slurmd`, as Debian's slurm-wlm); cgroup/v2
//! `/system.slice/[<node>_]slurmstepd.scope/job_<id>/step_<step>`.

use super::{container_in, is_id, pod_uid};
use gpuledger_lang::Said;

/// A pod's tree: where its pod segment is, its UID and QoS class.
pub struct PodTree {
    pub at: usize,
    pub uid: String,
    pub qos: &'static str,
}

/// A Slurm job's tree: the job id, its step, and the uid (cgroup/v1 only).
pub struct SlurmTree<'a> {
    pub job: u64,
    pub step: Option<&'a str>,
    pub uid: Option<u32>,
}

/// The pod whose tree starts at a kubelet root of `segs`.
pub fn pod_tree(segs: &[&str]) -> Option<PodTree> {
    let from = node_prefix(segs);
    let rest = &segs[from..];
    // cgroupfs driver: `[kubelet/]kubepods/[<qos>/]pod<UID>`.
    let cgroupfs = rest.strip_prefix(&["kubelet"]).unwrap_or(rest);
    if let Some(tail) = cgroupfs.strip_prefix(&["kubepods"]) {
        let (qos, pod) = match tail {
            ["burstable", pod, ..] => ("burstable", *pod),
            ["besteffort", pod, ..] => ("besteffort", *pod),
            [pod, ..] => ("guaranteed", *pod),
            [] => return None,
        };
        let at = segs.len() - cgroupfs.len() + if qos == "guaranteed" { 1 } else { 2 };
        let uid = pod_uid(pod.strip_prefix("pod")?)?;
        return Some(PodTree { at, uid, qos });
    }
    // systemd driver: a chain of slices, each named after its parent (`kubepods.slice`,
    // `kubepods-burstable.slice`, `kubepods-burstable-pod<UID>.slice`), ending at the pod's.
    let mut parent: Option<&str> = None;
    for (i, seg) in rest.iter().enumerate() {
        // containerd's unconverted `<slice>:cri-containerd:<id>`.
        let stem = seg.split(':').next()?.strip_suffix(".slice")?;
        if let Some(p) = parent {
            // A child slice is its parent's name, a dash, and more.
            stem.strip_prefix(p)?.strip_prefix('-')?;
        }
        let bare = stem.strip_prefix("kubelet-").unwrap_or(stem);
        if let Some((level, uid)) = bare.rsplit_once("-pod") {
            let qos = match level {
                "kubepods" => "guaranteed",
                "kubepods-burstable" => "burstable",
                "kubepods-besteffort" => "besteffort",
                _ => return None,
            };
            let uid = pod_uid(&uid.replace('_', "-"))?;
            return Some(PodTree {
                at: from + i,
                uid,
                qos,
            });
        }
        let level = matches!(
            bare,
            "kubepods" | "kubepods-burstable" | "kubepods-besteffort"
        );
        if !(level || (stem == "kubelet" && i == 0)) {
            return None;
        }
        parent = Some(stem);
    }
    None
}

/// How many leading segments belong to a node's own cgroup (a node in a container, or
/// containerd's service on v1) before the kubelet's root.
fn node_prefix(segs: &[&str]) -> usize {
    match segs {
        ["docker", id, ..] if is_id(id) => 2,
        ["system.slice" | "machine.slice", c, ..] if container_in(c).is_some() => 2,
        ["system.slice", "containerd.service", ..] => 2,
        _ => 0,
    }
}

/// The job whose tree starts at a slurmd root of `segs`.
pub fn slurm_tree<'a>(segs: &[&'a str]) -> Option<SlurmTree<'a>> {
    let named = |n: &str| !n.is_empty();
    let (v1, rest) = match segs {
        [root, rest @ ..] if *root == "slurm" || root.strip_prefix("slurm_").is_some_and(named) => {
            (true, rest)
        }
        ["system.slice", scope, rest @ ..]
            if *scope == "slurmstepd.scope"
                || scope.strip_suffix("_slurmstepd.scope").is_some_and(named) =>
        {
            (false, rest)
        }
        _ => return None,
    };
    let (uid, rest) = if v1 {
        let (u, rest) = rest.split_first()?;
        (Some(u.strip_prefix("uid_")?.parse().ok()?), rest)
    } else {
        (None, rest)
    };
    let (job, rest) = rest.split_first()?;
    let job = job.strip_prefix("job_")?.parse().ok()?;
    let step = rest
        .first()
        .and_then(|s| s.strip_prefix("step_"))
        .filter(|s| !s.is_empty());
    Some(SlurmTree { job, step, uid })
}

/// Why a path shaped like a pod's or a job's was not taken as one (`None` when it was, or
/// when nothing in it looks like one).
pub fn doubt(segs: &[&str], pod: bool, job: bool) -> Option<Said> {
    let pod_like = !pod && segs.iter().any(|s| s.contains("kubepods"));
    let job_like = !job
        && segs.iter().any(|s| {
            s.strip_prefix("job_")
                .is_some_and(|j| j.parse::<u64>().is_ok())
        });
    let what = match (pod_like, job_like) {
        (false, false) => return None,
        (true, _) => "report-owner-shape-pod",
        (false, true) => "report-owner-shape-job",
    };
    let what = Said::new(what, vec![]);
    let manager = segs.iter().find(|s| {
        s.strip_prefix("user@")
            .and_then(|s| s.strip_suffix(".service"))
            .is_some_and(|u| u.parse::<u32>().is_ok())
    });
    Some(match manager {
        Some(m) => Said::new(
            "report-owner-doubt-delegated",
            vec![("what", what.into()), ("manager", (*m).into())],
        ),
        None if pod_like => Said::new(
            "report-owner-doubt-not-kubelet",
            vec![("what", what.into())],
        ),
        None => Said::new("report-owner-doubt-not-slurmd", vec![("what", what.into())]),
    })
}
