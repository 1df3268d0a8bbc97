//! Model folders and files built to hurt whoever reads them (issue 25 B): shards that are all one
//! file with a large header, a file of many tiny tensors, shards that lead out of the folder (to a
//! file that is not safetensors at all), and sizes whose sum passes 2^64. Each read completes,
//! keeps little, names what it refused and why, and never shows the bytes of a foreign file.

use gpuledger_workloads::confine::ProcessRoot;
use gpuledger_workloads::safetensors::{read_file_in, read_header, read_model, HeaderCache, Round};
#[cfg(unix)]
use gpuledger_workloads::{
    confine::ModelFolder,
    safetensors::{read_folder, Budget},
};
use std::path::{Path, PathBuf};

/// The error of a read that must fail, without printing what it read when it did not.
fn refused<T>(r: Result<T, impl std::fmt::Display>, what: &str) -> String {
    match r {
        Ok(_) => panic!("{what}: read, not refused"),
        Err(e) => e.to_string(),
    }
}

/// A folder under the temporary directory, removed when dropped.
struct Tmp(PathBuf);

impl Tmp {
    fn new(name: &str) -> Tmp {
        let d = std::env::temp_dir().join(format!("gl-sth-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A safetensors file: `json` padded with `pad` spaces (the format allows trailing spaces), then
/// `data` zero bytes.
fn file(json: &str, pad: usize, data: u64) -> Vec<u8> {
    let n = json.len() + pad;
    let mut b = (n as u64).to_le_bytes().to_vec();
    b.extend_from_slice(json.as_bytes());
    b.extend(std::iter::repeat_n(b' ', pad));
    b.extend(std::iter::repeat_n(0u8, data as usize));
    b
}

#[cfg(unix)]
const ONE_TENSOR: &str = r#"{"w":{"dtype":"U8","shape":[16],"data_offsets":[0,16]}}"#;

#[cfg(unix)]
fn links(dir: &Path, target: &Path, n: usize) {
    for i in 0..n {
        let name = format!("model-{:05}-of-{n:05}.safetensors", i + 1);
        std::os::unix::fs::symlink(target, dir.join(name)).unwrap();
    }
}

#[cfg(unix)]
#[test]
fn thousands_of_shards_linked_to_one_large_header_are_skipped_by_the_shard_budget() {
    let t = Tmp::new("links4096");
    let m = t.0.join("model");
    std::fs::create_dir_all(&m).unwrap();
    // One file with a 2 MB header, outside the glob but inside the folder.
    std::fs::write(m.join("blob"), file(ONE_TENSOR, 2 << 20, 16)).unwrap();
    links(&m, Path::new("blob"), 4096);
    let e = refused(read_model(&m), "4,096 shards");
    assert!(e.contains(&m.display().to_string()), "names the model: {e}");
    assert!(e.contains("skipped") && e.contains("shards"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_file_behind_many_names_is_read_and_counted_once() {
    let t = Tmp::new("links200");
    let m = t.0.join("model");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::write(m.join("blob"), file(ONE_TENSOR, 2 << 20, 16)).unwrap();
    links(&m, Path::new("blob"), 200);
    // The same tensors under 200 names are one set of weights (a loader would overwrite them).
    let model = read_model(&m).unwrap();
    assert_eq!(model.tensor_bytes(), 16);
}

/// A header of `n` one-byte tensors.
fn tiny_tensors(n: usize) -> (String, u64) {
    let mut json = String::with_capacity(n * 56 + 2);
    json.push('{');
    for i in 0..n {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&format!(
            r#""t{i}":{{"dtype":"U8","shape":[1],"data_offsets":[{i},{}]}}"#,
            i + 1
        ));
    }
    json.push('}');
    (json, n as u64)
}

#[test]
fn a_file_of_more_tensors_than_the_cap_is_refused() {
    let t = Tmp::new("tiny");
    let (json, data) = tiny_tensors(70_000);
    let p = t.0.join("model.safetensors");
    std::fs::write(&p, file(&json, 0, data)).unwrap();
    let e = refused(read_header(&p), "over the tensor cap");
    assert!(e.contains(&p.display().to_string()), "{e}");
    assert!(e.contains("65,536 tensors"), "{e}");
}

/// The first 8 bytes of `bytes` as the little-endian number a careless reader would print.
fn as_length(bytes: &[u8]) -> String {
    u64::from_le_bytes(bytes[..8].try_into().unwrap()).to_string()
}

const SHADOW: &[u8] = b"root:*:20000:0:99999:7:::\ndaemon:*:20000:0:99999:7:::\n";

/// No trace of `secret`'s bytes in `e`: not the text, not its first 8 bytes read as a number.
fn assert_no_bytes_of(e: &str, secret: &[u8]) {
    assert!(!e.contains("root:"), "{e}");
    assert!(!e.contains(&as_length(secret)), "{e}");
    assert!(!e.contains(&as_length(&secret[1..])), "{e}");
}

#[cfg(unix)]
#[test]
fn a_shard_leading_out_of_the_folder_is_refused_without_showing_its_bytes() {
    let t = Tmp::new("escape");
    let secret = t.0.join("shadow");
    std::fs::write(&secret, SHADOW).unwrap();
    for (name, target) in [
        ("relative", PathBuf::from("../shadow")),
        ("absolute", secret.clone()),
    ] {
        let m = t.0.join(name);
        std::fs::create_dir_all(&m).unwrap();
        std::os::unix::fs::symlink(&target, m.join("model.safetensors")).unwrap();
        let e = refused(read_model(&m), name);
        assert!(e.contains("model.safetensors"), "{name}: {e}");
        assert!(e.contains("outside the model folder"), "{name}: {e}");
        assert_no_bytes_of(&e, SHADOW);
    }
}

#[test]
fn a_file_that_is_not_safetensors_is_named_so_and_its_bytes_never_shown() {
    let t = Tmp::new("foreign");
    let p = t.0.join("model.safetensors");
    std::fs::write(&p, SHADOW).unwrap();
    let e = refused(read_header(&p), "foreign");
    assert!(e.contains("not a safetensors file"), "{e}");
    assert_no_bytes_of(&e, SHADOW);
    // A plausible length, then something other than a JSON object.
    let mut b = 40u64.to_le_bytes().to_vec();
    b.extend_from_slice(b"password=hunter2-and-some-more-text-here.");
    std::fs::write(&p, &b).unwrap();
    let e = refused(read_header(&p), "foreign");
    assert!(e.contains("not a safetensors file"), "{e}");
    assert!(!e.contains("hunter2") && !e.contains("password"), "{e}");
    // A JSON object that is not a safetensors header: its values are never echoed.
    let json = r#"{"token":"s3cr3t-v4lue","n":12345678901}"#;
    std::fs::write(&p, file(json, 0, 0)).unwrap();
    let e = refused(read_header(&p), "foreign");
    assert!(!e.contains("s3cr3t") && !e.contains("12345678901"), "{e}");
    let json = r#"{"w":{"dtype":"U8","shape":"s3cr3t-v4lue","data_offsets":[0,1]}}"#;
    std::fs::write(&p, file(json, 0, 1)).unwrap();
    let e = refused(read_header(&p), "foreign");
    assert!(!e.contains("s3cr3t"), "{e}");
}

/// A sparse file of `4 × quarter` bytes after a header of four U8 tensors that fill them, in a
/// folder whose file system holds files that large (tmpfs does; ext4 stops at 16 TiB). `None`
/// (with the reason printed) where there is none.
fn huge_shard(dir: &Path, name: &str, quarter: u64) -> Option<PathBuf> {
    let t = |i: u64| {
        format!(
            r#""w{i}":{{"dtype":"U8","shape":[{quarter}],"data_offsets":[{},{}]}}"#,
            i * quarter,
            (i + 1) * quarter
        )
    };
    let json = format!("{{{},{},{},{}}}", t(0), t(1), t(2), t(3));
    let data = 4 * quarter;
    let p = dir.join(name);
    let mut b = (json.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(json.as_bytes());
    std::fs::write(&p, &b).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    match f.set_len(b.len() as u64 + data) {
        Ok(()) => Some(p),
        Err(e) => {
            eprintln!(
                "skipped: {} cannot hold a sparse file of {data} bytes: {e}",
                dir.display()
            );
            None
        }
    }
}

/// A folder on tmpfs when there is one (sparse files of exabytes), else the temporary directory.
fn big_tmp(name: &str) -> Tmp {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        let d = shm.join(format!("gl-sth-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        if std::fs::create_dir_all(&d).is_ok() {
            return Tmp(d);
        }
    }
    Tmp::new(name)
}

#[test]
fn shard_sizes_that_pass_2_to_the_64_are_an_error_naming_the_file() {
    let t = big_tmp("overflow");
    // Three files of 7 × 10^18 bytes each: their sum passes 2^64 (about 1.8 × 10^19).
    let quarter = 1_750_000_000_000_000_000u64;
    let mut shards = Vec::new();
    for i in 1..=3 {
        let Some(p) = huge_shard(&t.0, &format!("model-{i:05}-of-00003.safetensors"), quarter)
        else {
            return;
        };
        shards.push(p);
    }
    let e = refused(read_model(&t.0), "the sum passes 2^64");
    assert!(e.contains("model-00003-of-00003.safetensors"), "{e}");
    assert!(e.contains("2^64"), "{e}");
}

/// A containerised vLLM whose model folder holds an absolute symlink: inside the container it
/// names the container's file; followed from the host it would name the host's.
#[cfg(unix)]
#[test]
fn a_containers_absolute_symlink_is_not_followed_on_the_host() {
    use gpuledger_workloads::runtimes::{vllm, ProcessContext};
    let t = Tmp::new("container");
    let host = t.0.join("host");
    std::fs::create_dir_all(&host).unwrap();
    let host_file = host.join("weights.safetensors");
    std::fs::write(&host_file, file(ONE_TENSOR, 0, 16)).unwrap();
    let proc_root = t.0.join("proc");
    let m = proc_root.join("4242/root/models/m");
    std::fs::create_dir_all(&m).unwrap();
    let config = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/vllm/tinyllama-1.1b-chat-config.json");
    std::fs::copy(config, m.join("config.json")).unwrap();
    std::os::unix::fs::symlink(&host_file, m.join("model.safetensors")).unwrap();
    let ctx = ProcessContext {
        pid: 4242,
        proc_root: &proc_root,
        argv: ["vllm", "serve", "/models/m"].map(String::from).to_vec(),
        argv_from: None,
        cwd: None,
        env: Vec::new(),
        device_total: Some(24 << 30),
        overhead: None,
        fetch: None,
        round: None,
        log_version: None,
        device_capability: None,
        log_mxfp4_backend: None,
        argv_note: None,
        title: None,
    };
    let e = match vllm::estimate_process(&ctx) {
        Ok(r) => panic!("read the host's file: {:?}", r.summary),
        Err(e) => e,
    };
    assert!(e.contains("model.safetensors"), "{e}");
}

/// A folder of `n` links to one file with a 2 MB header.
#[cfg(unix)]
fn linked_folder(t: &Tmp, n: usize) -> PathBuf {
    let m = t.0.join("model");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::write(m.join("blob"), file(ONE_TENSOR, 2 << 20, 16)).unwrap();
    links(&m, Path::new("blob"), n);
    m
}

#[cfg(unix)]
#[test]
fn a_file_behind_many_names_is_one_small_cache_entry_parsed_once() {
    let t = Tmp::new("cache");
    let m = linked_folder(&t, 200);
    let folder = ModelFolder::on_host(&m).unwrap();
    let cache = HeaderCache::new();
    for _ in 0..3 {
        let model = read_folder(&folder, &Round::default(), Some(&cache)).unwrap();
        assert_eq!((model.files.len(), model.aliases), (1, 199));
    }
    let s = cache.stats();
    assert_eq!((s.entries, s.parses), (1, 1), "{s:?}");
    // The 2 MB header is not kept: its totals are.
    assert!(s.kept_bytes < 1024, "{s:?}");
}

#[cfg(unix)]
#[test]
fn the_skipped_model_is_recorded_in_the_round_with_its_reason() {
    let t = Tmp::new("round-skip");
    let m = linked_folder(&t, 4096);
    let folder = ModelFolder::on_host(&m).unwrap();
    let round = Round::default();
    let cache = HeaderCache::new();
    let e = refused(read_folder(&folder, &round, Some(&cache)), "4,096 shards");
    assert!(e.contains("1,024 shards"), "{e}");
    let skips = round.take_skips();
    assert_eq!(skips.len(), 1, "{skips:?}");
    assert_eq!(skips[0].path, m);
    assert!(skips[0].why.contains("budget per model"), "{skips:?}");
    // Refused before any header was read.
    assert_eq!(cache.stats().parses, 0);
    assert_eq!(round.parsed_bytes(), 0);
}

#[test]
fn a_refused_file_is_remembered_and_not_read_again() {
    let t = Tmp::new("tiny-cache");
    let (json, data) = tiny_tensors(70_000);
    let p = t.0.join("model.safetensors");
    std::fs::write(&p, file(&json, 0, data)).unwrap();
    let cache = HeaderCache::new();
    let root = ProcessRoot::host();
    let mut errors = Vec::new();
    for _ in 0..3 {
        let r = read_file_in(&root, &p, &p, &Round::default(), Some(&cache));
        errors.push(refused(r, "tiny tensors"));
    }
    assert!(errors.iter().all(|e| *e == errors[0]), "{errors:?}");
    let s = cache.stats();
    assert_eq!((s.entries, s.parses), (1, 1), "{s:?}");
    assert!(s.kept_bytes < 1024, "{s:?}");
}

#[cfg(unix)]
#[test]
fn each_budget_skips_with_its_reason() {
    let t = Tmp::new("budgets");
    let m = t.0.join("model");
    std::fs::create_dir_all(&m).unwrap();
    // Three distinct files of a 64 KiB header each.
    for i in 1..=3 {
        let name = format!("model-{i:05}-of-00003.safetensors");
        std::fs::write(m.join(name), file(ONE_TENSOR, 64 << 10, 16)).unwrap();
    }
    let folder = ModelFolder::on_host(&m).unwrap();
    let within = |b: Budget| {
        let round = Round::new(b);
        let e = refused(read_folder(&folder, &round, None), "over a budget");
        (e, round.take_skips())
    };
    let d = Budget::default();
    assert_eq!(
        read_folder(&folder, &Round::new(d), None)
            .unwrap()
            .tensor_bytes(),
        48
    );
    let (e, skips) = within(Budget {
        model_shards: 2,
        ..d
    });
    assert!(e.contains("more than 2 shards") && skips.len() == 1, "{e}");
    let (e, _) = within(Budget {
        model_header_bytes: 100 << 10,
        ..d
    });
    assert!(
        e.contains("budget per model") && e.contains(&m.display().to_string()),
        "{e}"
    );
    let (e, _) = within(Budget {
        file_header_bytes: 32 << 10,
        ..d
    });
    assert!(
        e.contains("model-00001-of-00003") && e.contains("per file"),
        "{e}"
    );
    let (e, _) = within(Budget {
        round_header_bytes: 100 << 10,
        ..d
    });
    assert!(
        e.contains("model-00002-of-00003") && e.contains("later round"),
        "{e}"
    );
    let (e, skips) = within(Budget {
        round_time: std::time::Duration::ZERO,
        ..d
    });
    assert!(e.contains("later round") && skips.len() == 1, "{e}");
}
