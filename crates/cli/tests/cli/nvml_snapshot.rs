//! End to end: the real binary loads the fake NVML through the real loading code.

use crate::support::*;

fn snapshot_json(m: &Machine) -> serde_json::Value {
    m.json(&["snapshot", "--json"])
}

fn usage<'a>(v: &'a serde_json::Value, pid: u64, dev: &str) -> &'a serde_json::Value {
    process(v, pid)["usage"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["device"] == dev)
        .unwrap_or_else(|| panic!("pid {pid} has no usage on {dev}"))
}

const G0: &str = "GPU-11111111-2222-3333-4444-555555555555";
const G1: &str = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";

#[test]
fn two_devices_processes_unknowns_and_reasons() {
    let m = Machine::two_gpus();
    let v = snapshot_json(&m);
    assert_eq!(v["schema"], "gpuledger.snapshot/1");
    assert_eq!(v["host"]["hostname"], "gpu-box");
    assert_eq!(v["host"]["wsl"], false);

    let d0 = &v["devices"][0];
    assert_eq!(d0["name"], "NVIDIA H200");
    assert_eq!(d0["uuid"], G0);
    assert_eq!(d0["pci_bus_id"], "00000000:18:00.0");
    assert_eq!(d0["driver_version"], "550.54.15");
    assert_eq!(d0["memory"]["total_bytes"], 150754820096u64);
    assert_eq!(d0["memory"]["used_bytes"], 40000000000u64);
    assert_eq!(d0["memory"]["reserved_bytes"], 600000000u64);
    assert_eq!(d0["utilization"]["gpu_percent"], 37);
    assert_eq!(d0["temperature_c"], 54);
    assert_eq!(d0["power"]["usage_watts"], 215.0);
    assert_eq!(d0["power"]["limit_watts"], 700.0);
    assert_eq!(d0["clocks"]["memory_mhz"], 3201);
    assert_eq!(d0["pcie"]["link_gen"], 5);

    // A process on both devices has a usage entry per device.
    assert_eq!(usage(&v, 4242, G0)["memory_bytes"], 17179869184u64);
    assert_eq!(usage(&v, 4242, G1)["memory_bytes"], 4294967296u64);
    assert_eq!(usage(&v, 4242, G0)["memory_source"], "nvml");
    // Newest utilisation sample wins.
    assert_eq!(usage(&v, 4242, G0)["engines"]["sm_percent"], 85);
    assert_eq!(usage(&v, 4242, G0)["engines"]["memory_percent"], 44);

    // In both compute and graphics lists: the larger value, both kinds, counted once.
    let u = usage(&v, 5151, G0);
    assert_eq!(u["memory_bytes"], 9663676416u64);
    assert_eq!(u["kinds"], serde_json::json!(["compute", "graphics"]));

    // NOT_AVAILABLE stays unknown, with a reason, never 0.
    let u = usage(&v, 6001, G0);
    assert!(u["memory_bytes"].is_null());
    assert!(u["unavailable_reason"]
        .as_str()
        .unwrap()
        .contains("not available"));

    // The ledger: GPU0 used 40e9, attributed 17179869184 + 9663676416.
    let attributed = 17179869184u64 + 9663676416;
    assert_eq!(d0["ledger"]["attributed_bytes"], attributed);
    assert_eq!(
        d0["ledger"]["unattributed_bytes"],
        40000000000u64 - attributed
    );
    assert_eq!(d0["ledger"]["unknown_processes"], 1);
    let d1 = &v["devices"][1];
    let attributed1 = 4294967296u64 + 1073741824 + 536870912;
    assert_eq!(
        d1["ledger"]["unattributed_bytes"],
        9000000000u64 - attributed1
    );
    assert_eq!(d1["ledger"]["over_attributed"], false);

    // Metadata and redaction.
    let p = process(&v, 4242);
    assert_eq!(p["name"], "llama-server");
    assert_eq!(p["user"], "alice");
    assert_eq!(p["start_time"], 500000);
    assert_eq!(p["exe"], "/opt/llama/llama-server");
    let text = String::from_utf8(serde_json::to_vec(&v).unwrap()).unwrap();
    for secret in ["SECRET1", "SECRET2", "SECRET3"] {
        assert!(!text.contains(secret), "{secret} leaked into the snapshot");
    }
    assert_eq!(p["cmdline"][6], "<redacted>");

    // The process that exited between the NVML list and the /proc read.
    let gone = process(&v, 9999);
    assert!(gone["name"].is_null());
    assert!(gone["metadata_unavailable"]
        .as_str()
        .unwrap()
        .contains("exited"));
    assert_eq!(usage(&v, 9999, G1)["memory_bytes"], 1073741824u64);
}

