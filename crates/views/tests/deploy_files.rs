//! The files in deploy/ refer only to metrics gpuledger exports (or has reserved for estimates),
//! so the dashboard cannot silently drift from the exposition.

use gpuledger_model::test_support;
use gpuledger_model::*;
use gpuledger_views::prometheus::{
    render_metrics, CollectionStats, MetricsOptions, ProcessSeries, ESTIMATED_METRICS,
};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn deploy(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../deploy")
        .join(rel)
}

/// A snapshot where every value the exposition can carry is known.
fn rich() -> Snapshot {
    let mut s = test_support::snapshot(test_support::TAKEN_AT, vec![], vec![]);
    let mut d = test_support::device(0, "GPU-0", None, None);
    d.name = Some("X".into());
    d.pci_bus_id = Some("0000:01:00.0".into());
    d.driver_version = Some("550".into());
    d.memory = Memory {
        total_bytes: Some(100),
        used_bytes: Some(50),
        free_bytes: Some(50),
        reserved_bytes: Some(1),
    };
    d.system_memory = Some(d.memory);
    d.utilization.gpu_percent = Some(1);
    d.utilization.memory_percent = Some(1);
    d.temperature_c = Some(1);
    d.power.usage_watts = Some(1.0);
    d.power.limit_watts = Some(2.0);
    d.clocks.sm_mhz = Some(1);
    s.devices.push(d);
    let mut d2 = s.devices[0].clone();
    d2.uuid = "GPU-1".into();
    d2.memory.used_bytes = Some(5);
    s.devices.push(d2);
    for (dev, mem) in [("GPU-0", 10), ("GPU-1", 10)] {
        let mut p = test_support::process(1, dev, Some(mem));
        p.name = Some("n".into());
        p.user = Some("u".into());
        let u = &mut p.usage[0];
        u.system_memory_bytes = Some(1);
        u.engines.sm_percent = Some(1);
        u.engines.memory_percent = Some(1);
        s.processes.push(p);
    }
    s.sources
        .push(SourceStatus::new("nvml", SourceState::Ok, "ok"));
    balance(&mut s);
    s
}

fn exported() -> BTreeSet<String> {
    let t = render_metrics(
        &rich(),
        &MetricsOptions {
            processes: ProcessSeries::All,
            collection: Some(CollectionStats::default()),
            replay: false,
            dcgm_compat: false,
        },
    );
    t.lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect()
}

fn metric_names(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = expr;
    while let Some(i) = rest.find("gpuledger_") {
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        out.push(tail[..end].to_string());
        rest = &tail[end..];
    }
    out
}

#[test]
fn dashboard_queries_use_exported_metrics() {
    let names = exported();
    // The rich snapshot reaches every family the view can write.
    assert!(names.len() >= 28, "{names:?}");
    let text = std::fs::read_to_string(deploy("grafana/gpuledger-dashboard.json")).unwrap();
    let dash: serde_json::Value = serde_json::from_str(&text).expect("dashboard is JSON");
    let mut used = BTreeSet::new();
    let mut exprs = 0;
    for p in dash["panels"].as_array().unwrap() {
        for t in p["targets"].as_array().into_iter().flatten() {
            let e = t["expr"].as_str().expect("every target has an expr");
            exprs += 1;
            for m in metric_names(e) {
                assert!(
                    names.contains(&m) || ESTIMATED_METRICS.contains(&m.as_str()),
                    "panel {:?} queries {m}, which gpuledger does not export",
                    p["title"]
                );
                used.insert(m);
            }
        }
    }
    assert!(exprs >= 15);
    // The dashboard covers what the issue asks for.
    for m in [
        "gpuledger_device_memory_used_bytes",
        "gpuledger_device_memory_unattributed_bytes",
        "gpuledger_process_memory_bytes",
        "gpuledger_process_estimated_memory_bytes",
        "gpuledger_source_up",
    ] {
        assert!(used.contains(m), "dashboard does not show {m}");
    }
}

#[test]
fn dashboard_variables_and_unique_panel_ids() {
    let dash: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(deploy("grafana/gpuledger-dashboard.json")).unwrap(),
    )
    .unwrap();
    let vars: Vec<&str> = dash["templating"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(vars, ["DS_PROMETHEUS", "instance", "device"]);
    let ids: Vec<u64> = dash["panels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_u64().unwrap())
        .collect();
    let unique: BTreeSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len());
}

#[test]
fn scrape_config_targets_the_default_port() {
    let yml = std::fs::read_to_string(deploy("prometheus/prometheus.yml")).unwrap();
    assert!(yml.contains("job_name: gpuledger"));
    assert!(yml.contains(":9835"));
    let unit = std::fs::read_to_string(deploy("systemd/gpuledger-serve.service")).unwrap();
    assert!(unit.contains("ExecStart=/usr/local/bin/gpuledger serve --listen 127.0.0.1:9835"));
    assert!(unit.contains("DynamicUser=yes") && unit.contains("NoNewPrivileges=yes"));
    // Other users' processes must stay visible, or their memory would look unattributed.
    assert!(!unit.contains("\nProtectProc=invisible") && !unit.contains("\nPrivateDevices=yes"));
}
