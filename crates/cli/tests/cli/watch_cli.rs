//! `gpuledger watch` end to end against the fake NVML.

use crate::support::*;
use std::process::Output;

const SCENARIO: &str = "\
device|index=0|name=NVIDIA H200|uuid=GPU-1|total=100000000000|used=95000000000|free=5000000000|temp=54
compute|dev=0|pid=4242|mem=9663676416
compute|dev=0|pid=5151|mem=1073741824
";

/// `watch` with each of `alerts`, `count` rounds 20 ms apart, then `extra`.
fn watch(m: &Machine, alerts: &[&str], count: &str, extra: &[&str]) -> Output {
    let mut args = vec!["watch"];
    for a in alerts {
        args.extend(["--alert", a]);
    }
    args.extend(["--interval", "20ms", "--count", count]);
    args.extend(extra);
    m.run(&args)
}

/// The scenario's two GPU processes: PID 4242 named `name` running `argv`, PID 5151 python3.
fn two_processes(name: &str, argv: &[&str]) -> Machine {
    let procs = ProcTree::new();
    procs.add(4242, name, 1000, 5, argv);
    procs.add(5151, "python3", 1000, 6, &["python3"]);
    Machine::new(SCENARIO, procs)
}

#[test]
fn fires_once_per_excursion_prints_and_runs_the_hook() {
    let m = two_processes("llama-server", &["llama-server", "--api-key", "sk-SECRET"]);
    let log = m.scenario.with_file_name("hook.log");
    let hook = format!(
        "printf '%s|%s|%s|%s|%s\\n' \"$GPULEDGER_ALERT_STATE\" \"$GPULEDGER_ALERT\" \"$GPULEDGER_PID\" \"$GPULEDGER_VALUE_PROCESS_MEMORY\" \"$GPULEDGER_PROCESS_NAME\" >> {}",
        log.display()
    );
    let out = watch(
        &m,
        &["device.memory.used > 90%", "process.memory > 8GiB"],
        "4",
        &["--exec", &hook],
    );
    let text = ok_stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    // Four samples over the thresholds: one line per alert and subject, no repeats.
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].ends_with(" FIRING device.memory.used > 90% · GPU0 NVIDIA H200 · device.memory.used = 88.5 GiB (95.0% of total)"), "{text}");
    assert!(lines[1].ends_with(" FIRING process.memory > 8GiB · llama-server (pid 4242) on GPU0 NVIDIA H200 · process.memory = 9 GiB (9.7% of total)"), "{text}");
    let hook_log = std::fs::read_to_string(&log).unwrap();
    let mut hook_lines: Vec<&str> = hook_log.lines().collect();
    hook_lines.sort();
    assert_eq!(
        hook_lines,
        [
            "firing|device.memory.used > 90%|||",
            "firing|process.memory > 8GiB|4242|9663676416|llama-server"
        ]
    );
    assert!(!hook_log.contains("sk-SECRET"));

    // JSON lines.
    let out = watch(&m, &["process.memory > 8GiB"], "2", &["--json"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(v["state"], "firing");
    assert_eq!(v["subject"]["pid"], 4242);
    assert_eq!(v["observed"][0]["value"], 9663676416.0);
    assert_eq!(text.lines().count(), 1);
}

#[test]
fn a_bad_expression_points_at_the_token() {
    let m = Machine::new(SCENARIO, ProcTree::new());
    let out = m.run(&["watch", "--alert", "process.memory > 8 GiBs"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    // "GiBs" is not a unit, so "8" stands alone: a bare number on a byte field, refused where it
    // stands with the two readings it could have meant.
    assert!(
        err.contains("(column 18)\n  process.memory > 8 GiBs\n                   ^\n"),
        "{err}"
    );
    assert!(err.contains("8%") && err.contains("8GiB"), "{err}");
}

#[test]
fn alert_lines_escape_control_characters_in_process_names() {
    let m = two_processes("x\x1b]0;PWNED\x07\x1b[2J\u{9b}1m", &["x"]);
    for json in [false, true] {
        let extra: &[&str] = if json { &["--json"] } else { &[] };
        let out = watch(&m, &["process.memory > 8GiB"], "1", extra);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            !text.contains(['\x1b', '\x07', '\u{9b}']),
            "json {json}: {text:?}"
        );
        if json {
            let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
            assert_eq!(
                v["subject"]["process_name"],
                "x\x1b]0;PWNED\x07\x1b[2J\u{9b}1m"
            );
        } else {
            assert!(
                text.contains("x\\u001b]0;PWNED\\u0007\\u001b[2J\\u009b1m (pid 4242)"),
                "{text}"
            );
        }
    }
}

#[test]
fn lines_and_the_hook_text_speak_the_language_and_json_does_not() {
    let m = two_processes("llama-server", &["llama-server"]);
    let log = m.scenario.with_file_name("hook-zh.log");
    let hook = format!(
        "printf '%s|%s\\n' \"$GPULEDGER_ALERT_STATE\" \"$GPULEDGER_ALERT_TEXT\" >> {}",
        log.display()
    );
    let zh = ["--lang", "zh-CN"];
    let out = watch(
        &m,
        &["process.memory > 8GiB"],
        "2",
        &[&zh[..], &["--exec", &hook]].concat(),
    );
    let text = ok_stdout(&out);
    let want = " 触发 process.memory > 8GiB · GPU0 NVIDIA H200 上的 llama-server（PID 4242） · process.memory = 9 GiB（占总量 9.7%）";
    assert!(text.trim_end().ends_with(want), "{text}");
    // The hook gets the line as printed; the state variable is the machine word.
    let hook_log = std::fs::read_to_string(&log).unwrap();
    assert!(
        hook_log.starts_with("firing|") && hook_log.trim_end().ends_with(want),
        "{hook_log}"
    );
    // JSON is the same in every language (the time aside).
    let json = |lang: &str| {
        let out = watch(
            &m,
            &["process.memory > 8GiB"],
            "1",
            &["--lang", lang, "--json"],
        );
        let mut v: serde_json::Value = serde_json::from_str(ok_stdout(&out).trim()).unwrap();
        v["at_ms"] = 0.into();
        v
    };
    assert_eq!(json("en"), json("zh-TW"));
}
