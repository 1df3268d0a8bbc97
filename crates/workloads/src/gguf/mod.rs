//! GGUF header reader (format versions 2 and 3).
//!
//! Reads the metadata and the tensor table only, through a buffered reader; tensor data is never
//! read. Every count and length in the header is checked against what the rest of the file can
//! hold (and against sane limits) before anything is allocated, so a hostile header gets an error
//! naming the file and the field instead of a crash or a huge allocation. Large arrays (tokenizer
//! vocabularies, merges) are skipped by default and only their length is kept.
//!
//! Layout: llama.cpp's gguf.h / gguf.cpp (the format's reference reader and writer).

mod cursor;
mod reader;
pub mod types;
pub mod writer;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gpuledger_lang::said::Said;
use serde::Serialize;

pub use cursor::MAX_LOADED_STRING;
pub use reader::{parse, read_file, MAX_TENSORS};
pub use types::{GgmlType, GGML_TYPES};

/// `general.alignment` when the key is absent.
pub const DEFAULT_ALIGNMENT: u64 = 32;
/// The most bytes a model's files may hold together (4 EiB, far past any disk): under it the
/// recipe's sums of sizes cannot pass 2^64.
pub const MAX_MODEL_BYTES: u64 = 1 << 62;
/// `GGML_MAX_DIMS`.
pub const MAX_DIMS: u32 = 4;

/// What the reader loads.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Arrays with more elements than this are skipped (their length is kept, their values not).
    pub max_array_len: u64,
    /// Load these arrays whatever their length (e.g. `tokenizer.ggml.tokens`).
    pub always_load: Vec<String>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            // Per-layer arrays (head counts, SWA patterns) are at most a few hundred long;
            // vocabularies are 30k-260k.
            max_array_len: 4096,
            always_load: Vec::new(),
        }
    }
}

/// Metadata value types (`enum gguf_type`): the discriminant is the id the file stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[repr(u32)]
pub enum ValueType {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
}

impl ValueType {
    /// Every type, in id order (`ALL[id]` has that id).
    const ALL: [ValueType; 13] = [
        Self::U8,
        Self::I8,
        Self::U16,
        Self::I16,
        Self::U32,
        Self::I32,
        Self::F32,
        Self::Bool,
        Self::String,
        Self::Array,
        Self::U64,
        Self::I64,
        Self::F64,
    ];

    pub fn from_id(id: u32) -> Option<ValueType> {
        Self::ALL.get(usize::try_from(id).ok()?).copied()
    }

    pub fn id(self) -> u32 {
        self as u32
    }

    /// Encoded size of a fixed-size value; `None` for strings and arrays.
    pub fn fixed_size(self) -> Option<u64> {
        match self {
            Self::U8 | Self::I8 | Self::Bool => Some(1),
            Self::U16 | Self::I16 => Some(2),
            Self::U32 | Self::I32 | Self::F32 => Some(4),
            Self::U64 | Self::I64 | Self::F64 => Some(8),
            Self::String | Self::Array => None,
        }
    }

    /// The smallest encoding of one value of this type (used to bound counts).
    pub fn min_size(self) -> u64 {
        match self {
            ValueType::String => 8,
            ValueType::Array => 12,
            t => t.fixed_size().unwrap_or(1),
        }
    }
}

/// One metadata value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MetaValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    String(String),
    Array(MetaArray),
    U64(u64),
    I64(i64),
    F64(f64),
}

/// An array value. `values` is `None` when the array was skipped for its size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetaArray {
    pub elem_type: ValueType,
    pub len: u64,
    pub values: Option<Vec<MetaValue>>,
}

