//! vLLM: a reservation by design. At start-up vLLM loads the weights, profiles one dummy forward
//! pass (the activation peak), captures CUDA graphs (unless `--enforce-eager`), and turns what is
//! left of `total × --gpu-memory-utilization` into KV-cache blocks. So nvidia-smi shows about
//! that fraction of the GPU whatever the load.
//!
//! What the recipe knows and how:
//! - the reservation: `--gpu-memory-utilization` (or `/metrics` `vllm:cache_config_info`) × the
//!   device total the driver measured;
//! - the weights: the safetensors headers of the model folder, split evenly over the tensor- and
//!   pipeline-parallel ranks (each rank is its own process on its own GPU);
//! - one KV block per rank: `layers × block_size × kv_heads_per_rank × (K + V head size) × dtype
//!   bytes`, as vLLM's `AttentionSpec.page_size_bytes` sums it per layer (KV heads are split over
//!   the TP ranks, at least one per rank); MLA models store one latent vector of
//!   `kv_lora_rank + qk_rope_head_dim` values per token and layer, replicated on every rank;
//! - the block count: only vLLM knows it (it comes from the profiled activation peak), so it is
//!   read from `/metrics` (`num_gpu_blocks`) or the start-up log; without it the KV cache stays
//!   `None` and the sentence says what the rest of the reservation holds.

use super::hf::{gib, kv_dtype_bytes_set, resolve_model, thousands, ModelConfig};
use super::{gib_bytes, number_after};
use super::{Input, ProcessContext, RuntimeEstimate};
use crate::safetensors;
use gpuledger_model::{EstimatedMemory, ReportedFigure};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// `CacheConfig.gpu_memory_utilization`'s default in vLLM's source (`vllm/config/cache.py`,
/// commit 002f10e0 read for this recipe). Releases before that used 0.9; when a running server
/// answers `/metrics`, its own value replaces this default.
pub const DEFAULT_GPU_MEMORY_UTILIZATION: f64 = 0.92;
/// `CacheConfig.DEFAULT_BLOCK_SIZE` (same file).
pub const DEFAULT_BLOCK_SIZE: u64 = 16;

/// A setting and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Src<T> {
    pub value: T,
    pub source: String,
}

fn src<T>(value: T, source: impl Into<String>) -> Src<T> {
    Src {
        value,
        source: source.into(),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct VllmSettings {
    pub model: Option<String>,
    pub gpu_memory_utilization: Src<f64>,
    pub max_model_len: Option<Src<u64>>,
    pub kv_cache_dtype: Src<String>,
    pub tensor_parallel_size: Src<u64>,
    pub pipeline_parallel_size: Src<u64>,
    pub enforce_eager: Src<bool>,
    pub dtype: Src<String>,
    pub block_size: Src<u64>,
    pub quantization: Option<Src<String>>,
    pub kv_cache_memory_bytes: Option<Src<u64>>,
}

/// `--a_b=v`, `--a-b v` → (`--a-b`, Some(v)); vLLM's parser accepts underscores too.
fn flag_value(argv: &[String], names: &[&str]) -> Option<(String, Option<String>)> {
    let norm = |a: &str| {
        if let Some(rest) = a.strip_prefix("--") {
            format!("--{}", rest.replace('_', "-"))
        } else {
            a.to_string()
        }
    };
    let mut found = None;
    let mut i = 0;
    while i < argv.len() {
        let a = norm(&argv[i]);
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (a.clone(), None),
        };
        if names.contains(&name.as_str()) {
            let v = inline.or_else(|| argv.get(i + 1).filter(|v| !v.starts_with("--")).cloned());
            // The last occurrence wins, as with argparse.
            found = Some((name, v));
        }
        i += 1;
    }
    found
}

/// `8G`, `8GiB`, `8589934592`, `1.5g` → bytes (vLLM accepts human-readable sizes).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num.parse().ok()?;
    let mul: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "ki" | "kib" => 1024.0,
        "mi" | "mib" => (1u64 << 20) as f64,
        "gi" | "gib" => (1u64 << 30) as f64,
        "ti" | "tib" => (1u64 << 40) as f64,
        _ => return None,
    };
    let b = n * mul;
    (0.0..1e18).contains(&b).then_some(b as u64)
}

