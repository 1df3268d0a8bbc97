//! `gpuledger diff` end to end: two snapshots taken by the real binary against the fake NVML, the
//! scenario changed in between (a llama-server restarted with a new PID and a bigger context).

use crate::support::*;

const SCENARIO_A: &str = "\
device|index=0|name=NVIDIA H200|uuid=GPU-1|total=150754820096|used=20000000000|free=130754820096
compute|dev=0|pid=4242|mem=2147483648
compute|dev=0|pid=5151|mem=1073741824
";
const SCENARIO_B: &str = "\
device|index=0|name=NVIDIA H200|uuid=GPU-1|total=150754820096|used=20087031808|free=130667788288
compute|dev=0|pid=4300|mem=2234515456
compute|dev=0|pid=5151|mem=1073741824
";

#[test]
fn restart_with_new_pid_pairs_by_model_and_reports_the_growth() {
    let procs = ProcTree::new();
    let llama = |c: &'static str| {
        vec![
            "/opt/llama-server",
            "-m",
            "/models/qwen3.gguf",
            "-c",
            c,
            "--api-key",
            "sk-SECRET",
        ]
    };
    procs.add(4242, "llama-server", 1000, 500, &llama("4096"));
    procs.add(5151, "python3", 1000, 600, &["python3", "x.py"]);
    let m = Machine::new(SCENARIO_A, procs);
    let dir = tempfile::tempdir().unwrap();
    // `snapshot --json` of the machine as it is now, saved as `name`.
    let save = |name: &str| {
        let out = m.run(&["snapshot", "--json"]);
        assert!(out.status.success());
        let path = dir.path().join(name);
        std::fs::write(&path, &out.stdout).unwrap();
        path
    };
    let a_path = save("a.json");

    std::fs::remove_dir_all(m.root().join("4242")).unwrap();
    m.procs.add(4300, "llama-server", 1000, 900, &llama("8192"));
    m.set_scenario(SCENARIO_B);
    let b_path = save("b.json");

    let args = ["diff", a_path.to_str().unwrap(), b_path.to_str().unwrap()];
    let v = m.json(&[args[0], args[1], args[2], "--json"]);
    assert_eq!(v["schema"], "gpuledger.diff/1");
    assert_eq!(v["devices"][0]["used"]["delta"], 87031808);
    let rows = v["processes"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["paired_by"], "name+model");
    assert_eq!(rows[0]["before"]["pid"], 4242);
    assert_eq!(rows[0]["after"]["pid"], 4300);
    assert_eq!(rows[0]["change"], "grew");
    assert_eq!(rows[0]["measured"]["delta"], 87031808);
    assert_eq!(rows[0]["usage"][0]["source_after"], "nvml");
    assert_eq!(rows[1]["paired_by"], "pid+start_time");
    assert_eq!(rows[1]["change"], "unchanged");
    assert!(!v.to_string().contains("sk-SECRET"));

    let text = String::from_utf8(m.run(&args).stdout).unwrap();
    assert!(text.contains("grew      llama-server pid 4242 → 4300 [paired by name+model]  2 GiB → 2.08 GiB (+83 MiB)"), "{text}");
    // What did not change is counted, not listed (--all lists it).
    assert!(
        text.contains("(1 process unchanged or unknown; --all lists them)"),
        "{text}"
    );
}

#[test]
fn a_bad_file_is_named() {
    let m = Machine::new(SCENARIO_A, ProcTree::new());
    let bad = m.scenario.with_file_name("bad.json");
    std::fs::write(&bad, "{\"schema\":\"gpuledger.snapshot/9\"}").unwrap();
    let out = m.run(&["diff", bad.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.json: not a valid snapshot"), "{err}");
    assert!(err.contains("gpuledger.snapshot/9"), "{err}");
}

/// A GPU process whose `/proc` entry could not be read (a container's process on a
/// shared box) was reported by `diff a.json a.json` as both gone and appeared.
#[test]
fn the_same_file_twice_is_no_change_even_for_a_process_without_metadata() {
    let procs = ProcTree::new();
    procs.add(5151, "python3", 1000, 600, &["python3", "x.py"]);
    // 4242 holds memory on the GPU but has no /proc entry here.
    let m = Machine::new(SCENARIO_A, procs);
    let dir = tempfile::tempdir().unwrap();
    let out = m.run(&["snapshot", "--json"]);
    assert!(out.status.success());
    let a = dir.path().join("a.json");
    std::fs::write(&a, &out.stdout).unwrap();
    let a = a.to_str().unwrap();

    let v = m.json(&["diff", a, a, "--json"]);
    let rows = v["processes"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v:#}");
    for r in rows {
        assert_eq!(r["change"], "unchanged", "{r:#}");
    }
    let hidden = rows.iter().find(|r| r["before"]["pid"] == 4242).unwrap();
    assert_eq!(hidden["paired_by"], "pid+device");
    let text = String::from_utf8(m.run(&["diff", a, a]).stdout).unwrap();
    assert!(
        !text.contains("appeared") && !text.contains("gone"),
        "{text}"
    );
}
