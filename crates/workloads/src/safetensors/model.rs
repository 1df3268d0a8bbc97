//! A model: one file, or the shards of a folder (those its `model.safetensors.index.json` names,
//! else every `*.safetensors` in it), read within the model's budget: at most so many shard
//! names, so many header bytes for its distinct files, each file counted once whatever the
//! number of names it has, and sums that never pass 2^64 unnoticed.

use super::{err, mib, Budget, ErrorKind, Header, HeaderCache, Round, SafetensorsError};
use crate::confine::{FolderError, ModelFolder, ProcessRoot, Reached};
use gpuledger_model::runtime_estimate::thousands;
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The largest `model.safetensors.index.json` read.
pub const MAX_INDEX_BYTES: u64 = 64 << 20;

/// The index names looked for in a folder, in order.
const INDEX_NAMES: [&str; 2] = [
    "model.safetensors.index.json",
    "diffusion_pytorch_model.safetensors.index.json",
];

/// A model: one file, or the shards a folder holds, read as one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    /// The file, folder or index that was given.
    pub path: PathBuf,
    /// One header per distinct file.
    pub files: Vec<Header>,
    /// `metadata.total_size` of the index, where there is one (a published figure beside ours).
    pub index_total_size: Option<u64>,
    /// Shard names that were another name of a file already counted (a link to it).
    pub aliases: usize,
}

impl Model {
    /// Bytes of all tensors. Checked when read: past 2^64 the read failed.
    pub fn tensor_bytes(&self) -> u64 {
        self.files
            .iter()
            .fold(0u64, |a, h| a.saturating_add(h.tensor_bytes))
    }

    pub fn tensor_count(&self) -> u64 {
        self.files
            .iter()
            .fold(0u64, |a, h| a.saturating_add(h.tensor_count))
    }
}

/// The index's shard file names, in order of first appearance, and its `total_size`.
pub fn parse_index(
    bytes: &[u8],
    path: &Path,
) -> Result<(Vec<String>, Option<u64>), SafetensorsError> {
    parse_index_within(bytes, path, Budget::default().model_shards)
}