/// vLLM's human-readable integers: `32k` = 32,000 (lowercase: decimal), `32K` = 32,768
/// (uppercase: binary), `1m`, `1M`, or a plain number.
fn token_count(v: &str) -> Option<u64> {
    let (num, mul) = match v.char_indices().last()? {
        (i, 'k') => (&v[..i], 1_000.0),
        (i, 'm') => (&v[..i], 1e6),
        (i, 'K') => (&v[..i], 1024.0),
        (i, 'M') => (&v[..i], (1u64 << 20) as f64),
        _ => (v, 1.0),
    };
    let x: f64 = num.parse().ok()?;
    let t = x * mul;
    (t.is_finite() && (0.0..1e15).contains(&t)).then_some(t as u64)
}

impl VllmSettings {
    /// Read a vLLM command line (`vllm serve MODEL ...`, `python -m
    /// vllm.entrypoints.openai.api_server --model MODEL ...`). `from` names where it was read.
    pub fn from_args(argv: &[String], from: &str) -> Result<VllmSettings, String> {
        let f = |names: &[&str]| flag_value(argv, names);
        let num = |names: &[&str]| -> Result<Option<(String, String)>, String> {
            match f(names) {
                Some((n, Some(v))) => Ok(Some((n, v))),
                Some((n, None)) => Err(format!("{n} has no value")),
                None => Ok(None),
            }
        };
        let flag_src = |n: &str, v: &str| format!("{n} {v} ({from})");
        let model = match f(&["--model"]) {
            Some((_, Some(m))) => Some(m),
            _ => argv
                .iter()
                .position(|a| a == "serve")
                .and_then(|i| argv.get(i + 1))
                .filter(|m| !m.starts_with('-'))
                .cloned(),
        };
        let gpu_memory_utilization = match num(&["--gpu-memory-utilization"])? {
            Some((n, v)) => {
                let x: f64 = v
                    .parse()
                    .map_err(|_| format!("{n} {v:?} is not a number"))?;
                if !(x > 0.0 && x <= 1.0) {
                    return Err(format!("{n} {v} is outside (0, 1]"));
                }
                src(x, flag_src(&n, &v))
            }
            None => src(
                DEFAULT_GPU_MEMORY_UTILIZATION,
                "default (vLLM source, vllm/config/cache.py; 0.9 in older releases)",
            ),
        };
        let uint = |names: &[&str]| -> Result<Option<Src<u64>>, String> {
            match num(names)? {
                Some((n, v)) => {
                    let x: u64 = v
                        .parse()
                        .map_err(|_| format!("{n} {v:?} is not a whole number"))?;
                    Ok(Some(src(x, flag_src(&n, &v))))
                }
                None => Ok(None),
            }
        };
        let max_model_len = match num(&["--max-model-len"])? {
            Some((n, v)) => Some(src(
                token_count(&v).ok_or_else(|| format!("{n} {v:?} is not a token count"))?,
                flag_src(&n, &v),
            )),
            None => None,
        };
        let tensor_parallel_size =
            uint(&["--tensor-parallel-size", "-tp"])?.unwrap_or_else(|| src(1, "default"));
        let pipeline_parallel_size =
            uint(&["--pipeline-parallel-size", "-pp"])?.unwrap_or_else(|| src(1, "default"));
        if tensor_parallel_size.value == 0 || pipeline_parallel_size.value == 0 {
            return Err("a parallel size of 0".into());
        }
        let block_size = uint(&["--block-size"])?.unwrap_or_else(|| {
            src(
                DEFAULT_BLOCK_SIZE,
                "default (vLLM source, CacheConfig.DEFAULT_BLOCK_SIZE)",
            )
        });
        if block_size.value == 0 || block_size.value > 1 << 20 {
            return Err(format!(
                "--block-size {} is not a usable block size",
                block_size.value
            ));
        }
        let text = |names: &[&str], default: &str| -> Result<Src<String>, String> {
            Ok(match num(names)? {
                Some((n, v)) => src(v.clone(), flag_src(&n, &v)),
                None => src(default.to_string(), "default"),
            })
        };
        let enforce_eager = match f(&["--enforce-eager"]) {
            Some((n, Some(v))) if v.eq_ignore_ascii_case("false") => src(false, flag_src(&n, &v)),
            Some((n, _)) => src(true, format!("{n} ({from})")),
            None => src(false, "default"),
        };
        let kv_cache_memory_bytes = match num(&["--kv-cache-memory-bytes", "--kv-cache-memory"])? {
            Some((n, v)) => Some(src(
                parse_size(&v).ok_or_else(|| format!("{n} {v:?} is not a size"))?,
                flag_src(&n, &v),
            )),
            None => None,
        };
        Ok(VllmSettings {
            model,
            gpu_memory_utilization,
            max_model_len,
            kv_cache_dtype: text(&["--kv-cache-dtype"], "auto")?,
            tensor_parallel_size,
            pipeline_parallel_size,
            enforce_eager,
            dtype: text(&["--dtype"], "auto")?,
            block_size,
            quantization: num(&["--quantization", "-q"])?
                .map(|(n, v)| src(v.clone(), flag_src(&n, &v))),
            kv_cache_memory_bytes,
        })
    }
}

