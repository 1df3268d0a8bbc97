use super::*;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/cgroup")
}

/// What a fixture must give: kind, label (without user names), and the ids worth checking.
struct Want {
    kind: Option<OwnerKind>,
    label: &'static str,
    pod_uid: Option<&'static str>,
    qos: Option<&'static str>,
    runtime: Option<&'static str>,
    job: Option<u64>,
    step: Option<&'static str>,
    uid: Option<u32>,
    unit: Option<&'static str>,
    /// Is the path's shape doubted in a note (a pod or job look-alike in a user's subtree)?
    note: bool,
}

const NONE: Want = Want {
    kind: None,
    label: "",
    pod_uid: None,
    qos: None,
    runtime: None,
    job: None,
    step: None,
    uid: None,
    unit: None,
    note: false,
};

fn pod(label: &'static str, uid: &'static str, qos: &'static str, rt: &'static str) -> Want {
    Want {
        kind: Some(OwnerKind::Pod),
        label,
        pod_uid: Some(uid),
        qos: Some(qos),
        runtime: Some(rt),
        ..NONE
    }
}

fn job(label: &'static str, job: u64, step: &'static str, uid: Option<u32>) -> Want {
    Want {
        kind: Some(OwnerKind::SlurmJob),
        label,
        job: Some(job),
        step: Some(step),
        uid,
        ..NONE
    }
}

fn other(
    kind: OwnerKind,
    label: &'static str,
    uid: Option<u32>,
    unit: Option<&'static str>,
) -> Want {
    Want {
        kind: Some(kind),
        label,
        uid,
        unit,
        ..NONE
    }
}

/// A pod- or job-shaped cgroup a user made in its own delegated subtree: that user's, doubted.
fn spoof(unit: Option<&'static str>) -> Want {
    Want {
        note: true,
        ..other(OwnerKind::User, "user uid 1000", Some(1000), unit)
    }
}

