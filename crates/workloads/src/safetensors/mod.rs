//! safetensors header reader: only the 8-byte length and the JSON header are read, never the
//! tensor data, so a 50-shard model costs 50 small reads.
//!
//! Format (huggingface/safetensors): `u64` little-endian header length `N`, then `N` bytes of
//! UTF-8 JSON `{"__metadata__": {str: str}, NAME: {"dtype", "shape", "data_offsets": [begin,
//! end]}, ...}`, then the data. Offsets are relative to the end of the header. Everything is
//! checked before it is believed: the header length against a 100 MB limit (the same limit the
//! `safetensors` package applies) and against the file, each dtype against the known table,
//! each tensor's byte count (`elements × bits / 8`, checked arithmetic) against its offsets, and
//! the offsets against the data that is really there.
//!
//! Why not the `safetensors` crate: its `SafeTensors::read_metadata` refuses any buffer that is
//! not the whole file (`MetadataIncompleteBuffer`), so it needs a full read or a mapping. Its
//! `tensor::Metadata` can be deserialised from the header bytes alone, but then the checks against
//! the file (data really there) are ours anyway, its errors name neither the file nor always the
//! tensor, and its `Dtype` list trails the Python package's (no FNUZ float8s in the version read).
//! One difference on purpose: the package also refuses gaps between tensors; this reader, which
//! only sizes, accepts them (overlaps are refused).

use gpuledger_sources::regular::{open_regular, read_regular};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

mod cache;
pub use cache::{cached_header, cached_model};

/// The largest header accepted (the `safetensors` package's own `MAX_HEADER_SIZE`).
pub const MAX_HEADER_BYTES: u64 = 100_000_000;
/// The largest `model.safetensors.index.json` read.
pub const MAX_INDEX_BYTES: u64 = 64 << 20;
/// The most shards one model may name.
pub const MAX_SHARDS: usize = 4096;

/// An error, always naming the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {what}", path.display())]
pub struct SafetensorsError {
    pub path: PathBuf,
    pub what: String,
}

fn err(path: &Path, what: impl Into<String>) -> SafetensorsError {
    SafetensorsError {
        path: path.to_path_buf(),
        what: what.into(),
    }
}

/// A tensor element type and its size in bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dtype {
    Bool,
    U8,
    I8,
    F8E4M3,
    F8E5M2,
    F8E8M0,
    F8E4M3Fnuz,
    F8E5M2Fnuz,
    F4,
    F6E2M3,
    F6E3M2,
    I16,
    U16,
    F16,
    BF16,
    I32,
    U32,
    F32,
    C64,
    I64,
    U64,
    F64,
}