/// What a running server's `/metrics` says about its cache.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VllmMetrics {
    /// `vllm:cache_config_info` labels (`num_gpu_blocks`, `block_size`, `cache_dtype`,
    /// `gpu_memory_utilization`, ...).
    pub cache_config: BTreeMap<String, String>,
    /// `vllm:kv_cache_usage_perc` (V1) or `vllm:gpu_cache_usage_perc` (V0), 0..1.
    pub kv_usage: Option<f64>,
    /// `GET http://127.0.0.1:PORT/metrics`.
    pub source: String,
}

/// Labels of a Prometheus sample line `name{a="x",b="y"} v`.
pub fn labels(line: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Some(start) = line.find('{') else {
        return out;
    };
    let mut rest = &line[start + 1..];
    loop {
        rest = rest.trim_start_matches([',', ' ']);
        let Some(eq) = rest.find("=\"") else {
            break;
        };
        let key = rest[..eq].trim().to_string();
        let mut val = String::new();
        let mut chars = rest[eq + 2..].char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, 'n')) => val.push('\n'),
                    Some((_, c)) => val.push(c),
                    None => break,
                },
                '"' => {
                    end = Some(eq + 2 + i + 1);
                    break;
                }
                c => val.push(c),
            }
        }
        let Some(e) = end else {
            break;
        };
        out.insert(key, val);
        rest = &rest[e..];
        if rest.starts_with('}') {
            break;
        }
    }
    out
}

/// Parse a `/metrics` body; `None` when it is not vLLM's.
pub fn parse_metrics(body: &str, source: &str) -> Option<VllmMetrics> {
    if !body.contains("vllm:") {
        return None;
    }
    // `vllm:cache_config_info{...}`; newer releases also (or only) publish the whole config as
    // `vllm:vllm_config_info{cache_config_num_gpu_blocks="...",...}`.
    let mut cache_config = body
        .lines()
        .find(|l| l.starts_with("vllm:cache_config_info{"))
        .map(labels)
        .unwrap_or_default();
    if cache_config.is_empty() {
        if let Some(l) = body
            .lines()
            .find(|l| l.starts_with("vllm:vllm_config_info{"))
        {
            cache_config = labels(l)
                .into_iter()
                .filter_map(|(k, v)| Some((k.strip_prefix("cache_config_")?.to_string(), v)))
                .collect();
        }
    }
    let kv_usage = crate::live::metric(body, "vllm:kv_cache_usage_perc")
        .or_else(|| crate::live::metric(body, "vllm:gpu_cache_usage_perc"));
    Some(VllmMetrics {
        cache_config,
        kv_usage,
        source: source.to_string(),
    })
}

/// The figures vLLM prints at start-up (V0 and V1 wordings).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VllmLog {
    /// `# GPU blocks: N` (V0; `# cuda blocks: N` in later V0).
    pub gpu_blocks: Option<u64>,
    /// `GPU KV cache size: N tokens` (V1).
    pub kv_tokens: Option<u64>,
    /// `Available KV cache memory: X GiB` (V1), `kv_cache_size=X GiB` or `the rest of the memory
    /// reserved for KV Cache is X GiB` (V0).
    pub kv_gib: Option<f64>,
    /// `Model loading took X GiB` (V1) / `Loading model weights took X GB` (V0; GiB units).
    pub weights_gib: Option<f64>,
    /// `total_gpu_memory (X GiB)` / `total_gpu_memory=X GiB`.
    pub total_gpu_gib: Option<f64>,
    /// `gpu_memory_utilization (X)` / `gpu_memory_utilization=X`.
    pub gpu_memory_utilization: Option<f64>,
    /// The lines the figures came from, as printed.
    pub lines: Vec<String>,
}

