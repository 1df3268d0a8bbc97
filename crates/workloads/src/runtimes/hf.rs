//! A Hugging Face model folder: where it is (a path on the command line, or the hub cache the
//! process itself would use) and what its `config.json` says about attention (layers, KV heads,
//! head size, dtype, MLA). Bounded reads; errors name the file.

use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;
use gpuledger_sources::regular::read_regular;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The largest `config.json` read (real ones are a few KiB).
const MAX_CONFIG_BYTES: u64 = 4 << 20;

/// The environment names a model lookup may read from `/proc/PID/environ`: where the hub cache
/// is, and the allocator setting. Nothing else (tokens and keys never leave the process).
pub const ENV_NAMES: &[&str] = &[
    "HOME",
    "HF_HOME",
    "HF_HUB_CACHE",
    "HUGGINGFACE_HUB_CACHE",
    "PYTORCH_CUDA_ALLOC_CONF",
];

/// `ENV_NAMES` from a process's environment (none when it cannot be read).
pub fn process_env(proc_root: &Path, pid: u32) -> Vec<(String, String)> {
    gpuledger_sources::environ::named(proc_root, pid, ENV_NAMES).unwrap_or_default()
}

fn env<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
    env.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// The hub cache folder the process would use, and which variable said so.
pub fn hub_cache(e: &[(String, String)]) -> Option<(PathBuf, String)> {
    if let Some(v) = env(e, "HF_HUB_CACHE") {
        return Some((PathBuf::from(v), "HF_HUB_CACHE".into()));
    }
    if let Some(v) = env(e, "HUGGINGFACE_HUB_CACHE") {
        return Some((PathBuf::from(v), "HUGGINGFACE_HUB_CACHE".into()));
    }
    if let Some(v) = env(e, "HF_HOME") {
        return Some((Path::new(v).join("hub"), "HF_HOME/hub".into()));
    }
    env(e, "HOME").map(|h| {
        (
            Path::new(h).join(".cache/huggingface/hub"),
            "HOME/.cache/huggingface/hub".into(),
        )
    })
}

/// `path` as process `pid` sees it, reached from here: through its own root
/// (`/proc/PID/root`, another filesystem when it runs in a container) when that shows another
/// file than the path itself; else the path as it is (a process that shares this machine's root,
/// a recorded `/proc` without that link, or no permission to follow it), so that what is shown
/// stays the process's own path wherever it can.
pub fn in_process_root(proc_root: &Path, pid: u32, path: &Path) -> PathBuf {
    let via_root = proc_root
        .join(pid.to_string())
        .join("root")
        .join(path.strip_prefix("/").unwrap_or(path));
    if via_root.exists() && !same_file(path, &via_root) {
        via_root
    } else {
        path.to_path_buf()
    }
}

/// Are `a` and `b` one file (device and inode)?
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

