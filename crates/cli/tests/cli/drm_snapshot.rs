//! End to end: the real binary on the recorded DRM trees (fixtures/linux), through
//! `--proc-root` / `--sys-root`, with and without the fake NVML.
#![cfg(target_os = "linux")]

use crate::serve_support;
use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MIB: u64 = 1 << 20;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/linux")
        .join(name)
}

/// Run gpuledger on a fixture with no NVML library.
fn run(name: &str, args: &[&str]) -> Output {
    let f = fixture(name);
    Command::new(env!("CARGO_BIN_EXE_gpuledger"))
        .arg("--proc-root")
        .arg(f.join("proc"))
        .arg("--sys-root")
        .arg(f.join("sys"))
        .arg("--nvml-lib")
        .arg(f.join("no-nvml-here.so"))
        .args(args)
        .env_remove("GPULEDGER_NVML_LIB")
        .output()
        .expect("run gpuledger")
}

fn text(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn usage(v: &serde_json::Value, pid: u64) -> &serde_json::Value {
    let p = v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == pid)
        .unwrap_or_else(|| panic!("pid {pid} missing"));
    &p["usage"][0]
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
    let drm = v["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "drm")
        .unwrap();
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
    let p = v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == 5120)
        .unwrap();
    assert_eq!(p["rocm_kfd"], true);
    assert!(p["container"].as_str().unwrap().starts_with("podman://"));
    assert!(p["usage"][0]["engines"]["sm_percent"].is_null());
    // Fields that do not apply are absent, not false/null noise.
    let llama_p = v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == 3001)
        .unwrap();
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
    let d = v["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["uuid"] == "pci-0000:03:00.0")
        .unwrap();
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
    let out = Command::new(env!("CARGO_BIN_EXE_gpuledger"))
        .arg("--proc-root")
        .arg(dir.path().join("proc"))
        .arg("--sys-root")
        .arg(dir.path().join("sys"))
        .arg("--nvml-lib")
        .arg(dir.path().join("none.so"))
        .arg("selftest")
        .env_remove("GPULEDGER_NVML_LIB")
        .output()
        .unwrap();
    let t = text(&out);
    assert!(t.contains("[not found] drm"), "{t}");
    assert!(t.contains("no DRM devices under"), "{t}");
}

#[test]
fn nvml_device_is_not_duplicated_by_nvidia_drm() {
    let f = fixture("nvidia-drm");
    let (_d, sc) = scenario(TWO_GPUS);
    let out = Command::new(env!("CARGO_BIN_EXE_gpuledger"))
        .arg("--nvml-lib")
        .arg(fake_nvml())
        .arg("--proc-root")
        .arg(f.join("proc"))
        .arg("--sys-root")
        .arg(f.join("sys"))
        .args(["snapshot", "--json"])
        .env("FAKE_NVML_SCENARIO", &sc)
        .env_remove("GPULEDGER_NVML_LIB")
        .output()
        .unwrap();
    let v = json_of(&out);
    let devices = v["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 2, "only NVML's two devices: {devices:#?}");
    assert!(devices.iter().all(|d| d["source"] == "nvml"));
    let p = v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == 4242)
        .unwrap();
    assert!(
        p["usage"]
            .as_array()
            .unwrap()
            .iter()
            .all(|u| u["memory_source"] == "nvml"),
        "{p:#?}"
    );
    assert_eq!(p["name"], "llama-server");
    let drm = v["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "drm")
        .unwrap();
    assert!(drm["detail"]
        .as_str()
        .unwrap()
        .contains("1 client on NVIDIA devices skipped"));
}

/// Issue 16 §3: a platform GPU (panfrost on an RK3568) is not on PCI: no `pci_bus_id` in the
/// JSON, none in the Prometheus `gpuledger_device_info` labels, and a `drm-` identity there too.
#[test]
fn platform_gpu_has_no_pci_bus_id_in_json_or_metrics() {
    let v = json_of(&run("panfrost-board", &["snapshot", "--json"]));
    let gpu = v["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["uuid"] == "drm-fde60000.gpu")
        .unwrap_or_else(|| panic!("{:#}", v["devices"]));
    assert!(gpu["pci_bus_id"].is_null(), "{gpu:#}");
    assert_eq!(usage(&v, 1400)["device"], "drm-fde60000.gpu");

    // The same tree served: the label set is the device's, not a PCI one.
    let f = fixture("panfrost-board");
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpuledger"))
        .arg("--proc-root")
        .arg(f.join("proc"))
        .arg("--sys-root")
        .arg(f.join("sys"))
        .arg("--nvml-lib")
        .arg(f.join("no-nvml-here.so"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env_remove("GPULEDGER_NVML_LIB")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start gpuledger serve");
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let _guard = serve_support::Guard(child);
    let mut line = String::new();
    std::io::BufRead::read_line(&mut err, &mut line).unwrap();
    let addr: std::net::SocketAddr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no listening line: {line:?}"))
        .parse()
        .unwrap();
    let m = serve_support::get(addr, "/metrics").body;
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