/// Why a process's name is missing, in the table's language (the JSON keeps the English).
#[test]
fn an_unseen_process_is_explained_in_chinese() {
    let m = Machine::two_gpus();
    let out = m.run(&["--lang", "zh-TW", "snapshot"]);
    assert!(out.status.success());
    let t = String::from_utf8(out.stdout).unwrap();
    assert!(
        t.contains("在此 /proc 中看不到：處理程序在本輪收集中已結束"),
        "{t}"
    );
    assert!(!t.contains("not visible in this /proc"), "{t}");
}

#[test]
fn table_reads_at_a_glance() {
    let m = Machine::two_gpus();
    let out = m.run(&["snapshot"]);
    assert!(out.status.success());
    let t = String::from_utf8(out.stdout).unwrap();
    assert!(t.contains("NVIDIA H200"), "{t}");
    assert!(t.contains("PROCESSES (measured)"), "{t}");
    // Sorted by memory: llama-server (20 GiB over two devices) before python3 (9 GiB).
    assert!(
        t.find("llama-server").unwrap() < t.find("python3").unwrap(),
        "{t}"
    );
    assert!(t.contains("unattributed on GPU0"), "{t}");
    assert!(t.contains("pid 6001 (ollama) on GPU0: memory n/a"), "{t}");
    assert!(!t.contains("SECRET"), "{t}");
}

#[test]
fn old_driver_falls_back_to_unversioned_entry_points() {
    let m = Machine::two_gpus();
    let v = json_of(&m.run_with(fake_nvml_legacy(), &["snapshot", "--json"]));
    let d0 = &v["devices"][0];
    // nvmlDeviceGetMemoryInfo (v1) counts reserved memory in used.
    assert_eq!(d0["memory"]["used_bytes"], 40600000000u64);
    assert!(d0["memory"]["reserved_bytes"].is_null());
    assert!(d0["unavailable"]["memory.reserved_bytes"]
        .as_str()
        .unwrap()
        .contains("nvmlDeviceGetMemoryInfo_v2"));
    // Missing optional symbols become reasons, not failures.
    assert!(d0["power"]["limit_watts"].is_null());
    assert!(d0["unavailable"]["power.limit_watts"]
        .as_str()
        .unwrap()
        .contains("not exported"));
    assert!(d0["pci_bus_id"].is_null());
    // v1 process lists still work.
    assert_eq!(usage(&v, 4242, G0)["memory_bytes"], 17179869184u64);
    assert!(usage(&v, 4242, G0)["engines"]["sm_percent"].is_null());
    assert!(usage(&v, 4242, G0)["engines"]["unavailable_reason"]
        .as_str()
        .unwrap()
        .contains("nvmlDeviceGetProcessUtilization"));
}

/// MIG on GPU0: its MIG devices' UUIDs are read through NVML's MIG calls (the kubelet's
/// device ids name them); GPU1, without MIG, has none, and neither has an old driver's
/// library, which lacks the calls.
#[test]
fn mig_devices_are_listed_under_their_gpu() {
    let m = Machine::two_gpus();
    let (a, b) = (
        "MIG-0b3c1d2e-4f5a-5b6c-8d7e-9f0a1b2c3d4e",
        "MIG-1c4d2e3f-5a6b-5c7d-9e8f-0a1b2c3d4e5f",
    );
    m.set_scenario(&TWO_GPUS.replacen(
        &format!("uuid={G0}|"),
        &format!("uuid={G0}|mig={a},{b}|"),
        1,
    ));
    let v = snapshot_json(&m);
    assert_eq!(v["devices"][0]["mig_devices"], serde_json::json!([a, b]));
    assert!(
        v["devices"][1].get("mig_devices").is_none(),
        "{}",
        v["devices"][1]
    );
    let v = json_of(&m.run_with(fake_nvml_legacy(), &["snapshot", "--json"]));
    assert!(v["devices"][0].get("mig_devices").is_none());
}

