use super::*;
use crate::test_support::{device, process, snapshot};
use gpuledger_lang::Said;

const UID: &str = "3f2a1b9c-5d6e-4f70-8a9b-0c1d2e3f4a5b";
const CTR: &str = "9b1c0d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c";

fn pod(uid: &str, ctr: Option<&str>) -> Owner {
    let mut o = Owner::new(OwnerKind::Pod, "/kubepods.slice/x");
    o.pod_uid = Some(uid.into());
    o.qos_class = Some("burstable".into());
    o.container_id = ctr.map(str::to_string);
    o.runtime = ctr.map(|_| "containerd".into());
    o.names_unavailable_reason = Some(pod_names_unavailable());
    o.relabel();
    o
}

fn job(id: u64, user: Option<&str>, uid: Option<u32>) -> Owner {
    let mut o = Owner::new(OwnerKind::SlurmJob, "/system.slice/slurmstepd.scope/job_1");
    o.slurm_job = Some(id);
    o.slurm_step = Some("0".into());
    o.user = user.map(str::to_string);
    o.uid = uid;
    o.relabel();
    o
}

#[test]
fn labels_are_short_and_say_whose() {
    assert_eq!(pod(UID, Some(CTR)).label, "pod 3f2a1b9c…/ctr 9b1c0d2e…");
    assert_eq!(pod(UID, None).label, "pod 3f2a1b9c…");
    // A static pod's UID is a 32-hex config hash: cut the same way.
    assert_eq!(
        pod("187bff14cccb94f179e943eacce55bb3", None).label,
        "pod 187bff14…"
    );
    assert_eq!(
        job(4711, Some("alice"), Some(1000)).label,
        "job 4711 (alice)"
    );
    let mut named = job(4711, Some("alice"), Some(1000));
    named.slurm_job_name = Some("train-llama".into());
    named.slurm_partition = Some("gpu".into());
    named.slurm_account = Some("ml".into());
    named.relabel();
    assert_eq!(
        named.label,
        "job 4711 train-llama (alice, partition gpu, account ml)"
    );
    named.user = None;
    named.uid = None;
    named.slurm_account = None;
    named.relabel();
    assert_eq!(named.label, "job 4711 train-llama (partition gpu)");
    assert_eq!(job(4711, None, Some(1000)).label, "job 4711 (uid 1000)");
    assert_eq!(job(4711, None, None).label, "job 4711");

    let mut unit = Owner::new(OwnerKind::Unit, "/system.slice/ollama.service");
    unit.unit = Some("ollama.service".into());
    unit.relabel();
    assert_eq!(unit.label, "unit ollama.service");
    unit.uid = Some(1001);
    unit.user = Some("bob".into());
    assert_eq!(unit.make_label(), "unit ollama.service (bob)");

    let mut c = Owner::new(OwnerKind::Container, "/system.slice/docker-x.scope");
    c.container_id = Some(CTR.into());
    c.runtime = Some("docker".into());
    c.relabel();
    assert_eq!(c.label, "docker:9b1c0d2e3f4a");
    assert_eq!(c.container_ref().unwrap(), format!("docker://{CTR}"));

    let mut s = Owner::new(
        OwnerKind::Session,
        "/user.slice/user-1000.slice/session-3.scope",
    );
    s.session = Some("3".into());
    s.uid = Some(1000);
    s.user = Some("alice".into());
    s.relabel();
    assert_eq!(s.label, "session 3 (alice)");
    let mut u = Owner::new(OwnerKind::User, "/user.slice/user-1000.slice");
    u.uid = Some(1000);
    u.relabel();
    assert_eq!(u.label, "user uid 1000");
}

#[test]
fn a_known_namespace_names_the_pod() {
    let mut o = pod(UID, Some(CTR));
    o.namespace = Some("ml".into());
    o.pod_name = Some("trainer-0".into());
    assert_eq!(o.make_label(), "ml/trainer-0/ctr 9b1c0d2e…");
}

#[test]
fn json_is_kebab_kind_and_leaves_unknowns_out() {
    let v = serde_json::to_value(job(4711, Some("alice"), Some(1000))).unwrap();
    assert_eq!(v["kind"], "slurm-job");
    assert_eq!(v["slurm_job"], 4711);
    assert!(v.get("pod_uid").is_none());
    let v = serde_json::to_value(pod(UID, None)).unwrap();
    assert_eq!(v["kind"], "pod");
    assert_eq!(
        v["names_unavailable_reason"],
        pod_names_unavailable().as_str()
    );
    let back: Owner = serde_json::from_value(v).unwrap();
    assert_eq!(back, pod(UID, None));
}

#[test]
fn group_by_parses_and_names_every_choice() {
    for g in GroupBy::ALL {
        assert_eq!(g.as_str().parse::<GroupBy>(), Ok(g));
    }
    let e = "pods".parse::<GroupBy>().unwrap_err();
    assert!(
        e.contains("pod, namespace, container, job, user, unit, owner"),
        "{e}"
    );
}