impl Dtype {
    /// The name safetensors writes.
    pub fn from_name(s: &str) -> Option<Dtype> {
        Some(match s {
            "BOOL" => Dtype::Bool,
            "U8" => Dtype::U8,
            "I8" => Dtype::I8,
            "F8_E4M3" => Dtype::F8E4M3,
            "F8_E5M2" => Dtype::F8E5M2,
            "F8_E8M0" => Dtype::F8E8M0,
            "F8_E4M3FNUZ" => Dtype::F8E4M3Fnuz,
            "F8_E5M2FNUZ" => Dtype::F8E5M2Fnuz,
            "F4" => Dtype::F4,
            "F6_E2M3" => Dtype::F6E2M3,
            "F6_E3M2" => Dtype::F6E3M2,
            "I16" => Dtype::I16,
            "U16" => Dtype::U16,
            "F16" => Dtype::F16,
            "BF16" => Dtype::BF16,
            "I32" => Dtype::I32,
            "U32" => Dtype::U32,
            "F32" => Dtype::F32,
            "C64" => Dtype::C64,
            "I64" => Dtype::I64,
            "U64" => Dtype::U64,
            "F64" => Dtype::F64,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Dtype::Bool => "BOOL",
            Dtype::U8 => "U8",
            Dtype::I8 => "I8",
            Dtype::F8E4M3 => "F8_E4M3",
            Dtype::F8E5M2 => "F8_E5M2",
            Dtype::F8E8M0 => "F8_E8M0",
            Dtype::F8E4M3Fnuz => "F8_E4M3FNUZ",
            Dtype::F8E5M2Fnuz => "F8_E5M2FNUZ",
            Dtype::F4 => "F4",
            Dtype::F6E2M3 => "F6_E2M3",
            Dtype::F6E3M2 => "F6_E3M2",
            Dtype::I16 => "I16",
            Dtype::U16 => "U16",
            Dtype::F16 => "F16",
            Dtype::BF16 => "BF16",
            Dtype::I32 => "I32",
            Dtype::U32 => "U32",
            Dtype::F32 => "F32",
            Dtype::C64 => "C64",
            Dtype::I64 => "I64",
            Dtype::U64 => "U64",
            Dtype::F64 => "F64",
        }
    }

    pub fn bits(self) -> u64 {
        match self {
            Dtype::F4 => 4,
            Dtype::F6E2M3 | Dtype::F6E3M2 => 6,
            Dtype::Bool | Dtype::U8 | Dtype::I8 => 8,
            Dtype::F8E4M3 | Dtype::F8E5M2 | Dtype::F8E8M0 => 8,
            Dtype::F8E4M3Fnuz | Dtype::F8E5M2Fnuz => 8,
            Dtype::I16 | Dtype::U16 | Dtype::F16 | Dtype::BF16 => 16,
            Dtype::I32 | Dtype::U32 | Dtype::F32 => 32,
            Dtype::C64 | Dtype::I64 | Dtype::U64 | Dtype::F64 => 64,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    pub name: String,
    pub dtype: Dtype,
    pub shape: Vec<u64>,
    /// Bytes the tensor takes: `elements × bits / 8`, equal to its offsets' span.
    pub bytes: u64,
}

/// One file's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub path: PathBuf,
    /// Length of the JSON header (without the 8-byte prefix).
    pub header_bytes: u64,
    pub file_bytes: u64,
    pub metadata: BTreeMap<String, String>,
    /// In header order is not kept by JSON objects: sorted by name.
    pub tensors: Vec<TensorInfo>,
}

impl Header {
    pub fn tensor_bytes(&self) -> u64 {
        self.tensors.iter().map(|t| t.bytes).sum()
    }
}

/// Read the header of one `.safetensors` file (a regular file only; at most 8 + header bytes).
pub fn read_header(path: &Path) -> Result<Header, SafetensorsError> {
    let f = open_regular(path).map_err(|e| err(path, format!("cannot open: {e}")))?;
    let file_bytes = f
        .metadata()
        .map_err(|e| err(path, format!("cannot stat: {e}")))?
        .len();
    let mut r = std::io::BufReader::with_capacity(64 << 10, f);
    let mut len = [0u8; 8];
    r.read_exact(&mut len).map_err(|_| {
        err(
            path,
            format!(
                "not a safetensors file: {file_bytes} bytes, shorter than the 8-byte header length"
            ),
        )
    })?;
    let n = u64::from_le_bytes(len);
    if n > MAX_HEADER_BYTES {
        return Err(err(
            path,
            format!("header length {n} bytes is over the limit of {MAX_HEADER_BYTES} bytes (not a safetensors file, or a hostile one)"),
        ));
    }
    if 8 + n > file_bytes {
        return Err(err(
            path,
            format!("header length {n} bytes runs past the end of the file ({file_bytes} bytes): truncated"),
        ));
    }
    let mut buf = Vec::with_capacity(n as usize);
    (&mut r)
        .take(n)
        .read_to_end(&mut buf)
        .map_err(|e| err(path, format!("reading the header: {e}")))?;
    if buf.len() as u64 != n {
        return Err(err(path, "the file ended inside the header (truncated)"));
    }
    parse_header(&buf, file_bytes, path)
}

/// Parse header bytes (the JSON after the 8-byte length) of a file of `file_bytes` bytes.
pub fn parse_header(json: &[u8], file_bytes: u64, path: &Path) -> Result<Header, SafetensorsError> {
    let header_bytes = json.len() as u64;
    let text =
        std::str::from_utf8(json).map_err(|e| err(path, format!("header is not UTF-8: {e}")))?;
    if !text.starts_with('{') {
        return Err(err(
            path,
            "header does not start with '{' (not a safetensors file)",
        ));
    }
    let v: Value = serde_json::from_str(text.trim_end_matches(' '))
        .map_err(|e| err(path, format!("header is not valid JSON: {e}")))?;
    let Value::Object(map) = v else {
        return Err(err(path, "header is not a JSON object"));
    };
    let data_bytes = file_bytes.saturating_sub(8 + header_bytes);
    let mut metadata = BTreeMap::new();
    let mut tensors = Vec::with_capacity(map.len());
    // Offsets must tile the data without overlap: checked after sorting by begin.
    let mut spans: Vec<(u64, u64, usize)> = Vec::with_capacity(map.len());
    for (name, t) in map {
        if name == "__metadata__" {
            read_metadata(t, &mut metadata, path)?;
            continue;
        }
        let (tensor, begin, end) = read_tensor(name, &t, data_bytes, path)?;
        spans.push((begin, end, tensors.len()));
        tensors.push(tensor);
    }
    spans.sort_unstable();
    for w in spans.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(err(
                path,
                format!(
                    "tensors {:?} and {:?} overlap in the data",
                    tensors[w[0].2].name, tensors[w[1].2].name
                ),
            ));
        }
    }
    tensors.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Header {
        path: path.to_path_buf(),
        header_bytes,
        file_bytes,
        metadata,
        tensors,
    })
}