/// Find the model folder for `model` as the runtime was given it: a folder (absolute, or relative
/// to the process's working directory), or a hub id `ORG/NAME` in the process's hub cache
/// (`models--ORG--NAME/snapshots/<refs/main or the only snapshot>`). Returns the folder and how
/// it was found. The paths (`model`, `cwd`, the hub cache its environment names) are the
/// process's own: `seen` reaches each from here (see [`in_process_root`]).
pub fn resolve_model_seen(
    model: &str,
    cwd: Option<&Path>,
    e: &[(String, String)],
    seen: &dyn Fn(&Path) -> PathBuf,
) -> Result<(PathBuf, Said), Said> {
    let p = Path::new(model);
    let model_arg = || ("model", Arg::from(model));
    let local = if p.is_absolute() {
        Some(p.to_path_buf())
    } else {
        cwd.map(|c| c.join(p))
    };
    if let Some(l) = local.map(|l| seen(&l)).filter(|l| l.exists()) {
        let dir = if l.is_file() {
            l.parent().map(Path::to_path_buf).unwrap_or(l)
        } else {
            l
        };
        return Ok((dir, Said::new("recipe-found-path", vec![])));
    }
    let parts: Vec<&str> = model.split('/').collect();
    if parts.len() != 2
        || parts
            .iter()
            .any(|s| s.is_empty() || *s == "." || *s == "..")
    {
        let quoted = ("model", format!("{model:?}").into());
        return Err(Said::new("recipe-err-model-not-found", vec![quoted]));
    }
    let (hub, how) =
        hub_cache(e).ok_or_else(|| Said::new("recipe-err-model-no-home", vec![model_arg()]))?;
    let repo = seen(&hub).join(format!("models--{}--{}", parts[0], parts[1]));
    let snaps = repo.join("snapshots");
    let rev = read_regular(&repo.join("refs/main"), 256)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty() && !s.contains(['/', '\\']) && s != "..");
    if let Some(r) = rev {
        let d = snaps.join(&r);
        if d.is_dir() {
            let args = vec![
                ("how", how.to_string().into()),
                ("rev", r.to_string().into()),
            ];
            return Ok((d, Said::new("recipe-found-hub-ref", args)));
        }
    }
    only_snapshot(&snaps, model, &how)
}

/// The one snapshot under `snaps` when refs/main names none that exists; `how` says how the
/// hub cache was found.
fn only_snapshot(snaps: &Path, model: &str, how: &str) -> Result<(PathBuf, Said), Said> {
    let model_arg = || ("model", Arg::from(model));
    let path = || ("path", Arg::from(snaps.display().to_string()));
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(snaps)
        .map_err(|e| {
            let said = vec![model_arg(), path(), ("error", e.to_string().into())];
            Said::new("recipe-err-model-snapshots", said)
        })?
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|d| d.is_dir())
        .take(1000)
        .collect();
    dirs.sort();
    match dirs.len() {
        0 => Err(Said::new(
            "recipe-err-model-no-snapshot",
            vec![model_arg(), path()],
        )),
        1 => Ok((
            dirs.remove(0),
            Said::new("recipe-found-hub-only", vec![("how", how.into())]),
        )),
        n => {
            let said = vec![model_arg(), ("n", n.to_string().into()), path()];
            Err(Said::new("recipe-err-model-snapshots-many", said))
        }
    }
}

/// What is wrong with the `config.json` at `path`: the message `key`, `what` its value.
fn config_error(path: &Path, key: &'static str, what: String) -> Said {
    let said = vec![
        ("path", path.display().to_string().into()),
        ("what", what.into()),
    ];
    Said::new(key, said)
}

/// What the KV recipes need from `config.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    pub path: PathBuf,
    pub model_type: Option<String>,
    pub n_layer: u64,
    pub n_head: u64,
    pub n_kv_head: u64,
    pub head_dim: u64,
    /// `torch_dtype` (or `dtype`): `bfloat16`, `float16`, `float32`.
    pub dtype: Option<String>,
    /// Multi-head latent attention: `kv_lora_rank + qk_rope_head_dim` values per token and layer.
    pub mla_dim: Option<u64>,
    pub quant_method: Option<String>,
    pub max_position_embeddings: Option<u64>,
    /// Routed experts per MoE layer (`num_local_experts`, `num_experts`, `n_routed_experts`).
    pub moe_experts: Option<u64>,
    /// `hidden_size`, and each routed expert's intermediate size (`moe_intermediate_size`,
    /// else `intermediate_size` as gpt-oss writes it): the MoE weights' shapes.
    pub hidden_size: Option<u64>,
    pub moe_intermediate: Option<u64>,
    /// Which layers attend over a sliding window (or otherwise), when not every layer is full
    /// attention; `None`: every layer is.
    pub layers: Option<LayerKinds>,
    /// The rotary embedding's parameters, for the runtimes that cache its cos/sin table.
    pub rope: RopeConfig,
}