impl MetaValue {
    pub fn value_type(&self) -> ValueType {
        match self {
            MetaValue::U8(_) => ValueType::U8,
            MetaValue::I8(_) => ValueType::I8,
            MetaValue::U16(_) => ValueType::U16,
            MetaValue::I16(_) => ValueType::I16,
            MetaValue::U32(_) => ValueType::U32,
            MetaValue::I32(_) => ValueType::I32,
            MetaValue::F32(_) => ValueType::F32,
            MetaValue::Bool(_) => ValueType::Bool,
            MetaValue::String(_) => ValueType::String,
            MetaValue::Array(_) => ValueType::Array,
            MetaValue::U64(_) => ValueType::U64,
            MetaValue::I64(_) => ValueType::I64,
            MetaValue::F64(_) => ValueType::F64,
        }
    }

    /// An integer value (any width, bools as 0/1) as u64; negative values give `None`.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            MetaValue::U8(v) => Some(v as u64),
            MetaValue::U16(v) => Some(v as u64),
            MetaValue::U32(v) => Some(v as u64),
            MetaValue::U64(v) => Some(v),
            MetaValue::I8(v) => u64::try_from(v).ok(),
            MetaValue::I16(v) => u64::try_from(v).ok(),
            MetaValue::I32(v) => u64::try_from(v).ok(),
            MetaValue::I64(v) => u64::try_from(v).ok(),
            MetaValue::Bool(b) => Some(b as u64),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            MetaValue::F32(v) => Some(v as f64),
            MetaValue::F64(v) => Some(v),
            _ => self.as_u64().map(|v| v as f64),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            MetaValue::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            MetaValue::Bool(b) => Some(b),
            _ => self.as_u64().map(|v| v != 0),
        }
    }

    pub fn as_array(&self) -> Option<&MetaArray> {
        match self {
            MetaValue::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// One entry of the tensor table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TensorInfo {
    pub name: String,
    /// `ne[0..n_dims]` (ggml order: `ne[0]` is the row length).
    pub dims: Vec<u64>,
    pub ggml_type: GgmlType,
    /// Offset from the start of the file's data section.
    pub offset: u64,
    /// `ggml_nbytes`.
    pub n_bytes: u64,
}

impl TensorInfo {
    pub fn n_elements(&self) -> u64 {
        self.dims.iter().product()
    }
    /// `ne[0]`, the row length.
    pub fn ne0(&self) -> u64 {
        self.dims.first().copied().unwrap_or(1)
    }
    /// Number of rows (product of `ne[1..]`).
    pub fn n_rows(&self) -> u64 {
        self.dims.iter().skip(1).product()
    }
}

/// One GGUF file's header.
#[derive(Debug, Clone, Serialize)]
pub struct GgufFile {
    pub path: PathBuf,
    pub version: u32,
    pub file_size: u64,
    pub alignment: u64,
    /// Metadata in file order.
    pub metadata: Vec<(String, MetaValue)>,
    pub tensors: Vec<TensorInfo>,
    /// Where the data section starts (end of header, padded to `alignment`).
    pub data_offset: u64,
    /// Metadata values skipped for their size, as (key, why): absent from `metadata`, so a
    /// reader of the key sees it as unknown.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<(String, String)>,
    #[serde(skip)]
    index: BTreeMap<String, usize>,
}

impl GgufFile {
    pub(crate) fn new(
        path: PathBuf,
        version: u32,
        file_size: u64,
        alignment: u64,
        metadata: Vec<(String, MetaValue)>,
        tensors: Vec<TensorInfo>,
        data_offset: u64,
    ) -> Self {
        let index = metadata
            .iter()
            .enumerate()
            .map(|(i, (k, _))| (k.clone(), i))
            .collect();
        GgufFile {
            path,
            version,
            file_size,
            alignment,
            metadata,
            tensors,
            data_offset,
            skipped: Vec::new(),
            index,
        }
    }

    pub fn get(&self, key: &str) -> Option<&MetaValue> {
        self.index.get(key).map(|&i| &self.metadata[i].1)
    }

    /// Bytes of the data section that tensors occupy (to the end of the last tensor).
    pub fn data_bytes(&self) -> u64 {
        self.tensors
            .iter()
            .map(|t| t.offset + t.n_bytes)
            .max()
            .unwrap_or(0)
    }
}

/// A model: one GGUF file, or all the parts of a split model read as one.
#[derive(Debug, Clone, Serialize)]
pub struct GgufModel {
    pub parts: Vec<GgufFile>,
}

/// A reader error. `Display` is `"<file>: <what was wrong>"` on one line (control characters of
/// the file's name and of what it quotes escaped), and the message names the field.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.said())]
pub struct GgufError {
    pub file: PathBuf,
    /// The header field that was being read (`tensor count`, `metadata key 3`, `tensor 'x' type`).
    pub field: String,
    pub message: Said,
}

impl GgufError {
    pub(crate) fn new(file: &Path, field: impl Into<String>, message: Said) -> Self {
        GgufError {
            file: file.to_path_buf(),
            field: field.into(),
            message,
        }
    }

    /// `"<file>: <what was wrong>"`, to be said in the reader's language; what comes from the
    /// file (its name, what the message quotes) escaped.
    pub fn said(&self) -> Said {
        let file = self.file.display().to_string();
        let said = vec![
            ("file", file.into()),
            ("message", self.message.clone().into()),
        ];
        Said::new("report-gguf-error", said)
            .map_text(&|t| gpuledger_model::term_safe(t).into_owned())
    }
}

impl From<GgufError> for Said {
    fn from(e: GgufError) -> Said {
        e.said()
    }
}

impl GgufModel {
    /// Read a model's header. For a split model (`name-00001-of-00003.gguf`, any part given) all
    /// parts are read; the metadata comes from the first part, the tensors from all.
    pub fn open(path: &Path) -> Result<GgufModel, GgufError> {
        Self::open_with(path, &ReadOptions::default())
    }

    pub fn open_with(path: &Path, opts: &ReadOptions) -> Result<GgufModel, GgufError> {
        let split = split_name(path);
        let first_path = match &split {
            Some(s) if s.no != 1 => s.path_for(1),
            _ => path.to_path_buf(),
        };
        let first = read_file(&first_path, opts)?;
        let count = first
            .get("split.count")
            .and_then(|v| v.as_u64())
            .unwrap_or(1);
        if count <= 1 {
            return GgufModel::sized(vec![first]);
        }
        let Some(s) = split else {
            return Err(GgufError::new(
                path,
                "split.count",
                Said::new(
                    "report-gguf-split-pattern",
                    vec![
                        ("count", count.to_string().into()),
                        ("padded", format!("{count:05}").into()),
                    ],
                ),
            ));
        };
        if count != s.count {
            return Err(GgufError::new(
                &first_path,
                "split.count",
                Said::new(
                    "report-gguf-split-count",
                    vec![
                        ("count", count.to_string().into()),
                        ("parts", s.count.to_string().into()),
                    ],
                ),
            ));
        }
        let mut parts = vec![first];
        for no in 2..=count {
            let p = s.path_for(no);
            let part = read_file(&p, opts)?;
            let got = part.get("split.no").and_then(|v| v.as_u64());
            if got.is_some_and(|n| n != no - 1) {
                return Err(GgufError::new(
                    &p,
                    "split.no",
                    Said::new(
                        "report-gguf-split-no",
                        vec![
                            ("no", got.unwrap_or_default().to_string().into()),
                            ("part", no.to_string().into()),
                            ("count", count.to_string().into()),
                        ],
                    ),
                ));
            }
            parts.push(part);
        }
        GgufModel::sized(parts)
    }

    /// The model, when its files together stay under [`MAX_MODEL_BYTES`]: every tensor lies in
    /// its file, so the recipe's sums (weights, a tied output's copy, padding) cannot pass 2^64.
    /// Past it (sparse files can declare exabytes), an error naming the part that passed it.
    fn sized(parts: Vec<GgufFile>) -> Result<GgufModel, GgufError> {
        let mut total = 0u64;
        for p in &parts {
            total = total.saturating_add(p.file_size);
            if total > MAX_MODEL_BYTES {
                return Err(GgufError::new(
                    &p.path,
                    "file",
                    Said::new("report-gguf-exabytes", vec![]),
                ));
            }
        }
        Ok(GgufModel { parts })
    }

    pub fn first(&self) -> &GgufFile {
        &self.parts[0]
    }

    pub fn get(&self, key: &str) -> Option<&MetaValue> {
        self.first().get(key)
    }

    pub fn get_u64(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(|v| v.as_u64())
    }

    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(|v| v.as_str())
    }

    /// `general.architecture`.
    pub fn architecture(&self) -> Option<&str> {
        self.get_str("general.architecture")
    }

    /// All tensors of all parts, in file order.
    pub fn tensors(&self) -> impl Iterator<Item = &TensorInfo> {
        self.parts.iter().flat_map(|p| p.tensors.iter())
    }

    pub fn tensor(&self, name: &str) -> Option<&TensorInfo> {
        self.tensors().find(|t| t.name == name)
    }

    /// Bytes of all parts (at most [`MAX_MODEL_BYTES`] for a model opened here).
    pub fn file_size(&self) -> u64 {
        self.parts
            .iter()
            .fold(0u64, |a, p| a.saturating_add(p.file_size))
    }

    pub fn path(&self) -> &Path {
        &self.first().path
    }
}

