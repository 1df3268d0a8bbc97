//! `gpuledger verify` with the AMD and Intel tools as witnesses, under the fake CUDA driver and
//! NVML of `verify`: fake `amd-smi`, `rocm-smi` and `xpu-smi` first on PATH print the outputs
//! recorded in `fixtures/verify/witnesses/`, with the live child's PID and memory put in place
//! of the sample's (read from the state file the fake driver keeps). Nothing here ran a real
//! AMD or Intel tool.

#![cfg(unix)]

use crate::support::fake_cuda;
use crate::verify::{text, Env};
use std::path::{Path, PathBuf};

/// The sample's PID and the sample process's VRAM, in every recorded process list.
const SAMPLE_PID: &str = "420157";
const SAMPLE_VRAM: &str = "1061158912";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/verify/witnesses")
        .join(name)
}

/// Sets `$P` to the live child's PID (empty when none) and `$B` to the bytes it holds, from the
/// fake driver's state file (as the fake nvidia-smi of `verify` does), and logs the arguments.
const PRELUDE: &str = r#"#!/bin/sh
echo "$(basename "$0") $*" >> "$WITNESS_LOG"
P=; B=0; CTX=0
if [ -r "$FAKE_GPU_STATE" ]; then
  while IFS='|' read pid dev kind delta; do
    P=$pid; B=$((B + delta))
    [ "$kind" = ctx ] && CTX=$((CTX + (delta > 0 ? 1 : -1)))
  done < "$FAKE_GPU_STATE"
fi
{ [ -n "$P" ] && [ $CTX -gt 0 ] && [ -d /proc/$P ]; } || { P=; B=0; }
"#;

fn install(bin: &Path, name: &str, body: &str) {
    std::fs::create_dir_all(bin).unwrap();
    let script = bin.join(name);
    std::fs::write(&script, format!("{PRELUDE}{body}")).unwrap();
    let mut perm = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&script, perm).unwrap();
}

/// The sample process list with the child in the sample's place (the sample as recorded, another
/// process, when the child holds nothing), and the device's used memory moved by what it holds.
fn honest_amd_smi() -> String {
    format!(
        r#"case "$1" in
process)
  if [ -n "$P" ]; then sed -e "s/{SAMPLE_PID}/$P/" -e "s/{SAMPLE_VRAM}/$B/" '{p}'
  else cat '{none}'; fi ;;
metric)
  sed -e "/used_vram/,/unit/s/\"value\": 1931,/\"value\": $((1931 + B / 1048576)),/" '{m}' ;;
*) echo "unexpected: $*" >&2; exit 2 ;;
esac
"#,
        p = fixture("amd-smi-process.json").display(),
        none = fixture("amd-smi-process-none.json").display(),
        m = fixture("amd-smi-metric-mem-usage.json").display(),
    )
}

fn honest_rocm_smi() -> String {
    format!(
        r#"case "$1" in
--showpids)
  if [ -n "$P" ]; then sed -e "s/{SAMPLE_PID}/$P/" -e "s/{SAMPLE_VRAM}/$B/" '{p}'
  else cat '{p}'; fi ;;
--showmeminfo) sed -e "s/\"2024849408\"/\"$((2024849408 + $B))\"/" '{m}' ;;
*) echo "unexpected: $*" >&2; exit 2 ;;
esac
"#,
        p = fixture("rocm-smi-showpids.json").display(),
        m = fixture("rocm-smi-showmeminfo-vram.json").display(),
    )
}

fn honest_xpu_smi() -> String {
    format!(
        r#"case "$1" in
ps)
  if [ -n "$P" ]; then sed -e "s/{SAMPLE_PID}/$P/" -e "s/1036288/$((B / 1024))/" '{p}'
  else cat '{p}'; fi ;;
stats) sed -e "s/1931\.5/$((1931 + B / 1048576)).5/" '{s}' ;;
*) echo "unexpected: $*" >&2; exit 2 ;;
esac
"#,
        p = fixture("xpu-smi-ps.json").display(),
        s = fixture("xpu-smi-stats.json").display(),
    )
}

