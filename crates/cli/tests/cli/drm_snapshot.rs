//! End to end: the real binary on the recorded DRM trees (fixtures/linux), through
//! `--proc-root` / `--sys-root`, with and without the fake NVML.
#![cfg(target_os = "linux")]

use crate::serve_support;
use crate::support::*;
use std::process::Output;

const MIB: u64 = 1 << 20;

/// Run gpuledger on a fixture with no NVML library.
fn run(name: &str, args: &[&str]) -> Output {
    run_on_tree(&linux_fixture(name), args)
}

fn text(out: &Output) -> String {
    assert_ok(out);
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn usage(v: &serde_json::Value, pid: u64) -> &serde_json::Value {
    &process(v, pid)["usage"][0]
}

/// The `devices[]` entry with `uuid`.
fn device<'a>(v: &'a serde_json::Value, uuid: &str) -> &'a serde_json::Value {
    v["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["uuid"] == uuid)
        .unwrap_or_else(|| panic!("no device {uuid}: {:#}", v["devices"]))
}

#[test]
fn amdgpu_desktop_json() {
    let v = json_of(&run("amdgpu-desktop", &["snapshot", "--json"]));
    let d = &v["devices"][0];
    assert_eq!(d["uuid"], "pci-0000:03:00.0");
    assert_eq!(d["source"], "sysfs");
    assert_eq!(d["vendor"], "amd");
    assert_eq!(d["memory"]["used_bytes"], 11769217024u64);
    assert_eq!(d["system_memory"]["used_bytes"], 1803550720u64);
    assert_eq!(d["ledger"]["attributed_bytes"], 10524 * MIB);
    assert_eq!(d["ledger"]["unattributed_bytes"], 700 * MIB);
    assert_eq!(d["system_ledger"]["attributed_bytes"], 1680 * MIB);
    assert_eq!(d["system_ledger"]["unattributed_bytes"], 40 * MIB);
    assert_eq!(d["power_state"], "active");
    let game = usage(&v, 4107);
    assert_eq!(game["memory_source"], "fdinfo");
    assert_eq!(game["device"], "pci-0000:03:00.0");
    assert_eq!(game["memory_bytes"], 9728 * MIB);
    assert_eq!(game["system_memory_bytes"], 1536 * MIB);
    // One round: the rate is unknown (null), with the reason.
    assert!(game["engines"]["sm_percent"].is_null());
    assert!(game["engines"]["unavailable_reason"]
        .as_str()
        .unwrap()
        .contains("second round"));
    let drm = source(&v, "drm");
    assert_eq!(drm["status"], "ok");
    assert!(drm["detail"]
        .as_str()
        .unwrap()
        .contains("de-duplicated by (drm-pdev, drm-client-id)"));
}

#[test]
fn apu_json_gtt_kfd_container() {
    let v = json_of(&run("amdgpu-apu-gtt", &["snapshot", "--json"]));
    let llama = usage(&v, 3001);
    assert_eq!(llama["memory_bytes"], 5348u64 * 1024);
    assert_eq!(llama["system_memory_bytes"], 25258000u64 * 1024);
    assert_eq!(llama["memory_source"], "fdinfo");
    let p = process(&v, 5120);
    assert_eq!(p["rocm_kfd"], true);
    assert!(p["container"].as_str().unwrap().starts_with("podman://"));
    assert!(p["usage"][0]["engines"]["sm_percent"].is_null());
    // Fields that do not apply are absent, not false/null noise.
    let llama_p = process(&v, 3001);
    assert!(llama_p.get("rocm_kfd").is_none());
    assert_eq!(
        v["devices"][0]["system_ledger"]["unattributed_bytes"],
        200 * MIB
    );
}

#[test]
fn apu_table_shows_vram_and_gtt_columns() {
    let t = text(&run("amdgpu-apu-gtt", &["snapshot"]));
    let line = t.lines().find(|l| l.contains("llama-server")).unwrap();
    assert!(
        line.contains("5.22 MiB") && line.contains("24.1 GiB"),
        "{line}"
    );
    assert!(line.contains("docker:8f2a6c3e1b4d"), "{line}");
    let py = t.lines().find(|l| l.contains("python3")).unwrap();
    assert!(py.contains("n/a (kfd)"), "{py}");
    assert!(t.contains("system memory (GTT)"), "{t}");
    assert!(t.contains("ROCm compute (/dev/kfd open)"), "{t}");
}