pub fn parse_log(text: &str) -> VllmLog {
    let mut l = VllmLog::default();
    for line in text.lines().take(1_000_000) {
        let before = l.clone();
        if let Some(n) =
            number_after(line, "GPU blocks:").or_else(|| number_after(line, "cuda blocks:"))
        {
            l.gpu_blocks = Some(n as u64);
        }
        if line.contains("GPU KV cache size:") {
            l.kv_tokens = number_after(line, "GPU KV cache size:").map(|n| n as u64);
        }
        if let Some(x) = number_after(line, "Available KV cache memory:")
            .or_else(|| number_after(line, "kv_cache_size"))
            .or_else(|| number_after(line, "reserved for KV Cache is"))
        {
            l.kv_gib = Some(x);
        }
        if let Some(x) = number_after(line, "Model loading took")
            .or_else(|| number_after(line, "Loading model weights took"))
        {
            l.weights_gib = Some(x);
        }
        if let Some(x) = number_after(line, "total_gpu_memory") {
            l.total_gpu_gib = Some(x);
        }
        if let Some(x) = number_after(line, "gpu_memory_utilization") {
            l.gpu_memory_utilization = Some(x);
        }
        if l != before {
            l.lines.push(line.trim().to_string());
        }
    }
    l
}

impl VllmLog {
    /// The log's figures as the runtime's own, for `reported`.
    pub fn reported(&self, source: &str) -> Vec<ReportedFigure> {
        let mut out = Vec::new();
        let mut push = |what: &str, bytes: Option<u64>, text: Option<String>| {
            out.push(ReportedFigure::new(what, bytes, text, source))
        };
        if let Some(g) = self.weights_gib {
            push("model loading took", Some(gib_bytes(g)), None);
        }
        if let Some(g) = self.kv_gib {
            push("KV cache memory", Some(gib_bytes(g)), None);
        }
        if let Some(b) = self.gpu_blocks {
            push("GPU blocks", None, Some(thousands(b)));
        }
        if let Some(t) = self.kv_tokens {
            push(
                "GPU KV cache size",
                None,
                Some(format!("{} tokens", thousands(t))),
            );
        }
        if let (Some(t), Some(u)) = (self.total_gpu_gib, self.gpu_memory_utilization) {
            push(
                "reservation",
                Some(gib_bytes(t * u)),
                Some(format!(
                    "total_gpu_memory {t:.2} GiB × gpu_memory_utilization {u}"
                )),
            );
        }
        out
    }
}

/// The model's facts the recipe reads (also used by SGLang's).
pub struct ModelFacts {
    pub dir: PathBuf,
    pub found: String,
    pub config: ModelConfig,
    pub weights: safetensors::Model,
}

impl ModelFacts {
    /// Resolve `model` for the process and read `config.json` and the safetensors headers
    /// (through the header cache).
    pub fn read(model: &str, ctx: &ProcessContext) -> Result<ModelFacts, String> {
        let (dir, found) = resolve_model(model, ctx.cwd.as_deref(), &ctx.env)?;
        let config = ModelConfig::read(&dir)?;
        let weights = safetensors::cached_model(&dir)
            .map_err(|e| format!("cannot read the model's safetensors headers: {e}"))?;
        Ok(ModelFacts {
            dir,
            found,
            config,
            weights,
        })
    }
}

/// Bytes of one KV value in the cache, and where that came from.
fn kv_element(
    cfg: &ModelConfig,
    kv_dtype: &Src<String>,
    dtype: &Src<String>,
) -> Option<(u64, String)> {
    let model_dtype = if dtype.value != "auto" {
        (dtype.value.clone(), dtype.source.clone())
    } else {
        (
            cfg.dtype.clone().unwrap_or_else(|| "auto".into()),
            format!("torch_dtype in {}", cfg.path.display()),
        )
    };
    let b = kv_dtype_bytes_set(&kv_dtype.value, &model_dtype.0, dtype.value != "auto")?;
    Some((
        b,
        if kv_dtype.value == "auto" {
            format!(
                "kv cache dtype auto = model dtype {} ({})",
                model_dtype.0, model_dtype.1
            )
        } else {
            format!("kv cache dtype {} ({})", kv_dtype.value, kv_dtype.source)
        },
    ))
}