#[test]
fn injected_errors_become_reasons() {
    let m = Machine::new(
        &format!("{TWO_GPUS}fail|fn=nvmlDeviceGetPowerUsage|code=3|dev=1\nfail|fn=nvmlDeviceGetTemperature|code=15\n"),
        two_gpus_procs(),
    );
    let v = snapshot_json(&m);
    assert_eq!(v["devices"][0]["power"]["usage_watts"], 215.0);
    assert!(v["devices"][1]["power"]["usage_watts"].is_null());
    assert_eq!(
        v["devices"][1]["unavailable"]["power.usage_watts"],
        "nvmlDeviceGetPowerUsage: Not Supported"
    );
    assert_eq!(
        v["devices"][0]["unavailable"]["temperature_c"],
        "nvmlDeviceGetTemperature: GPU is lost"
    );
}

#[test]
fn missing_library_is_a_clear_normal_state() {
    let m = Machine::two_gpus();
    let missing = std::path::Path::new("/nonexistent/libnvidia-ml.so.1");
    let out = m.run_with(missing, &["snapshot", "--json"]);
    let v = json_of(&out);
    assert_eq!(v["devices"].as_array().unwrap().len(), 0);
    let nvml = source(&v, "nvml");
    assert_eq!(nvml["status"], "unavailable");
    assert!(nvml["detail"]
        .as_str()
        .unwrap()
        .contains("/nonexistent/libnvidia-ml.so.1"));
    let out = m.run_with(missing, &["snapshot"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("No GPU found"));
}

#[test]
fn init_failure_is_reported_with_nvml_words() {
    let m = Machine::new(&format!("{TWO_GPUS}init_error|code=4\n"), two_gpus_procs());
    let v = snapshot_json(&m);
    let nvml = source(&v, "nvml");
    assert_eq!(nvml["status"], "error");
    assert!(
        nvml["detail"]
            .as_str()
            .unwrap()
            .contains("nvmlInit failed: Insufficient Permissions"),
        "{nvml}"
    );
    // Driver not loaded (9) is "unavailable", not an error.
    m.set_scenario(&format!("{TWO_GPUS}init_error|code=9\n"));
    let v = snapshot_json(&m);
    let nvml = source(&v, "nvml");
    assert_eq!(nvml["status"], "unavailable");
}

#[test]
fn wsl_is_detected_and_explained() {
    let m = Machine::two_gpus();
    std::fs::write(
        m.root().join("sys/kernel/osrelease"),
        "5.15.167.4-microsoft-standard-WSL2\n",
    )
    .unwrap();
    let v = snapshot_json(&m);
    assert_eq!(v["host"]["wsl"], true);
    assert!(v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("WSL2")));
    assert!(usage(&v, 6001, G0)["unavailable_reason"]
        .as_str()
        .unwrap()
        .contains("WDDM"));
}

#[test]
fn selftest_says_what_it_sees_and_cannot() {
    let m = Machine::new(
        &format!("{TWO_GPUS}fail|fn=nvmlDeviceGetPowerUsage|code=3\n"),
        two_gpus_procs(),
    );
    let out = m.run(&["selftest"]);
    assert!(out.status.success());
    let t = String::from_utf8(out.stdout).unwrap();
    assert!(t.contains("[ok] nvml"), "{t}");
    assert!(t.contains("GPU0 NVIDIA H200: GPU-11111111"), "{t}");
    assert!(
        t.contains("cannot see: GPU0 power.usage_watts: nvmlDeviceGetPowerUsage: Not Supported"),
        "{t}"
    );
    assert!(
        t.contains("cannot see: per-process memory: NVML reports"),
        "{t}"
    );
    let out = m.run_with(
        std::path::Path::new("/nonexistent/x.so"),
        &["selftest", "--json"],
    );
    let v = json_of(&out);
    assert_eq!(v[0]["source"], "nvml");
    assert_eq!(v[0]["status"], "unavailable");
}

#[test]
fn replay_round_trips_and_is_marked() {
    let m = Machine::two_gpus();
    let out = m.run(&["snapshot", "--json"]);
    let saved = m.scenario.with_file_name("snap.json");
    std::fs::write(&saved, &out.stdout).unwrap();
    let replay = m.run(&["--replay", saved.to_str().unwrap(), "snapshot", "--json"]);
    assert_eq!(json_of(&replay), json_of(&out));
    let t = m.run(&["--replay", saved.to_str().unwrap(), "snapshot"]);
    assert!(String::from_utf8_lossy(&t.stdout).starts_with("REPLAY of"));
}

