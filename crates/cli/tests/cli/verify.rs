//! `gpuledger verify` end to end on the real binary: its child loads the fake CUDA driver, which
//! records what the child holds in a state file; the fake NVML lists the child from that file
//! (and lies when its scenario says so). The verdict words are asserted for the honest fake and
//! for each lie; the record is saved and replayed.

#![cfg(unix)]

use crate::support::{self, fake_cuda};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) const UUID: &str = "GPU-aabbccdd-eeff-0011-2233-445566778899";

pub(crate) struct Env {
    pub(crate) dir: tempfile::TempDir,
}

impl Env {
    /// `cuda`: extra fake-cuda directives; `nvml`: extra fake-NVML lines (`cuda|...` lies).
    pub(crate) fn new(cuda: &str, nvml: &str) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../testing/fake-cuda/scenarios/linux.txt"),
        )
        .unwrap();
        std::fs::write(dir.path().join("cuda.txt"), base + cuda).unwrap();
        std::fs::write(
            dir.path().join("nvml.txt"),
            format!(
                "driver|version=570.86.15\n\
                 device|index=0|name=NVIDIA H200|uuid={UUID}|total=150754820096|used=2147483648|free=148607336448|reserved=0\n{nvml}"
            ),
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("sys")).unwrap();
        Env { dir }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub(crate) fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_gpuledger"));
        c.arg("--nvml-lib")
            .arg(support::fake_nvml())
            .arg("--sys-root")
            .arg(self.path("sys"))
            .env("FAKE_CUDA_SCENARIO", self.path("cuda.txt"))
            .env("FAKE_CUDA_LOG", self.path("calls.log"))
            .env("FAKE_NVML_SCENARIO", self.path("nvml.txt"))
            .env("FAKE_GPU_STATE", self.path("state"))
            .env("PATH", self.path("bin"))
            .env_remove("GPULEDGER_NVML_LIB")
            .env_remove("GPULEDGER_CUDA_LIB")
            .stdin(std::process::Stdio::null());
        c
    }

    pub(crate) fn verify(&self, args: &[&str]) -> Output {
        self.cmd()
            .arg("verify")
            .arg("--cuda-lib")
            .arg(fake_cuda())
            .args(args)
            .output()
            .unwrap()
    }

    /// The verdict text per source, from `--json`.
    pub(crate) fn verdicts(out: &Output) -> Vec<(String, String)> {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        v["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["source"].as_str().unwrap().to_string(),
                    v["text"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(self.path("calls.log")).unwrap_or_default()
    }

    /// Every context destroyed and every device allocation freed.
    pub(crate) fn assert_released(&self) {
        let log = self.log();
        let count = |p: &str| log.lines().filter(|l| l.starts_with(p)).count();
        assert_eq!(count("ctx_create"), count("ctx_destroy"), "{log}");
        assert_eq!(count("alloc|device"), count("free|device"), "{log}");
    }
}

pub(crate) fn text<'a>(v: &'a [(String, String)], source: &str) -> &'a str {
    v.iter()
        .find(|(s, _)| s == source)
        .map(|(_, t)| t.as_str())
        .unwrap_or_else(|| panic!("no verdict for {source}: {v:?}"))
}

