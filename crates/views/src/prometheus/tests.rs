use super::family::safe;
use super::*;
use crate::test_support::llama_workload;
use gpuledger_model::test_support::{device, snapshot, usage, TAKEN_AT};
use gpuledger_model::*;

const G0: &str = "GPU-0000";
const G1: &str = "GPU-1111";

fn proc_(pid: u32, name: &str, user: Option<&str>, mem: &[(&str, Option<u64>)]) -> Process {
    let mut p = Process::new(pid);
    p.name = Some(name.into());
    p.user = user.map(Into::into);
    p.cmdline = Some(vec![
        "/bin/srv".into(),
        "--api-key".into(),
        REDACTED_IN_SNAPSHOT.into(),
    ]);
    p.usage = mem.iter().map(|&(dev, m)| usage(dev, m)).collect();
    p
}

// A snapshot never holds a raw secret (sources redact), but labels must not even carry the
// redacted command line: this marker must never reach the output.
const REDACTED_IN_SNAPSHOT: &str = "CMDLINE-MARKER";

fn sample() -> Snapshot {
    let mut s = snapshot(TAKEN_AT, vec![], vec![]);
    let mut d = device(0, G0, None, None);
    d.name = Some("NVIDIA H200".into());
    d.memory = Memory {
        total_bytes: Some(150_754_820_096),
        used_bytes: Some(40_000_000_000),
        free_bytes: Some(110_754_820_096),
        reserved_bytes: Some(600_000_000),
    };
    d.utilization.gpu_percent = Some(37);
    d.utilization.memory_percent = Some(12);
    d.temperature_c = Some(54);
    d.power.usage_watts = Some(215.5);
    d.power.limit_watts = Some(700.0);
    d.clocks.sm_mhz = Some(1980);
    s.devices.push(d);
    // Second device: nothing but the total is known.
    let mut d1 = device(1, G1, Some(25_757_220_864), None);
    d1.mark_unavailable("power.usage_watts", "not supported");
    s.devices.push(d1);

    let mut llama = proc_(
        4242,
        "llama-server",
        Some("alice"),
        &[(G0, Some(17_179_869_184))],
    );
    llama.usage[0].engines.sm_percent = Some(85);
    s.processes.push(llama);
    s.processes
        .push(proc_(6001, "ollama", Some("root"), &[(G0, None)]));
    s.sources
        .push(SourceStatus::new("nvml", SourceState::Ok, "2 devices"));
    s.sources.push(SourceStatus::new(
        "procfs",
        SourceState::Error,
        "permission denied",
    ));
    balance(&mut s);
    s
}

fn lines_of<'a>(text: &'a str, metric: &str) -> Vec<&'a str> {
    text.lines()
        .filter(|l| {
            l.strip_prefix(metric)
                .is_some_and(|r| r.starts_with('{') || r.starts_with(' '))
        })
        .collect()
}

#[test]
fn device_gauges_have_conventional_names_labels_and_base_units() {
    let t = render_metrics(&sample(), &MetricsOptions::default());
    let dl = r#"{device="GPU-0000",index="0",name="NVIDIA H200"}"#;
    for want in [
        format!("gpuledger_device_memory_total_bytes{dl} 150754820096"),
        format!("gpuledger_device_memory_used_bytes{dl} 40000000000"),
        format!("gpuledger_device_memory_free_bytes{dl} 110754820096"),
        format!("gpuledger_device_memory_reserved_bytes{dl} 600000000"),
        format!("gpuledger_device_memory_attributed_bytes{dl} 17179869184"),
        format!("gpuledger_device_memory_unattributed_bytes{dl} 22820130816"),
        format!("gpuledger_device_processes_memory_unknown{dl} 1"),
        format!("gpuledger_device_utilization_ratio{dl} 0.37"),
        format!("gpuledger_device_memory_bandwidth_utilization_ratio{dl} 0.12"),
        format!("gpuledger_device_temperature_celsius{dl} 54"),
        format!("gpuledger_device_power_watts{dl} 215.5"),
        format!("gpuledger_device_power_limit_watts{dl} 700"),
        r#"gpuledger_device_clock_hertz{device="GPU-0000",index="0",name="NVIDIA H200",clock="sm"} 1980000000"#.to_string(),
        r#"gpuledger_device_info{device="GPU-0000",index="0",name="NVIDIA H200",vendor="nvidia",source="nvml"} 1"#.to_string(),
        "# TYPE gpuledger_device_memory_used_bytes gauge".to_string(),
    ] {
        assert!(t.lines().any(|l| l == want), "missing line {want:?} in\n{t}");
    }
}