/// A parsed `NAME-0000K-of-0000N.gguf`.
struct SplitName {
    dir: PathBuf,
    prefix: String,
    no: u64,
    count: u64,
}

impl SplitName {
    fn path_for(&self, no: u64) -> PathBuf {
        self.dir.join(format!(
            "{}-{:05}-of-{:05}.gguf",
            self.prefix, no, self.count
        ))
    }
}

fn split_name(path: &Path) -> Option<SplitName> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".gguf")?;
    // "<prefix>-NNNNN-of-NNNNN"
    let (rest, count) = stem.rsplit_once("-of-")?;
    let (prefix, no) = rest.rsplit_once('-')?;
    if no.len() != 5 || count.len() != 5 {
        return None;
    }
    let no: u64 = no.parse().ok()?;
    let count: u64 = count.parse().ok()?;
    if no == 0 || no > count {
        return None;
    }
    Some(SplitName {
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        prefix: prefix.to_string(),
        no,
        count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_type_ids_round_trip_and_match_ggml() {
        for id in 0..13 {
            assert_eq!(ValueType::from_id(id).map(ValueType::id), Some(id));
        }
        // ggml's `enum gguf_type`: GGUF_TYPE_BOOL = 7, GGUF_TYPE_STRING = 8, GGUF_TYPE_FLOAT64 = 12.
        assert_eq!(ValueType::from_id(7), Some(ValueType::Bool));
        assert_eq!(ValueType::from_id(8), Some(ValueType::String));
        assert_eq!(ValueType::from_id(12), Some(ValueType::F64));
        assert_eq!(ValueType::from_id(13), None);
        assert_eq!(ValueType::from_id(u32::MAX), None);
    }

    #[test]
    fn split_names_parse() {
        let s = split_name(Path::new("/m/Qwen3-235B-Q4_K_M-00002-of-00005.gguf")).unwrap();
        assert_eq!((s.no, s.count), (2, 5));
        assert_eq!(s.prefix, "Qwen3-235B-Q4_K_M");
        assert_eq!(
            s.path_for(1),
            PathBuf::from("/m/Qwen3-235B-Q4_K_M-00001-of-00005.gguf")
        );
        assert!(split_name(Path::new("model.gguf")).is_none());
        assert!(split_name(Path::new("m-00006-of-00005.gguf")).is_none());
        assert!(split_name(Path::new("m-1-of-5.gguf")).is_none());
    }
}
