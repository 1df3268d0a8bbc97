//! The deployed scrape against a real Prometheus (issue 38): `serve` listening on `[::]` as the
//! DaemonSet does, reached over IPv4 and IPv6, and scraped the way the Prometheus Operator
//! scrapes a pod target: the target labels it gives every pod target (`namespace`, `pod`,
//! `container`, `endpoint`, and `service` for a ServiceMonitor) plus the `honorLabels` and
//! `relabelings` of deploy/kubernetes/podmonitor.yaml and servicemonitor.yaml, read from those
//! files. A third job scrapes with default settings (a monitor without them), which files every
//! GPU process under gpuledger's own namespace: the failure the monitors exist to avoid.
//!
//! Needs Prometheus (`.ci/setup-prometheus.sh`) and the gRPC Python (`.ci/setup-grpc.sh`, for the
//! stand-in kubelet and PyYAML); skips with the reason without them, except under CI.

use crate::serve_prometheus::{deploy, prometheus_or_skip, query, single, Prometheus};
use crate::serve_support::*;
use crate::support::*;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;

/// The pod gpuledger itself runs in, as the operator's target labels name it.
const OWN_NAMESPACE: &str = "gpuledger";
const OWN_POD: &str = "gpuledger-x7k2p";
const NODE: &str = "gpu-box";

/// The first endpoint of a monitor manifest, as JSON (read with the venv's PyYAML).
fn monitor_endpoint(py: &Path, rel: &str) -> serde_json::Value {
    let out = Command::new(py)
        .args([
            "-c",
            "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
        ])
        .arg(deploy(rel))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let spec = &doc["spec"];
    let eps = spec
        .get("podMetricsEndpoints")
        .or_else(|| spec.get("endpoints"))
        .unwrap_or_else(|| panic!("{rel}: no endpoints"));
    eps[0].clone()
}

/// A Prometheus relabel_config from an operator `RelabelConfig` (camelCase to snake_case);
/// panics on a field this translation does not know, so a new one cannot pass unchecked.
fn relabel_config(r: &serde_json::Value) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for (k, v) in r.as_object().unwrap() {
        let key = match k.as_str() {
            "sourceLabels" => "source_labels",
            "targetLabel" => "target_label",
            "action" | "regex" | "separator" | "replacement" | "modulus" => k.as_str(),
            other => panic!("relabeling field {other} not translated"),
        };
        out.insert(key.to_string(), v.clone());
    }
    serde_json::Value::Object(out)
}

/// A scrape job for `target` with the operator's pod-target labels and, from `endpoint`, the
/// monitor's honorLabels and relabelings (none: a default scrape).
fn job(
    name: &str,
    target: SocketAddr,
    endpoint: Option<&serde_json::Value>,
    service: bool,
) -> serde_json::Value {
    let mut labels = serde_json::json!({
        "namespace": OWN_NAMESPACE,
        "pod": OWN_POD,
        "container": "gpuledger",
        "endpoint": "metrics",
        "__meta_kubernetes_pod_node_name": NODE,
    });
    if service {
        labels["service"] = "gpuledger".into();
    }
    let mut j = serde_json::json!({
        "job_name": name,
        "static_configs": [{"targets": [target.to_string()], "labels": labels}],
    });
    if let Some(ep) = endpoint {
        j["honor_labels"] = ep["honorLabels"].clone();
        let relabel: Vec<serde_json::Value> = ep["relabelings"]
            .as_array()
            .into_iter()
            .flatten()
            .map(relabel_config)
            .collect();
        j["relabel_configs"] = relabel.into();
    }
    j
}

/// Each namespace's measured memory on GPU0 in the shared node, as the kubelet names them.
fn memory_by_namespace() -> Vec<(String, f64)> {
    let mut by: std::collections::BTreeMap<String, f64> = Default::default();
    for ((_, _, procs), (ns, _, _)) in PODS.iter().zip(POD_NAMES) {
        *by.entry(ns.to_string()).or_default() += procs.iter().map(|p| p.2).sum::<u64>() as f64;
    }
    by.into_iter().collect()
}