#[test]
fn honest_fakes_pass_every_check() {
    let e = Env::new("", "");
    let out = e.verify(&["--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = Env::verdicts(&out);
    assert_eq!(text(&v, "nvml (per process)"), "ok");
    assert_eq!(text(&v, "nvml (device used)"), "ok");
    assert_eq!(text(&v, "unattributed"), "ok");
    assert!(text(&v, "nvidia-smi").starts_with("cannot see (nvidia-smi is not installed"));
    // The CUDA path ran; auto did not go on to Vulkan, and the record says why.
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // nvidia-smi missing at the first round is not looked for again at each of the others.
    assert_eq!(j["steps"][0]["nvidia_smi"]["missing"], true);
    for s in &j["steps"].as_array().unwrap()[1..] {
        let e = s["nvidia_smi"]["error"].as_str().unwrap();
        assert!(
            e.starts_with("not asked again: nvidia-smi is not installed"),
            "{e}"
        );
        assert_eq!(s["nvidia_smi"]["missing"], true);
    }
    assert_eq!(j["path"], "cuda");
    assert_eq!(j["paths"][0]["path"], "cuda");
    assert_eq!(j["paths"][0]["ran"], true);
    assert_eq!(j["paths"][1]["path"], "vulkan");
    assert_eq!(
        j["paths"][1]["why"],
        "not tried: the cuda path ran (--path vulkan runs this one)"
    );
    // The allocation was really made (and written) by the child, then released.
    let log = e.log();
    assert!(
        log.contains("alloc|device|") && log.contains("|536870912"),
        "{log}"
    );
    assert!(log.contains("memset|"), "{log}");
    e.assert_released();
}

#[test]
fn nvml_reporting_na_cannot_see_and_unattributed_moves() {
    let e = Env::new("", "cuda|mem=NA\n");
    let out = e.verify(&["--json"]);
    assert_eq!(out.status.code(), Some(4));
    let v = Env::verdicts(&out);
    assert!(
        text(&v, "nvml (per process)")
            .starts_with("cannot see (NVML reports this process's memory as not available"),
        "{v:?}"
    );
    assert_eq!(text(&v, "nvml (device used)"), "ok");
    // The context (500 MiB in the scenario) lands in unattributed.
    assert!(
        text(&v, "unattributed").starts_with("off by 500 MiB at context"),
        "{v:?}"
    );
    e.assert_released();
}

#[test]
fn nvml_lagging_a_round_is_caught_and_named() {
    let e = Env::new("", "cuda|lag=1\n");
    let out = e.verify(&["--json"]);
    assert_eq!(out.status.code(), Some(4));
    let v = Env::verdicts(&out);
    assert_eq!(
        text(&v, "nvml (per process)"),
        "off at context (it lags a round: each step shows what the step before should)"
    );
    assert_eq!(text(&v, "nvml (device used)"), "ok");
}

#[test]
fn nvml_double_counting_is_off_by_the_allocation() {
    let e = Env::new("", "cuda|count=2\n");
    let out = e.verify(&["--json"]);
    assert_eq!(out.status.code(), Some(4));
    let v = Env::verdicts(&out);
    assert_eq!(
        text(&v, "nvml (per process)"),
        "off by 512 MiB at allocated (about twice the allocation: the memory is counted twice)"
    );
    assert_eq!(text(&v, "nvml (device used)"), "ok");
    assert!(
        text(&v, "unattributed").starts_with("off by 500 MiB at context"),
        "{v:?}"
    );
}

/// The verdicts in the reader's language on a live run (the record keeps the English: a
/// replayed record's verdicts are the words it recorded).
#[test]
fn the_verdicts_speak_the_language_and_the_record_keeps_english() {
    let e = Env::new("", "cuda|count=2\n");
    let rec = e.path("record.json");
    let out = e
        .cmd()
        .args(["--lang", "zh-CN", "verify", "--cuda-lib"])
        .arg(fake_cuda())
        .arg("--save")
        .arg(&rec)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let cn = String::from_utf8(out.stdout).unwrap();
    for says in [
        "在“分配后”一步偏差 512 MiB（约为分配量的两倍：这部分显存被重复计算）",
        "在“创建上下文”一步偏差 500 MiB（按进程统计的数字没有如实反映子进程的显存）",
    ] {
        assert!(cn.contains(says), "{says}\n{cn}");
    }
    assert!(
        cn.lines()
            .any(|l| l.contains("nvml（设备已用）") && l.ends_with(" 正常")),
        "{cn}"
    );
    assert!(
        !cn.contains("off by") && !cn.contains("counted twice"),
        "{cn}"
    );
    // What became of each path, too (the record keeps the English).
    assert!(cn.contains("已运行（--path auto：先尝试 CUDA）"), "{cn}");
    assert!(!cn.contains("not tried"), "{cn}");
    let saved = std::fs::read_to_string(&rec).unwrap();
    // The record keeps the English source label scripts read.
    assert!(saved.contains("\"nvml (device used)\""), "{saved}");
    assert!(
        saved.contains("off by 512 MiB at allocated (about twice the allocation"),
        "{saved}"
    );
    assert!(
        saved.contains("ran (--path auto: CUDA is tried first)"),
        "{saved}"
    );
}

#[test]
fn a_fake_nvidia_smi_is_a_second_witness() {
    let e = Env::new("", "");
    // Answers from the same state file the fake NVML reads: the live child with what it holds.
    let bin = e.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("nvidia-smi");
    std::fs::write(
        &script,
        "#!/bin/sh\necho 'pid, used_memory [MiB]'\n\
         while IFS='|' read pid dev kind delta; do echo \"$pid $kind $delta\"; done < \"$FAKE_GPU_STATE\" 2>/dev/null |\n\
         { sum=0; ctx=0; p=; while read pid kind delta; do p=$pid; sum=$((sum+delta)); [ $kind = ctx ] && ctx=$((ctx + (delta > 0 ? 1 : -1))); done;\n\
           [ -n \"$p\" ] && [ $ctx -gt 0 ] && [ -d /proc/$p ] && echo \"$p, $((sum/1048576)) MiB\"; true; }\n",
    )
    .unwrap();
    let mut perm = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&script, perm).unwrap();
    let out = e
        .cmd()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .arg("verify")
        .arg("--cuda-lib")
        .arg(fake_cuda())
        .arg("--json")
        .output()
        .unwrap();
    let v = Env::verdicts(&out);
    assert_eq!(text(&v, "nvidia-smi"), "ok", "{v:?}");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let raw = j["steps"][2]["nvidia_smi"]["stdout"].as_str().unwrap();
    assert!(raw.contains(", 1012 MiB"), "raw output kept: {raw}");
}

#[test]
fn saved_record_replays_to_the_same_verdicts_and_a_changed_reading_changes_them() {
    let e = Env::new("", "");
    let rec = e.path("rec.json");
    let out = e.verify(&["--save", rec.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    assert_eq!(saved["schema"], "gpuledger.verify/1");
    assert_eq!(saved["steps"].as_array().unwrap().len(), 5);
    assert!(saved["machine"]["os"].is_string());

    let replay = |path: &Path| {
        e.cmd()
            .arg("--replay")
            .arg(path)
            .args(["verify", "--json"])
            .output()
            .unwrap()
    };
    let out = replay(&rec);
    assert_eq!(out.status.code(), Some(0));
    let again = Env::verdicts(&out);
    assert_eq!(text(&again, "nvml (per process)"), "ok");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(j["notes"].as_array().unwrap().is_empty(), "{}", j["notes"]);

    // Halve what NVML said the child held after allocating: the replay must now disagree.
    let mut changed = saved.clone();
    let pid = saved["child_pid"].as_u64().unwrap();
    for p in changed["steps"][2]["snapshot"]["processes"]
        .as_array_mut()
        .unwrap()
    {
        if p["pid"].as_u64() == Some(pid) {
            let m = p["usage"][0]["memory_bytes"].as_u64().unwrap();
            p["usage"][0]["memory_bytes"] = (m - (256 << 20)).into();
        }
    }
    let bad = e.path("changed.json");
    std::fs::write(&bad, serde_json::to_string(&changed).unwrap()).unwrap();
    let out = replay(&bad);
    assert_eq!(out.status.code(), Some(4));
    let v = Env::verdicts(&out);
    assert!(
        text(&v, "nvml (per process)").starts_with("off by 256 MiB at allocated"),
        "{v:?}"
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(j["notes"][0]
        .as_str()
        .unwrap()
        .contains("differ from the saved ones"));
}

#[test]
fn replaying_something_else_is_a_clear_error() {
    let e = Env::new("", "");
    std::fs::write(e.path("x.json"), "{\"schema\":\"gpuledger.snapshot/1\"}").unwrap();
    let out = e
        .cmd()
        .arg("--replay")
        .arg(e.path("x.json"))
        .arg("verify")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a gpuledger verify record"), "{err}");
}

#[test]
fn no_cuda_driver_says_why_nothing_can_be_verified() {
    let e = Env::new("", "");
    // --path cuda: the Vulkan path (which may find lavapipe here) is not tried.
    let out = e
        .cmd()
        .args([
            "verify",
            "--path",
            "cuda",
            "--cuda-lib",
            "/nonexistent/libcuda.so.1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.starts_with("nothing can be verified on this machine"),
        "{s}"
    );
    assert!(s.contains("/nonexistent/libcuda.so.1"), "{s}");
    // --json says it too, in the record.
    let out = e
        .cmd()
        .args([
            "verify",
            "--json",
            "--path",
            "cuda",
            "--cuda-lib",
            "/nonexistent/libcuda.so.1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(j["steps"].as_array().unwrap().is_empty());
    assert!(j["notes"][0]
        .as_str()
        .unwrap()
        .starts_with("nothing can be verified"));
}

/// Neither path can start (--path auto): each says why, in the text and the record.
#[test]
fn auto_with_neither_cuda_nor_vulkan_names_both_reasons() {
    let e = Env::new("", "");
    let args = [
        "verify",
        "--cuda-lib",
        "/nonexistent/libcuda.so.1",
        "--vulkan-lib",
        "/nonexistent/libvulkan.so.1",
    ];
    let out = e.cmd().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.starts_with(
            "nothing can be verified on this machine:\n  cuda: the CUDA workload cannot start: "
        ),
        "{s}"
    );
    assert!(
        s.contains("\n  vulkan: the Vulkan workload cannot start: cannot load the Vulkan loader /nonexistent/libvulkan.so.1"),
        "{s}"
    );
    assert!(
        s.contains("needs a GPU with a CUDA or a Vulkan driver"),
        "{s}"
    );
    let out = e.cmd().args(args).arg("--json").output().unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["path"], "none");
    let paths = j["paths"].as_array().unwrap();
    assert_eq!(paths.len(), 2);
    assert!(paths.iter().all(|p| p["ran"] == false));
}

#[test]
fn more_than_a_tenth_of_free_memory_needs_yes_and_nothing_is_left_behind() {
    // 20 GiB of the fake's ~140 GiB free: more than 10 %, no terminal to ask on.
    let e = Env::new("", "");
    let out = e.verify(&["--size", "20GiB"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("20 GiB on CUDA device 0 (NVIDIA H200) is more than 10 % of free memory ("),
        "{err}"
    );
    assert!(err.contains("pass --yes"), "{err}");
    assert!(err.contains("nothing was allocated"), "{err}");
    assert!(!e.log().contains("alloc|device"), "nothing allocated");
    e.assert_released();
    // With --yes it runs.
    let e = Env::new("", "");
    let out = e.verify(&["--size", "20GiB", "--yes"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    e.assert_released();
}

#[test]
fn more_than_nine_tenths_is_refused_even_with_yes() {
    let e = Env::new("", "");
    let out = e.verify(&["--size", "139GiB", "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not fit"), "{err}");
    e.assert_released();
}

#[test]
fn a_failing_allocation_and_a_ctrl_c_release_everything() {
    let e = Env::new("fail|cuMemAlloc_v2|2|1\n", "");
    let out = e.verify(&[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("CUDA_ERROR_OUT_OF_MEMORY"), "{err}");
    e.assert_released();

    // Ctrl-C in the child while it allocates.
    let e = Env::new("sigint|cuMemAlloc_v2|1\n", "");
    let out = e.verify(&[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("interrupted (Ctrl-C) during the allocated step"),
        "{err}"
    );
    assert!(e.log().contains("alloc|device"), "it had allocated");
    e.assert_released();
}

#[test]
fn a_failing_clean_up_at_exit_fails_the_run_and_is_in_the_record() {
    // Every step goes well; only cuCtxDestroy at exit fails (CUDA_ERROR_INVALID_VALUE).
    let e = Env::new("fail|cuCtxDestroy_v2|1|1\n", "");
    let out = e.verify(&["--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("clean-up at exit failed"), "{err}");
    let rec: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rec["steps"].as_array().unwrap().len(), 5, "{rec}");
    let notes = rec["notes"].to_string();
    assert!(
        notes.contains("failed: its clean-up at exit failed") && notes.contains("cuCtxDestroy"),
        "{notes}"
    );
}

#[test]
fn bad_sizes_are_usage_errors() {
    let e = Env::new("", "");
    for s in ["0", "lots", "5PiB"] {
        let out = e.verify(&["--size", s]);
        assert_eq!(out.status.code(), Some(2), "--size {s}");
    }
}

/// A record saved by an earlier build (fake driver, NVML double counting): it must stay
/// replayable, and re-derive exactly the verdicts it was saved with.
#[test]
fn committed_record_replays_to_its_saved_verdicts() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/verify/fake-nvml-double-count.json");
    let out = Command::new(env!("CARGO_BIN_EXE_gpuledger"))
        .arg("--replay")
        .arg(&fixture)
        .args(["verify", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let v = Env::verdicts(&out);
    assert_eq!(
        text(&v, "nvml (per process)"),
        "off by 512 MiB at allocated (about twice the allocation: the memory is counted twice)"
    );
    assert_eq!(text(&v, "nvml (device used)"), "ok");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(j["notes"].as_array().unwrap().is_empty(), "{}", j["notes"]);
    // The text form says it is a replay.
    let out = Command::new(env!("CARGO_BIN_EXE_gpuledger"))
        .arg("--replay")
        .arg(&fixture)
        .arg("verify")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("REPLAY of "));
}

/// A driver that shows a free only on the third device read after it: verify re-reads (bounded)
/// until the release shows, passes, and records how many extra rounds it took.
#[test]
fn an_asynchronous_release_is_waited_for_and_recorded() {
    let e = Env::new("", "cuda|release_reads=2\n");
    let out = e.verify(&["--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["steps"][3]["name"], "freed");
    assert_eq!(j["steps"][3]["settle_reads"], 2);
    assert_eq!(j["steps"][2]["settle_reads"], 0);
    assert!(j["notes"][0]
        .as_str()
        .unwrap()
        .starts_with("freed: the release showed only after 2 more round(s)"));
    // Without the wait the freed round would have been off: the honest run needs none.
    let e = Env::new("", "");
    let j: serde_json::Value = serde_json::from_slice(&e.verify(&["--json"]).stdout).unwrap();
    assert_eq!(j["steps"][3]["settle_reads"], 0);
}
