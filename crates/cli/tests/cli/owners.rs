//! Who uses a shared GPU: on a recorded node with three pods time-slicing GPU0 and
//! a Slurm job on GPU1, `snapshot` names each process's owner (JSON and table) and
//! `--group-by` sums each pod's and the job's VRAM per GPU, unattributed kept apart. The
//! Prometheus side, scraped by a real Prometheus, is in `serve_prometheus.rs`.

use crate::support::*;
use std::collections::BTreeMap;

#[test]
fn snapshot_json_names_the_pod_container_and_job_of_each_process() {
    let m = Machine::shared_node();
    let v = m.json(&["snapshot", "--json"]);
    for (uid, qos, procs) in PODS {
        for (pid, ctr, _) in procs {
            let o = &process(&v, u64::from(*pid))["owner"];
            assert_eq!(o["kind"], "pod", "{o}");
            assert_eq!(o["pod_uid"], uid);
            let want_qos = if qos.is_empty() { "guaranteed" } else { qos };
            assert_eq!(o["qos_class"], want_qos);
            assert_eq!(o["container_id"], *ctr);
            assert_eq!(o["runtime"], "containerd");
            assert_eq!(o["label"], format!("pod {}…/ctr {}…", &uid[..8], &ctr[..8]));
            // Never guessed: the name and namespace are absent, with the reason (this node
            // has no kubelet socket).
            assert!(o.get("namespace").is_none() && o.get("pod_name").is_none());
            let why = o["names_unavailable_reason"].as_str().unwrap();
            assert!(why.starts_with("pod UID only: "), "{why}");
            assert!(
                why.contains("kubelet pod-resources API: no socket at"),
                "{why}"
            );
            // The container field the snapshot always had, from the same parser.
            assert_eq!(
                process(&v, u64::from(*pid))["container"],
                format!("containerd://{ctr}")
            );
        }
    }
    let job = &process(&v, u64::from(JOB.1))["owner"];
    assert_eq!(job["kind"], "slurm-job");
    assert_eq!(job["slurm_job"], JOB.0);
    assert_eq!(job["slurm_step"], "0");
    // cgroup v2 paths carry no uid: the task's own user is the job's.
    assert_eq!(
        (job["uid"].as_u64(), job["user"].as_str()),
        (Some(1000), Some("alice"))
    );
    assert_eq!(job["label"], "job 4711 (alice)");
    // The snapshot says once what it cannot name, and why.
    let notes = strings(&v["notes"]);
    assert!(
        notes.iter().any(|n| n
            .starts_with("4 GPU processes in Kubernetes pods shown by pod UID: pod UID only")
            && n.contains("kubelet pod-resources API: no socket at")),
        "{notes:?}"
    );
}

#[test]
fn the_table_has_an_owner_column() {
    let m = Machine::shared_node();
    let t = ok_stdout(&m.run(&["snapshot"]));
    let header = t.lines().find(|l| l.contains("PID")).unwrap();
    assert!(header.contains("OWNER"), "{t}");
    let row = |pid: u32| {
        t.lines()
            .find(|l| l.trim_start().starts_with(&pid.to_string()))
            .unwrap()
    };
    assert!(row(7002).contains("pod 16e6a747…/ctr 7dea796e…"), "{t}");
    assert!(row(JOB.1).contains("job 4711 (alice)"), "{t}");
}