/// Three pods time-slicing GPU0 (one pod has two processes, one of unknown memory), a Slurm
/// job on GPU1, a process with no owner on GPU0.
fn node() -> Snapshot {
    let devices = vec![
        device(0, "GPU-0", None, Some(10_000)),
        device(1, "GPU-1", None, Some(5_000)),
    ];
    let uids = ["aaaaaaaa-0000", "bbbbbbbb-0000", "cccccccc-0000"];
    let procs: [(u32, &str, Option<u64>, Option<Owner>); 6] = [
        (10, "GPU-0", Some(1_000), Some(pod(uids[0], Some(CTR)))),
        (11, "GPU-0", Some(2_000), Some(pod(uids[1], Some(CTR)))),
        (12, "GPU-0", Some(3_000), Some(pod(uids[2], Some(CTR)))),
        (13, "GPU-0", None, Some(pod(uids[2], Some(CTR)))),
        (
            20,
            "GPU-1",
            Some(4_000),
            Some(job(4711, Some("alice"), Some(1000))),
        ),
        (30, "GPU-0", Some(500), None),
    ];
    let procs = procs.map(|(pid, dev, mem, owner)| {
        let mut p = process(pid, dev, mem);
        p.user = Some(if pid == 20 { "alice" } else { "root" }.into());
        p.owner = owner;
        p
    });
    snapshot("t", devices, procs.into())
}

#[test]
fn groups_sum_per_device_and_leave_unattributed_apart() {
    let s = node();
    let g = group_memory(&s, GroupBy::Pod);
    let d0 = &g.devices[0];
    let got: Vec<(Option<&str>, u64, u32, u32)> = d0
        .groups
        .iter()
        .map(|g| {
            (
                g.key.as_deref(),
                g.memory_bytes,
                g.processes,
                g.memory_unknown_processes,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (Some("cccccccc-0000"), 3_000, 2, 1),
            (Some("bbbbbbbb-0000"), 2_000, 1, 0),
            (Some("aaaaaaaa-0000"), 1_000, 1, 0),
            (None, 500, 1, 0),
        ]
    );
    assert_eq!(d0.groups[3].label, "not in a Kubernetes pod");
    // The groups add up to attributed; used = that + unattributed.
    let sum: u64 = d0.groups.iter().map(|g| g.memory_bytes).sum();
    assert_eq!(sum + d0.unattributed_bytes.unwrap(), 10_000);
    assert_eq!(g.notes, vec![pod_names_unavailable()]);

    let j = group_memory(&s, GroupBy::Job);
    let d1 = &j.devices[1];
    assert_eq!(d1.groups.len(), 1);
    assert_eq!(d1.groups[0].label, "job 4711 (alice)");
    assert_eq!(d1.groups[0].memory_bytes, 4_000);
    assert_eq!(d1.unattributed_bytes, Some(1_000));
    assert!(j.notes.is_empty());
}

#[test]
fn namespaces_are_never_invented() {
    let g = group_memory(&node(), GroupBy::Namespace);
    let d0 = &g.devices[0];
    assert_eq!(d0.groups[0].label, NAMESPACE_UNKNOWN);
    assert_eq!(d0.groups[0].memory_bytes, 6_000);
    assert_eq!(d0.groups[0].processes, 4);
    assert_eq!(g.notes, vec![pod_names_unavailable()]);
}

#[test]
fn kubelet_names_make_the_label_and_group_by_namespace() {
    let mut s = node();
    let mut named = 0;
    for p in &mut s.processes {
        let Some(o) = p.owner.as_mut().filter(|o| o.kind == OwnerKind::Pod) else {
            continue;
        };
        if o.pod_uid.as_deref() == Some("cccccccc-0000") {
            o.namespace = Some("ml".into());
            o.pod_name = Some("train-0".into());
            o.container_name = Some("trainer".into());
            o.names_unavailable_reason = None;
            o.relabel();
            named += 1;
        } else {
            o.names_unavailable_reason = Some("kubelet: connection refused".into());
        }
    }
    assert!(named > 0);
    let c = s
        .processes
        .iter()
        .find_map(|p| p.owner.as_ref().filter(|o| o.namespace.is_some()));
    assert_eq!(c.unwrap().label, "ml/train-0/trainer");
    let g = group_memory(&s, GroupBy::Namespace);
    let d0 = &g.devices[0];
    let ml = d0
        .groups
        .iter()
        .find(|g| g.key.as_deref() == Some("ml"))
        .unwrap();
    assert_eq!(
        (ml.label.as_str(), ml.memory_bytes),
        ("namespace ml", 3_000)
    );
    // The others keep their UID, and the reason the kubelet gave is the note, said once.
    assert_eq!(g.notes, vec![Said::from("kubelet: connection refused")]);
}

#[test]
fn users_units_and_owners_group_too() {
    let s = node();
    let u = group_memory(&s, GroupBy::User);
    assert_eq!(u.devices[0].groups[0].label, "user root");
    assert_eq!(u.devices[0].groups[0].memory_bytes, 6_500);
    let o = group_memory(&s, GroupBy::Owner);
    assert_eq!(o.devices[0].groups.len(), 4);
    assert_eq!(
        o.devices[0].groups.last().unwrap().label,
        "owner unknown (cgroup unreadable, or the root cgroup)"
    );
    let c = group_memory(&s, GroupBy::Container);
    // Three pods, one container id each in this made-up node: the same id, one group.
    assert_eq!(c.devices[0].groups[0].processes, 4);
    let n = group_memory(&s, GroupBy::Unit);
    assert_eq!(n.devices[0].groups.len(), 1);
    assert_eq!(n.devices[0].groups[0].key, None);
}
