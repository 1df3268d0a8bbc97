//! `gpuledger verify`'s Vulkan path for real: the real Vulkan loader, and Mesa's lavapipe as the
//! device (VK_ICD_FILENAMES names only its ICD, so a GPU driver on the machine does not change
//! the outcome). Lavapipe is a CPU device: its heap is host memory, which no GPU source reports,
//! so every source must say it cannot see it, while the child's resident memory shows that the
//! allocation was really made and written. Needs the loader and lavapipe (`.ci/setup-vulkan.sh`):
//! skipped with a message locally when either is absent, a failure under CI=true.

#![cfg(target_os = "linux")]

use crate::support;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CPU: &str = "cannot see: a CPU device (llvmpipe) has no VRAM";

struct Lavapipe {
    icd: PathBuf,
    dir: tempfile::TempDir,
}

impl Lavapipe {
    fn new() -> Option<Lavapipe> {
        let icd = PathBuf::from(format!(
            "/usr/share/vulkan/icd.d/lvp_icd.{}.json",
            std::env::consts::ARCH
        ));
        let loader = Command::new("ldconfig")
            .arg("-p")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).contains("libvulkan.so.1 "))
            .unwrap_or(false);
        let missing = match (loader, icd.exists()) {
            (false, _) => Some("the Vulkan loader libvulkan.so.1 is not installed".to_string()),
            (true, false) => Some(format!("lavapipe is not installed ({})", icd.display())),
            _ => None,
        };
        if let Some(why) = missing {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("{why}: the Vulkan verify test needs it (run .ci/setup-vulkan.sh)");
            }
            eprintln!("SKIPPED: {why} (run .ci/setup-vulkan.sh)");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        // An NVIDIA device in NVML beside the CPU device: NVML is there and answers, and still
        // cannot see lavapipe.
        std::fs::write(
            dir.path().join("nvml.txt"),
            "driver|version=570.86.15\n\
             device|index=0|name=NVIDIA H200|uuid=GPU-aabbccdd-eeff-0011-2233-445566778899|total=150754820096|used=2147483648|free=148607336448|reserved=0\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("sys")).unwrap();
        Some(Lavapipe { icd, dir })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_gpuledger"));
        c.arg("--nvml-lib")
            .arg(support::fake_nvml())
            .arg("--sys-root")
            .arg(self.path("sys"))
            .env("FAKE_NVML_SCENARIO", self.path("nvml.txt"))
            .env("FAKE_GPU_STATE", self.path("state"))
            .env("VK_ICD_FILENAMES", &self.icd)
            .env_remove("VK_DRIVER_FILES")
            .env_remove("GPULEDGER_NVML_LIB")
            .env_remove("GPULEDGER_CUDA_LIB")
            .env_remove("GPULEDGER_VULKAN_LIB")
            .stdin(std::process::Stdio::null());
        c
    }

    fn verify(&self, args: &[&str]) -> Output {
        self.cmd().arg("verify").args(args).output().unwrap()
    }
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn verdict<'a>(j: &'a serde_json::Value, source: &str) -> &'a serde_json::Value {
    j["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["source"] == source)
        .unwrap_or_else(|| panic!("no verdict for {source}: {}", j["verdicts"]))
}