/// `__metadata__`: an object of strings.
fn read_metadata(
    t: Value,
    metadata: &mut BTreeMap<String, String>,
    path: &Path,
) -> Result<(), SafetensorsError> {
    let Value::Object(m) = t else {
        return Err(err(path, "__metadata__ is not an object"));
    };
    for (k, v) in m {
        let Value::String(s) = v else {
            return Err(err(
                path,
                format!("__metadata__ value of {k:?} is not a string"),
            ));
        };
        metadata.insert(k, s);
    }
    Ok(())
}

/// One tensor's record, checked: its dtype and shape give exactly the bytes its data offsets
/// span, inside the `data_bytes` the file holds. Returns it with its `[begin, end)`.
fn read_tensor(
    name: String,
    t: &Value,
    data_bytes: u64,
    path: &Path,
) -> Result<(TensorInfo, u64, u64), SafetensorsError> {
    let bad = |what: &str| err(path, format!("tensor {name:?}: {what}"));
    let dname = t
        .get("dtype")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("no dtype"))?;
    let dtype = Dtype::from_name(dname).ok_or_else(|| bad(&format!("unknown dtype {dname:?}")))?;
    let shape: Vec<u64> = t
        .get("shape")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no shape"))?
        .iter()
        .map(|d| {
            d.as_u64()
                .ok_or_else(|| bad("a dimension is not a whole number"))
        })
        .collect::<Result<_, _>>()?;
    let offs = t
        .get("data_offsets")
        .and_then(Value::as_array)
        .filter(|a| a.len() == 2)
        .ok_or_else(|| bad("data_offsets is not [begin, end]"))?;
    let (begin, end) = match (offs[0].as_u64(), offs[1].as_u64()) {
        (Some(b), Some(e)) if b <= e => (b, e),
        _ => return Err(bad("data_offsets are not two ordered whole numbers")),
    };
    let elements = shape
        .iter()
        .try_fold(1u64, |acc, d| acc.checked_mul(*d))
        .ok_or_else(|| bad("shape overflows"))?;
    let bits = elements
        .checked_mul(dtype.bits())
        .ok_or_else(|| bad("size overflows"))?;
    if bits % 8 != 0 {
        return Err(bad(&format!(
            "{elements} elements of {} do not fill whole bytes",
            dtype.name()
        )));
    }
    let bytes = bits / 8;
    if end - begin != bytes {
        return Err(bad(&format!(
            "shape {shape:?} of {} is {bytes} bytes but data_offsets span {}",
            dtype.name(),
            end - begin
        )));
    }
    if end > data_bytes {
        return Err(bad(&format!(
            "data ends at {end} but the file holds {data_bytes} data bytes (truncated)"
        )));
    }
    let tensor = TensorInfo {
        name,
        dtype,
        shape,
        bytes,
    };
    Ok((tensor, begin, end))
}

/// A model: one file, or the shards a `model.safetensors.index.json` names, read as one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    /// The file or index that was given.
    pub path: PathBuf,
    pub files: Vec<Header>,
    /// `metadata.total_size` of the index, where there is one (a published figure beside ours).
    pub index_total_size: Option<u64>,
}

