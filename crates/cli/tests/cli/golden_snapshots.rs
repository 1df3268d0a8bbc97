//! What a snapshot shows must not change when collection gets cheaper: the `snapshot --json` of
//! every recorded fixture and of the NVML scenarios is compared with a golden file recorded from
//! the code before the collection rework. `GOLDEN_UPDATE=1` rewrites the files, for a
//! deliberate change of what is shown; review the diff then.
#![cfg(target_os = "linux")]

use crate::support::*;
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/golden")
}

/// The JSON with what differs between runs (the clock, temp and build paths) replaced by names.
fn normalise(stdout: &[u8], paths: &[(&Path, &str)]) -> String {
    let mut v: serde_json::Value = serde_json::from_slice(stdout).expect("snapshot JSON");
    v["taken_at"] = "<TIME>".into();
    let mut text = serde_json::to_string_pretty(&v).unwrap();
    for (p, name) in paths {
        text = text.replace(&*p.to_string_lossy(), name);
    }
    text.push('\n');
    text
}

/// Compare with (or, with GOLDEN_UPDATE=1, write) `tests/cli/golden/<name>.json`; a mismatch names
/// the first differing line.
fn check(name: &str, got: &str) {
    let path = golden_dir().join(format!("{name}.json"));
    if std::env::var_os("GOLDEN_UPDATE").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (GOLDEN_UPDATE=1 records it)", path.display()));
    if want != got {
        panic!(
            "{name}: snapshot differs from {} {}",
            path.display(),
            first_difference(&want, got)
        );
    }
}

/// Where `got` first differs from `want`: a line number and both lines, one of them possibly the
/// end of the file (when one text is a prefix of the other).
fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let end = "<end of file>";
    match (0..w.len().max(g.len())).find(|&i| w.get(i) != g.get(i)) {
        Some(i) => format!(
            "at line {}:\n  want: {}\n  got:  {}",
            i + 1,
            w.get(i).unwrap_or(&end),
            g.get(i).unwrap_or(&end)
        ),
        None => "in line endings or the final newline only".into(),
    }
}

#[test]
fn a_mismatch_names_its_first_differing_line() {
    assert_eq!(
        first_difference("a\nb\nc\n", "a\nB\nc\n"),
        "at line 2:\n  want: b\n  got:  B"
    );
    // One a prefix of the other: the line after the shorter one, not line 1.
    assert_eq!(
        first_difference("a\nb\n", "a\nb\nc\n"),
        "at line 3:\n  want: <end of file>\n  got:  c"
    );
    assert_eq!(
        first_difference("a\nb\nc\n", "a\n"),
        "at line 2:\n  want: b\n  got:  <end of file>"
    );
    assert_eq!(
        first_difference("a\n", "a"),
        "in line endings or the final newline only"
    );
}

#[test]
fn every_drm_fixture_shows_what_it_showed() {
    let root = linux_fixtures();
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("proc").is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 10, "fixtures found: {names:?}");
    for name in names {
        let out = run_on_tree(&root.join(&name), &["snapshot", "--json"]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        check(
            &format!("drm-{name}"),
            &normalise(&out.stdout, &[(&root, "<FIXTURES>")]),
        );
    }
}

/// NVML scenarios: two GPUs with identification material (maps, a listening port, a container),
/// and the NVIDIA DRM fixture behind NVML (its clients are NVML's, not counted twice).
#[test]
fn nvml_scenarios_show_what_they_showed() {
    let lib = fake_nvml();
    let (_d, sc) = scenario(TWO_GPUS);
    let t = two_gpus_procs();
    t.maps(
        4242,
        &[
            "/opt/llama/llama-server",
            "/opt/llama/libggml-cuda.so",
            "/models/qwen3-8b-q4_k_m.gguf",
        ],
    )
    .listen(4242, 8080, 123456)
    .maps(
        5151,
        &["/usr/lib/libtorch_cuda.so", "/usr/lib/libcudart.so.12"],
    );
    std::fs::write(
        t.root().join("5151/cgroup"),
        "0::/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n",
    )
    .unwrap();
    // No sysfs tree: what this machine's /sys holds must not enter the golden file.
    let sys = t.dir.path().join("sys");
    let out = gpuledger(
        lib,
        &sc,
        &t.root(),
        &["--sys-root", sys.to_str().unwrap(), "snapshot", "--json"],
    );
    assert_ok(&out);
    check(
        "nvml-two-gpus",
        &normalise(&out.stdout, &[(t.dir.path(), "<TREE>"), (lib, "<NVML>")]),
    );

    let out = on_tree(&linux_fixture("nvidia-drm"), lib)
        .args(["snapshot", "--json"])
        .env("FAKE_NVML_SCENARIO", &sc)
        .output()
        .unwrap();
    assert_ok(&out);
    check(
        "nvml-nvidia-drm",
        &normalise(
            &out.stdout,
            &[(&linux_fixtures(), "<FIXTURES>"), (lib, "<NVML>")],
        ),
    );
}