fn parse_index_within(
    bytes: &[u8],
    path: &Path,
    max_shards: usize,
) -> Result<(Vec<String>, Option<u64>), SafetensorsError> {
    let bad = |what: String| err(path, ErrorKind::Format, what);
    let v: Value = serde_json::from_slice(bytes).map_err(|e| {
        // Syntax errors only: a value of the wrong type is not quoted.
        bad(format!(
            "index is not valid JSON (line {}, column {})",
            e.line(),
            e.column()
        ))
    })?;
    let map = v
        .get("weight_map")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("index has no weight_map object".into()))?;
    let mut shards: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for (tensor, file) in map {
        let file = file
            .as_str()
            .ok_or_else(|| bad(format!("weight_map[{tensor:?}] is not a file name")))?;
        // A shard is a file beside the index: no directories, no way out of the folder.
        let p = Path::new(file);
        if file.is_empty()
            || p.components().count() != 1
            || !matches!(p.components().next(), Some(std::path::Component::Normal(_)))
        {
            return Err(bad(format!(
                "weight_map names {file:?}, which is not a file beside the index"
            )));
        }
        if seen.insert(file) {
            if shards.len() == max_shards {
                return Err(err(
                    path,
                    ErrorKind::Skipped,
                    format!(
                        "skipped: the index names more than {} shards, the budget per model",
                        thousands(max_shards as u64)
                    ),
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

/// Read a model on this machine: a `.safetensors` file, an `*.safetensors.index.json`, or a
/// folder holding either, within the default budget, without the cache.
pub fn read_model(path: &Path) -> Result<Model, SafetensorsError> {
    read_model_via(path, &Round::default(), None)
}

/// [`read_model`] with every header through the process-wide cache.
pub fn cached_model(path: &Path) -> Result<Model, SafetensorsError> {
    read_model_via(path, &Round::default(), Some(HeaderCache::global()))
}

fn read_model_via(
    path: &Path,
    round: &Round,
    cache: Option<&HeaderCache>,
) -> Result<Model, SafetensorsError> {
    let io = |e: String| err(path, ErrorKind::Io, e);
    let md = std::fs::metadata(path).map_err(|e| io(format!("cannot read: {e}")))?;
    if md.is_dir() {
        let folder = ModelFolder::on_host(path).map_err(io)?;
        return read_folder(&folder, round, cache);
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.ends_with(".index.json") {
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
        let folder = ModelFolder::on_host(dir.unwrap_or(Path::new("."))).map_err(io)?;
        let r = noted(read_index(&folder, name, round, cache), round);
        return r.map(|mut m| {
            m.path = path.to_path_buf();
            m
        });
    }
    let h = read_file_in(&ProcessRoot::host(), path, path, round, cache)?;
    Ok(Model {
        path: path.to_path_buf(),
        files: vec![h],
        index_total_size: None,
        aliases: 0,
    })
}

/// One file a process named itself (has open or mapped, or gave as its model): `path` is its
/// own, resolved inside its `root` (no folder to stay in); `shown` names it in messages.
pub fn read_file_in(
    root: &ProcessRoot,
    path: &Path,
    shown: &Path,
    round: &Round,
    cache: Option<&HeaderCache>,
) -> Result<Header, SafetensorsError> {
    let r = root
        .reached(path)
        .map_err(|e| err(shown, ErrorKind::Io, format!("cannot resolve: {e}")));
    noted(r.and_then(|r| header_of(&r, shown, round, cache)), round)
}

/// A model folder's weights: its index's shards, else every `*.safetensors` in it.
pub fn read_folder(
    folder: &ModelFolder,
    round: &Round,
    cache: Option<&HeaderCache>,
) -> Result<Model, SafetensorsError> {
    noted(folder_model(folder, round, cache), round)
}

/// Record a refusal of the model in the round (the snapshot says which and why).
fn noted<T>(r: Result<T, SafetensorsError>, round: &Round) -> Result<T, SafetensorsError> {
    if let Err(e) = &r {
        if e.kind.skips() {
            round.note_skip(&e.path, &e.what, e.kind);
        }
    }
    r
}

fn folder_model(
    folder: &ModelFolder,
    round: &Round,
    cache: Option<&HeaderCache>,
) -> Result<Model, SafetensorsError> {
    for name in INDEX_NAMES {
        match folder.file(name) {
            Ok(r) if std::fs::metadata(&r.host).is_ok_and(|m| m.is_file()) => {
                return read_index(folder, name, round, cache);
            }
            Err(FolderError::Outside(w)) => {
                return Err(err(&folder.shown_file(name), ErrorKind::Skipped, w));
            }
            _ => {}
        }
    }
    let dir = folder.shown();
    let max = round.budget().model_shards;
    let mut names: Vec<String> = std::fs::read_dir(folder.host_path())
        .map_err(|e| err(dir, ErrorKind::Io, format!("cannot list: {e}")))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".safetensors") && n.len() > ".safetensors".len())
        .take(max + 1)
        .collect();
    if names.len() > max {
        return Err(err(
            dir,
            ErrorKind::Skipped,
            format!(
                "skipped: more than {} shards (*.safetensors files), the budget per model",
                thousands(max as u64)
            ),
        ));
    }
    if names.is_empty() {
        return Err(err(
            dir,
            ErrorKind::Io,
            "no model.safetensors.index.json and no *.safetensors file in this folder",
        ));
    }
    names.sort();
    let (files, aliases) = read_shards(folder, &names, round, cache)?;
    Ok(Model {
        path: dir.to_path_buf(),
        files,
        index_total_size: None,
        aliases,
    })
}

fn read_index(
    folder: &ModelFolder,
    name: &str,
    round: &Round,
    cache: Option<&HeaderCache>,
) -> Result<Model, SafetensorsError> {
    let shown = folder.shown_file(name);
    let bytes = read_bounded(folder, name, MAX_INDEX_BYTES)?;
    let (shards, total) = parse_index_within(&bytes, &shown, round.budget().model_shards)?;
    if shards.is_empty() {
        return Err(err(&shown, ErrorKind::Format, "index names no shard"));
    }
    let (files, aliases) = read_shards(folder, &shards, round, cache)?;
    Ok(Model {
        path: shown,
        files,
        index_total_size: total,
        aliases,
    })
}

/// The folder's file `name`, whole, refused past `max` bytes.
fn read_bounded(folder: &ModelFolder, name: &str, max: u64) -> Result<Vec<u8>, SafetensorsError> {
    let shown = folder.shown_file(name);
    reach(folder, name, &shown)?
        .read_bounded(max)
        .map_err(|e| err(&shown, ErrorKind::Io, format!("cannot read: {e}")))
}

/// A folder's file, or why not: leading outside the folder skips the model.
fn reach(folder: &ModelFolder, name: &str, shown: &Path) -> Result<Reached, SafetensorsError> {
    folder.file(name).map_err(|e| match e {
        FolderError::Outside(w) => err(shown, ErrorKind::Skipped, format!("skipped: {w}")),
        FolderError::Io(e) => err(shown, ErrorKind::Io, format!("cannot read: {e}")),
    })
}

/// The headers of the named shards: each distinct file once (by device and inode), within the
/// model's header bytes, with a checked sum. Returns them and how many names were aliases.
fn read_shards(
    folder: &ModelFolder,
    names: &[String],
    round: &Round,
    cache: Option<&HeaderCache>,
) -> Result<(Vec<Header>, usize), SafetensorsError> {
    let budget = round.budget();
    let mut seen = HashSet::new();
    let (mut files, mut aliases) = (Vec::new(), 0);
    let (mut header_bytes, mut total) = (0u64, 0u64);
    for name in names {
        let shown = folder.shown_file(name);
        let r = reach(folder, name, &shown)?;
        let id = r
            .identity()
            .map_or_else(|| FileId::Path(r.host.clone()), FileId::Node);
        if !seen.insert(id) {
            aliases += 1;
            continue;
        }
        let h = header_of(&r, &shown, round, cache)?;
        header_bytes = header_bytes.saturating_add(h.header_bytes);
        if header_bytes > budget.model_header_bytes {
            return Err(err(
                folder.shown(),
                ErrorKind::Skipped,
                format!(
                    "skipped: the headers of its files pass {}, the budget per model",
                    mib(budget.model_header_bytes)
                ),
            ));
        }
        total = total.checked_add(h.tensor_bytes).ok_or_else(|| {
            err(
                &shown,
                ErrorKind::Skipped,
                "skipped: with this file the model's tensor bytes pass 2^64 (sizes no disk holds)",
            )
        })?;
        files.push(h);
    }
    Ok((files, aliases))
}

/// A file's identity: device and inode, or its resolved path where there are none.
#[derive(PartialEq, Eq, Hash)]
enum FileId {
    Node((u64, u64)),
    Path(PathBuf),
}

/// One file's header, through the cache when there is one.
fn header_of(
    r: &Reached,
    shown: &Path,
    round: &Round,
    cache: Option<&HeaderCache>,
) -> Result<Header, SafetensorsError> {
    let (f, md) = r
        .open()
        .map_err(|e| err(shown, ErrorKind::Io, format!("cannot open: {e}")))?;
    match cache {
        Some(c) => c.header(f, &md, shown, round),
        None => {
            round
                .admit()
                .map_err(|w| err(shown, ErrorKind::Round, format!("skipped: {w}")))?;
            super::read_open(f, md.len(), shown, round.budget(), Some(round), false).map(|(h, _)| h)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_over_the_shard_budget_is_skipped() {
        let mut json = String::from(r#"{"weight_map":{"#);
        for i in 0..5 {
            if i > 0 {
                json.push(',');
            }
            json.push_str(&format!(r#""t{i}":"s{i}.safetensors""#));
        }
        json.push_str("}}");
        let p = Path::new("/m/model.safetensors.index.json");
        assert_eq!(
            parse_index_within(json.as_bytes(), p, 5).unwrap().0.len(),
            5
        );
        let e = parse_index_within(json.as_bytes(), p, 4).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Skipped);
        assert!(e.what.contains("more than 4 shards"), "{e}");
    }
}