/// The whole sequence on lavapipe: the device is described as the CPU device it is, the
/// allocation was made, written and freed (the child's RSS moved by +N and −N), and every source
/// says it cannot see it; exit 3 (nothing could be verified).
#[test]
fn lavapipe_runs_the_whole_sequence_and_no_source_can_see_a_cpu_device() {
    let Some(l) = Lavapipe::new() else { return };
    let out = l.verify(&["--path", "vulkan", "--size", "64MiB", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j = json(&out);
    assert_eq!(j["path"], "vulkan");
    let d = &j["device"]["vulkan"];
    assert_eq!(d["device_type"], "cpu", "{d}");
    assert_eq!(d["driver_name"], "llvmpipe", "{d}");
    assert!(d["heap_bytes"].as_u64().unwrap() > 64 << 20, "{d}");
    assert!(j["device"]["name"]
        .as_str()
        .unwrap()
        .starts_with("llvmpipe"));
    let steps = j["steps"].as_array().unwrap();
    let names: Vec<&str> = steps.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["idle", "context", "allocated", "freed", "exited"],
        "every step ran"
    );
    let pid = j["child_pid"].as_u64().unwrap();
    for s in &steps[..4] {
        assert_eq!(s["child"]["pid"].as_u64(), Some(pid));
        // Only the CUDA path asks nvidia-smi.
        assert!(s["nvidia_smi"].is_null());
    }
    assert_eq!(steps[2]["child"]["touched"], true);
    // Each GPU source the round had cannot see a CPU device; procfs is no memory source.
    let own: Vec<&serde_json::Value> = j["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["witness"] == false)
        .collect();
    let sources: Vec<&str> = own.iter().map(|v| v["source"].as_str().unwrap()).collect();
    assert!(sources.contains(&"nvml"), "{sources:?}");
    assert!(sources.contains(&"drm"), "{sources:?}");
    assert!(!sources.contains(&"procfs"), "{sources:?}");
    for v in &own {
        assert_eq!(v["text"], CPU, "{v}");
        assert_eq!(v["verdict"], "cannot see", "{v}");
    }
    // The allocation was real: the child's resident memory moved by the size, both ways.
    let rss = verdict(&j, "host memory (the child's RSS)");
    assert_eq!(rss["text"], "ok", "{rss}");
    assert_eq!(rss["witness"], true);
    let checks = rss["checks"].as_array().unwrap();
    let steps: Vec<(&str, &str, bool)> = checks
        .iter()
        .map(|c| {
            (
                c["step"].as_str().unwrap(),
                c["expected"].as_str().unwrap(),
                c["ok"] == true,
            )
        })
        .collect();
    assert_eq!(
        steps,
        [("allocated", "+64 MiB", true), ("freed", "-64 MiB", true)],
        "{rss}"
    );
    let paths = j["paths"].as_array().unwrap();
    assert_eq!(paths[0]["path"], "vulkan");
    assert_eq!(paths[0]["ran"], true);
    assert_eq!(paths[1]["path"], "cuda");
    assert_eq!(paths[1]["why"], "not asked for (--path vulkan)");
    assert_eq!(verdict(&j, "nvidia-smi")["verdict"], "not run");
}

/// `--path auto` on a machine without CUDA: the CUDA path says why it could not start, the
/// Vulkan path runs, and the text names both.
#[test]
fn auto_falls_back_to_vulkan_and_says_why_cuda_did_not_run() {
    let Some(l) = Lavapipe::new() else { return };
    let out = l.verify(&["--size", "32MiB", "--cuda-lib", "/nonexistent/libcuda.so.1"]);
    assert_eq!(out.status.code(), Some(3));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.starts_with("gpuledger verify: 32 MiB allocated and written by PID "),
        "{s}"
    );
    assert!(s.contains("on Vulkan device 0 llvmpipe"), "{s}");
    assert!(
        s.contains("  path cuda: the CUDA workload cannot start: ")
            && s.contains("/nonexistent/libcuda.so.1"),
        "{s}"
    );
    assert!(
        s.contains("  path vulkan: ran (--path auto: the first that could start)"),
        "{s}"
    );
    assert!(s.contains("  nvml "), "{s}");
    assert!(s.contains(CPU), "{s}");
    let rss = s
        .lines()
        .find(|l| l.trim_start().starts_with("host memory (the child's RSS)"))
        .unwrap_or_else(|| panic!("no RSS line: {s}"));
    assert!(rss.ends_with(" ok  [second witness]"), "{rss}");
}

/// The record replays to the same verdicts; a changed reading changes them.
#[test]
fn a_saved_vulkan_record_replays_and_a_changed_reading_is_caught() {
    let Some(l) = Lavapipe::new() else { return };
    let rec = l.path("rec.json");
    let out = l.verify(&[
        "--path",
        "vulkan",
        "--size",
        "16MiB",
        "--save",
        rec.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3));
    let replay = |p: &Path| {
        l.cmd()
            .arg("--replay")
            .arg(p)
            .args(["verify", "--json"])
            .output()
            .unwrap()
    };
    let out = replay(&rec);
    assert_eq!(out.status.code(), Some(3));
    let j = json(&out);
    assert!(j["notes"].as_array().unwrap().is_empty(), "{}", j["notes"]);
    assert_eq!(verdict(&j, "nvml")["text"], CPU);
    assert_eq!(verdict(&j, "host memory (the child's RSS)")["text"], "ok");
    assert_eq!(j["paths"][0]["path"], "vulkan");
    // The text replay names the path too.
    let text = l
        .cmd()
        .arg("--replay")
        .arg(&rec)
        .arg("verify")
        .output()
        .unwrap();
    let t = String::from_utf8_lossy(&text.stdout);
    assert!(t.starts_with("REPLAY of "), "{t}");
    assert!(
        t.contains("  path vulkan: ran (asked for with --path)"),
        "{t}"
    );

    // The child's RSS did not move at the free: the witness must now say so.
    let mut changed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    let after_alloc = changed["steps"][2]["child"]["rss_bytes"].clone();
    changed["steps"][3]["child"]["rss_bytes"] = after_alloc;
    let bad = l.path("changed.json");
    std::fs::write(&bad, serde_json::to_string(&changed).unwrap()).unwrap();
    let j = json(&replay(&bad));
    assert_eq!(
        verdict(&j, "host memory (the child's RSS)")["text"],
        "off by 16 MiB at freed"
    );
    assert!(j["notes"][0]
        .as_str()
        .unwrap()
        .contains("differ from the saved ones"));
}

/// Guard rails measured against lavapipe's heap (it reports no memory budget).
/// More than 10 % of it was first refused for want of --yes (exit 1, no terminal to ask on),
/// and only with --yes did verify say that nothing can be verified on a CPU device (exit 3):
/// that is decided first now, before any question, and nothing is allocated. More than 90 % is
/// refused even with --yes.
#[test]
fn more_than_a_tenth_of_the_heap_needs_yes() {
    let Some(l) = Lavapipe::new() else { return };
    let j = json(&l.verify(&["--path", "vulkan", "--size", "4MiB", "--json"]));
    let heap = j["device"]["vulkan"]["heap_bytes"].as_u64().unwrap();
    let mib = |f: u64| format!("{}MiB", (heap * f / 100) >> 20);
    let out = l.verify(&["--path", "vulkan", "--size", &mib(30)]);
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(3), "{text}{err}");
    assert!(
        text.starts_with("nothing can be verified on this machine:"),
        "{text}"
    );
    assert!(text.contains("is a CPU device (llvmpipe)"), "{text}");
    assert!(text.contains("nothing was allocated"), "{text}");
    assert!(!err.contains("pass --yes"), "{err}");
    let j = json(&l.verify(&["--path", "vulkan", "--size", &mib(30), "--json"]));
    let steps: Vec<&str> = j["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["idle", "context"], "stopped before the allocation");
    let out = l.verify(&["--path", "vulkan", "--size", &mib(95), "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not fit"), "{err}");
}

/// A device index the loader does not list is a sentence naming what it does list.
#[test]
fn a_device_the_loader_does_not_list_is_named() {
    let Some(l) = Lavapipe::new() else { return };
    let out = l.verify(&["--path", "vulkan", "--device", "7"]);
    assert_eq!(out.status.code(), Some(3));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("vulkan: the Vulkan workload cannot start: there is no Vulkan device 7: the loader lists 1 (0: llvmpipe"),
        "{s}"
    );
}