fn cases() -> BTreeMap<&'static str, Want> {
    use OwnerKind::*;
    BTreeMap::from([
        ("k8s-v2-systemd-containerd-burstable", pod("pod 414cbe69…/ctr 38091356…", "414cbe69-8d5a-4d9f-8ad4-6606f7f69e33", "burstable", "containerd")),
        ("k8s-v2-systemd-containerd-static-pod", pod("pod 187bff14…/ctr c203a264…", "187bff14cccb94f179e943eacce55bb3", "burstable", "containerd")),
        ("k8s-v2-systemd-guaranteed", pod("pod 16e6a747…/ctr 7dea796e…", "16e6a747-9d40-4120-bbac-ca7cd274fdd9", "guaranteed", "containerd")),
        ("k8s-v2-kind-besteffort", pod("pod 1e597579…/ctr a09bc17f…", "1e597579-417e-482f-bf65-5fe170c3aebd", "besteffort", "containerd")),
        ("k8s-v2-cgroupns-relative", pod("pod 1e597579…/ctr a09bc17f…", "1e597579-417e-482f-bf65-5fe170c3aebd", "besteffort", "containerd")),
        ("k8s-v2-minikube-node-in-docker", pod("pod ae7a96fb…/ctr 89e8f450…", "ae7a96fb-2bdc-46b0-96e2-78e4af94847b", "besteffort", "cri-o")),
        ("k8s-v2-cgroupfs-burstable", pod("pod 4d067662…/ctr 6edf3ace…", "4d067662-b250-46f6-b1d1-82195608c00f", "burstable", "kubepods")),
        ("k8s-v1-cgroupfs-guaranteed", pod("pod 88bcf96e…/ctr 6edf3ace…", "88bcf96e-7b92-4ce5-a3c0-2a6d098a1c33", "guaranteed", "kubepods")),
        ("k8s-v1-systemd-docker-burstable", pod("pod 7d4424e6…/ctr d0b3604b…", "7d4424e6-bb13-42f4-a47a-45a4828bf54d", "burstable", "docker")),
        ("k8s-v1-systemd-crio-burstable", pod("pod a5c1f8d5…/ctr 5eed9175…", "a5c1f8d5-1919-434d-add7-4afaafdaef89", "burstable", "cri-o")),
        ("k8s-v1-containerd-unconverted-systemd-path", pod("pod 0125ec2f…/ctr ee4b20e9…", "0125ec2f-b64a-4868-8f5b-94b56cbab864", "besteffort", "containerd")),
        ("slurm-v2-task", job("job 1392969", 1392969, "0", None)),
        ("slurm-v2-stepd", job("job 3385", 3385, "extern", None)),
        ("slurm-v2-multiple-slurmd-interactive", job("job 3385", 3385, "interactive", None)),
        ("slurm-v2-batch-task-special", job("job 4711", 4711, "batch", None)),
        ("slurm-v2-infinity", other(Unit, "unit slurmstepd.scope", None, Some("slurmstepd.scope"))),
        ("slurm-v1-multiple-slurmd", job("job 2 (uid 1000)", 2, "0", Some(1000))),
        ("spoof-user-delegated-pod-v2", spoof(Some("cri-containerd-3f4e2a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f.scope"))),
        ("spoof-user-delegated-job-v2", spoof(Some("slurmstepd.scope"))),
        ("spoof-user-delegated-pod-v1", spoof(None)),
        ("spoof-user-delegated-job-v1", spoof(None)),
        ("slurm-v1-task", job("job 280678 (uid 2101171)", 280678, "interactive", Some(2101171))),
        ("systemd-service-ollama", other(Unit, "unit ollama.service", None, Some("ollama.service"))),
        ("systemd-v1-service", other(Unit, "unit ollama.service", None, Some("ollama.service"))),
        ("systemd-slurmd", other(Unit, "unit slurmd.service", None, Some("slurmd.service"))),
        ("systemd-init-scope", other(Unit, "unit init.scope", None, Some("init.scope"))),
        ("session-ssh", other(Session, "session 3 (uid 1000)", Some(1000), None)),
        ("session-v1-runc-child", other(Session, "session 67 (uid 1000)", Some(1000), None)),
        ("user-app-scope", other(User, "user uid 1000", Some(1000), Some("app-gnome-kitty-3842.scope"))),
        ("user-service", other(Unit, "unit jupyter.service (uid 1001)", Some(1001), Some("jupyter.service"))),
        ("docker-v2-systemd", Want { runtime: Some("docker"), ..other(Container, "docker:8f2a6c3e1b4d", None, None) }),
        ("docker-v1-cgroupfs", Want { runtime: Some("docker"), ..other(Container, "docker:611a8d133d2c", None, None) }),
        ("podman-rootless", Want { runtime: Some("podman"), ..other(Container, "podman:c0ffee01c0ff", Some(1000), None) }),
        ("podman-conmon", other(Unit, "unit libpod-conmon-c0ffee01c0ffee01c0ffee01c0ffee01c0ffee01c0ffee01c0ffee01c0ffee01.scope", None, Some("libpod-conmon-c0ffee01c0ffee01c0ffee01c0ffee01c0ffee01c0ffee01c0ffee01c0ffee01.scope"))),
        ("root", NONE),
        ("v1-host-root", NONE),
        ("v1-bare-system-slice", NONE),
        ("talos-system-container", NONE),
    ])
}

#[test]
fn every_fixture_names_its_owner() {
    let cases = cases();
    let mut seen = 0;
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "cgroup") {
            continue;
        }
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let want = cases
            .get(name.as_str())
            .unwrap_or_else(|| panic!("{name}: no expected owner in this table"));
        let text = std::fs::read_to_string(&path).unwrap();
        let got = owner_from_cgroup(&text);
        seen += 1;
        let Some(kind) = want.kind else {
            assert_eq!(got, None, "{name}");
            continue;
        };
        let o = got.unwrap_or_else(|| panic!("{name}: no owner found"));
        assert_eq!(o.kind, kind, "{name}");
        assert_eq!(o.label, want.label, "{name}");
        assert_eq!(o.pod_uid.as_deref(), want.pod_uid, "{name}");
        assert_eq!(o.qos_class.as_deref(), want.qos, "{name}");
        assert_eq!(o.runtime.as_deref(), want.runtime, "{name}");
        assert_eq!(o.slurm_job, want.job, "{name}");
        assert_eq!(o.slurm_step.as_deref(), want.step, "{name}");
        assert_eq!(o.uid, want.uid, "{name}");
        assert_eq!(o.unit.as_deref(), want.unit, "{name}");
        assert_eq!(o.runtime.is_some(), o.container_id.is_some(), "{name}");
        assert_eq!(o.note.is_some(), want.note, "{name}: {:?}", o.note);
        if let Some(id) = &o.container_id {
            assert!(is_id(id), "{name}: {id}");
        }
        assert_eq!(
            o.names_unavailable_reason.is_some(),
            kind == OwnerKind::Pod,
            "{name}: a pod says why its name is unknown"
        );
    }
    assert_eq!(seen, cases.len(), "a case without a fixture file");
}