fn by_namespace(p: SocketAddr, job: &str) -> Vec<(String, f64)> {
    let q = format!(
        "sum by (namespace) (gpuledger_process_memory_bytes{{job=\"{job}\",device=\"{NODE_G0}\"}})"
    );
    let mut got: Vec<(String, f64)> = query(p, &q)
        .unwrap()
        .iter()
        .map(|s| {
            let ns = s["metric"]["namespace"].as_str().unwrap_or("").to_string();
            (ns, s["value"][1].as_str().unwrap().parse().unwrap())
        })
        .collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    got
}

#[cfg(unix)]
#[test]
fn the_monitors_keep_each_process_namespace_where_a_default_scrape_files_all_under_gpuledgers() {
    let Some(bin) = prometheus_or_skip("the_monitors_keep_each_process_namespace_where_a_default_scrape_files_all_under_gpuledgers") else {
        return;
    };
    let Some(py) = grpc_python() else { return };
    let kubelet = Kubelet::start_without(&py, None);
    let m = Machine::shared_node();
    // The DaemonSet's listen address.
    let mut cmd = gpuledger_on(fake_nvml(), &m.scenario, &m.root());
    cmd.args(["serve", "--listen", "[::]:0", "--allow-remote"])
        .args(["--interval", "1s", "--processes", "all"])
        .args(kubelet.args());
    let served = start_serving(&mut cmd);
    assert!(served.addr.ip().is_unspecified() && served.addr.is_ipv6());
    let port = served.addr.port();
    let v4: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let v6: SocketAddr = format!("[::1]:{port}").parse().unwrap();

    let pod_ep = monitor_endpoint(&py, "kubernetes/podmonitor.yaml");
    let svc_ep = monitor_endpoint(&py, "kubernetes/servicemonitor.yaml");
    let dir = tempfile::tempdir().unwrap();
    let prom = Prometheus::start_jobs(
        &bin,
        &[
            job("podmonitor", v4, Some(&pod_ep), false),
            job("servicemonitor", v6, Some(&svc_ep), true),
            job("default", v4, None, true),
        ],
        dir.path(),
    );
    for j in ["podmonitor", "servicemonitor", "default"] {
        prom.wait_for_two_scrapes_of(j, 1);
    }
    let p = prom.addr;

    let want = memory_by_namespace();
    for j in ["podmonitor", "servicemonitor"] {
        assert_eq!(by_namespace(p, j), want, "{j}");
        // The Slurm job's process is in no pod: no namespace, pod or container of gpuledger's.
        let (labels, v) = single(
            p,
            &format!("gpuledger_process_memory_bytes{{job=\"{j}\",slurm_job=\"4711\"}}"),
        );
        assert_eq!(v, JOB.2 as f64);
        for l in ["namespace", "pod", "container", "exported_namespace"] {
            assert!(labels.get(l).is_none(), "{j}: {labels}");
        }
        assert_eq!(labels["node"], NODE, "{j}");
        // A pod's process keeps its own pod and its container id, not gpuledger's.
        let (ns, pod, _) = POD_NAMES[0];
        let (labels, _) = single(
            p,
            &format!("gpuledger_process_memory_bytes{{job=\"{j}\",pid=\"7001\"}}"),
        );
        assert_eq!(
            (labels["namespace"].as_str(), labels["pod"].as_str()),
            (Some(ns), Some(pod))
        );
        assert!(
            labels["container"]
                .as_str()
                .unwrap()
                .ends_with(PODS[0].2[0].1),
            "{labels}"
        );
    }

    // A default scrape: every process, the Slurm job's included, is filed under gpuledger's
    // own namespace and pod, the real ones pushed aside into exported_* labels.
    assert_eq!(
        by_namespace(p, "default"),
        vec![(OWN_NAMESPACE.to_string(), want.iter().map(|w| w.1).sum())]
    );
    let (labels, _) = single(
        p,
        "gpuledger_process_memory_bytes{job=\"default\",slurm_job=\"4711\"}",
    );
    assert_eq!(
        (labels["namespace"].as_str(), labels["pod"].as_str()),
        (Some(OWN_NAMESPACE), Some(OWN_POD))
    );
    let (labels, _) = single(
        p,
        "gpuledger_process_memory_bytes{job=\"default\",pid=\"7001\"}",
    );
    assert_eq!(labels["exported_namespace"], POD_NAMES[0].0);
}
