//! The secret corpus through every view: the table, JSON, CSV, the Prometheus exposition
//! and the diff. A snapshot reaches a view redacted (collection redacts, every snapshot read from
//! outside goes through `redact_snapshot`); the CSV and Prometheus views redact the process's
//! texts again themselves, so they are also given the raw snapshot.

#[path = "../../../testing/secret_corpus.rs"]
mod corpus;

use gpuledger_model::test_support;
use gpuledger_model::*;
use gpuledger_views::*;

fn raw_snapshot(pid0: u32) -> Snapshot {
    const UUID: &str = "GPU-11111111-2222-3333-4444-555555555555";
    let mut d = test_support::device(0, UUID, Some(150 << 30), Some(100 << 30));
    d.name = Some("NVIDIA H200".into());
    let mut s = test_support::snapshot(test_support::TAKEN_AT, vec![d], vec![]);
    for (i, c) in corpus::cases().into_iter().enumerate() {
        let mut p = test_support::process(pid0 + i as u32, UUID, Some((i as u64 + 1) << 20));
        p.start_time = Some(1000 + i as u64);
        p.name = Some(c.name.unwrap_or_else(|| c.args[0].clone()));
        p.exe = Some(c.args[0].clone());
        p.user = Some("alice".into());
        p.cmdline = Some(c.args);
        s.processes.push(p);
    }
    balance(&mut s);
    s
}

fn redacted_snapshot(pid0: u32) -> Snapshot {
    let mut s = raw_snapshot(pid0);
    redact_snapshot(&mut s);
    s
}

fn assert_no_secret(what: &str, text: &str) {
    for c in corpus::cases() {
        for x in &c.secrets {
            assert!(
                !text.contains(x.as_str()),
                "{what}, {}: {x} in\n{text}",
                c.what
            );
        }
    }
}

#[test]
fn no_view_shows_a_secret_of_the_corpus() {
    let s = redacted_snapshot(1000);
    let wide = TableOptions {
        wide: true,
        ..Default::default()
    };
    let table = render_table(&s, &wide);
    assert!(table.contains("<redacted>"), "{table}");
    assert_no_secret("table --wide", &table);
    assert_no_secret("table", &render_table(&s, &TableOptions::default()));
    assert_no_secret("JSON", &render_json(&s));
    let all = MetricsOptions {
        processes: ProcessSeries::All,
        ..Default::default()
    };
    for (what, snap) in [("redacted", &s), ("raw", &raw_snapshot(1000))] {
        assert_no_secret(
            &format!("CSV of the {what} snapshot"),
            &snapshot_csv(snap).unwrap(),
        );
        assert_no_secret(
            &format!("/metrics of the {what} snapshot"),
            &render_metrics(snap, &all),
        );
    }
    // The diff pairs nothing here (other PIDs and start times): every process is shown as gone
    // or appeared, with its name and command line; `diff` redacts them itself.
    for (what, a, b) in [
        ("redacted", redacted_snapshot(1000), redacted_snapshot(5000)),
        ("raw", raw_snapshot(1000), raw_snapshot(5000)),
    ] {
        let d = gpuledger_compare::diff::diff(&a, &b);
        let text = render_diff(
            &d,
            ("a.json", "b.json"),
            DiffOptions {
                all: true,
                ..DiffOptions::default()
            },
        );
        assert_no_secret(&format!("diff of {what} snapshots"), &text);
        assert_no_secret(
            &format!("diff --json of {what} snapshots"),
            &serde_json::to_string(&d).unwrap(),
        );
    }
}

/// Harmless command lines and names go through every view unchanged.
#[test]
fn harmless_command_lines_and_names_pass_unchanged() {
    let mut s = Snapshot::new("2026-11-29T08:00:00Z".into(), Host::default());
    s.devices
        .push(Device::new(0, Vendor::Nvidia, "GPU-1", "nvml"));
    for (i, args) in corpus::harmless().into_iter().enumerate() {
        let mut p = Process::new(10 + i as u32);
        p.name = Some(corpus::harmless_names()[i % corpus::harmless_names().len()].to_string());
        p.cmdline = Some(args);
        p.usage.push(Usage::new("GPU-1", "nvml"));
        s.processes.push(p);
    }
    let before = s.clone();
    redact_snapshot(&mut s);
    assert_eq!(
        serde_json::to_value(&s).unwrap(),
        serde_json::to_value(&before).unwrap()
    );
    let csv = snapshot_csv(&s).unwrap();
    for p in &before.processes {
        assert!(csv.contains(p.name.as_deref().unwrap()), "{csv}");
    }
}
