//! GGUF reader: round trip against our writer (proptest), hostile headers, splits, vocab skipping.

use std::path::{Path, PathBuf};

use gpuledger_workloads::gguf::writer::{array, GgufWriter};
use gpuledger_workloads::gguf::{
    read_file, GgmlType, GgufModel, MetaValue, ReadOptions, ValueType, GGML_TYPES,
};
use proptest::prelude::*;

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gguf-reader");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn t(name: &str) -> GgmlType {
    GgmlType::from_name(name).unwrap()
}

fn leaf_value() -> impl Strategy<Value = MetaValue> {
    prop_oneof![
        any::<u8>().prop_map(MetaValue::U8),
        any::<i8>().prop_map(MetaValue::I8),
        any::<u16>().prop_map(MetaValue::U16),
        any::<i16>().prop_map(MetaValue::I16),
        any::<u32>().prop_map(MetaValue::U32),
        any::<i32>().prop_map(MetaValue::I32),
        any::<u64>().prop_map(MetaValue::U64),
        any::<i64>().prop_map(MetaValue::I64),
        // Finite floats so equality holds (NaN != NaN).
        (-1e30f32..1e30).prop_map(MetaValue::F32),
        (-1e300f64..1e300).prop_map(MetaValue::F64),
        any::<bool>().prop_map(MetaValue::Bool),
        "\\PC{0,40}".prop_map(MetaValue::String),
    ]
}

fn homogeneous_array() -> impl Strategy<Value = MetaValue> {
    prop_oneof![
        prop::collection::vec(any::<u32>(), 0..50)
            .prop_map(|v| array(ValueType::U32, v.into_iter().map(MetaValue::U32).collect())),
        prop::collection::vec("\\PC{0,12}", 0..50).prop_map(|v| array(
            ValueType::String,
            v.into_iter().map(MetaValue::String).collect()
        )),
        prop::collection::vec(any::<bool>(), 0..20).prop_map(|v| array(
            ValueType::Bool,
            v.into_iter().map(MetaValue::Bool).collect()
        )),
        // nested: array of arrays of i16
        prop::collection::vec(prop::collection::vec(any::<i16>(), 0..5), 0..5).prop_map(|v| {
            array(
                ValueType::Array,
                v.into_iter()
                    .map(|inner| {
                        array(
                            ValueType::I16,
                            inner.into_iter().map(MetaValue::I16).collect(),
                        )
                    })
                    .collect(),
            )
        }),
    ]
}