/// `{ key → memory_bytes }` of one device's groups.
fn sums(dev: &serde_json::Value) -> BTreeMap<String, u64> {
    dev["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["key"].as_str().unwrap_or("<none>").to_string(),
                g["memory_bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn group_by_pod_gives_each_pods_vram_and_keeps_unattributed_apart() {
    let m = Machine::shared_node();
    let g = m.json(&["snapshot", "--group-by", "pod", "--json"]);
    assert_eq!(g["schema"], "gpuledger.groups/1");
    assert_eq!(g["group_by"], "pod");
    let d0 = &g["devices"][0];
    assert_eq!(d0["device"], NODE_G0);
    let got = sums(d0);
    for (uid, _, procs) in PODS {
        let want: u64 = procs.iter().map(|p| p.2).sum();
        assert_eq!(got[uid], want, "pod {uid}: {got:?}");
    }
    assert_eq!(
        got.len(),
        3,
        "no group for processes outside pods on GPU0: {got:?}"
    );
    // The pods' sums and the unattributed row add up to what the device uses.
    let pods: u64 = got.values().sum();
    assert_eq!(
        pods + d0["unattributed_bytes"].as_u64().unwrap(),
        NODE_G0_USED
    );
    // GPU1 has no pod: the job's task is "not in a Kubernetes pod".
    let d1 = &g["devices"][1];
    assert_eq!(d1["groups"][0]["key"], serde_json::Value::Null);
    assert_eq!(d1["groups"][0]["label"], "not in a Kubernetes pod");
    assert!(g["notes"][0]
        .as_str()
        .unwrap()
        .contains("kubelet pod-resources API: no socket at"));
}

#[test]
fn group_by_job_namespace_and_owner() {
    let m = Machine::shared_node();
    let j = m.json(&["snapshot", "--group-by", "job", "--json"]);
    let d1 = &j["devices"][1];
    assert_eq!(sums(d1)["4711"], JOB.2);
    assert_eq!(d1["groups"][0]["label"], "job 4711 (alice)");
    assert_eq!(
        JOB.2 + d1["unattributed_bytes"].as_u64().unwrap(),
        NODE_G1_USED
    );

    // Namespaces are not in a cgroup path: one group that says so, never a made-up name.
    let n = m.json(&["snapshot", "--group-by", "namespace", "--json"]);
    let groups = n["devices"][0]["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert!(groups[0]["label"]
        .as_str()
        .unwrap()
        .contains("the kubelet could not name the pod"));
    assert_eq!(groups[0]["processes"], 4);

    let t = ok_stdout(&m.run(&["snapshot", "--group-by", "owner"]));
    assert!(
        t.starts_with("gpuledger snapshot --group-by owner · gpu-box · "),
        "{t}"
    );
    // The last cells of a row: processes, then the memory.
    let tail = |needle: &str| -> String {
        let l = t
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} in\n{t}"));
        let cells: Vec<&str> = l.split_whitespace().collect();
        cells[cells.len() - 3..].join(" ")
    };
    assert_eq!(tail("pod 16e6a747…/ctr 7dea796e…"), "1 12 GiB", "{t}");
    assert_eq!(tail("job 4711 (alice)"), "1 6 GiB", "{t}");
    assert!(tail("unattributed").ends_with("9.25 GiB"), "{t}");
}

#[test]
fn group_by_refuses_csv_and_unknown_keys() {
    let m = Machine::shared_node();
    let out = m.run(&["snapshot", "--group-by", "pod", "--format", "csv"]);
    assert!(!out.status.success());
    assert!(stderr_of(&out).contains("not CSV"), "{}", stderr_of(&out));
    let out = m.run(&["snapshot", "--group-by", "pods"]);
    assert!(!out.status.success());
    assert!(
        stderr_of(&out).contains("pod, namespace, container, job, user, unit, owner"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn explain_names_the_owner_and_the_cgroup_that_says_so() {
    let m = Machine::shared_node();
    let t = ok_stdout(&m.run(&["explain", "7002", "--no-probe"]));
    let line = t
        .lines()
        .find(|l| l.contains("owner:"))
        .unwrap_or_else(|| panic!("{t}"));
    assert_eq!(
        line,
        "  owner: pod 16e6a747…/ctr 7dea796e… · cgroup /kubepods.slice/kubepods-pod16e6a747_9d40_4120_bbac_ca7cd274fdd9.slice/cri-containerd-7dea796eb5d6826a85978fa316612874aa3d576ac576495bed83d77fbc9dc744.scope"
    );
    assert!(
        t.contains("  pod name and namespace n/a: pod UID only: container log links unreadable"),
        "{t}"
    );
    let t = ok_stdout(&m.run(&["explain", "8001", "--no-probe"]));
    assert!(t.contains("  owner: job 4711 (alice) · cgroup /system.slice/slurmstepd.scope/job_4711/step_0/user/task_0\n"), "{t}");
}

/// The node with its kubelet (a real gRPC server of the pod-resources v1 proto, and the
/// container log links): every pod on the time-sliced GPU gets its namespace, name and
/// container, its assigned replica, and `--group-by namespace` sums per namespace.
#[cfg(unix)]
#[test]
fn with_the_kubelet_each_pod_on_the_shared_gpu_is_named_and_namespaces_sum() {
    let Some(py) = grpc_python() else { return };
    let kubelet = Kubelet::start(&py);
    let m = Machine::shared_node();
    let with = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = kubelet.args();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let args = with(&["snapshot", "--json"]);
    let v = m.json(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let mut replica = 0;
    for ((uid, _, procs), (ns, pod, names)) in PODS.iter().zip(POD_NAMES) {
        for ((pid, _, _), name) in procs.iter().zip(names.iter()) {
            let o = &process(&v, u64::from(*pid))["owner"];
            assert_eq!(o["pod_uid"], *uid);
            assert_eq!(o["label"], format!("{ns}/{pod}/{name}"), "{o}");
            assert_eq!(
                (o["namespace"].as_str(), o["pod_name"].as_str()),
                (Some(ns), Some(pod))
            );
            assert!(o.get("names_unavailable_reason").is_none(), "{o}");
            if *name == "tokenizer" {
                assert!(o.get("assigned_devices").is_none(), "{o}");
            } else {
                assert_eq!(
                    o["assigned_devices"][0],
                    format!("nvidia.com/gpu={NODE_G0}::{replica}")
                );
                replica += 1;
            }
        }
    }
    let kubelet_source = v["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "kubelet")
        .expect("a kubelet source status");
    assert_eq!(kubelet_source["status"], "ok", "{kubelet_source}");
    assert!(
        kubelet_source["detail"]
            .as_str()
            .unwrap()
            .starts_with("4 pods listed, 5 allocatable GPU device ids; 4 GPU processes named"),
        "{kubelet_source}"
    );

    // Which container each GPU (replica) was given to, idle ones included.
    let assigned: Vec<(String, String)> = v["device_assignments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let who = format!(
                "{}/{}/{}",
                a["namespace"].as_str().unwrap(),
                a["pod"].as_str().unwrap(),
                a["container"].as_str().unwrap()
            );
            (a["device_id"].as_str().unwrap().to_string(), who)
        })
        .collect();
    assert_eq!(assigned.len(), 4, "{assigned:?}");
    assert!(assigned.contains(&(format!("{NODE_G0}::2"), "team-b/embedder-0/tei".into())));
    assert!(assigned.contains(&(NODE_G1.into(), "team-c/render-0/blender".into())));

    let args = with(&["snapshot", "--group-by", "namespace", "--json"]);
    let g = m.json(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let d0 = &g["devices"][0];
    let got = sums(d0);
    let of = |i: usize| -> u64 { PODS[i].2.iter().map(|p| p.2).sum() };
    assert_eq!(got["team-a"], of(0), "{got:?}");
    assert_eq!(got["team-b"], of(1) + of(2), "{got:?}");
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(
        got.values().sum::<u64>() + d0["unattributed_bytes"].as_u64().unwrap(),
        NODE_G0_USED
    );
    assert!(g.get("notes").is_none(), "{g}");

    let args = with(&["snapshot", "--group-by", "pod"]);
    let t = ok_stdout(&m.run(&args.iter().map(String::as_str).collect::<Vec<_>>()));
    assert!(t.contains("\n  team-b/embedder-0 (1e597579…)  "), "{t}");
    let args = with(&["explain", "7001", "--no-probe"]);
    let t = ok_stdout(&m.run(&args.iter().map(String::as_str).collect::<Vec<_>>()));
    assert!(
        t.contains("  owner: team-a/chat-7d9f8b6c5d-x2k4p/vllm · cgroup /kubepods.slice/"),
        "{t}"
    );
    assert!(
        t.contains(&format!(
            "  devices the kubelet assigned: nvidia.com/gpu={NODE_G0}::0\n"
        )),
        "{t}"
    );
}

/// The shared node, with the job's task environment as slurmd sets it, and bob's process in a
/// pod-shaped cgroup he made in his own delegated subtree, named after pod 414cbe69's container.
fn node_with_names_and_a_look_alike() -> Machine {
    let procs = node_procs();
    std::fs::write(
        procs.root().join(JOB.1.to_string()).join("environ"),
        "HOME=/home/alice\0SLURM_JOB_ID=4711\0SLURM_JOB_NAME=train-llama\0SLURM_JOB_USER=alice\0SLURM_JOB_PARTITION=gpu\0SLURM_JOB_ACCOUNT=ml\0",
    )
    .unwrap();
    let (uid, _, procs_of) = PODS[0];
    let slice = format!("kubepods-burstable-pod{}.slice", uid.replace('-', "_"));
    procs.add(9001, "python3", 1001, 700_000, &["python3", "steal.py"]);
    procs.cgroup(
        9001,
        &format!(
            "0::/user.slice/user-1001.slice/user@1001.service/kubepods.slice/kubepods-burstable.slice/{slice}/cri-containerd-{}.scope\n",
            procs_of[0].1
        ),
    );
    let mut scenario = node_scenario();
    scenario.push_str("compute|dev=0|pid=9001|mem=1073741824\n");
    Machine::new(&scenario, procs)
}

#[test]
fn a_job_is_named_from_its_environment_and_a_look_alike_pod_is_its_users() {
    let m = node_with_names_and_a_look_alike();
    let v = m.json(&["snapshot", "--json"]);
    let job = &process(&v, u64::from(JOB.1))["owner"];
    assert_eq!(
        job["label"],
        "job 4711 train-llama (alice, partition gpu, account ml)"
    );
    assert_eq!(
        (
            &job["slurm_job_name"],
            &job["slurm_partition"],
            &job["slurm_account"]
        ),
        (&"train-llama".into(), &"gpu".into(), &"ml".into())
    );
    let from = job["slurm_source"].as_str().unwrap();
    assert!(from.contains(&format!("/proc/{}/environ", JOB.1)), "{from}");
    // Bob is not billed as the pod: his own, with the reason.
    let spoof = &process(&v, 9001)["owner"];
    assert_eq!(spoof["kind"], "user", "{spoof}");
    assert!(spoof.get("pod_uid").is_none() && spoof.get("container_id").is_none());
    assert!(spoof["note"]
        .as_str()
        .unwrap()
        .contains("user@1001.service"));
    let notes = strings(&v["notes"]);
    assert!(notes.iter().any(|n| n.contains("(PID 9001)")), "{notes:?}");
    let g = m.json(&["snapshot", "--group-by", "pod", "--json"]);
    let d0 = &g["devices"][0];
    assert_eq!(sums(d0)[PODS[0].0], PODS[0].2[0].2, "{d0}");
    let j = m.json(&["snapshot", "--group-by", "job", "--json"]);
    let label = &j["devices"][1]["groups"][0]["label"];
    assert_eq!(
        label,
        "job 4711 train-llama (alice, partition gpu, account ml)"
    );
    for args in [vec!["snapshot"], vec!["snapshot", "--format", "csv"]] {
        let out = ok_stdout(&m.run(&args));
        assert!(out.contains("train-llama"), "{args:?}: {out}");
    }
    let out = ok_stdout(&m.run(&["explain", "9001"]));
    assert!(
        out.contains("owner note: the cgroup path is shaped like a Kubernetes pod's"),
        "{out}"
    );
}
