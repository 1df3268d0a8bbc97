//! End to end: `gpuledger probe` loads the fake CUDA driver (and, through the NVML source, the
//! same fake's NVML entry points, which share its state) with the real loading code, and the
//! table, the JSON, `--save`, the errors and Ctrl-C are checked on the real binary.

#![cfg(unix)]

use crate::support::{fake_cuda, gpuledger_command};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MIB: u64 = 1 << 20;

fn scenario_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testing/fake-cuda/scenarios")
        .join(name)
}

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    /// A proc root with a meminfo reporting `avail` bytes, a scenario, a call log.
    fn new(scenario: &str, extra: &str, avail: u64) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let text = std::fs::read_to_string(scenario_file(scenario)).unwrap() + extra;
        std::fs::write(dir.path().join("scenario.txt"), text).unwrap();
        std::fs::create_dir_all(dir.path().join("proc")).unwrap();
        std::fs::write(
            dir.path().join("proc/meminfo"),
            format!("MemTotal: 65843380 kB\nMemAvailable: {} kB\n", avail / 1024),
        )
        .unwrap();
        Env { dir }
    }

    fn run(&self, args: &[&str]) -> Output {
        let lib = fake_cuda();
        gpuledger_command()
            .arg("--proc-root")
            .arg(self.dir.path().join("proc"))
            .arg("--nvml-lib")
            .arg(lib)
            .arg("probe")
            .arg("--cuda-lib")
            .arg(lib)
            .args(["--settle-ms", "1"])
            .args(args)
            .env("FAKE_CUDA_SCENARIO", self.dir.path().join("scenario.txt"))
            .env("FAKE_CUDA_LOG", self.dir.path().join("calls.log"))
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            .output()
            .unwrap()
    }

    /// Handles still held at the end of the fake's log.
    fn outstanding(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.dir.path().join("calls.log")).unwrap_or_default();
        let mut live = HashSet::new();
        for line in log.lines() {
            let f: Vec<&str> = line.split('|').collect();
            match f.as_slice() {
                ["ctx_create", h, ..] | ["alloc", _, h, ..] | ["register", h, ..] => {
                    live.insert(h.to_string());
                }
                ["ctx_destroy", h] | ["free", _, h] | ["unregister", h] => {
                    assert!(live.remove(*h), "released unknown {h}");
                }
                _ => {}
            }
        }
        live.into_iter().collect()
    }
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

fn row<'a>(v: &'a serde_json::Value, method: &str, bytes: u64) -> &'a serde_json::Value {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["method"] == method && r["host_bytes"] == bytes)
        .unwrap_or_else(|| panic!("no row {method} {bytes}"))
}

