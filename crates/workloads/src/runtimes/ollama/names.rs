//! The model's name (`qwen3:8b`) for the blob an Ollama runner loads: the manifest under
//! `<models>/manifests/` that lists the blob as its model layer, each read bounded, the answer
//! remembered for a few minutes.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The blob file an Ollama runner loads: `<models>/blobs/sha256-<hex>`; its hex digest.
fn blob_digest(blob: &Path) -> Option<String> {
    let name = blob.file_name()?.to_str()?;
    let hex = name.strip_prefix("sha256-")?;
    (hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit())).then(|| hex.to_lowercase())
}

/// Manifests bigger than this are not Ollama manifests (they hold a few layer records).
const MANIFEST_MAX: u64 = 256 << 10;
/// At most this many manifest files are read (a models folder holds tens to hundreds).
const MANIFESTS_MAX: usize = 10_000;

/// The model name (`qwen3:8b`, `hf.co/org/repo:Q4_K_M`) whose manifest lists `blob` as its
/// model layer. The manifests are read from `<models>/manifests/<registry>/<ns>/<model>/<tag>`
/// beside the blob's own folder (`<models>/blobs/`), each bounded. `Ok(None)`: no manifest names
/// it. A manifest that cannot be read is an error naming the file, unless another one names the
/// blob.
pub fn model_name_for_blob(blob: &Path) -> Result<Option<String>, String> {
    let digest = blob_digest(blob).ok_or_else(|| {
        format!(
            "{}: not an Ollama blob (sha256-<64 hex digits>)",
            blob.display()
        )
    })?;
    let models = blob
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| format!("{}: no models folder above the blob", blob.display()))?;
    let root = models.join("manifests");
    let mut files = Vec::new();
    collect_files(&root, 0, &mut files);
    let mut errors = Vec::new();
    for f in files.iter().take(MANIFESTS_MAX) {
        match manifest_model_digest(f) {
            Ok(Some(d)) if d == digest => {
                let rel = f.strip_prefix(&root).unwrap_or(f);
                return Ok(Some(name_from_manifest_path(rel)));
            }
            Ok(_) => {}
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(None)
    } else {
        Err(format!(
            "no readable manifest under {} names blob sha256-{}…: {}",
            root.display(),
            &digest[..12],
            errors.join("; ")
        ))
    }
}

/// Where [`model_name_for_blob`] reads a blob's name: the manifests folder beside its blobs.
pub(super) fn manifests_of(blob: &Path) -> String {
    blob.parent()
        .and_then(|b| b.parent())
        .map(|m| format!("{}/manifests", m.display()))
        .unwrap_or_else(|| "Ollama manifests".into())
}

/// [`model_name_for_blob`], remembered for a while: the collection path asks every refresh, and a
/// manifests folder can hold thousands of files; a pull that adds a name shows within minutes.
pub(super) fn cached_model_name(blob: &Path) -> Option<String> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    use std::time::{Duration, Instant};
    const KEEP: Duration = Duration::from_secs(300);
    type Names = HashMap<PathBuf, (Instant, Option<String>)>;
    static CACHE: OnceLock<Mutex<Names>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some((at, name)) = cache.lock().ok()?.get(blob) {
        if at.elapsed() < KEEP {
            return name.clone();
        }
    }
    let name = model_name_for_blob(blob).ok().flatten();
    if let Ok(mut c) = cache.lock() {
        // Bounded: one entry per model blob seen; a machine does not hold thousands running.
        if c.len() > 1024 {
            c.clear();
        }
        c.insert(blob.to_path_buf(), (Instant::now(), name.clone()));
    }
    name
}

/// Files 4 levels down (registry/namespace/model/tag), never following further.
fn collect_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if out.len() >= MANIFESTS_MAX {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if depth == 3 {
            out.push(p);
        } else if p.is_dir() {
            collect_files(&p, depth + 1, out);
        }
    }
}

/// The model layer's hex digest in one manifest.
fn manifest_model_digest(path: &Path) -> Result<Option<String>, String> {
    let bytes = gpuledger_sources::regular::read_regular(path, MANIFEST_MAX)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_slice(&bytes)
        .map_err(|e| format!("{}: not a manifest (JSON): {e}", path.display()))?;
    let layers = v
        .get("layers")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{}: not a manifest: no \"layers\" list", path.display()))?;
    Ok(layers
        .iter()
        .find(|l| {
            l.get("mediaType").and_then(Value::as_str) == Some("application/vnd.ollama.image.model")
        })
        .and_then(|l| l.get("digest").and_then(Value::as_str))
        .and_then(|d| d.strip_prefix("sha256:"))
        .map(str::to_lowercase))
}

/// `registry.ollama.ai/library/qwen3/8b` → `qwen3:8b`; other namespaces and registries kept.
fn name_from_manifest_path(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.as_slice() {
        [reg, ns, model, tag] if reg == "registry.ollama.ai" && ns == "library" => {
            format!("{model}:{tag}")
        }
        [reg, ns, model, tag] if reg == "registry.ollama.ai" => format!("{ns}/{model}:{tag}"),
        [reg, ns, model, tag] => format!("{reg}/{ns}/{model}:{tag}"),
        _ => parts.join("/"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_paths_become_ollama_names() {
        let n = |p: &str| name_from_manifest_path(Path::new(p));
        assert_eq!(n("registry.ollama.ai/library/qwen3/8b"), "qwen3:8b");
        assert_eq!(n("registry.ollama.ai/user/m/latest"), "user/m:latest");
        assert_eq!(
            n("hf.co/unsloth/Qwen3-GGUF/Q4_K_M"),
            "hf.co/unsloth/Qwen3-GGUF:Q4_K_M"
        );
    }
}