#[test]
fn unknown_values_are_omitted_never_zero() {
    let t = render_metrics(&sample(), &MetricsOptions::default());
    // GPU-1111 knows only its total: exactly one memory series, and its unknown name is
    // left out of the labels rather than exported as "".
    let g1: Vec<&str> = t.lines().filter(|l| l.contains("GPU-1111")).collect();
    assert!(
        g1.contains(
            &r#"gpuledger_device_memory_total_bytes{device="GPU-1111",index="1"} 25757220864"#
        ),
        "{g1:?}"
    );
    for absent in [
        "gpuledger_device_memory_used_bytes",
        "gpuledger_device_memory_unattributed_bytes",
        "gpuledger_device_power_watts",
        "gpuledger_device_temperature_celsius",
        "gpuledger_device_utilization_ratio",
        "gpuledger_device_clock_hertz",
    ] {
        assert!(
            !g1.iter().any(|l| l.starts_with(absent)),
            "{absent} exported for a device that does not know it: {g1:?}"
        );
    }
    // ollama's memory is unknown: no memory series for it, no utilisation either.
    assert!(!t.contains(r#"pid="6001""#), "{t}");
    assert!(
        !t.contains("name=\"\""),
        "empty label values are not written"
    );
    // Families with no known sample have no HELP/TYPE either.
    assert!(!t.contains("gpuledger_device_memory_over_attributed_bytes"));
    assert!(!t.contains("gpuledger_process_system_memory_bytes"));
}

#[test]
fn process_series_carry_identity_labels() {
    let t = render_metrics(&sample(), &MetricsOptions::default());
    let pl = r#"{device="GPU-0000",pid="4242",name="llama-server",user="alice",source="nvml"}"#;
    let want_mem = format!("gpuledger_process_memory_bytes{pl} 17179869184");
    let want_util = format!("gpuledger_process_gpu_utilization_ratio{pl} 0.85");
    assert!(t.lines().any(|l| l == want_mem), "{t}");
    assert!(t.lines().any(|l| l == want_util), "{t}");
    assert!(t.lines().any(|l| l == "gpuledger_processes 2"));
    assert!(t.lines().any(|l| l == "gpuledger_processes_exported 2"));
}

#[test]
fn workload_and_model_labels_when_identified() {
    let mut s = sample();
    s.processes[0].workload =
        Some(llama_workload("/home/alice/models/Qwen3-8B-Q4_K_M.gguf").into());
    let t = render_metrics(&s, &MetricsOptions::default());
    let want = r#"gpuledger_process_memory_bytes{device="GPU-0000",pid="4242",name="llama-server",user="alice",workload="llama-cpp",model="Qwen3-8B-Q4_K_M",source="nvml"} 17179869184"#;
    assert!(t.lines().any(|l| l == want), "{t}");
    assert!(
        !t.contains("/home/alice"),
        "model paths are cut to the base name"
    );
    // A member of a workload of several processes: its role and its root.
    std::sync::Arc::make_mut(s.processes[0].workload.as_mut().unwrap()).member =
        Some(gpuledger_model::Member {
            root_pid: Some(4200),
            role: "worker TP1/2".into(),
            role_kind: gpuledger_model::RoleKind::Worker,
            evidence: "test".into(),
        });
    let t = render_metrics(&s, &MetricsOptions::default());
    assert!(
        t.contains(r#"model="Qwen3-8B-Q4_K_M",role="worker TP1/2",workload_root="4200",source="nvml"} 17179869184"#),
        "{t}"
    );
    std::sync::Arc::make_mut(s.processes[0].workload.as_mut().unwrap()).member = None;
    // An unidentified kind is no label, not "unknown".
    std::sync::Arc::make_mut(s.processes[0].workload.as_mut().unwrap()).kind =
        WorkloadKind::Unknown;
    std::sync::Arc::make_mut(s.processes[0].workload.as_mut().unwrap()).model = None;
    let t = render_metrics(&s, &MetricsOptions::default());
    assert!(!t.contains("workload=") && !t.contains("model="), "{t}");
}

#[test]
fn source_health_and_collection_stats() {
    let mut opts = MetricsOptions::default();
    let t = render_metrics(&sample(), &opts);
    assert!(t.contains("gpuledger_source_up{source=\"nvml\",state=\"ok\"} 1\n"));
    assert!(t.contains("gpuledger_source_up{source=\"procfs\",state=\"error\"} 0\n"));
    assert!(t.contains("gpuledger_snapshot_replay 0\n"));
    // No collection loop, no collection metrics (rather than zeros).
    assert!(!t.contains("gpuledger_collection_"));

    opts.collection = Some(CollectionStats {
        duration_seconds: 0.0125,
        rounds_total: 7,
        errors_total: 2,
        skipped_total: 1,
        last_round_unix_seconds: 1_795_900_000.5,
    });
    opts.replay = true;
    let t = render_metrics(&sample(), &opts);
    for want in [
        "gpuledger_collection_duration_seconds 0.0125",
        "gpuledger_collection_rounds_total 7",
        "gpuledger_collection_errors_total 2",
        "gpuledger_collection_skipped_rounds_total 1",
        "gpuledger_collection_last_round_timestamp_seconds 1795900000.5",
        "# TYPE gpuledger_collection_errors_total counter",
        "gpuledger_snapshot_replay 1",
    ] {
        assert!(t.lines().any(|l| l == want), "missing {want:?}");
    }
}

#[test]
fn label_values_are_escaped() {
    let mut s = sample();
    s.processes[0].name = Some("we\"ird\\na\nme".into());
    s.processes[0].user = Some("x\"}evil{y=\"1".into());
    let t = render_metrics(&s, &MetricsOptions::default());
    let line = lines_of(&t, "gpuledger_process_memory_bytes")[0];
    assert!(
        line.contains(r#"name="we\"ird\\na\nme""#),
        "escaped name in {line}"
    );
    assert!(line.contains(r#"user="x\"}evil{y=\"1""#), "{line}");
    // The raw newline did not split the sample: every line is a comment or a sample.
    for l in t.lines() {
        assert!(
            l.starts_with("# HELP ") || l.starts_with("# TYPE ") || l.starts_with("gpuledger_"),
            "stray line {l:?}"
        );
    }
}

/// Undo the text format's label-value escaping (what Prometheus's parser does).
fn unescape(v: &str) -> String {
    let mut out = String::new();
    let mut it = v.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => panic!("dangling backslash in {v:?}"),
            }
        } else {
            assert!(c != '"' && c != '\n', "unescaped {c:?} in {v:?}");
            out.push(c);
        }
    }
    out
}

/// The `name="..."` value of a sample line, still escaped.
fn raw_label<'a>(line: &'a str, key: &str) -> &'a str {
    let start = line.find(&format!("{key}=\"")).unwrap() + key.len() + 2;
    let bytes = line.as_bytes();
    let mut i = start;
    while bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    &line[start..i]
}

proptest::proptest! {
    #[test]
    fn any_label_value_round_trips(name in "[a-zA-Z0-9 _.\\\\\"\n{}é,-]{1,40}") {
        let mut s = sample();
        s.processes[0].name = Some(name.clone());
        let t = render_metrics(&s, &MetricsOptions::default());
        let line = lines_of(&t, "gpuledger_process_memory_bytes")[0];
        // One sample is one line, whatever the name holds.
        proptest::prop_assert!(line.ends_with(" 17179869184"));
        let back = unescape(raw_label(line, "name"));
        let want = safe(Some(&name)).unwrap();
        proptest::prop_assert_eq!(back, want.chars().take(MAX_LABEL_CHARS).collect::<String>());
    }
}

#[test]
fn long_label_values_are_cut() {
    let mut s = sample();
    s.processes[0].name = Some("é".repeat(1000));
    let t = render_metrics(&s, &MetricsOptions::default());
    let line = lines_of(&t, "gpuledger_process_memory_bytes")[0];
    assert!(line.contains(&format!("name=\"{}\"", "é".repeat(MAX_LABEL_CHARS))));
    assert!(!line.contains(&"é".repeat(MAX_LABEL_CHARS + 1)));
}

#[test]
fn no_secrets_and_no_command_lines_in_labels() {
    let mut s = sample();
    // A process can name itself anything, including a secret-bearing string.
    s.processes[0].name = Some("--api-key=sk-live-TOPSECRET".into());
    s.processes[0].exe = Some("/opt/token=hf_EXESECRET/bin".into());
    let t = render_metrics(&s, &MetricsOptions::default());
    assert!(!t.contains("TOPSECRET"), "{t}");
    assert!(!t.contains("EXESECRET"), "exe paths are not labels");
    assert!(
        !t.contains(REDACTED_IN_SNAPSHOT),
        "command lines are never labels"
    );
    assert!(
        t.contains(r#"name="--api-key=<redacted>""#),
        "the redacted name is still exported"
    );
}

fn many(n: u32) -> Snapshot {
    let mut s = sample();
    s.processes.clear();
    for pid in 1..=n {
        // Memory grows with pid; pid 3 is unknown.
        let m = if pid == 3 {
            None
        } else {
            Some(u64::from(pid) * 1000)
        };
        s.processes
            .push(proc_(pid, "w", None, &[(G0, m), (G1, Some(1))]));
    }
    balance(&mut s);
    s
}

#[test]
fn per_process_series_are_bounded_to_the_top_n_by_memory() {
    let s = many(200);
    let opts = MetricsOptions {
        processes: ProcessSeries::Top(5),
        ..Default::default()
    };
    let t = render_metrics(&s, &opts);
    let mem = lines_of(&t, "gpuledger_process_memory_bytes");
    // 5 processes × 2 devices.
    assert_eq!(mem.len(), 10, "{mem:?}");
    for pid in 196..=200 {
        assert!(mem.iter().any(|l| l.contains(&format!("pid=\"{pid}\""))));
    }
    assert!(!t.contains("pid=\"195\""));
    assert!(t.contains("gpuledger_processes 200\n"));
    assert!(t.contains("gpuledger_processes_exported 5\n"));
    // Device totals still count every process, exported or not.
    let attributed: u64 = (1..=200u64).filter(|&p| p != 3).map(|p| p * 1000).sum();
    assert!(t.contains(&format!(
        "gpuledger_device_memory_attributed_bytes{{device=\"GPU-0000\",index=\"0\",name=\"NVIDIA H200\"}} {attributed}\n"
    )));

    let none = render_metrics(
        &s,
        &MetricsOptions {
            processes: ProcessSeries::None,
            ..Default::default()
        },
    );
    assert!(!none.contains("gpuledger_process_"));
    assert!(none.contains("gpuledger_processes_exported 0\n"));
    let all = render_metrics(
        &s,
        &MetricsOptions {
            processes: ProcessSeries::All,
            ..Default::default()
        },
    );
    // 200 processes on GPU1, 199 known on GPU0.
    assert_eq!(lines_of(&all, "gpuledger_process_memory_bytes").len(), 399);
    // Default is top 50.
    let def = render_metrics(&s, &MetricsOptions::default());
    assert!(def.contains("gpuledger_processes_exported 50\n"));
}

#[test]
fn selection_order_is_memory_then_pid() {
    let mut s = many(4);
    s.processes[0].usage[0].memory_bytes = Some(4000); // pid 1 ties with pid 4
    let pids: Vec<u32> = selected_processes(&s, ProcessSeries::Top(3))
        .iter()
        .map(|p| p.pid)
        .collect();
    assert_eq!(pids, vec![1, 4, 2]);
    let pids: Vec<u32> = selected_processes(&s, ProcessSeries::All)
        .iter()
        .map(|p| p.pid)
        .collect();
    assert_eq!(pids, vec![1, 4, 2, 3]);
}

#[test]
fn process_selection_parses_and_explains_errors() {
    assert_eq!("top-7".parse(), Ok(ProcessSeries::Top(7)));
    assert_eq!("all".parse(), Ok(ProcessSeries::All));
    assert_eq!("none".parse(), Ok(ProcessSeries::None));
    let e = "top-x".parse::<ProcessSeries>().unwrap_err();
    assert!(e.contains("whole number"), "{e}");
    let e = "50".parse::<ProcessSeries>().unwrap_err();
    assert!(e.contains("top-N"), "{e}");
    assert!("top-0"
        .parse::<ProcessSeries>()
        .unwrap_err()
        .contains("none"));
    assert_eq!(ProcessSeries::default(), ProcessSeries::Top(50));
}

#[test]
fn only_estimated_metrics_say_estimated() {
    let t = render_metrics(&many(3), &MetricsOptions::default());
    assert!(
        !t.contains("estimated"),
        "measured metrics never carry 'estimated'"
    );
    assert!(ESTIMATED_METRICS.iter().all(|m| m.contains("_estimated_")));
}

/// A llama.cpp estimate of 1000 + 200 + 30 bytes, plus the overhead when it is known.
fn estimate(overhead: Option<u64>, overhead_source: &str) -> gpuledger_model::EstimatedMemory {
    gpuledger_model::EstimatedMemory {
        recipe: "llama.cpp/llama-server".into(),
        model: "/m/q.gguf".into(),
        n_ctx: Some(4096),
        weights_gpu_bytes: 1000,
        kv_cache_gpu_bytes: Some(200),
        compute_gpu_bytes: Some(30),
        overhead_gpu_bytes: overhead,
        overhead_source: overhead_source.into(),
        total_gpu_bytes: 1230 + overhead.unwrap_or(0),
        ..Default::default()
    }
}

#[test]
fn estimates_are_their_own_family_and_containers_label_processes() {
    let mut s = many(2);
    s.processes[0].container = Some("docker://0123456789ab".into());
    s.processes[0].estimate = Some(estimate(None, "unknown for this backend").into());
    let t = render_metrics(&s, &MetricsOptions::default());
    let est = lines_of(&t, "gpuledger_process_estimated_memory_bytes");
    // weights, kv_cache, compute; the unknown overhead is left out, not 0.
    assert_eq!(est.len(), 3, "{est:?}");
    assert!(est
        .iter()
        .any(|l| l.contains("component=\"kv_cache\"") && l.ends_with(" 200")));
    assert!(!est.iter().any(|l| l.contains("overhead")));
    // The measured family is untouched by the estimate.
    let measured = lines_of(&t, "gpuledger_process_memory_bytes");
    assert!(
        measured
            .iter()
            .any(|l| l.contains("container=\"docker://0123456789ab\"")),
        "{measured:?}"
    );
}

/// A `component="total"` series beside the parts made `sum by (pid)` count every
/// process twice. The total is its own family, once per process; summing the parts gives it
/// only when no part is unknown, which the partial flag says (SGLang: total = static pool,
/// parts only weights and KV cache).
#[test]
fn estimated_parts_sum_to_the_total_only_when_complete() {
    let mut s = many(3);
    for (i, overhead) in [(0, Some(300)), (1, None)] {
        s.processes[i].estimate = Some(estimate(overhead, "test").into());
    }
    let sglang = gpuledger_model::EstimatedMemory {
        recipe: "sglang".into(),
        weights_gpu_bytes: 1000,
        kv_cache_gpu_bytes: Some(500),
        compute_gpu_bytes: None,
        overhead_gpu_bytes: None,
        overhead_included: true,
        total_gpu_bytes: 2000,
        ..Default::default()
    };
    s.processes[2].estimate = Some(sglang.into());
    let t = render_metrics(&s, &MetricsOptions::default());
    let per_pid = |family: &str| {
        let mut m = std::collections::BTreeMap::<u32, u64>::new();
        for l in lines_of(&t, family) {
            assert!(!l.contains("component=\"total\""), "{l}");
            let pid = l.split("pid=\"").nth(1).unwrap().split('"').next().unwrap();
            let v: u64 = l.rsplit(' ').next().unwrap().parse().unwrap();
            *m.entry(pid.parse().unwrap()).or_default() += v;
        }
        m
    };
    let parts = per_pid("gpuledger_process_estimated_memory_bytes");
    let totals = per_pid("gpuledger_process_estimated_total_bytes");
    let partial = per_pid("gpuledger_process_estimated_partial");
    for p in &s.processes[..3] {
        let e = p.estimate.as_ref().unwrap();
        assert_eq!(totals[&p.pid], e.total_gpu_bytes, "one total per process");
        assert_eq!(partial[&p.pid], u64::from(e.is_partial()));
        if !e.is_partial() {
            assert_eq!(parts[&p.pid], e.total_gpu_bytes);
        }
    }
    // The SGLang shape: flagged, and its parts fall short of the total it reports.
    let pid = s.processes[2].pid;
    assert_eq!((partial[&pid], parts[&pid], totals[&pid]), (1, 1500, 2000));
    assert_eq!(partial[&s.processes[0].pid], 0);
    assert_eq!(partial[&s.processes[1].pid], 1, "unknown overhead");
}

#[test]
fn every_sample_line_parses_as_text_format() {
    // A small checker of the 0.0.4 grammar: name, optional {k="v",...}, one number; every
    // family's TYPE precedes its samples and families are contiguous.
    let t = render_metrics(&many(30), &MetricsOptions::default());
    let mut seen_families = std::collections::HashSet::new();
    let mut current = String::new();
    for l in t.lines() {
        if let Some(rest) = l.strip_prefix("# TYPE ") {
            let name = rest.split(' ').next().unwrap().to_string();
            assert!(seen_families.insert(name.clone()), "family {name} split");
            current = name;
            continue;
        }
        if l.starts_with("# HELP ") {
            continue;
        }
        let name_end = l.find(['{', ' ']).unwrap();
        assert_eq!(&l[..name_end], current, "sample outside its family: {l}");
        assert!(l[..name_end]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_'));
        let value = l.rsplit(' ').next().unwrap();
        let v: f64 = value.parse().unwrap_or_else(|_| panic!("value in {l}"));
        assert!(v.is_finite() && v >= 0.0, "{l}");
    }
    assert!(seen_families.len() > 15);
}

/// An owner read from a cgroup, as the sources make it.
fn owner(kind: OwnerKind, f: impl FnOnce(&mut Owner)) -> Owner {
    let mut o = Owner::new(kind, "/test");
    f(&mut o);
    o.relabel();
    o
}

/// Two pods time-slicing GPU0 (one of them with two processes), a Slurm job on GPU1, a systemd
/// unit on GPU0 and a process whose owner is unknown.
fn shared_node() -> Snapshot {
    let mut s = sample();
    s.processes.clear();
    s.devices[1].memory.used_bytes = Some(9_000);
    let pod = |uid: &str, ctr: char| {
        owner(OwnerKind::Pod, |o| {
            o.pod_uid = Some(uid.into());
            o.qos_class = Some("burstable".into());
            o.container_id = Some(ctr.to_string().repeat(64));
            o.runtime = Some("containerd".into());
        })
    };
    let job = owner(OwnerKind::SlurmJob, |o| {
        o.slurm_job = Some(4711);
        o.slurm_step = Some("0".into());
        o.uid = Some(1000);
        o.user = Some("alice".into());
        o.slurm_job_name = Some("llama \"finetune\"\n".into());
        o.slurm_partition = Some("gpu".into());
    });
    let unit = owner(OwnerKind::Unit, |o| o.unit = Some("ollama.service".into()));
    let procs = [
        (
            10,
            G0,
            Some(1_000),
            Some(pod("aaaaaaaa-1111-2222-3333-444444444444", 'a')),
        ),
        (
            11,
            G0,
            Some(2_000),
            Some(pod("bbbbbbbb-1111-2222-3333-444444444444", 'b')),
        ),
        (
            12,
            G0,
            Some(3_000),
            Some(pod("bbbbbbbb-1111-2222-3333-444444444444", 'c')),
        ),
        (20, G1, Some(4_000), Some(job)),
        (30, G0, Some(500), Some(unit)),
        (40, G0, Some(70), None),
        (41, G0, None, None),
    ];
    for (pid, dev, mem, o) in procs {
        let mut p = proc_(pid, "w", Some("alice"), &[(dev, mem)]);
        p.container = o.as_ref().and_then(Owner::container_ref);
        p.owner = o;
        s.processes.push(p);
    }
    balance(&mut s);
    s
}

fn value(line: &str) -> u64 {
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

#[test]
fn per_process_series_carry_their_owners_ids() {
    let t = render_metrics(&shared_node(), &MetricsOptions::default());
    let mem = lines_of(&t, "gpuledger_process_memory_bytes");
    let of = |pid: u32| {
        *mem.iter()
            .find(|l| l.contains(&format!("pid=\"{pid}\"")))
            .unwrap()
    };
    let pod = of(11);
    assert!(
        pod.contains("pod_uid=\"bbbbbbbb-1111-2222-3333-444444444444\""),
        "{pod}"
    );
    assert!(
        pod.contains(&format!("container=\"containerd://{}\"", "b".repeat(64))),
        "{pod}"
    );
    assert!(
        !pod.contains("slurm_job=") && !pod.contains("unit="),
        "{pod}"
    );
    assert!(of(20).contains("slurm_job=\"4711\""), "{}", of(20));
    assert!(of(30).contains("unit=\"ollama.service\""), "{}", of(30));
    // No owner: no owner labels, never empty ones.
    assert!(!of(40).contains("pod_uid") && !of(40).contains("slurm_job"));
}

#[test]
fn owner_sums_add_up_to_attributed_and_count_every_process() {
    let s = shared_node();
    // Per-process series bounded to one process: the owner sums still count everyone.
    let opts = MetricsOptions {
        processes: ProcessSeries::Top(1),
        ..Default::default()
    };
    let t = render_metrics(&s, &opts);
    let sums = lines_of(&t, OWNER_MEMORY);
    let find = |needle: &str| -> u64 {
        let l: Vec<&&str> = sums.iter().filter(|l| l.contains(needle)).collect();
        assert_eq!(l.len(), 1, "{needle}: {sums:#?}");
        value(l[0])
    };
    assert_eq!(find("pod_uid=\"aaaaaaaa"), 1_000);
    // The second pod's two containers are two owners (one per container), one pod UID.
    let pod_b: u64 = sums
        .iter()
        .filter(|l| l.contains("pod_uid=\"bbbbbbbb"))
        .map(|l| value(l))
        .sum();
    assert_eq!(pod_b, 5_000);
    let job = sums
        .iter()
        .find(|l| l.contains("slurm_job=\"4711\""))
        .unwrap();
    assert!(
        job.contains(r#"owner="job 4711 llama \"finetune\"\n (alice, partition gpu)""#)
            && job.contains("user=\"alice\""),
        "{job}"
    );
    // What operators read of a job, escaped as every label value; unknown ones left out.
    assert!(
        job.contains(r#"slurm_job_name="llama \"finetune\"\n""#)
            && job.contains("slurm_partition=\"gpu\"")
            && !job.contains("slurm_account"),
        "{job}"
    );
    assert!(
        job.contains(&format!("device=\"{G1}\"")) && value(job) == 4_000,
        "{job}"
    );
    assert_eq!(find("unit=\"ollama.service\""), 500);
    assert_eq!(find("owner_kind=\"none\""), 70);
    // Per device, the family adds up to attributed; with unattributed, to used.
    for d in &s.devices {
        let sum: u64 = sums
            .iter()
            .filter(|l| l.contains(&format!("device=\"{}\"", d.uuid)))
            .map(|l| value(l))
            .sum();
        assert_eq!(sum, d.ledger.attributed_bytes, "{}", d.uuid);
        if let (Some(used), Some(un)) = (d.memory.used_bytes, d.ledger.unattributed_bytes) {
            assert_eq!(sum + un, used);
        }
    }
}

#[test]
fn an_owner_whose_memory_is_all_unknown_has_no_sum() {
    let mut s = shared_node();
    s.processes.retain(|p| p.pid == 41);
    balance(&mut s);
    let t = render_metrics(&s, &MetricsOptions::default());
    assert!(lines_of(&t, OWNER_MEMORY).is_empty(), "{t}");
}

#[test]
fn dcgm_compat_is_opt_in_with_dcgm_exporters_names_units_and_labels() {
    let mut s = sample();
    s.host.hostname = Some("gpu-node-7".into());
    s.devices[0].pci_bus_id = Some("00000000:18:00.0".into());
    s.devices[0].driver_version = Some("550.54.15".into());
    let plain = render_metrics(&s, &MetricsOptions::default());
    assert!(!plain.contains("DCGM_"), "off by default");
    let opts = MetricsOptions {
        dcgm_compat: true,
        ..Default::default()
    };
    let t = render_metrics(&s, &opts);
    let labels = r#"{gpu="0",UUID="GPU-0000",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H200",Hostname="gpu-node-7",DCGM_FI_DRIVER_VERSION="550.54.15"}"#;
    for (name, v) in [
        // 40 000 000 000 bytes used = 38146.97 MiB: whole MiB, as DCGM reports them.
        ("DCGM_FI_DEV_FB_USED", "38146"),
        ("DCGM_FI_DEV_FB_FREE", "105624"),
        ("DCGM_FI_DEV_FB_RESERVED", "572"),
        ("DCGM_FI_DEV_GPU_UTIL", "37"),
        ("DCGM_FI_DEV_MEM_COPY_UTIL", "12"),
        ("DCGM_FI_DEV_GPU_TEMP", "54"),
        ("DCGM_FI_DEV_POWER_USAGE", "215.5"),
        ("DCGM_FI_DEV_SM_CLOCK", "1980"),
    ] {
        let want = format!("{name}{labels} {v}");
        assert!(t.lines().any(|l| l == want), "missing {want}\n{t}");
        assert!(t.contains(&format!("# TYPE {name} gauge\n")));
    }
    assert!(t.contains("# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n"));
    // The second device knows only its total: no DCGM series is made up for it.
    assert!(!t.contains("UUID=\"GPU-1111\""), "{t}");
    // The memory clock is unknown on both: the family is absent, not 0.
    assert!(!t.contains("DCGM_FI_DEV_MEM_CLOCK"));
    assert_eq!(dcgm_metric_names().count(), 9);
    assert!(dcgm_metric_names().all(|n| n.starts_with("DCGM_FI_DEV_")));
}

#[test]
fn dcgm_compat_leaves_other_vendors_out() {
    let mut s = sample();
    s.devices[0].vendor = Vendor::Amd;
    let t = render_metrics(
        &s,
        &MetricsOptions {
            dcgm_compat: true,
            ..Default::default()
        },
    );
    assert!(!t.contains("DCGM_"), "{t}");
}

#[test]
fn a_members_estimate_names_the_gpu_it_is_a_share_of() {
    // vLLM TP 2: each worker holds one GPU and carries its rank's estimate; the estimate's
    // `device` joins it to that GPU's measured series.
    let mut s = sample();
    s.processes.clear();
    for (pid, dev) in [(41u32, G0), (42, G1)] {
        let mut p = proc_(pid, "VLLM::Worker_TP", None, &[(dev, Some(1 << 30))]);
        let mut w = llama_workload("Qwen2-72B");
        w.kind = WorkloadKind::Vllm;
        w.member = Some(gpuledger_model::Member {
            root_pid: Some(40),
            role: format!("worker TP{}/2", pid - 41),
            role_kind: gpuledger_model::RoleKind::Worker,
            evidence: "test".into(),
        });
        p.workload = Some(w.into());
        p.estimate = Some(estimate(Some(1), "test").into());
        s.processes.push(p);
    }
    // A process on two GPUs: its estimate is of both, so no one device is named.
    let mut both = proc_(50, "llama-server", None, &[(G0, Some(1)), (G1, Some(1))]);
    both.estimate = Some(estimate(Some(1), "test").into());
    s.processes.push(both);
    let t = render_metrics(&s, &MetricsOptions::default());
    let totals = lines_of(&t, "gpuledger_process_estimated_total_bytes");
    let of = |pid: &str| {
        totals
            .iter()
            .find(|l| l.contains(&format!("pid=\"{pid}\"")))
            .unwrap()
            .to_string()
    };
    assert!(
        of("42").starts_with(&format!(
            "gpuledger_process_estimated_total_bytes{{device=\"{G1}\",pid=\"42\""
        )),
        "{totals:?}"
    );
    assert!(
        of("42").contains(r#"role="worker TP1/2",workload_root="40""#),
        "{totals:?}"
    );
    assert!(of("41").contains(&format!("device=\"{G0}\"")), "{totals:?}");
    assert!(!of("50").contains("device="), "{totals:?}");
}

#[test]
fn pods_the_kubelet_named_carry_namespace_pod_and_container_name() {
    let mut s = shared_node();
    let o = s.processes[0].owner.as_mut().unwrap();
    o.namespace = Some("team-a".into());
    o.pod_name = Some("chat-0".into());
    o.container_name = Some("vllm".into());
    o.relabel();
    let t = render_metrics(&s, &MetricsOptions::default());
    let mem = lines_of(&t, "gpuledger_process_memory_bytes");
    let named = mem.iter().find(|l| l.contains("pid=\"10\"")).unwrap();
    for want in [
        "namespace=\"team-a\"",
        "pod=\"chat-0\"",
        "container_name=\"vllm\"",
    ] {
        assert!(named.contains(want), "{named}");
    }
    let unnamed = mem.iter().find(|l| l.contains("pid=\"11\"")).unwrap();
    assert!(!unnamed.contains("namespace="), "{unnamed}");
    let sums = lines_of(&t, OWNER_MEMORY);
    let sum = sums.iter().find(|l| l.contains("pod=\"chat-0\"")).unwrap();
    assert!(
        sum.contains("namespace=\"team-a\"") && sum.contains("owner=\"team-a/chat-0/vllm\""),
        "{sum}"
    );
}

#[test]
fn dcgm_compat_names_the_one_container_a_gpu_was_assigned_and_none_on_a_shared_gpu() {
    let assign = |id: &str, pod: &str, ctr: &str| gpuledger_model::DeviceAssignment {
        resource: "nvidia.com/gpu".into(),
        device_id: id.into(),
        namespace: "team-a".into(),
        pod: pod.into(),
        container: ctr.into(),
        gpu: None,
    };
    let opts = MetricsOptions {
        dcgm_compat: true,
        ..Default::default()
    };
    let mut s = sample();
    s.device_assignments = vec![assign("GPU-0000", "render-0", "blender")];
    let t = render_metrics(&s, &opts);
    let fb = lines_of(&t, "DCGM_FI_DEV_FB_USED");
    assert!(
        fb[0].contains(r#",pod="render-0",namespace="team-a",container="blender"} "#),
        "{fb:?}"
    );
    // Two replicas of the same GPU to two pods: shared, so no pod is named.
    s.device_assignments = vec![
        assign("GPU-0000::0", "chat-0", "vllm"),
        assign("GPU-0000::1", "chat-1", "vllm"),
    ];
    let t = render_metrics(&s, &opts);
    let fb = lines_of(&t, "DCGM_FI_DEV_FB_USED");
    assert!(!fb[0].contains("pod="), "{fb:?}");
    // Two replicas to one container: still that container's alone.
    s.device_assignments = vec![
        assign("GPU-0000::0", "chat-0", "vllm"),
        assign("GPU-0000::1", "chat-0", "vllm"),
    ];
    let t = render_metrics(&s, &opts);
    assert!(lines_of(&t, "DCGM_FI_DEV_FB_USED")[0].contains(r#"pod="chat-0""#));
    // GKE's device-node id, resolved to its GPU by the kubelet source: named like a UUID.
    let mut gke = assign("nvidia0/vgpu0", "chat-2", "vllm");
    s.device_assignments = vec![gke.clone()];
    let t = render_metrics(&s, &opts);
    assert!(!lines_of(&t, "DCGM_FI_DEV_FB_USED")[0].contains("pod="));
    gke.gpu = Some("GPU-0000".into());
    s.device_assignments = vec![gke];
    let t = render_metrics(&s, &opts);
    assert!(lines_of(&t, "DCGM_FI_DEV_FB_USED")[0].contains(r#"pod="chat-2""#));
}

/// What a runtime reported is its own family: Ollama's size_vram for a Go-engine runner that
/// has no estimate, and a figure both a log and an API reported once per process.
#[test]
fn runtime_reported_figures_are_their_own_family_once_per_name() {
    let mut s = many(2);
    let fig = |what: &str, b: Option<u64>| {
        ReportedFigure::new(what, b, None, "GET http://127.0.0.1:11434/api/ps")
    };
    s.processes[0].no_estimate = Some(
        NoEstimate {
            why: "no recipe models it".into(),
            reported: vec![fig("size_vram", Some(7335301120)), fig("expires_at", None)],
        }
        .into(),
    );
    let mut e = estimate(Some(300), "test");
    e.reported = vec![fig("KV cache", Some(4096)), fig("KV cache", Some(4097))];
    s.processes[1].estimate = Some(e.into());
    let t = render_metrics(&s, &MetricsOptions::default());
    let lines = lines_of(&t, RUNTIME_REPORTED);
    assert_eq!(lines.len(), 2, "{lines:?}");
    let pid0 = format!("pid=\"{}\"", s.processes[0].pid);
    let vram = lines.iter().find(|l| l.contains(&pid0)).unwrap();
    assert!(
        vram.contains("what=\"size_vram\"") && vram.ends_with(" 7335301120"),
        "{vram}"
    );
    let pid1 = format!("pid=\"{}\"", s.processes[1].pid);
    let kv = lines.iter().find(|l| l.contains(&pid1)).unwrap();
    assert!(kv.ends_with(" 4096"), "the first of a name: {kv}");
    assert!(!RUNTIME_REPORTED.contains("estimated"), "not an estimate");
}

/// A workload of several processes is one series with the total `snapshot --json`'s
/// `workload_groups` carries; with no member estimate the estimated family is absent, not 0.
#[test]
fn a_workload_of_several_processes_is_one_series_with_the_jsons_total() {
    let mut s = sample();
    for (i, p) in s.processes.iter_mut().enumerate() {
        for u in p.usage.iter_mut() {
            u.memory_bytes.get_or_insert(1 << 30);
        }
        let mut w: gpuledger_model::Workload = llama_workload("/m/Qwen3-8B.gguf");
        w.member = Some(gpuledger_model::Member {
            root_pid: Some(4200),
            role: format!("worker TP{i}/2"),
            role_kind: gpuledger_model::RoleKind::Worker,
            evidence: "test".into(),
        });
        p.workload = Some(w.into());
    }
    let all: Vec<&gpuledger_model::Process> = s.processes.iter().collect();
    let g = &gpuledger_model::Snapshot::group_totals(&all)[0];
    let t = render_metrics(&s, &MetricsOptions::default());
    let line = t
        .lines()
        .find(|l| l.starts_with("gpuledger_workload_memory_bytes{"))
        .unwrap_or_else(|| panic!("{t}"));
    assert!(
        line.starts_with(
            r#"gpuledger_workload_memory_bytes{workload_root="4200",workload_label=""#
        ) && line.contains(&format!(r#",members="{}"}}"#, g.members.len())),
        "{line}"
    );
    match g.measured_bytes {
        Some(b) => assert!(line.ends_with(&format!(" {b}")), "{line}"),
        None => panic!("the sample's memory is known: {g:?}"),
    }
    assert!(
        !t.contains("gpuledger_workload_estimated_memory_bytes"),
        "{t}"
    );
    // A member's memory unknown: the sum is unknown, so no series (not a partial sum).
    s.processes[1].usage[0].memory_bytes = None;
    let t = render_metrics(&s, &MetricsOptions::default());
    assert!(!t.contains("gpuledger_workload_memory_bytes{"), "{t}");
    // A single process is not a workload of several.
    let t = render_metrics(&sample(), &MetricsOptions::default());
    assert!(!t.contains("gpuledger_workload_"), "{t}");
}