impl Model {
    pub fn tensor_bytes(&self) -> u64 {
        self.files.iter().map(Header::tensor_bytes).sum()
    }

    pub fn tensor_count(&self) -> usize {
        self.files.iter().map(|h| h.tensors.len()).sum()
    }
}

/// The index's shard file names, in order of first appearance, and its `total_size`.
pub fn parse_index(
    bytes: &[u8],
    path: &Path,
) -> Result<(Vec<String>, Option<u64>), SafetensorsError> {
    let v: Value = serde_json::from_slice(bytes)
        .map_err(|e| err(path, format!("index is not valid JSON: {e}")))?;
    let map = v
        .get("weight_map")
        .and_then(Value::as_object)
        .ok_or_else(|| err(path, "index has no weight_map object"))?;
    let mut shards: Vec<String> = Vec::new();
    for (tensor, file) in map {
        let file = file
            .as_str()
            .ok_or_else(|| err(path, format!("weight_map[{tensor:?}] is not a file name")))?;
        // A shard is a file beside the index: no directories, no way out of the folder.
        let p = Path::new(file);
        if file.is_empty()
            || p.components().count() != 1
            || !matches!(p.components().next(), Some(std::path::Component::Normal(_)))
        {
            return Err(err(
                path,
                format!("weight_map names {file:?}, which is not a file beside the index"),
            ));
        }
        if !shards.iter().any(|s| s == file) {
            if shards.len() == MAX_SHARDS {
                return Err(err(
                    path,
                    format!("index names more than {MAX_SHARDS} shards"),
                ));
            }
            shards.push(file.to_string());
        }
    }
    let total = v
        .pointer("/metadata/total_size")
        .and_then(|t| t.as_u64().or_else(|| t.as_f64().map(|f| f as u64)));
    Ok((shards, total))
}

/// Read a model: a `.safetensors` file, an `*.safetensors.index.json`, or a directory holding
/// either (`model.safetensors.index.json` first, then every `*.safetensors` in it).
pub fn read_model(path: &Path) -> Result<Model, SafetensorsError> {
    read_model_with(path, &|p| read_header(p))
}

/// [`read_model`] with a header reader (the cache passes its own).
pub fn read_model_with(
    path: &Path,
    header: &dyn Fn(&Path) -> Result<Header, SafetensorsError>,
) -> Result<Model, SafetensorsError> {
    let md = std::fs::metadata(path).map_err(|e| err(path, format!("cannot read: {e}")))?;
    if md.is_dir() {
        for name in [
            "model.safetensors.index.json",
            "diffusion_pytorch_model.safetensors.index.json",
        ] {
            let idx = path.join(name);
            if idx.is_file() {
                return read_index(&idx, header);
            }
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| err(path, format!("cannot list: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "safetensors"))
            .take(MAX_SHARDS + 1)
            .collect();
        if files.is_empty() {
            return Err(err(
                path,
                "no model.safetensors.index.json and no *.safetensors file in this folder",
            ));
        }
        if files.len() > MAX_SHARDS {
            return Err(err(
                path,
                format!("more than {MAX_SHARDS} *.safetensors files"),
            ));
        }
        files.sort();
        let files = files.iter().map(|f| header(f)).collect::<Result<_, _>>()?;
        return Ok(Model {
            path: path.to_path_buf(),
            files,
            index_total_size: None,
        });
    }
    if path.to_string_lossy().ends_with(".index.json") {
        return read_index(path, header);
    }
    Ok(Model {
        path: path.to_path_buf(),
        files: vec![header(path)?],
        index_total_size: None,
    })
}

fn read_index(
    idx: &Path,
    header: &dyn Fn(&Path) -> Result<Header, SafetensorsError>,
) -> Result<Model, SafetensorsError> {
    let bytes = read_regular(idx, MAX_INDEX_BYTES)
        .map_err(|e| err(idx, format!("cannot read the index: {e}")))?;
    let (shards, total) = parse_index(&bytes, idx)?;
    if shards.is_empty() {
        return Err(err(idx, "index names no shard"));
    }
    let dir = idx.parent().unwrap_or(Path::new("."));
    let files = shards
        .iter()
        .map(|s| header(&dir.join(s)))
        .collect::<Result<_, _>>()?;
    Ok(Model {
        path: idx.to_path_buf(),
        files,
        index_total_size: total,
    })
}