/// The rotary embedding as `config.json` describes it; a runtime's rule (vLLM's `rope`) turns
/// it into the cache it allocates.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RopeConfig {
    /// config.json names a rotary embedding at all (`rope_theta`, `rope_scaling`,
    /// `rope_parameters`, `partial_rotary_factor`, `rotary_*`, `qk_rope_head_dim`).
    pub named: bool,
    /// `rope_scaling` (transformers 4) or `rope_parameters` (transformers 5) as written, the
    /// per-layer-type form (`{"full_attention": {…}, "sliding_attention": {…}}`) included.
    pub scaling: Option<Value>,
    /// `partial_rotary_factor`, or GPT-NeoX's `rotary_pct`, at the config's top level.
    pub partial_rotary_factor: Option<f64>,
    /// A rotary dimension the config gives outright: MLA's `qk_rope_head_dim`, GPT-J's
    /// `rotary_dim`, a GGUF's `rope.dimension_count`.
    pub rotary_dim: Option<u64>,
    /// Gemma 3's `rope_local_base_freq`: its windowed layers rotate with a second base.
    pub local_base: bool,
    /// Falcon's `alibi: true`: ALiBi biases instead of a rotary embedding.
    pub alibi: bool,
}

impl RopeConfig {
    fn read(v: &Value) -> RopeConfig {
        const KEYS: &[&str] = &[
            "rope_theta",
            "rope_scaling",
            "rope_parameters",
            "partial_rotary_factor",
            "rotary_pct",
            "rotary_dim",
            "rotary_emb_base",
            "qk_rope_head_dim",
        ];
        let scaling = ["rope_parameters", "rope_scaling"]
            .iter()
            .find_map(|k| v.get(*k).filter(|x| x.is_object()).cloned());
        RopeConfig {
            named: KEYS.iter().any(|k| v.get(*k).is_some_and(|x| !x.is_null())),
            scaling,
            partial_rotary_factor: ["partial_rotary_factor", "rotary_pct"]
                .iter()
                .find_map(|k| v.get(*k).and_then(Value::as_f64)),
            rotary_dim: ["qk_rope_head_dim", "rotary_dim"]
                .iter()
                .find_map(|k| v.get(*k).and_then(Value::as_u64)),
            local_base: v.get("rope_local_base_freq").is_some(),
            alibi: v.get("alibi").and_then(Value::as_bool).unwrap_or(false),
        }
    }
}

/// How many layers of each attention kind a model has, and where that was read.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerKinds {
    pub full: u64,
    pub sliding: u64,
    /// Layers of any other kind (linear attention, Mamba, chunked local): count and names.
    pub other: u64,
    pub other_names: Vec<String>,
    /// The windowed layers' `sliding_window` (tokens) where config.json gives it: vLLM sizes a
    /// windowed group's per-request blocks from it.
    pub window: Option<u64>,
    /// `layer_types in config.json`, `gemma3: sliding_window_pattern 6 (transformers' default)`.
    pub source: String,
}