#[test]
fn suspended_dgpu_json() {
    let v = json_of(&run("suspended-dgpu", &["snapshot", "--json"]));
    let d = device(&v, "pci-0000:03:00.0");
    assert_eq!(d["power_state"], "suspended");
    assert!(d["memory"]["used_bytes"].is_null());
    assert!(d["unavailable"]["memory.used_bytes"]
        .as_str()
        .unwrap()
        .contains("runtime-suspended"));
}

#[test]
fn selftest_reports_the_drm_source() {
    let t = text(&run("suspended-dgpu", &["selftest"]));
    assert!(t.contains("[ok] drm"), "{t}");
    assert!(
        t.contains("2 DRM devices (i915 0000:00:02.0, amdgpu 0000:03:00.0 suspended), 1 client"),
        "{t}"
    );
    assert!(t.contains("pci-0000:03:00.0 (suspended)"), "{t}");
    let t = text(&run("malformed-fdinfo", &["selftest"]));
    assert!(
        t.contains("per-process memory: ") && t.contains("line 11 is malformed"),
        "{t}"
    );
}

#[test]
fn selftest_says_why_no_drm() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("proc")).unwrap();
    let out = on_tree(dir.path(), &dir.path().join("none.so"))
        .arg("selftest")
        .output()
        .unwrap();
    let t = text(&out);
    assert!(t.contains("[not found] drm"), "{t}");
    assert!(t.contains("no DRM devices under"), "{t}");
}

#[test]
fn nvml_device_is_not_duplicated_by_nvidia_drm() {
    let (_d, sc) = scenario(TWO_GPUS);
    let out = on_tree(&linux_fixture("nvidia-drm"), fake_nvml())
        .args(["snapshot", "--json"])
        .env("FAKE_NVML_SCENARIO", &sc)
        .output()
        .unwrap();
    let v = json_of(&out);
    let devices = v["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 2, "only NVML's two devices: {devices:#?}");
    assert!(devices.iter().all(|d| d["source"] == "nvml"));
    let p = process(&v, 4242);
    assert!(
        p["usage"]
            .as_array()
            .unwrap()
            .iter()
            .all(|u| u["memory_source"] == "nvml"),
        "{p:#?}"
    );
    assert_eq!(p["name"], "llama-server");
    let drm = source(&v, "drm");
    assert!(drm["detail"]
        .as_str()
        .unwrap()
        .contains("1 client on NVIDIA devices skipped"));
}

/// A platform GPU (panfrost on an RK3568) is not on PCI: no `pci_bus_id` in the
/// JSON, none in the Prometheus `gpuledger_device_info` labels, and a `drm-` identity there too.
#[test]
fn platform_gpu_has_no_pci_bus_id_in_json_or_metrics() {
    let v = json_of(&run("panfrost-board", &["snapshot", "--json"]));
    let gpu = device(&v, "drm-fde60000.gpu");
    assert!(gpu["pci_bus_id"].is_null(), "{gpu:#}");
    assert_eq!(usage(&v, 1400)["device"], "drm-fde60000.gpu");

    // The same tree served: the label set is the device's, not a PCI one.
    let f = linux_fixture("panfrost-board");
    let served = serve_support::start_serving(on_tree(&f, &f.join("no-nvml-here.so")).args([
        "serve",
        "--listen",
        "127.0.0.1:0",
    ]));
    let m = serve_support::get(served.addr, "/metrics").body;
    let info: Vec<&str> = m
        .lines()
        .filter(|l| l.starts_with("gpuledger_device_info{"))
        .collect();
    assert_eq!(info.len(), 2, "{m}");
    assert!(
        info.iter()
            .any(|l| l.contains("device=\"drm-fde60000.gpu\"")),
        "{info:?}"
    );
    assert!(!m.contains("pci_bus_id="), "{info:?}");
    assert!(!m.contains("pci-fde60000"), "{m}");
}