#[test]
fn wddm_like_json_and_save() {
    let env = Env::new("wddm.txt", "", 16 << 30);
    let out = env.run(&["--sizes", "256MiB,3MiB", "--json", "--save"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("pure JSON on stdout");

    assert_eq!(v["device"]["name"], "NVIDIA GeForce RTX 4090");
    assert_eq!(
        v["device"]["uuid"],
        "GPU-00112233-4455-6677-8899-aabbccddeeff"
    );
    assert_eq!(v["driver_version"], "555.85");
    assert_eq!(v["cuda_driver_version"], "12.4");
    assert_eq!(v["context"]["first_by_nvml"], 300 * MIB);
    assert_eq!(v["context"]["second_by_driver"], 300 * MIB);

    let pinned = row(&v, "host_alloc", 256 * MIB);
    assert_eq!(pinned["vram_delta_driver"], 256 * MIB);
    assert_eq!(pinned["vram_delta_nvml"], 256 * MIB);
    assert_eq!(pinned["ratio_driver"], 1.0);
    assert_eq!(pinned["release"]["reads"], 2);
    let reg = row(&v, "host_register", 256 * MIB);
    assert_eq!(reg["vram_delta_driver"], 128 * MIB);
    assert_eq!(reg["ratio_nvml"], 0.5);
    // 3 MiB is charged as 4 MiB at 2 MiB granularity.
    let small = row(&v, "host_alloc_devicemap", 3 * MIB);
    assert_eq!(small["vram_delta_driver"], 4 * MIB);
    assert_eq!(small["ratio_driver"], 4.0 / 3.0);

    // --save went to $XDG_DATA_HOME/gpuledger/probe.json, and says so on stderr.
    let saved = env.dir.path().join("data/gpuledger/probe.json");
    let back: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(back, v);
    let err = text(&out.stderr);
    let date = &v["measured_at"].as_str().unwrap()[..10];
    assert!(err.contains(&saved.display().to_string()), "{err}");
    assert!(
        err.contains(&format!("measured by probe on {date}")),
        "{err}"
    );
    assert!(env.outstanding().is_empty(), "{:?}", env.outstanding());
    // The line it will be shown as is said in the reader's language, device and date kept.
    let zh = env.run(&["--sizes", "256MiB", "--json", "--save", "--lang", "zh-CN"]);
    let err = text(&zh.stderr);
    assert!(zh.status.success(), "{err}");
    let again: serde_json::Value = serde_json::from_slice(&zh.stdout).unwrap();
    let date = &again["measured_at"].as_str().unwrap()[..10];
    assert!(
        err.contains(&format!(
            "NVIDIA GeForce RTX 4090 上的 CUDA 上下文，由 probe 于 {date} 实测"
        )),
        "{err}"
    );
}

#[test]
fn linux_like_table() {
    let env = Env::new("linux.txt", "", 16 << 30);
    let out = env.run(&["--sizes", "1GiB"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(t.contains("NVIDIA H200 (CUDA device 0)"), "{t}");
    assert!(t.contains("driver 570.86.15, CUDA 12.8"), "{t}");
    assert!(
        t.contains("context cost: 500 MiB by NVML (first context); 500 MiB by driver free memory"),
        "{t}"
    );
    let line = |label: &str| -> Vec<String> {
        t.lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no {label} line in\n{t}"))[label.len()..]
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        line("cuMemAlloc (device, control)"),
        ["1 GiB", "1 GiB", "1 GiB", "1.00", "1.00", "yes, read 1"]
    );
    assert_eq!(
        line("cuMemHostAlloc (pinned)"),
        ["1 GiB", "0 B", "0 B", "0.00", "0.00", "yes, read 1"]
    );
    assert_eq!(
        line("cuMemHostRegister"),
        ["1 GiB", "0 B", "0 B", "0.00", "0.00", "yes, read 1"]
    );
    assert!(env.outstanding().is_empty());
}

/// The JSON is the same in each language (the time of measuring aside); the table's words are
/// the language's and its figures the same.
#[test]
fn json_is_the_same_in_every_language_and_the_table_speaks_it() {
    let env = Env::new("linux.txt", "", 16 << 30);
    let json = |lang: &str| {
        let out = env.run(&["--sizes", "1GiB", "--json", "--lang", lang]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["measured_at"] = "".into();
        v.to_string()
    };
    let english = json("en");
    assert_eq!(json("zh-CN"), english);
    assert_eq!(json("zh-TW"), english);
    let out = env.run(&["--sizes", "1GiB", "--lang", "zh-TW"]);
    let t = text(&out.stdout);
    assert!(t.contains("NVIDIA H200（CUDA 裝置 0）"), "{t}");
    assert!(
        t.contains("\n上下文開銷：NVML 測得 500 MiB（第一個上下文）"),
        "{t}"
    );
    let row = t
        .lines()
        .find(|l| l.starts_with("cuMemHostAlloc（鎖定分頁記憶體）"))
        .unwrap_or_else(|| panic!("{t}"));
    assert!(row.ends_with("  是，讀取 1 次"), "{row}");
    assert!(env.outstanding().is_empty());
}

#[test]
fn ctrl_c_releases_everything_and_exits_130() {
    let env = Env::new("wddm.txt", "sigint|cuMemHostRegister_v2|1\n", 16 << 30);
    let out = env.run(&["--sizes", "64MiB", "--save"]);
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("interrupted"));
    assert!(out.stdout.is_empty(), "no partial table");
    assert!(env.outstanding().is_empty(), "{:?}", env.outstanding());
    assert!(
        !env.dir.path().join("data/gpuledger/probe.json").exists(),
        "nothing saved"
    );
}

#[test]
fn errors_are_clear() {
    // Out of memory on the pinned allocation.
    let env = Env::new("wddm.txt", "fail|cuMemHostAlloc|2|1\n", 16 << 30);
    let out = env.run(&["--sizes", "64MiB"]);
    assert_eq!(out.status.code(), Some(1));
    let e = text(&out.stderr);
    assert!(
        e.contains("out of memory: cuMemHostAlloc of 64 MiB failed")
            && e.contains("smaller --sizes"),
        "{e}"
    );
    assert!(env.outstanding().is_empty());

    // No context.
    let env = Env::new("wddm.txt", "fail|cuCtxCreate_v2|46|0\n", 16 << 30);
    let e = text(&env.run(&["--sizes", "64MiB"]).stderr);
    assert!(
        e.contains("could not create a CUDA context on device 0 (NVIDIA GeForce RTX 4090)")
            && e.contains("CUDA_ERROR_DEVICE_UNAVAILABLE"),
        "{e}"
    );

    // Host memory: 1 GiB available, 1 GiB asked.
    let env = Env::new("wddm.txt", "", 1 << 30);
    let out = env.run(&["--sizes", "1GiB"]);
    assert_eq!(out.status.code(), Some(1));
    let e = text(&out.stderr);
    assert!(
        e.contains("refusing to pin 1 GiB: only 1 GiB of host memory is available"),
        "{e}"
    );

    // Bad sizes are usage errors.
    let out = env.run(&["--sizes", "lots"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not a size"));
}

#[test]
fn selftest_reports_the_saved_result_and_its_age() {
    let env = Env::new("linux.txt", "", 16 << 30);
    let selftest = |env: &Env| {
        let out = gpuledger_command()
            .arg("--proc-root")
            .arg(env.dir.path().join("proc"))
            .args(["--nvml-lib", "/nonexistent/libnvidia-ml.so.1", "selftest"])
            .env("XDG_DATA_HOME", env.dir.path().join("data"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let t = selftest(&env);
    assert!(t.contains("[not found] probe"), "{t}");
    assert!(t.contains("gpuledger probe --save"), "{t}");

    assert!(env.run(&["--sizes", "8MiB", "--save"]).status.success());
    let t = selftest(&env);
    assert!(t.contains("[ok] probe"), "{t}");
    assert!(
        t.contains("old) for NVIDIA H200 at ") && t.contains("data/gpuledger/probe.json"),
        "{t}"
    );

    std::fs::write(env.dir.path().join("data/gpuledger/probe.json"), "{}").unwrap();
    let t = selftest(&env);
    assert!(t.contains("[ERROR] probe"), "{t}");
    assert!(t.contains("not a gpuledger probe result"), "{t}");
}

/// Review finding: the tests' runs of the binary read this machine's saved probe
/// (`$GPULEDGER_PROBE_FILE`, else the data folder), so a developer who had run `probe --save` got
/// other totals in the estimate tests. An estimate test, run again by this test binary with a
/// saved probe at either place, still sees the recipe's own overhead.
#[test]
fn a_probe_saved_on_this_machine_does_not_reach_the_tests() {
    let env = Env::new("linux.txt", "", 16 << 30);
    assert!(env.run(&["--sizes", "8MiB", "--save"]).status.success());
    let data = env.dir.path().join("data");
    let probe = data.join("gpuledger/probe.json");
    assert!(probe.is_file());
    let test = "estimate_cli::estimate_overhead_is_the_recipes_own";
    for (var, value) in [("GPULEDGER_PROBE_FILE", &probe), ("XDG_DATA_HOME", &data)] {
        // A child test process: this one's environment stays as it is for the other tests.
        let out = Command::new(std::env::current_exe().unwrap())
            .args([test, "--exact", "--nocapture"])
            .env(var, value)
            .output()
            .unwrap();
        let t = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(
            out.status.success() && t.contains("1 passed"),
            "{var}={}: {t}",
            value.display()
        );
    }
}
