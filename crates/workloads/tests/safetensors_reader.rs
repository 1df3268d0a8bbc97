//! The safetensors header reader against files the real `safetensors` package wrote
//! (fixtures/safetensors, see its README) and what that package reads back from them; hostile
//! headers give an error naming the file, never a panic; arbitrary bytes never panic.

use gpuledger_workloads::safetensors::{
    parse_header, parse_tensors, read_header, read_model, read_tensors, MAX_HEADER_BYTES,
};
use proptest::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/safetensors")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gl-st-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Compare every file in `dir/expected.json` (the package's own reading) with ours.
fn check_against_package(dir: &Path) {
    let exp: Value =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    let files = exp["files"].as_object().unwrap();
    let mut checked = 0;
    for (name, want) in files {
        let Some(tensors) = want.get("tensors").and_then(Value::as_object) else {
            continue;
        };
        let h = read_tensors(&dir.join(name)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            h.header.file_bytes,
            want["file_bytes"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(h.tensors.len(), tensors.len(), "{name}");
        assert_eq!(h.header.tensor_count, tensors.len() as u64, "{name}");
        // The totals a recipe reads agree with every tensor, per dtype too.
        let sum: u64 = h.tensors.iter().map(|t| t.bytes).sum();
        assert_eq!(h.header.tensor_bytes, sum, "{name}");
        assert_eq!(h.header, read_header(&dir.join(name)).unwrap(), "{name}");
        for (d, b) in &h.header.by_dtype {
            let of: u64 = h
                .tensors
                .iter()
                .filter(|t| t.dtype == *d)
                .map(|t| t.bytes)
                .sum();
            assert_eq!(*b, of, "{name} {}", d.name());
        }
        for (tname, t) in tensors {
            let ours = h
                .tensors
                .iter()
                .find(|x| &x.name == tname)
                .unwrap_or_else(|| panic!("{name}: {tname} missing"));
            assert_eq!(
                ours.dtype.name(),
                t["dtype"].as_str().unwrap(),
                "{name} {tname}"
            );
            let shape: Vec<u64> = t["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap())
                .collect();
            assert_eq!(ours.shape, shape, "{name} {tname}");
            assert_eq!(ours.bytes, t["bytes"].as_u64().unwrap(), "{name} {tname}");
            checked += 1;
        }
        let meta: std::collections::BTreeMap<String, String> =
            serde_json::from_value(want["metadata"].clone()).unwrap();
        assert_eq!(h.metadata, meta, "{name}");
    }
    assert!(checked >= 20, "only {checked} tensors compared");
    let total = files["sharded/total_size"].as_u64().unwrap();
    for p in [
        dir.join("sharded"),
        dir.join("sharded/model.safetensors.index.json"),
    ] {
        let m = read_model(&p).unwrap();
        assert_eq!(m.files.len(), 3);
        assert_eq!(m.tensor_bytes(), total);
        assert_eq!(m.index_total_size, Some(total));
        assert_eq!(m.tensor_count(), 6);
    }
}

#[test]
fn package_written_files_read_as_the_package_reads_them() {
    check_against_package(&fixtures());
}

#[test]
fn freshly_generated_files_when_the_package_is_installed() {
    // GPULEDGER_ST_PYTHON, else a venv of its own, else the one .ci/setup-llama.sh makes (it
    // installs the package there); under CI a missing writer is a failure, not a skip.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let py = std::env::var_os("GPULEDGER_ST_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            root.join("target/st-venv/bin/python"),
            root.join("target/llama-venv/bin/python"),
        ])
        .find(|p| {
            p.exists()
                && std::process::Command::new(p)
                    .args(["-c", "import safetensors, numpy"])
                    .status()
                    .is_ok_and(|s| s.success())
        });
    let Some(py) = py else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "no Python with the safetensors package: run .ci/setup-llama.sh"
        );
        eprintln!(
            "skipped: no Python with the safetensors package (see fixtures/safetensors/README.md)"
        );
        return;
    };
    let d = tmp("gen");
    let ok = std::process::Command::new(&py)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gen_safetensors.py"))
        .arg(&d)
        .status()
        .unwrap();
    assert!(ok.success());
    check_against_package(&d);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_folder_without_index_reads_every_shard() {
    let d = tmp("noindex");
    for e in std::fs::read_dir(fixtures().join("sharded")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "safetensors") {
            std::fs::copy(&p, d.join(p.file_name().unwrap())).unwrap();
        }
    }
    let m = read_model(&d).unwrap();
    assert_eq!(m.files.len(), 3);
    assert_eq!(m.index_total_size, None);
    assert_eq!(m.tensor_bytes(), 3 * (32 * 16 + 16 * 48) * 2);
    std::fs::remove_dir_all(&d).unwrap();
}