/// Bytes of KV one token takes on one rank, and the formula in words. `None` when the cache
/// dtype is a packed format the recipe does not size.
pub fn kv_bytes_per_token(
    cfg: &ModelConfig,
    kv_dtype: &Src<String>,
    dtype: &Src<String>,
    tp: u64,
    pp: u64,
) -> Option<(u64, String)> {
    let (elem, elem_src) = kv_element(cfg, kv_dtype, dtype)?;
    let layers = cfg.n_layer.div_ceil(pp.max(1));
    Some(match cfg.mla_dim {
        Some(d) => (
            layers * d * elem,
            format!("MLA: {layers} layers × {d} latent values × {elem} B ({elem_src}), the same on every rank"),
        ),
        None => {
            let heads = (cfg.n_kv_head / tp.max(1)).max(1);
            (
                layers * 2 * heads * cfg.head_dim * elem,
                format!(
                    "2 (K, V) × {layers} layers × {heads} KV heads per rank ({} / TP {tp}) × head size {} × {elem} B ({elem_src})",
                    cfg.n_kv_head, cfg.head_dim
                ),
            )
        }
    })
}

fn percent(x: f64) -> String {
    let p = x * 100.0;
    if (p - p.round()).abs() < 1e-6 {
        format!("{:.0} %", p)
    } else {
        format!("{:.1} %", p)
    }
}