#[test]
fn bad_replay_files_name_the_file_and_problem() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\"schema\": \"gpuledger.snapshot/1\", \"devices\": 7}",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpuledger"))
        .args(["--replay", bad.to_str().unwrap(), "snapshot"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("bad.json") && e.contains("not a valid snapshot"),
        "{e}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpuledger"))
        .args(["--replay", "/nonexistent.json", "snapshot"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent.json: cannot read"));
}

#[test]
fn scenario_changes_are_seen_next_round() {
    // The fake re-reads its scenario, so a second invocation sees the new machine.
    let m = Machine::two_gpus();
    let v = snapshot_json(&m);
    assert_eq!(v["processes"].as_array().unwrap().len(), 5);
    m.set_scenario(&TWO_GPUS.replace("compute|dev=0|pid=6001|mem=NA\n", ""));
    let v = snapshot_json(&m);
    assert_eq!(v["processes"].as_array().unwrap().len(), 4);
}

/// NVML lists only processes that were busy since the timestamp asked for. When rounds come
/// faster than its sampling, a busy process has no new sample yet: its last one stands for up to
/// 2 s, after that no sample means idle (0 %).
#[test]
fn utilisation_samples_hold_briefly_then_mean_idle() {
    use gpuledger_sources::{Collector, SourceConfig};
    // The fake is loaded into this process and reads its scenario from the environment; set in a
    // binary whose tests run side by side, the variable would leak into the others. So the test
    // runs again, alone, in a copy of this test binary, and sets it there.
    if std::env::var_os("GPULEDGER_TEST_ALONE").is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "nvml_snapshot::utilisation_samples_hold_briefly_then_mean_idle",
                "--test-threads=1",
            ])
            .env("GPULEDGER_TEST_ALONE", "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("1 passed"),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    let procs = two_gpus_procs();
    // The samples' times are written just before the first round (the fake re-reads its
    // scenario each round), so only the rounds themselves, not the set-up, eat the margins.
    let write = |now_us: u64| {
        TWO_GPUS
            .lines()
            .filter(|l| !l.starts_with("util|"))
            .collect::<Vec<_>>()
            .join("\n")
            + &format!(
                "\nutil|dev=0|pid=4242|sm=85|mem=44|enc=0|dec=0|ts={}\nutil|dev=0|pid=5151|sm=10|mem=2|enc=5|dec=0|ts={}\n",
                now_us,
                now_us - 1_000_000
            )
    };
    let now_us = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_micros() as u64
    };
    let (_d, sc) = scenario(&write(now_us()));
    std::env::set_var("FAKE_NVML_SCENARIO", &sc);
    let mut c = Collector::new(SourceConfig {
        proc_root: procs.root(),
        sys_root: "/nonexistent".into(),
        nvml_lib: Some(fake_nvml().to_path_buf()),
        ..SourceConfig::default()
    });
    let sm = |s: &gpuledger_model::Snapshot, pid: u32| {
        s.processes.iter().find(|p| p.pid == pid).unwrap().usage[0]
            .engines
            .sm_percent
    };
    std::fs::write(&sc, write(now_us())).unwrap();
    let first = c.collect();
    assert_eq!((sm(&first, 4242), sm(&first, 5151)), (Some(85), Some(10)));
    std::thread::sleep(std::time::Duration::from_millis(1200));
    // No new samples: 4242's (about 1.2 s old) still stands, 5151's (over 2.2 s old) has
    // lapsed to idle.
    let second = c.collect();
    assert_eq!((sm(&second, 4242), sm(&second, 5151)), (Some(85), Some(0)));
}

/// A process whose /proc entry could not be read is `n/a` in every column the
/// table could not fill (it was `n/a ? — n/a`).
#[test]
fn an_unreadable_process_is_n_a_in_one_spelling() {
    let m = Machine::two_gpus();
    let text = ok_stdout(&m.run(&["snapshot"]));
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("9999 "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(!row.contains('?') && !row.contains('—'), "{row}");
    assert!(row.matches("n/a").count() >= 4, "{row}");
}
