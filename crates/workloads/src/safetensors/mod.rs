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
//! The files are named by other processes and may be built to hurt, so:
//! - the header is walked as it streams (`parse`) and only what a recipe needs is kept: the
//!   tensor count and the bytes per dtype ([`Header`]); every tensor and the metadata only for
//!   whoever asks ([`read_tensors`]);
//! - reading costs at most a [`Budget`]: per file (header bytes, tensors), per model (shards,
//!   header bytes), per collection round (header bytes, time); past one the model is skipped and
//!   the [`Round`] records which and why, for the snapshot;
//! - a model folder's files are reached inside the process's root and must stay in the folder
//!   ([`crate::confine`]); a file behind several names is read and counted once;
//! - bytes of a file that is not safetensors are never shown: not its first 8 bytes as a
//!   "length", not a JSON value of the wrong type;
//! - sums of sizes are checked: past 2^64 is an error naming the file, never a wrapped number.
//!
//! Why not the `safetensors` crate: its `SafeTensors::read_metadata` refuses any buffer that is
//! not the whole file (`MetadataIncompleteBuffer`), so it needs a full read or a mapping. Its
//! `tensor::Metadata` can be deserialised from the header bytes alone, but then the checks against
//! the file (data really there) are ours anyway, its errors name neither the file nor always the
//! tensor, and its `Dtype` list trails the Python package's (no FNUZ float8s in the version read).
//! One difference on purpose: the package also refuses gaps between tensors; this reader, which
//! only sizes, accepts them (overlaps are refused).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

mod budget;
mod cache;
mod dtype;
mod model;
mod parse;

pub use budget::{Budget, Round, Skip};
pub use cache::{CacheStats, HeaderCache};
pub use dtype::Dtype;
pub use model::{
    cached_model, parse_index, read_file_in, read_folder, read_model, Model, MAX_INDEX_BYTES,
};

/// The largest header accepted (the `safetensors` package's own `MAX_HEADER_SIZE`).
pub const MAX_HEADER_BYTES: u64 = 100_000_000;

/// What kind of refusal an error is: whether the same file would be refused again (and so is
/// remembered), whether the model is skipped for it (and the snapshot says so).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Not a safetensors file, or a malformed one.
    Format,
    /// Over a budget of one file (its header bytes, its tensors).
    FileBudget,
    /// Over a budget of the model, or a file leading out of the model folder.
    Skipped,
    /// Over the round's budget: read again on a later round.
    Round,
    /// Could not be read (missing, no permission): read again later.
    Io,
}

impl ErrorKind {
    /// The same file, unchanged, would be refused again.
    pub fn lasts(self) -> bool {
        matches!(self, ErrorKind::Format | ErrorKind::FileBudget)
    }

    /// A refusal of the model (or file) itself, not a failure to reach it: said in the snapshot.
    pub fn skips(self) -> bool {
        self != ErrorKind::Io
    }
}

/// An error, always naming the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {what}", path.display())]
pub struct SafetensorsError {
    pub path: PathBuf,
    pub what: String,
    pub kind: ErrorKind,
}

fn err(path: &Path, kind: ErrorKind, what: impl Into<String>) -> SafetensorsError {
    SafetensorsError {
        path: path.to_path_buf(),
        what: what.into(),
        kind,
    }
}

/// `16 MiB`.
fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes >> 20)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    pub name: String,
    pub dtype: Dtype,
    pub shape: Vec<u64>,
    /// Bytes the tensor takes: `elements × bits / 8`, equal to its offsets' span.
    pub bytes: u64,
}

/// One file's header: what the recipes need from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub path: PathBuf,
    /// Length of the JSON header (without the 8-byte prefix).
    pub header_bytes: u64,
    pub file_bytes: u64,
    pub tensor_count: u64,
    /// Bytes of all tensors (they do not overlap, so at most the file's data).
    pub tensor_bytes: u64,
    /// Bytes per dtype, by dtype.
    pub by_dtype: Vec<(Dtype, u64)>,
}

/// One file's header with every tensor (sorted by name) and the metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tensors {
    pub header: Header,
    pub tensors: Vec<TensorInfo>,
    pub metadata: BTreeMap<String, String>,
}

/// Read the header of one `.safetensors` file (a regular file only; at most 8 + header bytes).
pub fn read_header(path: &Path) -> Result<Header, SafetensorsError> {
    let (f, len) = open(path)?;
    read_open(f, len, path, &Budget::default(), None, false).map(|(h, _)| h)
}

/// [`read_header`] with every tensor and the metadata.
pub fn read_tensors(path: &Path) -> Result<Tensors, SafetensorsError> {
    let (f, len) = open(path)?;
    let (header, all) = read_open(f, len, path, &Budget::default(), None, true)?;
    let (tensors, metadata) = all.unwrap_or_default();
    Ok(Tensors {
        header,
        tensors,
        metadata,
    })
}

