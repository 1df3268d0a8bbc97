//! What the vLLM and SGLang recipes share. Both reserve a fraction of the GPU, load the weights
//! of a Hugging Face model folder split evenly over their parallel ranks, and fill the rest with
//! a KV pool sized per token; both answer on a loopback HTTP port. Here: settings with their
//! source ([`Src`]), the model's facts ([`ModelFacts`]), the KV bytes per token and rank
//! ([`kv_bytes_per_token`]), the inputs every such recipe lists, and the first port that answers.

use super::hf::{gib, in_process_root, kv_dtype_bytes_set, resolve_model_seen, ModelConfig};
use super::{Input, InputSource, ProcessContext};
use crate::confine::{ModelFolder, ProcessRoot};
use crate::safetensors::{self, HeaderCache};
use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;
use std::path::PathBuf;

/// A setting and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Src<T> {
    pub value: T,
    pub source: InputSource,
}

impl<T: std::fmt::Display> Src<T> {
    /// The setting as a recipe input named `name`, with its source.
    pub fn input(&self, name: impl Into<Said>) -> Input {
        Input::new(name, &self.value, self.source.clone())
    }
}

pub(crate) fn src<T>(value: T, source: InputSource) -> Src<T> {
    Src { value, source }
}

/// A flag as written and where it was read: `--max-model-len 2048 (/proc/7/cmdline)`.
pub(crate) fn flag_from(written: String, from: &Said) -> InputSource {
    let args = vec![("flag", written.into()), ("from", from.clone().into())];
    InputSource::Flag {
        flag: Said::new("recipe-src-flag-from", args),
    }
}

/// The runtime's default, and what says so.
pub(crate) fn default(detail: impl Into<Said>) -> InputSource {
    InputSource::Default {
        detail: detail.into(),
    }
}

/// The runtime's own default (`vLLM's`), where nothing more says why.
pub(crate) fn default_of(runtime: &str) -> InputSource {
    default(Said::new(
        "recipe-default-runtime",
        vec![("runtime", runtime.into())],
    ))
}

/// Computed by the recipe from other inputs, and how.
pub(crate) fn derived(rule: impl Into<Said>) -> InputSource {
    InputSource::Derived { rule: rule.into() }
}

/// The running server's own answer (its API or its log), and which.
pub(crate) fn runtime(detail: impl Into<Said>) -> InputSource {
    InputSource::Runtime {
        detail: detail.into(),
    }
}

/// The model's facts the vLLM and SGLang recipes read.
pub struct ModelFacts {
    pub dir: PathBuf,
    pub found: Said,
    pub config: ModelConfig,
    pub weights: safetensors::Model,
    /// The weights of a GGUF file (vLLM's `--quantization gguf`), in place of safetensors.
    pub gguf: Option<GgufWeights>,
}

/// A GGUF file's tensors as the weights: bytes, tensor count and file parts.
#[derive(Debug, Clone, PartialEq)]
pub struct GgufWeights {
    pub bytes: u64,
    pub tensors: u64,
    pub parts: u64,
    /// What vLLM's GGUF layers hold, as read from the header (`vllm::gguf::held_of`).
    pub held: GgufHeld,
}

/// A GGUF file's tensors as vLLM materialises them, before the model dtype is known.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GgufHeld {
    /// Quantised tensors as held: merged shards padded to the widest row, vocab rows to 64.
    pub quantised: u64,
    /// Elements held in the model dtype: the unquantised (F32/F16/BF16) tensors, vocab-padded.
    pub dense_elements: u64,
    /// Merged layers whose shards differ in row width, and the bytes their padding adds.
    pub padded_layers: u64,
    pub padding: u64,
}

impl ModelFacts {
    /// Resolve `model` for the process (through its own root) and read `config.json` and the safetensors headers
    /// (through the header cache).
    pub fn read(model: &str, ctx: &ProcessContext) -> Result<ModelFacts, Said> {
        // The process's paths are its own: a containerised server's model is under its root.
        let seen = |p: &std::path::Path| in_process_root(ctx.proc_root, ctx.pid, p);
        let (dir, found) = resolve_model_seen(model, ctx.cwd.as_deref(), &ctx.env, &seen)?;
        // Its files are reached inside its root and must stay in the folder.
        let (root, inner) = ProcessRoot::split(ctx.proc_root, ctx.pid, &dir);
        let folder = ModelFolder::open(root, &inner, &dir)?;
        let config = ModelConfig::read_in(&folder)?;
        let own = safetensors::Round::default();
        let round = ctx.round.unwrap_or(&own);
        let weights = safetensors::read_folder(&folder, round, Some(HeaderCache::global()))
            .map_err(|e| {
                Said::new(
                    "recipe-err-safetensors",
                    vec![("error", e.to_string().into())],
                )
            })?;
        Ok(ModelFacts {
            dir,
            found,
            config,
            weights,
            gguf: None,
        })
    }
}

/// Bytes of one KV value in the cache, and where that came from.
fn kv_element(
    cfg: &ModelConfig,
    kv_dtype: &Src<String>,
    dtype: &Src<String>,
) -> Option<(u64, Said)> {
    let model_dtype = if dtype.value != "auto" {
        (dtype.value.clone(), dtype.source.said_detail())
    } else {
        (
            cfg.dtype.clone().unwrap_or_else(|| "auto".into()),
            Said::new(
                "recipe-kv-torch-dtype",
                vec![("path", cfg.path.display().to_string().into())],
            ),
        )
    };
    let b = kv_dtype_bytes_set(&kv_dtype.value, &model_dtype.0, dtype.value != "auto")?;
    Some((
        b,
        if kv_dtype.value == "auto" {
            Said::new(
                "recipe-kv-elem-auto",
                vec![
                    ("dtype", model_dtype.0.into()),
                    ("source", model_dtype.1.into()),
                ],
            )
        } else {
            Said::new(
                "recipe-kv-elem-set",
                vec![
                    ("dtype", kv_dtype.value.clone().into()),
                    ("source", kv_dtype.source.said_detail().into()),
                ],
            )
        },
    ))
}