/// The recipe. `device_total`: the measured size of the process's GPU.
pub fn estimate(
    model: &ModelFacts,
    s: &VllmSettings,
    device_total: Option<u64>,
    metrics: Option<&VllmMetrics>,
) -> RuntimeEstimate {
    let mut s = s.clone();
    let mut reported = Vec::new();
    let mut inputs = Vec::new();
    let mut not_modelled = Vec::new();
    let mut blocks: Option<(u64, String)> = None;
    // The server's own configuration wins over flags and defaults.
    if let Some(m) = metrics {
        let src_of = |k: &str| format!("{} (vllm:cache_config_info {k})", m.source);
        let c = &m.cache_config;
        if let Some(u) = c
            .get("gpu_memory_utilization")
            .and_then(|v| v.parse::<f64>().ok())
        {
            if u > 0.0 && u <= 1.0 {
                s.gpu_memory_utilization = src(u, src_of("gpu_memory_utilization"));
            }
        }
        if let Some(b) = c.get("block_size").and_then(|v| v.parse::<u64>().ok()) {
            if b > 0 && b <= 1 << 20 {
                s.block_size = src(b, src_of("block_size"));
            }
        }
        if let Some(d) = c.get("cache_dtype") {
            s.kv_cache_dtype = src(d.clone(), src_of("cache_dtype"));
        }
        if let Some(n) = c.get("num_gpu_blocks").and_then(|v| v.parse::<u64>().ok()) {
            blocks = Some((n, src_of("num_gpu_blocks")));
            reported.push(ReportedFigure::new(
                "num_gpu_blocks",
                None,
                Some(format!(
                    "{} blocks of {} tokens",
                    thousands(n),
                    s.block_size.value
                )),
                &src_of("num_gpu_blocks"),
            ));
        }
        // Newer releases publish the token capacity themselves (group-aware for hybrid models,
        // where blocks × block_size is not the capacity).
        if let Some(t) = c
            .get("kv_cache_size_tokens")
            .and_then(|v| v.parse::<u64>().ok())
        {
            reported.push(ReportedFigure::new(
                "KV cache size",
                None,
                Some(format!("{} tokens", thousands(t))),
                &src_of("kv_cache_size_tokens"),
            ));
        }
        if let Some(u) = m.kv_usage {
            reported.push(ReportedFigure::new(
                "KV cache in use",
                None,
                Some(format!("{:.1} % of the blocks", u * 100.0)),
                &format!("{} (kv_cache_usage_perc)", m.source),
            ));
        }
    }
    let tp = s.tensor_parallel_size.value;
    let pp = s.pipeline_parallel_size.value;
    let ranks = tp * pp;
    let all_weights = model.weights.tensor_bytes();
    let weights = all_weights / ranks;
    inputs.push(Input::new(
        "model",
        model.dir.display(),
        model.found.clone(),
    ));
    inputs.push(Input::new(
        "weights",
        format!(
            "{} in {} tensors, {} file(s){}",
            gib(all_weights),
            model.weights.tensor_count(),
            model.weights.files.len(),
            if ranks > 1 {
                format!(", {} per rank (÷ {ranks} ranks)", gib(weights))
            } else {
                String::new()
            }
        ),
        "safetensors headers",
    ));
    inputs.push(Input::new(
        "gpu_memory_utilization",
        s.gpu_memory_utilization.value,
        s.gpu_memory_utilization.source.clone(),
    ));
    inputs.push(Input::new(
        "tensor_parallel_size",
        tp,
        s.tensor_parallel_size.source.clone(),
    ));
    if pp > 1 {
        inputs.push(Input::new(
            "pipeline_parallel_size",
            pp,
            s.pipeline_parallel_size.source.clone(),
        ));
    }
    inputs.push(Input::new(
        "block_size",
        s.block_size.value,
        s.block_size.source.clone(),
    ));
    inputs.push(Input::new(
        "kv_cache_dtype",
        &s.kv_cache_dtype.value,
        s.kv_cache_dtype.source.clone(),
    ));
    if let Some(m) = &s.max_model_len {
        inputs.push(Input::new("max_model_len", m.value, m.source.clone()));
    }
    if let Some(q) = &s.quantization {
        inputs.push(Input::new("quantization", &q.value, q.source.clone()));
    }
    inputs.push(Input::new(
        "enforce_eager",
        s.enforce_eager.value,
        s.enforce_eager.source.clone(),
    ));
    let per_token = kv_bytes_per_token(&model.config, &s.kv_cache_dtype, &s.dtype, tp, pp);
    // Values from argv and /metrics: an absurd one is "not modelled", never an overflow.
    let per_block = per_token
        .as_ref()
        .and_then(|(b, _)| b.checked_mul(s.block_size.value));
    match &per_token {
        Some((b, how)) => inputs.push(Input::new(
            "KV bytes per block (per rank)",
            format!(
                "{} ({} per token)",
                per_block.map_or_else(|| "too large".into(), |x| x.to_string()),
                b
            ),
            format!("{how} × block {} tokens", s.block_size.value),
        )),
        None => not_modelled.push(format!(
            "the KV cache: cache dtype {:?} is a packed format this recipe does not size",
            s.kv_cache_dtype.value
        )),
    }
    if let Some(n) = &model.config.non_uniform_layers {
        not_modelled.push(format!(
            "per-layer KV differences: config.json has {n}; the block size counts every layer as full attention"
        ));
    }
    if let Some((n, src_)) = &blocks {
        inputs.push(Input::new("num_gpu_blocks", n, src_.clone()));
    }
    let reservation = device_total.map(|t| (t as f64 * s.gpu_memory_utilization.value) as u64);
    if let Some(t) = device_total {
        inputs.push(Input::new(
            "device memory total",
            t,
            "measured (the driver)",
        ));
    }
    let (kv, kv_how) = match (&s.kv_cache_memory_bytes, &blocks, per_block) {
        (Some(k), _, _) => (
            Some(k.value),
            format!("{} KV cache ({})", gib(k.value), k.source),
        ),
        (None, Some((n, _)), Some(pb)) if n.checked_mul(pb).is_some() => (
            Some(n * pb),
            format!(
                "{} KV cache in {} blocks of {} tokens",
                gib(n * pb),
                thousands(*n),
                s.block_size.value
            ),
        ),
        _ => (None, String::new()),
    };
    if kv.is_none() && per_block.is_some() {
        not_modelled.push(
            "the KV block count: vLLM sizes it at start-up from the profiled activation peak; its /metrics (vllm:cache_config_info num_gpu_blocks) or start-up log says it".into(),
        );
    }
    let rest_label = if s.enforce_eager.value {
        "activations (no CUDA graphs: --enforce-eager)"
    } else {
        "activations and CUDA graphs"
    };
    not_modelled.push(format!(
        "how the rest of the reservation splits into {rest_label}, the CUDA context and NCCL buffers (vLLM profiles it at start-up)"
    ));
    let util_words = format!(
        "`--gpu-memory-utilization {}`, {}",
        s.gpu_memory_utilization.value,
        {
            let src_ = &s.gpu_memory_utilization.source;
            if src_.starts_with("default") {
                "the default"
            } else if src_.starts_with("--") {
                "from its command line"
            } else if src_.contains("/metrics") {
                "from its /metrics"
            } else {
                "from its start-up log"
            }
        }
    );
    let rank_words = if ranks > 1 {
        format!(" (rank share of {ranks})")
    } else {
        String::new()
    };
    let (total, rest, why) = match (reservation, s.kv_cache_memory_bytes.is_some()) {
        (Some(r), false) => {
            let rest = kv.map(|k| r.saturating_sub(weights + k));
            let why = match (kv, rest) {
                (Some(_), Some(rest)) => format!(
                    "vLLM reserves {} of this GPU ({util_words}): {} weights{rank_words}, {kv_how}, the rest ({}) {rest_label}.",
                    percent(s.gpu_memory_utilization.value),
                    gib(weights),
                    gib(rest)
                ),
                _ => format!(
                    "vLLM reserves {} of this GPU ({util_words}): {} weights{rank_words}; the rest ({}) holds the KV cache and {rest_label} (the block count is not known here).",
                    percent(s.gpu_memory_utilization.value),
                    gib(weights),
                    gib(r.saturating_sub(weights))
                ),
            };
            (r, rest, why)
        }
        (None, false) => {
            let t = weights + kv.unwrap_or(0);
            (
                t,
                None,
                format!(
                    "vLLM reserves {} of its GPU ({util_words}), but the GPU's size is not known here: {} weights{rank_words}{}.",
                    percent(s.gpu_memory_utilization.value),
                    gib(weights),
                    if kv.is_some() { format!(", {kv_how}") } else { String::new() }
                ),
            )
        }
        (_, true) => {
            let t = weights + kv.unwrap_or(0);
            (
                t,
                None,
                format!(
                    "vLLM holds {} weights{rank_words} and {kv_how}, which replaces the --gpu-memory-utilization reservation; {rest_label} come on top.",
                    gib(weights)
                ),
            )
        }
    };
    if reservation.is_none() && s.kv_cache_memory_bytes.is_none() {
        not_modelled.push("the reservation: the device's total memory is not known".into());
    }
    let n_ctx = match (&blocks, kv) {
        (Some((n, _)), Some(_)) => Some(n * s.block_size.value),
        _ => None,
    };
    RuntimeEstimate {
        summary: EstimatedMemory {
            recipe: "vllm".into(),
            model: model.dir.display().to_string(),
            n_ctx,
            weights_gpu_bytes: weights,
            kv_cache_gpu_bytes: kv,
            compute_gpu_bytes: rest,
            compute_label: Some(format!("{rest_label} (rest of the reservation)")),
            overhead_gpu_bytes: None,
            overhead_source:
                "inside the reservation (CUDA context, NCCL, cuBLAS: vLLM's non-torch memory)"
                    .into(),
            total_gpu_bytes: total,
            why: Some(why),
            reported,
            not_modelled,
        },
        inputs,
    }
}

/// The recipe for a running process: its command line (or its server's), its model folder,
/// and `/metrics` when `explain` may ask.
pub fn estimate_process(ctx: &ProcessContext) -> Result<RuntimeEstimate, String> {
    let from = ctx.argv_source();
    let s = VllmSettings::from_args(&ctx.argv, &from)
        .map_err(|e| format!("cannot read vLLM's settings from its command line: {e}"))?;
    let model = s
        .model
        .clone()
        .ok_or("the model is not named on vLLM's command line (`vllm serve MODEL` or --model)")?;
    let facts = ModelFacts::read(&model, ctx)?;
    let mut metrics = None;
    if let Some((ports, fetch)) = &ctx.fetch {
        for &port in ports.iter() {
            if let Ok(r) = fetch(port, "/metrics") {
                if r.status == 200 {
                    metrics =
                        parse_metrics(&r.body, &format!("GET http://127.0.0.1:{port}/metrics"));
                    if metrics.is_some() {
                        break;
                    }
                }
            }
        }
    }
    Ok(estimate(&facts, &s, ctx.device_total, metrics.as_ref()))
}