/// `--device N` under `--path auto` is a CUDA ordinal: when CUDA cannot start and the loader lists
/// several devices (lavapipe's ICD named twice here), N does not say which Vulkan device is meant,
/// so verify refuses and says how to choose; `--path vulkan --device N` runs on the loader's N.
#[test]
fn a_cuda_ordinal_is_not_taken_for_a_vulkan_index_when_the_loader_lists_several() {
    let Some(l) = Lavapipe::new() else { return };
    let second = l.path("lvp_icd_again.json");
    std::fs::copy(&l.icd, &second).unwrap();
    let icds = std::env::join_paths([l.icd.clone(), second]).unwrap();
    let run = |args: &[&str]| {
        l.cmd()
            .env("VK_ICD_FILENAMES", &icds)
            .arg("verify")
            .args(["--size", "32MiB", "--cuda-lib", "/nonexistent/libcuda.so.1"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["--device", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("--device 1 is a CUDA ordinal under --path auto, but CUDA could not start and the Vulkan loader numbers its 2 devices its own way (1: llvmpipe"),
        "{e}"
    );
    assert!(e.contains("also 0: llvmpipe"), "{e}");
    assert!(e.contains("run again with --path vulkan --device M"), "{e}");
    assert!(e.contains("nothing was allocated"), "{e}");
    let out = run(&["--path", "vulkan", "--device", "1"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("on Vulkan device 1 llvmpipe"), "{s}");
}

/// No loader at all (no lavapipe needed): a clear sentence and exit 3, in the text and the record.
#[test]
fn a_missing_vulkan_loader_is_a_sentence_not_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gpuledger"))
        .arg("--sys-root")
        .arg(dir.path())
        .args([
            "verify",
            "--path",
            "vulkan",
            "--json",
            "--vulkan-lib",
            "/nonexistent/libvulkan.so.1",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let j = json(&out);
    assert_eq!(j["path"], "none");
    assert!(j["steps"].as_array().unwrap().is_empty());
    let why = j["paths"][0]["why"].as_str().unwrap();
    assert!(
        why.starts_with(
            "the Vulkan workload cannot start: cannot load the Vulkan loader /nonexistent/libvulkan.so.1"
        ),
        "{why}"
    );
    assert!(j["notes"][0]
        .as_str()
        .unwrap()
        .starts_with("nothing can be verified on this machine"));
}