/// Bytes of KV one token takes on one rank, and the formula in words. `None` when the cache
/// dtype is a packed format the recipe does not size. The layers are the largest pipeline
/// stage's (`⌈layers / pp⌉`).
pub fn kv_bytes_per_token(
    cfg: &ModelConfig,
    kv_dtype: &Src<String>,
    dtype: &Src<String>,
    tp: u64,
    pp: u64,
) -> Option<(u64, Said)> {
    let layers = cfg.n_layer.div_ceil(pp.max(1));
    kv_bytes_per_token_layers(cfg, kv_dtype, dtype, tp, layers)
}

/// [`kv_bytes_per_token`] for `layers` layers (one pipeline stage's) with the KV heads split
/// over `tp` ranks (the attention's tensor-parallel size).
pub fn kv_bytes_per_token_layers(
    cfg: &ModelConfig,
    kv_dtype: &Src<String>,
    dtype: &Src<String>,
    tp: u64,
    layers: u64,
) -> Option<(u64, Said)> {
    let (elem, elem_src) = kv_element(cfg, kv_dtype, dtype)?;
    // Figures as text: a count read in a formula is not a quantity to group (`22`, not `2,2`).
    let n = |x: u64| Arg::from(x.to_string());
    Some(match cfg.mla_dim {
        Some(d) => (
            layers * d * elem,
            Said::new(
                "recipe-kv-formula-mla",
                vec![
                    ("layers", n(layers)),
                    ("dim", n(d)),
                    ("elem", n(elem)),
                    ("source", elem_src.into()),
                ],
            ),
        ),
        None => {
            let heads = (cfg.n_kv_head / tp.max(1)).max(1);
            (
                layers * 2 * heads * cfg.head_dim * elem,
                Said::new(
                    "recipe-kv-formula",
                    vec![
                        ("layers", n(layers)),
                        ("heads", n(heads)),
                        ("kv_heads", n(cfg.n_kv_head)),
                        ("tp", n(tp)),
                        ("head_dim", n(cfg.head_dim)),
                        ("elem", n(elem)),
                        ("source", elem_src.into()),
                    ],
                ),
            )
        }
    })
}

/// Why the KV cache is not sized: its dtype is a packed format (fp4, a quantised cache).
pub(crate) fn kv_dtype_not_sized(dtype: &str) -> Said {
    Said::new(
        "recipe-nm-kv-dtype",
        vec![("dtype", format!("{dtype:?}").into())],
    )
}

/// The model folder and its weights as inputs: `split` names what the weights are divided by
/// (`4 ranks`, `TP 4`) when `ranks > 1`. Returns the bytes per rank too.
pub(crate) fn model_inputs(model: &ModelFacts, ranks: u64, split: &str) -> (u64, [Input; 2]) {
    let (all, count, files, source) = match &model.gguf {
        Some(g) => (g.bytes, g.tensors, g.parts, InputSource::gguf_header()),
        None => (
            model.weights.tensor_bytes(),
            model.weights.tensor_count(),
            model.weights.files.len() as u64,
            InputSource::Tensors {
                detail: Said::new("recipe-src-safetensors", vec![]),
            },
        ),
    };
    let per_rank = all / ranks.max(1);
    let mut args = vec![
        ("bytes", gib(all).into()),
        ("tensors", count.to_string().into()),
        ("files", files.to_string().into()),
    ];
    let key = if ranks > 1 {
        args.extend([("per_rank", gib(per_rank).into()), ("split", split.into())]);
        "recipe-weights-value-ranks"
    } else {
        "recipe-weights-value"
    };
    let weights = Input::said("weights", Said::new(key, args), source);
    let found = InputSource::File {
        detail: model.found.clone(),
    };
    let dir = Input::new("model", model.dir.display(), found);
    (per_rank, [dir, weights])
}

/// The measured device total as an input.
pub(crate) fn device_total_input(total: u64) -> Input {
    let driver = InputSource::Measured {
        detail: Said::new("recipe-src-driver", vec![]),
    };
    Input::new(
        Said::new("recipe-input-device-total", vec![]),
        total,
        driver,
    )
}

/// `fraction` of the device's `total`, when the total is known.
pub(crate) fn share_of(total: Option<u64>, fraction: f64) -> Option<u64> {
    total.map(|t| (t as f64 * fraction) as u64)
}

/// ` (rank share of N)` after the weights in a why sentence, when there is more than one rank.
pub(crate) fn rank_words(ranks: u64) -> Said {
    if ranks > 1 {
        Said::new(
            "recipe-rank-share",
            vec![("ranks", ranks.to_string().into())],
        )
    } else {
        Said::verbatim("")
    }
}

/// The first of the process's ports whose answer to one of `paths` parses, asked in order
/// (`GET http://127.0.0.1:PORT/PATH` is the source handed to `parse`). `None` on the
/// collection path, where nothing is asked.
pub(crate) fn first_answer<T>(
    ctx: &ProcessContext,
    paths: &[&str],
    parse: impl Fn(&str, &str) -> Option<T>,
) -> Option<T> {
    let (ports, fetch) = ctx.fetch.as_ref()?;
    for &port in ports.iter() {
        for path in paths {
            let Ok(r) = fetch(port, path) else {
                continue;
            };
            if r.status != 200 {
                continue;
            }
            if let Some(t) = parse(&r.body, &format!("GET http://127.0.0.1:{port}{path}")) {
                return Some(t);
            }
        }
    }
    None
}