fn open(path: &Path) -> Result<(File, u64), SafetensorsError> {
    let f = gpuledger_sources::regular::open_regular(path)
        .map_err(|e| err(path, ErrorKind::Io, format!("cannot open: {e}")))?;
    let len = f
        .metadata()
        .map_err(|e| err(path, ErrorKind::Io, format!("cannot stat: {e}")))?
        .len();
    Ok((f, len))
}

type Collected = Option<(Vec<TensorInfo>, BTreeMap<String, String>)>;

/// Read a header from an open file of `file_bytes` bytes, within `budget` (and the `round`'s,
/// when there is one). `collect`: keep every tensor and the metadata too.
pub(crate) fn read_open(
    f: File,
    file_bytes: u64,
    path: &Path,
    budget: &Budget,
    round: Option<&Round>,
    collect: bool,
) -> Result<(Header, Collected), SafetensorsError> {
    let fail = |kind, what: String| err(path, kind, what);
    let mut r = std::io::BufReader::with_capacity(64 << 10, f);
    let mut len = [0u8; 8];
    r.read_exact(&mut len).map_err(|_| {
        fail(
            ErrorKind::Format,
            format!(
                "not a safetensors file: {file_bytes} bytes, shorter than the 8-byte header length"
            ),
        )
    })?;
    let n = u64::from_le_bytes(len);
    // Never shown: for a file of another kind these are its first 8 bytes.
    if n > MAX_HEADER_BYTES {
        return Err(fail(
            ErrorKind::Format,
            format!("not a safetensors file: the header length its first 8 bytes give is over the limit of {MAX_HEADER_BYTES} bytes"),
        ));
    }
    let first = r
        .fill_buf()
        .map_err(|e| fail(ErrorKind::Io, format!("reading the header: {e}")))?
        .first()
        .copied();
    if n == 0 || first != Some(b'{') {
        return Err(fail(
            ErrorKind::Format,
            "not a safetensors file: its header does not start with '{'".into(),
        ));
    }
    if 8 + n > file_bytes {
        return Err(fail(
            ErrorKind::Format,
            format!("header length {n} bytes runs past the end of the file ({file_bytes} bytes): truncated"),
        ));
    }
    if n > budget.file_header_bytes {
        return Err(fail(
            ErrorKind::FileBudget,
            format!(
                "skipped: its header of {n} bytes is over the budget of {} per file",
                mib(budget.file_header_bytes)
            ),
        ));
    }
    if let Some(round) = round {
        round
            .charge(n)
            .map(drop)
            .map_err(|w| fail(ErrorKind::Round, format!("skipped: {w}")))?;
    }
    let g = gather(file_bytes - 8 - n, budget, collect);
    walk(
        g,
        serde_json::de::IoRead::new(r.take(n)),
        n,
        file_bytes,
        path,
    )
}

fn gather(data_bytes: u64, budget: &Budget, collect: bool) -> parse::Gather {
    let g = parse::Gather::new(data_bytes, budget.file_tensors);
    if collect {
        g.collect()
    } else {
        g
    }
}

fn walk<'de, R: serde_json::de::Read<'de>>(
    mut g: parse::Gather,
    r: R,
    header_bytes: u64,
    file_bytes: u64,
    path: &Path,
) -> Result<(Header, Collected), SafetensorsError> {
    g.walk(r).map_err(|(kind, what)| err(path, kind, what))?;
    let mut by_dtype = std::mem::take(&mut g.by_dtype);
    by_dtype.sort_unstable();
    let header = Header {
        path: path.to_path_buf(),
        header_bytes,
        file_bytes,
        tensor_count: g.count,
        tensor_bytes: g.bytes,
        by_dtype,
    };
    let all = g
        .tensors
        .take()
        .map(|t| (t, g.metadata.take().unwrap_or_default()));
    Ok((header, all))
}

/// Parse header bytes (the JSON after the 8-byte length) of a file of `file_bytes` bytes.
pub fn parse_header(json: &[u8], file_bytes: u64, path: &Path) -> Result<Header, SafetensorsError> {
    parse_slice(json, file_bytes, path, false).map(|(h, _)| h)
}

/// [`parse_header`] with every tensor and the metadata.
pub fn parse_tensors(
    json: &[u8],
    file_bytes: u64,
    path: &Path,
) -> Result<Tensors, SafetensorsError> {
    let (header, all) = parse_slice(json, file_bytes, path, true)?;
    let (tensors, metadata) = all.unwrap_or_default();
    Ok(Tensors {
        header,
        tensors,
        metadata,
    })
}

fn parse_slice(
    json: &[u8],
    file_bytes: u64,
    path: &Path,
    collect: bool,
) -> Result<(Header, Collected), SafetensorsError> {
    if json.first() != Some(&b'{') {
        return Err(err(
            path,
            ErrorKind::Format,
            "not a safetensors file: its header does not start with '{'",
        ));
    }
    let n = json.len() as u64;
    let g = gather(
        file_bytes.saturating_sub(8 + n),
        &Budget::default(),
        collect,
    );
    walk(g, serde_json::de::SliceRead::new(json), n, file_bytes, path)
}