impl LayerKinds {
    /// Read from `config.json` (`v`: the language model's part): `layer_types` when listed,
    /// else the rule of the model family (Gemma 2 and 3, Qwen's `max_window_layers`, every layer
    /// windowed when `sliding_window` is set alone, as in Mistral).
    fn read(v: &Value, top: &Value, n_layer: u64) -> Option<LayerKinds> {
        let window = v.get("sliding_window").and_then(Value::as_u64);
        let kinds = |full: u64, sliding: u64, source: String| LayerKinds {
            full,
            sliding,
            other: 0,
            other_names: Vec::new(),
            window,
            source,
        };
        if let Some(types) = v.get("layer_types").and_then(Value::as_array) {
            let mut k = kinds(0, 0, "layer_types in config.json".into());
            for t in types.iter().take(100_000) {
                match t.as_str().unwrap_or("?") {
                    "full_attention" => k.full += 1,
                    "sliding_attention" => k.sliding += 1,
                    other => {
                        k.other += 1;
                        if !k.other_names.iter().any(|n| n == other) {
                            k.other_names.push(other.to_string());
                        }
                    }
                }
            }
            return Some(k);
        }
        let model_type = v
            .get("model_type")
            .or_else(|| top.get("model_type"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let windowed =
            window.is_some() && v.get("use_sliding_window").and_then(Value::as_bool) != Some(false);
        if model_type.starts_with("gemma3") {
            // transformers' Gemma3TextConfig: layer i is windowed unless (i + 1) % pattern == 0.
            let (pattern, how) = match v.get("sliding_window_pattern").and_then(Value::as_u64) {
                Some(p) if p > 0 => (
                    p,
                    format!("gemma3: sliding_window_pattern {p} in config.json"),
                ),
                _ => (
                    6,
                    "gemma3: sliding_window_pattern 6 (transformers' default)".to_string(),
                ),
            };
            let full = n_layer / pattern;
            return Some(kinds(full, n_layer - full, how));
        }
        if model_type.starts_with("gemma2") {
            // vLLM's Gemma 2: even layers windowed, odd layers full.
            let sliding = n_layer.div_ceil(2);
            return Some(kinds(
                n_layer - sliding,
                sliding,
                "gemma2: every other layer windowed".into(),
            ));
        }
        if !windowed {
            return None;
        }
        match v.get("max_window_layers").and_then(Value::as_u64) {
            // Qwen 2/3: layers from max_window_layers on are windowed.
            Some(m) if model_type.starts_with("qwen") => {
                let full = m.min(n_layer);
                (full < n_layer).then(|| {
                    kinds(
                        full,
                        n_layer - full,
                        format!("use_sliding_window with max_window_layers {m}"),
                    )
                })
            }
            _ => Some(kinds(0, n_layer, "sliding_window on every layer".into())),
        }
    }
}

impl ModelConfig {
    /// Read `DIR/config.json`.
    pub fn read(dir: &Path) -> Result<ModelConfig, Said> {
        Self::read_in(&crate::confine::ModelFolder::on_host(dir)?)
    }

    /// Read the folder's `config.json` (inside the process's root and the folder).
    pub fn read_in(folder: &crate::confine::ModelFolder) -> Result<ModelConfig, Said> {
        let path = folder.shown_file("config.json");
        let bytes = folder
            .file("config.json")
            .map_err(|e| e.to_string())
            .and_then(|r| r.read_bounded(MAX_CONFIG_BYTES).map_err(|e| e.to_string()))
            .map_err(|e| config_error(&path, "recipe-err-config-unreadable", e))?;
        Self::parse(&bytes, &path)
    }

    pub fn parse(bytes: &[u8], path: &Path) -> Result<ModelConfig, Said> {
        let top: Value = serde_json::from_slice(bytes)
            .map_err(|e| config_error(path, "recipe-err-config-json", e.to_string()))?;
        // Multimodal models keep the language model's numbers in text_config.
        let v = if top.get("num_hidden_layers").is_none() {
            top.get("text_config").unwrap_or(&top)
        } else {
            &top
        };
        let num = |k: &str| v.get(k).and_then(Value::as_u64);
        let missing = |k: &str| config_error(path, "recipe-err-config-missing", k.to_string());
        let n_layer = num("num_hidden_layers").ok_or_else(|| missing("num_hidden_layers"))?;
        let n_head = num("num_attention_heads").ok_or_else(|| missing("num_attention_heads"))?;
        if n_layer == 0 || n_head == 0 || n_layer > 100_000 || n_head > 100_000 {
            let what = format!("num_hidden_layers {n_layer} / num_attention_heads {n_head}");
            return Err(config_error(path, "recipe-err-config-implausible", what));
        }
        let n_kv_head = num("num_key_value_heads").unwrap_or(n_head);
        let head_dim = match num("head_dim") {
            Some(h) => h,
            None => num("hidden_size").ok_or_else(|| missing("head_dim or hidden_size"))? / n_head,
        };
        if head_dim == 0 || head_dim > 1 << 20 || n_kv_head == 0 || n_kv_head > 100_000 {
            let what = format!("head_dim {head_dim} / num_key_value_heads {n_kv_head}");
            return Err(config_error(path, "recipe-err-config-implausible", what));
        }
        let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let mla_dim = match (num("kv_lora_rank"), num("qk_rope_head_dim")) {
            // Bounded like head_dim, so the KV bytes per token cannot overflow.
            (Some(r), Some(rope)) if r > 1 << 20 || rope > 1 << 20 => {
                let what = format!("kv_lora_rank {r} / qk_rope_head_dim {rope}");
                return Err(config_error(path, "recipe-err-config-implausible", what));
            }
            (Some(r), Some(rope)) => Some(r + rope),
            _ => None,
        };
        let layers = LayerKinds::read(v, &top, n_layer);
        Ok(ModelConfig {
            path: path.to_path_buf(),
            model_type: s(v, "model_type").or_else(|| s(&top, "model_type")),
            n_layer,
            n_head,
            n_kv_head,
            head_dim,
            dtype: s(v, "torch_dtype")
                .or_else(|| s(v, "dtype"))
                .or_else(|| s(&top, "torch_dtype"))
                .or_else(|| s(&top, "dtype")),
            mla_dim,
            quant_method: top
                .pointer("/quantization_config/quant_method")
                .and_then(Value::as_str)
                .map(str::to_string),
            max_position_embeddings: num("max_position_embeddings"),
            moe_experts: num("num_local_experts")
                .or_else(|| num("num_experts"))
                .or_else(|| num("n_routed_experts"))
                .filter(|&n| n > 1),
            hidden_size: num("hidden_size"),
            moe_intermediate: num("moe_intermediate_size").or_else(|| num("intermediate_size")),
            layers,
            rope: RopeConfig::read(v),
        })
    }
}

/// Bytes of one element of a KV cache dtype as vLLM and SGLang name them; `auto` takes the
/// model's dtype. `None`: a packed or scaled format the recipe does not size. `dtype_set` says
/// the model dtype was asked for on the command line
/// (`--dtype float32` keeps 32 bits), not read from the checkpoint's `torch_dtype` (which vLLM
/// and SGLang run in 16 bits unless told otherwise).
pub fn kv_dtype_bytes_set(kv: &str, model_dtype: &str, dtype_set: bool) -> Option<u64> {
    let kv = kv.to_ascii_lowercase();
    let name = if kv == "auto" {
        model_dtype.to_ascii_lowercase()
    } else {
        kv
    };
    match name.as_str() {
        "float32" | "float" if dtype_set => Some(4),
        "bfloat16" | "bf16" | "float16" | "fp16" | "half" | "float32" | "float" | "auto" => Some(2),
        "fp8" | "fp8_e4m3" | "fp8_e5m2" | "fp8_inc" => Some(1),
        _ => None,
    }
}

/// Bytes of one element of the model's own tensors (vLLM's and SGLang's model dtype) under the
/// `--dtype` given: 16 bits unless `float32` is asked for outright (`auto` runs a float32
/// checkpoint in 16 bits), as [`kv_dtype_bytes_set`] says of an `auto` KV cache.
pub fn model_dtype_bytes(dtype_flag: &str) -> u64 {
    kv_dtype_bytes_set("auto", dtype_flag, dtype_flag != "auto").unwrap_or(2)
}

// How the runtime recipes write their figures; shared with views, which render their estimates.
pub use gpuledger_model::runtime_estimate::{gib, thousands};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_defaults_and_text_config() {
        let c = ModelConfig::parse(
            br#"{"model_type":"llava","text_config":{"num_hidden_layers":32,"num_attention_heads":32,"hidden_size":4096,"torch_dtype":"float16"}}"#,
            Path::new("c.json"),
        )
        .unwrap();
        assert_eq!((c.n_layer, c.n_kv_head, c.head_dim), (32, 32, 128));
        assert_eq!(c.dtype.as_deref(), Some("float16"));
        let e = ModelConfig::parse(b"{}", Path::new("/m/config.json")).unwrap_err();
        assert!(
            e.contains("/m/config.json") && e.contains("num_hidden_layers"),
            "{e}"
        );
        let e = ModelConfig::parse(b"[", Path::new("/m/config.json")).unwrap_err();
        assert!(e.starts_with("/m/config.json"), "{e}");
    }

    #[test]
    fn hub_cache_order() {
        let e = vec![
            ("HOME".to_string(), "/home/a".to_string()),
            ("HF_HOME".to_string(), "/data/hf".to_string()),
        ];
        assert_eq!(hub_cache(&e).unwrap().0, PathBuf::from("/data/hf/hub"));
        assert_eq!(
            hub_cache(&e[..1]).unwrap().0,
            PathBuf::from("/home/a/.cache/huggingface/hub")
        );
        assert_eq!(thousands(27000), "27,000");
        assert_eq!(thousands(178880), "178,880");
        assert_eq!(thousands(12), "12");
    }

    #[test]
    fn hub_snapshot_by_refs_main() {
        let d = std::env::temp_dir().join(format!("gl-hf-{}", std::process::id()));
        let repo = d.join("hub/models--Org--Tiny");
        std::fs::create_dir_all(repo.join("snapshots/abc")).unwrap();
        std::fs::create_dir_all(repo.join("snapshots/def")).unwrap();
        std::fs::create_dir_all(repo.join("refs")).unwrap();
        let env = vec![("HF_HOME".to_string(), d.display().to_string())];
        let same = |p: &Path| p.to_path_buf();
        let e = resolve_model_seen("Org/Tiny", None, &env, &same).unwrap_err();
        assert!(e.contains("2 snapshots"), "{e}");
        std::fs::write(repo.join("refs/main"), "def\n").unwrap();
        let (p, how) = resolve_model_seen("Org/Tiny", None, &env, &same).unwrap();
        assert_eq!(p, repo.join("snapshots/def"));
        assert!(how.contains("refs/main"), "{how}");
        std::fs::remove_dir_all(&d).unwrap();
    }
    #[test]
    fn a_containerised_process_finds_its_model_through_its_own_root() {
        let d = std::env::temp_dir().join(format!("gl-hf-root-{}", std::process::id()));
        let root = d.join("4242/root");
        std::fs::create_dir_all(root.join("models/tiny")).unwrap();
        let snap = root.join("data/hf/hub/models--Org--Tiny/snapshots/abc");
        std::fs::create_dir_all(&snap).unwrap();
        let seen = |p: &Path| in_process_root(&d, 4242, p);
        // An absolute path and one relative to the process's working directory, both its own.
        let (p, how) = resolve_model_seen("/models/tiny", None, &[], &seen).unwrap();
        assert_eq!(
            (p, how.as_str()),
            (root.join("models/tiny"), "path on the command line")
        );
        let (p, _) = resolve_model_seen("tiny", Some(Path::new("/models")), &[], &seen).unwrap();
        assert_eq!(p, root.join("models/tiny"));
        // The hub cache its environment names, inside its root.
        let env = vec![("HF_HOME".to_string(), "/data/hf".to_string())];
        let (p, how) = resolve_model_seen("Org/Tiny", None, &env, &seen).unwrap();
        assert_eq!(p, snap);
        assert!(how.contains("the only snapshot"), "{how}");
        // A path the root does not show is taken as it is.
        assert_eq!(
            in_process_root(&d, 4242, Path::new("/elsewhere")),
            PathBuf::from("/elsewhere")
        );
        // A process that shares this machine's root keeps its own path.
        #[cfg(unix)]
        {
            std::fs::create_dir_all(d.join("4243")).unwrap();
            std::os::unix::fs::symlink("/", d.join("4243/root")).unwrap();
            let tiny = root.join("models/tiny");
            assert_eq!(in_process_root(&d, 4243, &tiny), tiny);
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}
