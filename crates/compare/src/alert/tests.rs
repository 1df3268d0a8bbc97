use super::*;
use gpuledger_model::test_support::{device, process, snapshot, GIB};

fn snap(used_pct: Option<u64>, procs: &[(u32, Option<u64>)]) -> Snapshot {
    let mut d = device(0, "GPU-1", Some(100 * GIB), used_pct.map(|p| p * GIB));
    d.name = Some("NVIDIA H200".into());
    d.temperature_c = Some(70);
    let procs = procs.iter().map(|&(pid, mem)| {
        let mut p = process(pid, "GPU-1", mem);
        p.start_time = Some(1);
        p.name = Some("llama-server".into());
        p.cmdline = Some(vec![
            "llama-server".into(),
            "--api-key".into(),
            "sk-SECRET".into(),
        ]);
        p
    });
    snapshot("t", vec![d], procs.collect())
}

#[test]
fn parses_the_documented_forms() {
    let e = parse("device.memory.used > 90%").unwrap();
    assert_eq!(
        e.conds,
        vec![Cond {
            field: Field::DeviceMemoryUsed,
            op: Op::Gt,
            threshold: Threshold::PercentOfTotal(90.0)
        }]
    );
    let e = parse("process.memory >= 8GiB and device.temperature > 85").unwrap();
    assert_eq!(e.conds[0].threshold, Threshold::Absolute((8 * GIB) as f64));
    assert_eq!(e.conds[0].op, Op::Ge);
    assert_eq!(e.conds[1].field, Field::DeviceTemperature);
    assert_eq!(e.conds[1].threshold, Threshold::Absolute(85.0));
    assert!(e.per_process());
    assert_eq!(
        parse("device.memory.free < 512 MiB").unwrap().conds[0].threshold,
        Threshold::Absolute((512u64 << 20) as f64)
    );
    assert_eq!(
        parse("device.power>300W").unwrap().conds[0].threshold,
        Threshold::Absolute(300.0)
    );
    assert_eq!(
        parse("process.sm > 50 and device.utilization.gpu > 90%")
            .unwrap()
            .conds
            .len(),
        2
    );
}

fn perr(text: &str) -> ParseError {
    parse(text).unwrap_err()
}

#[test]
fn errors_point_at_the_offending_token() {
    let e = perr("device.memory.usd > 90%");
    assert_eq!((e.column, e.width), (1, 17));
    assert!(
        e.message
            .starts_with("unknown field \"device.memory.usd\" (fields: device.memory.used,"),
        "{}",
        e.message
    );
    assert_eq!(
        e.to_string().lines().skip(1).collect::<Vec<_>>(),
        ["  device.memory.usd > 90%", "  ^^^^^^^^^^^^^^^^^"]
    );

    // A bare number on a byte field is refused where it stands (it would mean bytes).
    let text = "device.memory.used > 90% and process.memory > 8 parsecs";
    let e = perr(text);
    assert_eq!((e.column, e.width), (text.find(" 8 ").unwrap() + 2, 1));
    assert!(e.message.contains("bare number"), "{}", e.message);
    let e = perr("device.memory.used > 90% and process.memory > 8GiB parsecs");
    assert_eq!(e.message, "expected \"and\" or the end of the expression");

    let e = perr("process.memory > 8GiBs");
    assert_eq!((e.column, e.width), (18, 5));
    assert_eq!(e.message, "process.memory: expected a size like 8GiB or a percentage of the device total like 90%, not \"8GiBs\"");
    assert_eq!(
        e.to_string().lines().nth(2).unwrap(),
        "                   ^^^^^"
    );

    let e = perr("device.temperature = 85");
    assert_eq!((e.column, e.width), (20, 1));
    assert_eq!(
        e.message,
        "unexpected character '=' (comparisons are >, >=, < or <=)".replace(" or <=", ", <=")
    );

    let e = perr("device.temperature > 85%");
    assert_eq!((e.column, e.width), (22, 3));
    let e = perr("device.memory.used > 90% and");
    assert_eq!(
        (e.column, e.message.as_str()),
        (29, "expected a field after this point")
    );
    let e = perr("device.memory.used 90%");
    assert_eq!((e.column, e.width), (20, 3));
    assert_eq!(
        e.message,
        "expected >, >=, < or <= after device.memory.used"
    );
    let e = perr("device.memory.used > 90% or device.temperature > 85");
    assert_eq!((e.column, e.width), (26, 2));
    // Non-ASCII: columns count characters, not bytes.
    let e = perr("é > 1");
    assert_eq!((e.column, e.width), (1, 1));
}