fn tensor_strategy() -> impl Strategy<Value = (String, Vec<u64>, GgmlType)> {
    let usable: Vec<GgmlType> = GGML_TYPES
        .iter()
        .copied()
        .filter(|t| t.is_usable())
        .collect();
    (
        "[a-z_.0-9]{1,30}",
        prop::sample::select(usable),
        1u64..4,
        prop::collection::vec(1u64..6, 0..3),
    )
        .prop_map(|(name, ty, blocks, rest)| {
            let mut dims = vec![blocks * ty.block_size];
            dims.extend(rest);
            (name, dims, ty)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn round_trip(
        version in 2u32..=3,
        kvs in prop::collection::vec(("[a-z.]{1,20}", prop_oneof![leaf_value(), homogeneous_array()]), 0..12),
        tensors in prop::collection::vec(tensor_strategy(), 0..10),
        align_pow in prop::option::of(3u32..8),
    ) {
        let mut w = GgufWriter { version, ..GgufWriter::default() };
        if let Some(p) = align_pow {
            w.kv("general.alignment", MetaValue::U32(1 << p));
        }
        for (k, v) in &kvs {
            w.kv(k, v.clone());
        }
        for (n, d, ty) in &tensors {
            w.tensor(n, d, *ty);
        }
        let path = tmp(&format!("rt-{}.gguf", std::process::id()));
        w.write(&path).unwrap();
        let f = read_file(&path, &ReadOptions::default()).unwrap();
        prop_assert_eq!(f.version, version);
        prop_assert_eq!(f.alignment, align_pow.map(|p| 1u64 << p).unwrap_or(32));
        prop_assert_eq!(&f.metadata, &w.metadata);
        prop_assert_eq!(f.tensors.len(), tensors.len());
        for (got, (n, d, ty)) in f.tensors.iter().zip(&tensors) {
            prop_assert_eq!(&got.name, n);
            prop_assert_eq!(&got.dims, d);
            prop_assert_eq!(got.ggml_type, *ty);
            prop_assert_eq!(got.n_bytes, GgufWriter::tensor_bytes(d, *ty));
            prop_assert_eq!(got.offset % f.alignment, 0);
        }
        prop_assert_eq!(f.data_offset % f.alignment, 0);
        prop_assert_eq!(f.data_offset, w.header().0.len() as u64);
    }

    /// Any corruption of a valid header is an error or a parse, never a panic or a huge allocation.
    #[test]
    fn corrupted_headers_never_panic(
        flips in prop::collection::vec((0usize..400, any::<u8>()), 1..8),
        cut in prop::option::of(0usize..400),
    ) {
        let mut w = GgufWriter::new();
        w.kv("general.architecture", MetaValue::String("llama".into()))
            .kv("tokenizer.ggml.tokens", array(ValueType::String, (0..20).map(|i| MetaValue::String(format!("t{i}"))).collect()))
            .kv("llama.block_count", MetaValue::U32(2))
            .tensor("blk.0.attn_q.weight", &[64, 64], t("Q8_0"))
            .tensor("token_embd.weight", &[64, 100], t("F16"));
        let (mut h, data) = w.header();
        for (i, b) in flips {
            if i < h.len() { h[i] = b; }
        }
        if let Some(c) = cut { h.truncate(c.min(h.len())); }
        let path = tmp(&format!("corrupt-{}.gguf", std::process::id()));
        std::fs::write(&path, &h).unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(h.len() as u64 + if cut.is_some() { 0 } else { data }).unwrap();
        let _ = read_file(&path, &ReadOptions::default());
    }
}

/// A raw header with the given counts and nothing else.
fn raw_header(version: u32, n_tensors: i64, n_kv: i64, rest: &[u8]) -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend_from_slice(&version.to_le_bytes());
    b.extend_from_slice(&n_tensors.to_le_bytes());
    b.extend_from_slice(&n_kv.to_le_bytes());
    b.extend_from_slice(rest);
    b
}

fn err_of(name: &str, bytes: &[u8]) -> String {
    let p = tmp(name);
    std::fs::write(&p, bytes).unwrap();
    read_file(&p, &ReadOptions::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn hostile_tensor_count_is_rejected_with_file_and_field() {
    let mut b = raw_header(3, 1 << 60, 0, &[]);
    b.resize(480 * 1024, 0);
    let e = err_of("huge-count.gguf", &b);
    assert!(e.contains("huge-count.gguf: tensor count 1152921504606846976 exceeds what a 480 KiB file can hold"), "{e}");
}

#[test]
fn hostile_string_length_is_rejected() {
    // one KV whose key claims 1 TB
    let mut rest = (1u64 << 40).to_le_bytes().to_vec();
    rest.extend_from_slice(&[0u8; 64]);
    let e = err_of("huge-key.gguf", &raw_header(3, 0, 1, &rest));
    assert!(
        e.contains("metadata key 0 length 1099511627776 exceeds what the remaining"),
        "{e}"
    );
}

#[test]
fn hostile_array_count_is_rejected() {
    let mut rest = Vec::new();
    rest.extend_from_slice(&3u64.to_le_bytes());
    rest.extend_from_slice(b"arr");
    rest.extend_from_slice(&9u32.to_le_bytes()); // ARRAY
    rest.extend_from_slice(&4u32.to_le_bytes()); // of U32
    rest.extend_from_slice(&(u64::MAX / 2).to_le_bytes());
    let e = err_of("huge-array.gguf", &raw_header(3, 0, 1, &rest));
    assert!(
        e.contains("metadata 'arr': array of 9223372036854775807 U32 elements exceeds"),
        "{e}"
    );
}

#[test]
fn bad_magic_version_and_types_are_named() {
    assert!(err_of("magic.gguf", b"GGML\x03\0\0\0").contains("not a GGUF file"));
    // A file of another kind: named so, its bytes never shown (not even as hex).
    let e = err_of("shadow.gguf", b"root:*:20000:0:99999:7:::\n");
    assert!(e.contains("not a GGUF file"), "{e}");
    assert!(!e.contains("72, 6f") && !e.contains("root:"), "{e}");
    assert!(
        err_of("v1.gguf", &raw_header(1, 0, 0, &[])).contains("version 1 is no longer supported")
    );
    assert!(err_of("v9.gguf", &raw_header(9, 0, 0, &[])).contains("unsupported GGUF version 9"));
    assert!(err_of("be.gguf", &raw_header(3 << 24, 0, 0, &[])).contains("byte-swapped"));
    assert!(err_of("neg.gguf", &raw_header(3, -1, 0, &[])).contains("tensor count is negative"));
    // A tensor with an unknown type id, and one with a removed type.
    for (id, want) in [
        (77u32, "unknown ggml type id 77"),
        (31, "no longer supports"),
    ] {
        let mut rest = Vec::new();
        rest.extend_from_slice(&1u64.to_le_bytes());
        rest.extend_from_slice(b"w");
        rest.extend_from_slice(&1u32.to_le_bytes());
        rest.extend_from_slice(&32i64.to_le_bytes());
        rest.extend_from_slice(&id.to_le_bytes());
        rest.extend_from_slice(&0u64.to_le_bytes());
        rest.resize(rest.len() + 64, 0);
        let e = err_of("type.gguf", &raw_header(3, 1, 0, &rest));
        assert!(e.contains("tensor 'w'") && e.contains(want), "{e}");
    }
}

#[test]
fn truncated_data_and_bad_alignment_are_errors() {
    let mut w = GgufWriter::new();
    w.tensor("big", &[1024, 1024], t("F32"));
    let (h, _) = w.header();
    let e = err_of("truncated.gguf", &h); // header only: the data is missing
    assert!(
        e.contains("tensor 'big'") && e.contains("truncated download"),
        "{e}"
    );

    let mut w = GgufWriter::new();
    w.kv("general.alignment", MetaValue::U32(48));
    let p = tmp("align.gguf");
    w.write(&p).unwrap();
    let e = read_file(&p, &ReadOptions::default()).unwrap_err();
    assert_eq!(e.field, "general.alignment");

    let mut w = GgufWriter::new();
    w.tensor("odd", &[33, 2], t("Q8_0"));
    let (h, _) = w.header();
    let mut h = h;
    h.resize(h.len() + 4096, 0);
    let e = err_of("block.gguf", &h);
    assert!(
        e.contains("row length 33 is not a multiple of the Q8_0 block size 32"),
        "{e}"
    );
}

#[test]
fn large_arrays_are_skipped_unless_asked_for() {
    let mut w = GgufWriter::new();
    let toks: Vec<MetaValue> = (0..10_000)
        .map(|i| MetaValue::String(format!("tok{i}")))
        .collect();
    w.kv("tokenizer.ggml.tokens", array(ValueType::String, toks))
        .kv(
            "tokenizer.ggml.scores",
            array(ValueType::F32, vec![MetaValue::F32(0.5); 10_000]),
        )
        .kv("after", MetaValue::U32(7));
    let p = tmp("vocab.gguf");
    w.write(&p).unwrap();
    let f = read_file(&p, &ReadOptions::default()).unwrap();
    let a = f.get("tokenizer.ggml.tokens").unwrap().as_array().unwrap();
    assert_eq!((a.len, a.values.is_none()), (10_000, true));
    assert_eq!(f.get("after").unwrap().as_u64(), Some(7));
    let f = read_file(
        &p,
        &ReadOptions {
            always_load: vec!["tokenizer.ggml.tokens".into()],
            ..ReadOptions::default()
        },
    )
    .unwrap();
    let a = f.get("tokenizer.ggml.tokens").unwrap().as_array().unwrap();
    assert_eq!(
        a.values.as_ref().unwrap()[9_999],
        MetaValue::String("tok9999".into())
    );
    assert!(f
        .get("tokenizer.ggml.scores")
        .unwrap()
        .as_array()
        .unwrap()
        .values
        .is_none());
}

fn split_part(no: u16, count: u16, tensors: &[&str]) -> GgufWriter {
    let mut w = GgufWriter::new();
    if no == 0 {
        w.kv("general.architecture", MetaValue::String("llama".into()));
    }
    w.kv("split.no", MetaValue::U16(no))
        .kv("split.count", MetaValue::U16(count))
        .kv("split.tensors.count", MetaValue::I32(5));
    for n in tensors {
        w.tensor(n, &[256, 4], t("Q4_K"));
    }
    w
}

#[test]
fn split_models_read_as_one_from_any_part() {
    let d = tmp("split");
    std::fs::create_dir_all(&d).unwrap();
    let names = [vec!["a", "b"], vec!["c"], vec!["d", "e"]];
    for (i, ts) in names.iter().enumerate() {
        split_part(i as u16, 3, ts)
            .write(&d.join(format!("m-{:05}-of-00003.gguf", i + 1)))
            .unwrap();
    }
    for start in 1..=3 {
        let m = GgufModel::open(&d.join(format!("m-{start:05}-of-00003.gguf"))).unwrap();
        assert_eq!(m.parts.len(), 3);
        assert_eq!(m.architecture(), Some("llama"));
        let all: Vec<&str> = m.tensors().map(|t| t.name.as_str()).collect();
        assert_eq!(all, ["a", "b", "c", "d", "e"]);
        assert_eq!(m.tensor("e").unwrap().n_bytes, 4 * 144);
    }
    // A missing part is an error naming it.
    std::fs::remove_file(d.join("m-00002-of-00003.gguf")).unwrap();
    let e = GgufModel::open(&d.join("m-00001-of-00003.gguf")).unwrap_err();
    assert!(e.to_string().contains("m-00002-of-00003.gguf"), "{e}");
}

#[test]
fn split_parts_whose_sizes_pass_4_eib_are_an_error_naming_the_part() {
    // Sparse parts of 2 × 10^18 bytes need tmpfs (ext4 stops at 16 TiB).
    let d = Path::new("/dev/shm").join(format!("gl-gguf-huge-{}", std::process::id()));
    if std::fs::create_dir_all(&d).is_err() {
        eprintln!("skipped: no /dev/shm for sparse files of exabytes");
        return;
    }
    let names = [vec!["a", "b"], vec!["c"], vec!["d", "e"]];
    for (i, ts) in names.iter().enumerate() {
        let p = d.join(format!("m-{:05}-of-00003.gguf", i + 1));
        split_part(i as u16, 3, ts).write(&p).unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        if let Err(e) = f.set_len(2_000_000_000_000_000_000) {
            eprintln!("skipped: /dev/shm holds no file that large: {e}");
            let _ = std::fs::remove_dir_all(&d);
            return;
        }
    }
    let r = GgufModel::open(&d.join("m-00001-of-00003.gguf"));
    std::fs::remove_dir_all(&d).unwrap();
    let e = match r {
        Ok(m) => panic!("opened, {} parts", m.parts.len()),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("m-00003-of-00003.gguf") && e.contains("2^62"),
        "{e}"
    );
}

/// A file reader that counts the bytes really read (seeks are free), to check that what a header
/// declares is skipped rather than read or allocated.
struct Counting {
    f: std::fs::File,
    read: std::rc::Rc<std::cell::Cell<u64>>,
}

impl std::io::Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.f.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

impl std::io::Seek for Counting {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.f.seek(pos)
    }
}

/// Parse `path` through [`Counting`]: the result and the bytes read.
fn parse_counting(
    path: &Path,
) -> (
    Result<gpuledger_workloads::gguf::GgufFile, gpuledger_workloads::gguf::GgufError>,
    u64,
) {
    let f = std::fs::File::open(path).unwrap();
    let len = f.metadata().unwrap().len();
    let read = std::rc::Rc::new(std::cell::Cell::new(0));
    let r = gpuledger_workloads::gguf::parse(
        Counting {
            f,
            read: read.clone(),
        },
        len,
        path,
        &ReadOptions::default(),
    );
    (r, read.get())
}

/// Write `parts` (offset, bytes) into a sparse file of `len` bytes: only the parts use disk.
fn sparse(name: &str, len: u64, parts: &[(u64, Vec<u8>)]) -> PathBuf {
    use std::io::{Seek, SeekFrom, Write};
    let p = tmp(name);
    let mut f = std::fs::File::create(&p).unwrap();
    f.set_len(len).unwrap();
    for (off, bytes) in parts {
        f.seek(SeekFrom::Start(*off)).unwrap();
        f.write_all(bytes).unwrap();
    }
    p
}

fn kv_str_header(key: &str, len: u64) -> Vec<u8> {
    let mut b = (key.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(key.as_bytes());
    b.extend_from_slice(&8u32.to_le_bytes()); // STRING
    b.extend_from_slice(&len.to_le_bytes());
    b
}

#[test]
fn huge_declared_strings_in_a_sparse_file_are_skipped_unread() {
    // The tester's file: a few KiB on disk, two 1 GiB strings declared.
    const GIB: u64 = 1 << 30;
    let mut head = raw_header(3, 0, 4, &kv_str_header("general.architecture", 5));
    head.extend_from_slice(b"llama");
    head.extend_from_slice(&kv_str_header("big.a", GIB));
    let second = head.len() as u64 + GIB;
    let b = kv_str_header("tokenizer.huggingface.json", GIB);
    let third = second + b.len() as u64 + GIB;
    let mut after = (5u64).to_le_bytes().to_vec();
    after.extend_from_slice(b"after");
    after.extend_from_slice(&4u32.to_le_bytes()); // U32
    after.extend_from_slice(&7u32.to_le_bytes());
    let len = third + after.len() as u64;
    let p = sparse(
        "sparse-strings.gguf",
        len,
        &[(0, head), (second, b), (third, after)],
    );

    let (r, read) = parse_counting(&p);
    let f = r.unwrap();
    // Seeked over, never read: a few KiB at most (the buffer around the small values).
    assert!(read < 1 << 20, "read {read} bytes of a sparse 2 GiB file");
    assert_eq!(
        f.get("general.architecture").unwrap().as_str(),
        Some("llama")
    );
    assert_eq!(f.get("after").unwrap().as_u64(), Some(7));
    // The skipped values are unknown, not empty, and listed with the reason.
    assert!(f.get("big.a").is_none() && f.get("tokenizer.huggingface.json").is_none());
    let keys: Vec<&str> = f.skipped.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["big.a", "tokenizer.huggingface.json"]);
    assert!(
        f.skipped[0].1.contains("too long to load"),
        "{:?}",
        f.skipped
    );
    // The path through read_file (what estimate and the collector use) agrees.
    assert!(read_file(&p, &ReadOptions::default()).is_ok());
}

#[test]
fn a_long_string_inside_a_small_array_keeps_only_the_array_length() {
    const BIG: u64 = 100 << 20;
    let mut head = raw_header(3, 0, 2, &[]);
    head.extend_from_slice(&3u64.to_le_bytes());
    head.extend_from_slice(b"arr");
    head.extend_from_slice(&9u32.to_le_bytes()); // ARRAY
    head.extend_from_slice(&8u32.to_le_bytes()); // of STRING
    head.extend_from_slice(&3u64.to_le_bytes());
    head.extend_from_slice(&1u64.to_le_bytes());
    head.push(b'a');
    head.extend_from_slice(&BIG.to_le_bytes()); // the second element: 100 MiB
    let rest_at = head.len() as u64 + BIG;
    let mut rest = 1u64.to_le_bytes().to_vec();
    rest.push(b'c');
    rest.extend_from_slice(&kv_str_header("k", 2));
    rest.extend_from_slice(b"ok");
    let p = sparse(
        "sparse-array.gguf",
        rest_at + rest.len() as u64,
        &[(0, head), (rest_at, rest)],
    );
    let (r, read) = parse_counting(&p);
    let f = r.unwrap();
    assert!(read < 1 << 20, "read {read} bytes");
    let a = f.get("arr").unwrap().as_array().unwrap();
    assert_eq!((a.len, a.values.is_none()), (3, true));
    assert_eq!(f.get("k").unwrap().as_str(), Some("ok"));
}

#[test]
fn a_sparse_file_declaring_2_pow_24_tensors_is_refused_unread() {
    // 2^24 zeroed tensor entries (24 bytes each) fit in the file's declared length, but no real
    // model has that many: refused before any is read.
    let n = 1i64 << 24;
    let len = 24 + (n as u64) * 24 + 4096;
    let p = sparse("sparse-tensors.gguf", len, &[(0, raw_header(3, n, 0, &[]))]);
    let (r, read) = parse_counting(&p);
    let e = r.unwrap_err();
    assert_eq!(e.field, "tensor count");
    let msg = e.to_string();
    assert!(
        msg.contains("sparse-tensors.gguf: tensor count 16777216 is above the limit of 65536"),
        "{msg}"
    );
    assert!(read < 1 << 20, "read {read} bytes");
}

#[test]
fn a_header_that_goes_on_and_on_is_cut_off() {
    // 2^25 empty strings: 256 MiB of zeros to walk through, declared in a sparse file. The
    // reader stops at its read limit rather than walking any header however long.
    let n: u64 = 1 << 25;
    let mut head = raw_header(3, 0, 1, &[]);
    head.extend_from_slice(&3u64.to_le_bytes());
    head.extend_from_slice(b"voc");
    head.extend_from_slice(&9u32.to_le_bytes()); // ARRAY
    head.extend_from_slice(&8u32.to_le_bytes()); // of STRING
    head.extend_from_slice(&n.to_le_bytes());
    let len = head.len() as u64 + n * 8 + 64;
    let p = sparse("sparse-long-header.gguf", len, &[(0, head)]);
    let (r, read) = parse_counting(&p);
    let msg = r.unwrap_err().to_string();
    assert!(
        msg.contains(
            "sparse-long-header.gguf: metadata 'voc': the header goes on for more than 256 MiB"
        ),
        "{msg}"
    );
    assert!(read <= (256 << 20) + (256 << 10), "read {read} bytes");
}