const ID: &str = "3f4e2a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f";

fn container(cgroup: &str) -> Option<String> {
    owner_from_cgroup(cgroup).and_then(|o| o.container_ref())
}

/// The container ids the snapshot's `container` field has always carried.
#[test]
fn container_ids_keep_their_runtime_spelling() {
    let cases = [
        (format!("0::/system.slice/docker-{ID}.scope\n"), "docker"),
        (format!("12:memory:/docker/{ID}\n11:cpu:/docker/{ID}\n"), "docker"),
        (format!("0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-{ID}.scope/container\n"), "podman"),
        (format!("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c3d4e.slice/cri-containerd-{ID}.scope\n"), "containerd"),
        (format!("0::/kubepods.slice/kubepods-pod1b2c3d4e.slice/crio-{ID}.scope\n"), "cri-o"),
        (format!("4:devices:/kubepods/burstable/pod0f1e2d3c-aaaa-bbbb-cccc-111122223333/{ID}\n"), "kubepods"),
    ];
    for (text, rt) in cases {
        assert_eq!(container(&text), Some(format!("{rt}://{ID}")), "{text}");
    }
    assert_eq!(
        container("0::/user.slice/user-1000.slice/session-2.scope\n"),
        None
    );
    assert_eq!(container("0::/\n"), None);
    assert_eq!(
        container(&format!("0::/machine.slice/libpod-conmon-{ID}.scope\n")),
        None
    );
    assert_eq!(container("garbage"), None);
}

#[test]
fn the_strongest_line_wins_whatever_the_order() {
    let job = "4:memory:/slurm/uid_1000/job_7/step_0/task_0\n";
    let unit = "1:name=systemd:/system.slice/slurmd.service\n";
    for text in [format!("{job}{unit}"), format!("{unit}{job}")] {
        let o = owner_from_cgroup(&text).unwrap();
        assert_eq!(
            (o.kind, o.slurm_job),
            (OwnerKind::SlurmJob, Some(7)),
            "{text}"
        );
    }
    // Equal strength: the unified line is the one systemd keeps current.
    let o =
        owner_from_cgroup("1:name=systemd:/system.slice/a.service\n0::/system.slice/b.service\n")
            .unwrap();
    assert_eq!(o.unit.as_deref(), Some("b.service"));
}

#[test]
fn look_alikes_are_not_owners() {
    for text in [
        // Not under kubepods: a user's slice named like a pod.
        "0::/system.slice/my-pod1234abcd.slice\n",
        // A job directory outside any Slurm root.
        "0::/job_4711/step_0\n",
        // A pod segment whose UID is not hex.
        "0::/kubepods.slice/kubepods-podxxxxxxxx.slice\n",
        "0::relative/path\n",
        "",
    ] {
        let o = owner_from_cgroup(text);
        assert!(
            o.as_ref()
                .is_none_or(|o| o.kind != OwnerKind::Pod && o.kind != OwnerKind::SlurmJob),
            "{text:?} gave {o:?}"
        );
    }
}