#[test]
fn hysteresis_fires_once_per_excursion() {
    let e = parse("device.memory.used > 90%").unwrap();
    let mut t = Tracker::new(vec![e], 0);
    let seq = [
        Some(50),
        Some(95),
        Some(96),
        Some(50),
        Some(97),
        Some(98),
        None,
        Some(99),
        Some(50),
    ];
    let mut got = Vec::new();
    for (k, used) in seq.iter().enumerate() {
        for ev in t.observe(&snap(*used, &[]), k as i64 * 1000) {
            got.push((k, ev.state));
        }
    }
    // Unknown (sample 6) is not "over", so it ends the excursion; 7 starts a new one.
    assert_eq!(
        got,
        [
            (1, State::Firing),
            (3, State::Resolved),
            (4, State::Firing),
            (6, State::Resolved),
            (7, State::Firing),
            (8, State::Resolved),
        ]
    );
}

#[test]
fn hold_time_applies_to_firing_and_to_resolving() {
    let e = parse("device.memory.used > 90%").unwrap();
    let mut t = Tracker::new(vec![e], 2000);
    let seq = [95, 95, 95, 50, 95, 50, 50, 50, 95];
    let mut got = Vec::new();
    for (k, used) in seq.iter().enumerate() {
        for ev in t.observe(&snap(Some(*used), &[]), k as i64 * 1000) {
            got.push((k, ev.state, ev.observed.first().map(|o| o.percent_of_total)));
        }
        if k == 4 {
            assert_eq!(t.active().len(), 1);
        }
    }
    assert_eq!(
        got,
        [
            (2, State::Firing, Some(Some(95.0))),
            (7, State::Resolved, None)
        ]
    );
    assert!(t.active().is_empty());
}

#[test]
fn process_alerts_follow_the_process_and_resolve_when_it_goes() {
    let e = parse("process.memory > 8GiB").unwrap();
    let mut t = Tracker::new(vec![e], 0);
    assert!(t
        .observe(&snap(Some(50), &[(10, Some(4 * GIB)), (11, None)]), 0)
        .is_empty());
    let evs = t.observe(&snap(Some(50), &[(10, Some(9 * GIB)), (11, None)]), 1000);
    assert_eq!(evs.len(), 1);
    let ev = &evs[0];
    assert_eq!(ev.subject.pid, Some(10));
    let env = env_vars(ev, "the line".into());
    assert!(env.contains(&("GPULEDGER_ALERT_TEXT".into(), "the line".into())));
    assert!(env.contains(&("GPULEDGER_PID".into(), "10".into())));
    assert!(env.contains(&(
        "GPULEDGER_VALUE_PROCESS_MEMORY".into(),
        (9 * GIB).to_string()
    )));
    assert!(env.iter().all(|(_, v)| !v.contains("sk-SECRET")));
    // Still over: no repeat.
    assert!(t
        .observe(&snap(Some(50), &[(10, Some(10 * GIB))]), 2000)
        .is_empty());
    // Gone: resolved, with why.
    let evs = t.observe(&snap(Some(50), &[]), 3000);
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].state, State::Resolved);
    let note = evs[0].note.as_ref().map(ToString::to_string);
    assert_eq!(note.as_deref(), Some("no longer present"));
}

proptest::proptest! {
    #[test]
    fn parser_never_panics_and_errors_point_inside_the_text(s in "[a-z. ><=%0-9GiBand]{0,40}") {
        if let Err(e) = parse(&s) {
            proptest::prop_assert!(e.column >= 1 && e.column <= s.chars().count() + 1);
        }
    }
}

/// A unitless threshold on a byte field is refused with the two readings spelled out.
#[test]
fn bare_numbers_on_memory_fields_are_refused_with_a_hint() {
    let e = parse("device.memory.used > 90").unwrap_err().to_string();
    assert!(e.contains("90%") && e.contains("90GiB"), "{e}");
    let e = parse("process.memory >= 1000").unwrap_err().to_string();
    assert!(e.contains("bare number"), "{e}");
    assert!(parse("device.memory.used > 90%").is_ok());
    assert!(parse("process.memory > 512MiB").is_ok());
    // Fields with their own unit still take a bare number.
    assert!(parse("device.temperature > 85").is_ok());
}