/// The `verify` environment with the fake NVML reporting the device's PCI address (the AMD and
/// Intel tools are asked for the device by it).
fn env() -> Env {
    let e = Env::new("", "");
    let nvml = std::fs::read_to_string(e.path("nvml.txt")).unwrap();
    let nvml = nvml.replace("|reserved=0", "|reserved=0|pci=00000000:03:00.0");
    std::fs::write(e.path("nvml.txt"), nvml).unwrap();
    e
}

fn run(e: &Env, args: &[&str]) -> std::process::Output {
    e.cmd()
        .env("PATH", format!("{}:/usr/bin:/bin", e.path("bin").display()))
        .env("WITNESS_LOG", e.path("witness.log"))
        .arg("verify")
        .arg("--cuda-lib")
        .arg(fake_cuda())
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn amd_and_intel_tools_read_the_child_and_the_device_beside_the_sources() {
    let e = env();
    let bin = e.path("bin");
    install(&bin, "amd-smi", &honest_amd_smi());
    install(&bin, "rocm-smi", &honest_rocm_smi());
    install(&bin, "xpu-smi", &honest_xpu_smi());
    let out = run(&e, &["--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = Env::verdicts(&out);
    assert_eq!(text(&v, "nvml (per process)"), "ok");
    for tool in ["amd-smi", "rocm-smi", "xpu-smi"] {
        assert_eq!(text(&v, &format!("{tool} (per process)")), "ok", "{v:?}");
        assert_eq!(text(&v, &format!("{tool} (device used)")), "ok", "{v:?}");
    }
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pid = j["child_pid"].as_u64().unwrap();
    // The raw answers are kept, per step: the child with its context and allocation
    // (500 MiB + 512 MiB in the fake) after allocating, the sample's "no processes" when idle.
    let w = &j["steps"][2]["witnesses"];
    let amd = w["amd-smi process"]["stdout"].as_str().unwrap();
    assert!(amd.contains(&format!("\"pid\": {pid},")), "{amd}");
    assert!(amd.contains("\"value\": 1061158912,"), "{amd}");
    assert!(w["xpu-smi ps"]["stdout"]
        .as_str()
        .unwrap()
        .contains("\"mem_size\": 1036288"));
    let idle = j["steps"][0]["witnesses"]["amd-smi process"]["stdout"]
        .as_str()
        .unwrap();
    assert!(idle.contains("No running processes detected"), "{idle}");
    // Each was asked for the device by its PCI address.
    let log = std::fs::read_to_string(e.path("witness.log")).unwrap();
    assert!(
        log.contains("amd-smi metric --mem-usage --gpu 0000:03:00.0 --json"),
        "{log}"
    );
    assert!(log.contains("xpu-smi stats -d 0000:03:00.0 -j"), "{log}");
    assert!(
        log.contains("rocm-smi --showmeminfo vram --showbus --json"),
        "{log}"
    );
    // A saved record re-derives the same readings from the raw answers alone (no tool is run:
    // the fakes are gone), and a changed raw answer changes them.
    std::fs::write(e.path("rec.json"), &out.stdout).unwrap();
    std::fs::remove_dir_all(&bin).unwrap();
    let replay = |path: &Path| {
        e.cmd()
            .arg("--replay")
            .arg(path)
            .args(["verify", "--json"])
            .output()
            .unwrap()
    };
    let again = replay(&e.path("rec.json"));
    let v = Env::verdicts(&again);
    assert_eq!(text(&v, "xpu-smi (per process)"), "ok", "{v:?}");
    let r: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert!(r["notes"].as_array().unwrap().is_empty(), "{}", r["notes"]);
    let mut changed = j.clone();
    let ps = &mut changed["steps"][2]["witnesses"]["xpu-smi ps"]["stdout"];
    *ps = ps.as_str().unwrap().replace("1036288", "512000").into();
    std::fs::write(e.path("changed.json"), changed.to_string()).unwrap();
    let v = Env::verdicts(&replay(&e.path("changed.json")));
    assert!(
        text(&v, "xpu-smi (per process)").starts_with("off by 512 MiB at allocated"),
        "{v:?}"
    );
    // The text form shows them as witnesses.
    install(&bin, "amd-smi", &honest_amd_smi());
    let out = run(&e, &[]);
    let s = String::from_utf8_lossy(&out.stdout);
    let line = s
        .lines()
        .find(|l| l.trim_start().starts_with("amd-smi (per process)"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(line.ends_with("ok  [second witness]"), "{s}");
}

/// A witness that is wrong is caught: the fake rocm-smi never shows the allocation.
#[test]
fn a_witness_that_misses_the_allocation_is_off_and_does_not_change_the_status() {
    let e = env();
    let bin = e.path("bin");
    // The child's context only: its memory without the 512 MiB allocation.
    install(
        &bin,
        "rocm-smi",
        &honest_rocm_smi().replace("$B", "$((B > 524288000 ? 524288000 : B))"),
    );
    let out = run(&e, &["--json"]);
    assert_eq!(out.status.code(), Some(0), "a witness does not count");
    let v = Env::verdicts(&out);
    assert_eq!(
        text(&v, "rocm-smi (per process)"),
        "off by 512 MiB at allocated (the allocation did not show at all)"
    );
    assert!(text(&v, "rocm-smi (device used)").starts_with("off by 512 MiB at allocated"));
    assert_eq!(
        text(&v, "amd-smi"),
        "not installed (amd-smi is not on PATH)"
    );
}

#[test]
fn garbage_is_kept_raw_a_hang_is_cut_and_a_missing_tool_is_not_installed() {
    let e = env();
    let bin = e.path("bin");
    install(
        &bin,
        "amd-smi",
        "printf 'Segmentation fault (core dumped)\\n\\377\\376'\n",
    );
    // Hangs in a child of its own, which keeps the pipes open after the tool is stopped.
    install(&bin, "xpu-smi", "echo '{\"device_util'\nsleep 30\n");
    let started = std::time::Instant::now();
    let out = run(&e, &["--json"]);
    let took = started.elapsed();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = Env::verdicts(&out);
    let amd = text(&v, "amd-smi (per process)");
    assert!(
        amd.starts_with(
            "cannot see (amd-smi process: not the JSON its documentation shows (expected value at line 1 column 1)"
        ) && amd.ends_with("its output is kept raw in the record)"),
        "{amd}"
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let raw = j["steps"][1]["witnesses"]["amd-smi process"]["stdout"]
        .as_str()
        .unwrap();
    assert!(
        raw.starts_with("Segmentation fault (core dumped)\n"),
        "{raw}"
    );
    assert_eq!(
        text(&v, "xpu-smi (per process)"),
        "cannot see (xpu-smi did not answer within 3 s (stopped; what it printed is kept))"
    );
    let steps = j["steps"].as_array().unwrap();
    assert_eq!(
        steps[0]["witnesses"]["xpu-smi ps"]["stdout"],
        "{\"device_util\n"
    );
    // Asked once: a hung tool costs the limit once, not at every step.
    assert!(steps[1]["witnesses"]["xpu-smi ps"]["error"]
        .as_str()
        .unwrap()
        .starts_with("not asked again: xpu-smi did not answer"));
    assert!(took < std::time::Duration::from_secs(12), "took {took:?}");
    assert_eq!(
        text(&v, "rocm-smi"),
        "not installed (rocm-smi is not on PATH)"
    );
    let log = std::fs::read_to_string(e.path("witness.log")).unwrap();
    assert_eq!(log.matches("xpu-smi ps").count(), 1, "{log}");
    e.assert_released();
}