/// Pods and jobs are taken by where their tree starts (the kubelet's and slurmd's cgroup roots),
/// never by a look-alike segment further down.
#[test]
fn owners_by_position_not_by_substring() {
    let uid = "7c0ffee0-1111-4222-8333-944445555666";
    let sd = "7c0ffee0_1111_4222_8333_944445555666";
    let pods = [
        // cgroupfs driver under kind's `--cgroup-root=/kubelet`.
        format!("0::/kubelet/kubepods/burstable/pod{uid}/{ID}\n"),
        // A node inside a systemd-driven docker container.
        format!("0::/system.slice/docker-{ID}.scope/kubepods.slice/kubepods-pod{sd}.slice/cri-containerd-{ID}.scope\n"),
    ];
    for text in &pods {
        let o = owner_from_cgroup(text).unwrap();
        assert_eq!(
            (o.kind, o.pod_uid.as_deref()),
            (OwnerKind::Pod, Some(uid)),
            "{text}"
        );
        assert_eq!(o.note, None, "{text}");
    }
    let not_pods = [
        // Made by a system service, not under the kubelet's root.
        format!("0::/system.slice/evil.service/kubepods/burstable/pod{uid}/{ID}\n"),
        // A foreign slice inside the chain (systemd would name it `kubepods-…`).
        format!("0::/kubepods.slice/evil.slice/kubepods-burstable-pod{sd}.slice/crio-{ID}.scope\n"),
        // A pod slice under a QoS slice it does not extend.
        format!("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-burstable-pod{sd}.slice\n"),
        // A user's rootless container shaped like a node (a user may run kind; its pods are theirs).
        format!("0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-{ID}.scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod{sd}.slice/cri-containerd-{ID}.scope\n"),
    ];
    for text in &not_pods {
        let o = owner_from_cgroup(text);
        assert!(
            o.as_ref().is_none_or(|o| o.kind != OwnerKind::Pod
                && o.pod_uid.is_none()
                && o.note.is_some()),
            "{text}: {o:?}"
        );
    }
    let evil = owner_from_cgroup(&not_pods[0]).unwrap();
    assert_eq!(
        (evil.kind, evil.unit.as_deref()),
        (OwnerKind::Unit, Some("evil.service"))
    );
    assert!(evil.note.unwrap().contains("kubelet's cgroup root"));
    let rootless = owner_from_cgroup(&not_pods[3]).unwrap();
    assert_eq!((rootless.kind, rootless.uid), (OwnerKind::User, Some(1000)));
    assert!(rootless.note.unwrap().contains("user@1000.service"));
    for text in [
        // Slurm's tree below its root only: uid, then job (v1); job (v2).
        "4:memory:/system.slice/slurm/uid_1000/job_7/step_0\n",
        "0::/system.slice/other.service/slurmstepd.scope/job_7/step_0\n",
        "0::/slurmstepd.scope/job_7/step_0\n",
        "4:memory:/slurm/job_7/step_0\n",
        "4:memory:/slurm_/uid_1000/job_7/step_0\n",
    ] {
        let o = owner_from_cgroup(text);
        assert!(
            o.as_ref()
                .is_none_or(|o| o.kind != OwnerKind::SlurmJob && o.slurm_job.is_none()),
            "{text}: {o:?}"
        );
    }
}

#[test]
fn names_from_paths_are_redacted() {
    let o =
        owner_from_cgroup("0::/system.slice/run-token=hf_SECRETSECRETSECRET.service\n").unwrap();
    assert!(!o.label.contains("SECRETSECRET"), "{}", o.label);
    assert!(!o.cgroup.contains("SECRETSECRET"), "{}", o.cgroup);
}

proptest::proptest! {
    #[test]
    fn never_panics(s in "(?s).{0,300}") {
        let _ = owner_from_cgroup(&s);
    }

    #[test]
    fn never_panics_on_path_like_text(segs in proptest::collection::vec(
        "(kubepods|kubepods-burstable-pod[0-9a-f_]{0,40}\\.slice|pod[0-9a-f-]{0,40}|slurm|slurmstepd\\.scope|job_[0-9]{0,25}|step_[a-z0-9]{0,8}|uid_[0-9]{0,12}|user-[0-9]{0,12}\\.slice|user@[0-9]{0,12}\\.service|session-[0-9a-z]{0,5}\\.scope|[a-z]{0,8}\\.service|\\.\\.|docker-[0-9a-f]{64}\\.scope|[0-9a-f]{64}|x:y:z)",
        0..12,
    )) {
        let _ = owner_from_cgroup(&format!("0::/{}\n", segs.join("/")));
    }
}