fn write(d: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = d.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn file_with_header(json: &str, data: usize) -> Vec<u8> {
    let mut b = (json.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(json.as_bytes());
    b.extend(std::iter::repeat_n(0u8, data));
    b
}

#[test]
fn hostile_headers_are_errors_naming_the_file() {
    let d = tmp("hostile");
    let real = std::fs::read(fixtures().join("numpy.safetensors")).unwrap();
    // (file bytes, words the error must contain)
    let mut cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.safetensors", vec![], "shorter than the 8-byte"),
        (
            "huge.safetensors",
            (MAX_HEADER_BYTES + 1).to_le_bytes().to_vec(),
            "over the limit",
        ),
        (
            "cut.safetensors",
            real[..real.len() / 2].to_vec(),
            "truncated",
        ),
        ("short-header.safetensors", real[..40].to_vec(), "truncated"),
        (
            "json.safetensors",
            file_with_header("{\"a\": {\"dtype\": ", 0),
            "not valid JSON",
        ),
        (
            "dtype.safetensors",
            file_with_header(
                r#"{"a":{"dtype":"Q4_K","shape":[2],"data_offsets":[0,2]}}"#,
                2,
            ),
            "unknown dtype",
        ),
        (
            "span.safetensors",
            file_with_header(
                r#"{"a":{"dtype":"F16","shape":[4],"data_offsets":[0,6]}}"#,
                8,
            ),
            "span",
        ),
        (
            "overlap.safetensors",
            file_with_header(
                r#"{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}"#,
                8,
            ),
            "overlap",
        ),
        (
            "overflow.safetensors",
            file_with_header(
                r#"{"a":{"dtype":"F64","shape":[4294967296,4294967296,16],"data_offsets":[0,0]}}"#,
                0,
            ),
            "overflows",
        ),
        (
            "past-end.safetensors",
            file_with_header(
                r#"{"a":{"dtype":"U8","shape":[64],"data_offsets":[0,64]}}"#,
                8,
            ),
            "truncated",
        ),
        (
            "array.safetensors",
            file_with_header("[1,2]", 0),
            "does not start",
        ),
    ];
    cases.push((
        "meta.safetensors",
        file_with_header(r#"{"__metadata__":{"a":1}}"#, 0),
        "not a string",
    ));
    for (name, bytes, words) in cases {
        let p = write(&d, name, &bytes);
        let e = read_header(&p).expect_err(name).to_string();
        assert!(e.contains(&p.display().to_string()), "{name}: {e}");
        assert!(e.contains(words), "{name}: {e}");
    }
    // A shard name that leaves the folder, and a missing shard.
    let idx = write(
        &d,
        "model.safetensors.index.json",
        br#"{"weight_map":{"a":"../../etc/passwd"}}"#,
    );
    let e = read_model(&idx).unwrap_err().to_string();
    assert!(
        e.contains("model.safetensors.index.json") && e.contains("not a file beside"),
        "{e}"
    );
    write(
        &d,
        "model.safetensors.index.json",
        br#"{"weight_map":{"a":"model-00001-of-00002.safetensors"}}"#,
    );
    let e = read_model(&d).unwrap_err().to_string();
    assert!(e.contains("model-00001-of-00002.safetensors"), "{e}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_blocking() {
    let d = tmp("fifo");
    let p = d.join("model.safetensors");
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc_mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = read_header(&p).unwrap_err().to_string();
    assert!(e.contains("not a regular file"), "{e}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[cfg(unix)]
extern "C" {
    #[link_name = "mkfifo"]
    fn libc_mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}

fn parse_bytes(bytes: &[u8]) -> Result<u64, String> {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let d = std::env::temp_dir().join(format!("gl-st-prop-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(format!(
        "{}.safetensors",
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::write(&p, bytes).unwrap();
    let r = read_header(&p).map(|h| h.tensor_bytes);
    let _ = std::fs::remove_file(&p);
    r.map_err(|e| {
        assert!(e.to_string().contains(&p.display().to_string()), "{e}");
        e.to_string()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The walk that keeps totals and the one that keeps every tensor give the same header, or
    /// the same error, whatever the bytes (what the fuzz target asserts too).
    #[test]
    fn the_two_walks_agree(at in 0usize..4448, byte in any::<u8>(), cut in 0usize..4448) {
        let b = std::fs::read(fixtures().join("numpy.safetensors")).unwrap();
        let n = u64::from_le_bytes(b[..8].try_into().unwrap()) as usize;
        let mut json = b[8..8 + n].to_vec();
        let at = at % json.len();
        json[at] = byte;
        json.truncate(cut.max(1));
        let p = Path::new("x.safetensors");
        let file = b.len() as u64;
        match (parse_header(&json, file, p), parse_tensors(&json, file, p)) {
            (Ok(h), Ok(all)) => {
                prop_assert_eq!(&all.header, &h);
                prop_assert_eq!(all.tensors.len() as u64, h.tensor_count);
            }
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (a, b) => prop_assert!(false, "the walks disagree: {:?} vs {:?}", a, b),
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = parse_bytes(&bytes);
    }

    #[test]
    fn corrupted_real_files_give_a_header_or_an_error(
        at in 0usize..4456, byte in any::<u8>(), cut in 0usize..4456,
    ) {
        let mut b = std::fs::read(fixtures().join("numpy.safetensors")).unwrap();
        let at = at % b.len();
        b[at] = byte;
        b.truncate(cut.max(1));
        if let Ok(total) = parse_bytes(&b) {
            // Whatever parsed fits in the file.
            prop_assert!(total <= b.len() as u64);
        }
    }

    #[test]
    fn written_headers_read_back(
        shapes in prop::collection::vec(prop::collection::vec(0u64..50, 0..4), 1..8),
        dt in prop::sample::select(vec![("F16", 2u64), ("BF16", 2), ("F32", 4), ("U8", 1), ("F64", 8), ("F8_E4M3", 1)]),
    ) {
        let mut json = String::from("{");
        let mut off = 0u64;
        let mut total = 0u64;
        for (i, s) in shapes.iter().enumerate() {
            let n: u64 = s.iter().product::<u64>() * dt.1;
            if i > 0 { json.push(','); }
            json.push_str(&format!(
                r#""t{i}":{{"dtype":"{}","shape":{:?},"data_offsets":[{off},{}]}}"#,
                dt.0, s, off + n
            ));
            off += n;
            total += n;
        }
        json.push('}');
        let got = parse_bytes(&file_with_header(&json, off as usize)).unwrap();
        prop_assert_eq!(got, total);
    }
}
