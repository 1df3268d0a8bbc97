//! vLLM's command line: its flags in every spelling argparse accepts, read into [`VllmSettings`]
//! with where each value came from (the flag, or the default in vLLM's source).

use super::super::pyargs;
use super::super::reservation::{default, default_of, flag_from, src, Src};
use gpuledger_lang::Said;
use gpuledger_model::estimate_input::InputSource;

/// `CacheConfig.gpu_memory_utilization`'s default in vLLM's source (`vllm/config/cache.py`,
/// commit 002f10e0 read for this recipe) since v0.21.0; 0.9 before (see `version`, which takes
/// the default from the release that runs). A running server's `/metrics` value replaces it.
pub const DEFAULT_GPU_MEMORY_UTILIZATION: f64 = 0.92;
/// `CacheConfig.DEFAULT_BLOCK_SIZE` (same file).
pub const DEFAULT_BLOCK_SIZE: u64 = 16;
/// The largest tensor- or pipeline-parallel size read: each rank is a GPU, and 65,536 is past
/// any deployment; bounding both keeps `tp × pp` (the ranks the weights are split over) far
/// inside 64 bits, where a hostile command line would otherwise overflow it.
pub const MAX_PARALLEL: u64 = 1 << 16;

/// vLLM's options that take no value (`store_true` and `BooleanOptionalAction` in
/// `vllm/engine/arg_utils.py` and `vllm/entrypoints/openai/cli_args.py`): any other option
/// takes the next argument as its value, so `vllm serve --trust-remote-code MODEL` names
/// MODEL only when `--trust-remote-code` is known to be a switch. `--no-x` is one too.
pub(crate) const SWITCHES: &[&str] = &[
    "--allow-credentials",
    "--async-scheduling",
    "--calculate-kv-scales",
    "--data-parallel-external-lb",
    "--data-parallel-hybrid-lb",
    "--disable-async-output-proc",
    "--disable-cascade-attn",
    "--disable-chunked-mm-input",
    "--disable-custom-all-reduce",
    "--disable-fastapi-docs",
    "--disable-frontend-multiprocessing",
    "--disable-hybrid-kv-cache-manager",
    "--disable-log-requests",
    "--disable-log-stats",
    "--disable-mm-preprocessor-cache",
    "--disable-sliding-window",
    "--disable-uvicorn-access-log",
    "--enable-auto-tool-choice",
    "--enable-chunked-prefill",
    "--enable-dbo",
    "--enable-eplb",
    "--enable-expert-parallel",
    "--enable-force-include-usage",
    "--enable-log-outputs",
    "--enable-log-requests",
    "--enable-lora",
    "--enable-lora-bias",
    "--enable-multimodal-encoder-data-parallel",
    "--enable-prefix-caching",
    "--enable-prompt-adapter",
    "--enable-prompt-embeds",
    "--enable-prompt-tokens-details",
    "--enable-reasoning",
    "--enable-request-id-headers",
    "--enable-server-load-tracking",
    "--enable-sleep-mode",
    "--enable-ssl-refresh",
    "--enable-tokenizer-info-endpoint",
    "--enforce-eager",
    "--exclude-tools-when-tool-choice-none",
    "--fully-sharded-loras",
    "--headless",
    "--multi-step-stream-outputs",
    "--ray-workers-use-nsight",
    "--return-tokens-as-token-ids",
    "--skip-mm-profiling",
    "--skip-tokenizer-init",
    "--trust-remote-code",
    "--trust-request-chat-template",
    "--use-tqdm-on-load",
    "--use-v2-block-manager",
    "--worker-use-ray",
];

#[derive(Debug, Clone, PartialEq)]
pub struct VllmSettings {
    pub model: Option<String>,
    pub gpu_memory_utilization: Src<f64>,
    pub max_model_len: Option<Src<u64>>,
    pub kv_cache_dtype: Src<String>,
    pub tensor_parallel_size: Src<u64>,
    pub pipeline_parallel_size: Src<u64>,
    /// `--data-parallel-size` (`-dp`): whole replicas, each with its own engine core and
    /// `tp × pp` workers; a rank's share is the same as without it.
    pub data_parallel_size: Src<u64>,
    /// `--enable-expert-parallel`: MoE experts spread over `tp × dp` ranks instead of split
    /// by TP inside each replica.
    pub expert_parallel: bool,
    pub enforce_eager: Src<bool>,
    pub dtype: Src<String>,
    pub block_size: Src<u64>,
    pub quantization: Option<Src<String>>,
    pub kv_cache_memory_bytes: Option<Src<u64>>,
    /// `--disable-hybrid-kv-cache-manager`: every layer in one KV group, windowed or not.
    pub disable_hybrid_kv_cache_manager: bool,
    /// `--no-disable-hybrid-kv-cache-manager`: the groups kept even where vLLM would turn them
    /// off by itself (`--kv-transfer-config`).
    pub hybrid_kv_cache_manager_forced: bool,
    /// `--disable-frontend-multiprocessing`: the API server runs the engine itself (V0).
    pub disable_frontend_multiprocessing: bool,
    /// `--kv-transfer-config` given: vLLM turns the hybrid KV cache manager off unless forced.
    pub kv_transfer_config: bool,
    /// `--max-num-batched-tokens`: a windowed group's per-request blocks depend on it.
    pub max_num_batched_tokens: Option<Src<u64>>,
    /// `--async-scheduling` / `--no-async-scheduling` when written (vLLM turns it on by default).
    pub async_scheduling: Option<bool>,
    /// The vLLM release that runs and where it was read (`version::running`); not a flag.
    pub version: Option<(String, gpuledger_lang::Said)>,
    /// The MXFP4 MoE kernel vLLM picked, where its log or environment says (not a flag).
    pub mxfp4_backend: Option<super::moe_quant::BackendSeen>,
}

/// vLLM's `human_readable_int` (`vllm/engine/arg_utils.py`), which reads both
/// `--max-model-len` and `--kv-cache-memory-bytes`. Case matters: `k m g t` are decimal and may
/// have a fraction (`8g` = 8×10⁹, `25.6k` = 25,600, truncated), `K M G T` are binary and whole
/// (`8G` = 8×2³⁰; `1.5G` is refused); anything else is a plain whole number (`GiB`, `GB`: refused,
/// as vLLM refuses them).
fn human_int(v: &str) -> Option<u64> {
    let v = v.trim();
    let digits = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    let unit = v.chars().last()?;
    let num = &v[..v.len() - unit.len_utf8()];
    let decimal = match unit {
        'k' => 1e3,
        'm' => 1e6,
        'g' => 1e9,
        't' => 1e12,
        _ => 0.0,
    };
    let binary = match unit {
        'K' => 10,
        'M' => 20,
        'G' => 30,
        'T' => 40,
        _ => 0,
    };
    if decimal > 0.0 {
        let (whole, frac) = num.split_once('.').unwrap_or((num, "0"));
        if !digits(whole) || !digits(frac) {
            return None;
        }
        let x = num.parse::<f64>().ok()? * decimal;
        // u64::MAX as f64 rounds up to 2^64: refuse from there.
        (x.is_finite() && x < u64::MAX as f64).then_some(x as u64)
    } else if binary > 0 {
        digits(num).then_some(())?;
        num.parse::<u64>().ok()?.checked_mul(1 << binary)
    } else {
        v.parse().ok()
    }
}

/// A token count (`--max-model-len`): vLLM's human-readable integer, below 10^15.
fn token_count(v: &str) -> Option<u64> {
    human_int(v).filter(|&t| t < 1_000_000_000_000_000)
}

/// A byte count (`--kv-cache-memory-bytes`): vLLM's human-readable integer, below 10^18.
pub fn parse_size(v: &str) -> Option<u64> {
    human_int(v).filter(|&b| b < 1_000_000_000_000_000_000)
}

/// The command line and where it was read, for the flag readers below.
struct Args<'a> {
    argv: &'a [String],
    from: Said,
}

impl Args<'_> {
    /// The last occurrence of one of `names`, and its value if it has one.
    fn flag(&self, names: &[&str]) -> Option<(String, Option<String>)> {
        pyargs::last(self.argv, names)
    }

    /// A flag that must have a value: `(spelling, value)`.
    fn valued(&self, names: &[&str]) -> Result<Option<(String, String)>, String> {
        match self.flag(names) {
            Some((n, Some(v))) => Ok(Some((n, v))),
            Some((n, None)) => Err(format!("{n} has no value")),
            None => Ok(None),
        }
    }

    /// `--flag value (where)`: the source of a value read from the command line.
    fn source(&self, n: &str, v: &str) -> InputSource {
        flag_from(format!("{n} {v}"), &self.from)
    }

    fn uint(&self, names: &[&str]) -> Result<Option<Src<u64>>, String> {
        match self.valued(names)? {
            Some((n, v)) => {
                let x: u64 = v
                    .parse()
                    .map_err(|_| format!("{n} {v:?} is not a whole number"))?;
                Ok(Some(src(x, self.source(&n, &v))))
            }
            None => Ok(None),
        }
    }

    /// A value `parse` reads (a size, a token count; `what` names it in the error).
    fn parsed(
        &self,
        names: &[&str],
        what: &str,
        parse: fn(&str) -> Option<u64>,
    ) -> Result<Option<Src<u64>>, String> {
        match self.valued(names)? {
            Some((n, v)) => Ok(Some(src(
                parse(&v).ok_or_else(|| format!("{n} {v:?} is not {what}"))?,
                self.source(&n, &v),
            ))),
            None => Ok(None),
        }
    }

    fn text(&self, names: &[&str]) -> Result<Option<Src<String>>, String> {
        Ok(self
            .valued(names)?
            .map(|(n, v)| src(v.clone(), self.source(&n, &v))))
    }

    /// `vllm serve MODEL`, the positional anywhere after `serve` (argparse reads `vllm serve
    /// --port 8000 MODEL` too), else `--model MODEL`: vLLM's `serve` prefers the positional.
    fn model(&self) -> Option<String> {
        let positional = self.argv.iter().position(|a| a == "serve").and_then(|i| {
            pyargs::positionals(self.argv, i, &|n| SWITCHES.contains(&n))
                .first()
                .map(|m| m.to_string())
        });
        positional.or_else(|| match self.flag(&["--model"]) {
            Some((_, Some(m))) => Some(m),
            _ => None,
        })
    }

    fn gpu_memory_utilization(&self) -> Result<Src<f64>, String> {
        Ok(match self.valued(&["--gpu-memory-utilization"])? {
            Some((n, v)) => {
                let x: f64 = v
                    .parse()
                    .map_err(|_| format!("{n} {v:?} is not a number"))?;
                if !(x > 0.0 && x <= 1.0) {
                    return Err(format!("{n} {v} is outside (0, 1]"));
                }
                src(x, self.source(&n, &v))
            }
            None => super::version::default_utilization(None),
        })
    }

    /// Tensor-, pipeline- and data-parallel sizes, each 1 to [`MAX_PARALLEL`].
    fn parallel(&self) -> Result<[Src<u64>; 3], String> {
        let size = |names: &[&str]| -> Result<Src<u64>, String> {
            Ok(self
                .uint(names)?
                .unwrap_or_else(|| src(1, default_of("vLLM"))))
        };
        let tp = size(&["--tensor-parallel-size", "-tp"])?;
        let pp = size(&["--pipeline-parallel-size", "-pp"])?;
        let dp = size(&["--data-parallel-size", "-dp"])?;
        for (name, p) in [("tensor", &tp), ("pipeline", &pp), ("data", &dp)] {
            if p.value == 0 || p.value > MAX_PARALLEL {
                return Err(format!(
                    "{} is not a usable {name}-parallel size (1 to {MAX_PARALLEL})",
                    p.source.detail()
                ));
            }
        }
        Ok([tp, pp, dp])
    }

    fn block_size(&self) -> Result<Src<u64>, String> {
        let block_size = self.uint(&["--block-size"])?.unwrap_or_else(|| {
            src(
                DEFAULT_BLOCK_SIZE,
                default("vLLM source, CacheConfig.DEFAULT_BLOCK_SIZE"),
            )
        });
        if block_size.value == 0 || block_size.value > 1 << 20 {
            return Err(format!(
                "--block-size {} is not a usable block size",
                block_size.value
            ));
        }
        Ok(block_size)
    }

    /// A boolean flag as argparse's `BooleanOptionalAction` reads it: `--x` (or `--x=true`) is
    /// true, `--no-x` (or `--x=false`) false, the last one written wins; `None` when absent.
    fn switch(&self, name: &str) -> Option<bool> {
        let no = format!("--no-{}", name.trim_start_matches("--"));
        let mut last = None;
        for a in self.argv {
            let Some((n, v)) = pyargs::split_option(a) else {
                continue;
            };
            if n == name {
                last = Some(!v.is_some_and(|v| v.eq_ignore_ascii_case("false")));
            } else if n == no {
                last = Some(false);
            }
        }
        last
    }

    /// `--enforce-eager` alone means true; `--enforce-eager=false` is honoured.
    fn enforce_eager(&self) -> Src<bool> {
        match self.flag(&["--enforce-eager"]) {
            Some((n, Some(v))) if v.eq_ignore_ascii_case("false") => {
                src(false, self.source(&n, &v))
            }
            Some((n, _)) => src(true, flag_from(n, &self.from)),
            None => src(false, default_of("vLLM")),
        }
    }
}

impl VllmSettings {
    /// Read a vLLM command line (`vllm serve MODEL ...`, `python -m
    /// vllm.entrypoints.openai.api_server --model MODEL ...`). `from` names where it was read.
    pub fn from_args(argv: &[String], from: impl Into<Said>) -> Result<VllmSettings, String> {
        let from = from.into();
        let a = Args { argv, from };
        let auto = |names: &[&str]| -> Result<Src<String>, String> {
            Ok(a.text(names)?
                .unwrap_or_else(|| src("auto".to_string(), default_of("vLLM"))))
        };
        // The order settles which of several bad flags the error names.
        let gpu_memory_utilization = a.gpu_memory_utilization()?;
        let max_model_len = a.parsed(&["--max-model-len"], "a token count", token_count)?;
        let [tensor_parallel_size, pipeline_parallel_size, data_parallel_size] = a.parallel()?;
        let block_size = a.block_size()?;
        let kv_cache_memory_bytes = a.parsed(
            &["--kv-cache-memory-bytes", "--kv-cache-memory"],
            "a size",
            parse_size,
        )?;
        Ok(VllmSettings {
            model: a.model(),
            gpu_memory_utilization,
            max_model_len,
            kv_cache_dtype: auto(&["--kv-cache-dtype"])?,
            tensor_parallel_size,
            pipeline_parallel_size,
            data_parallel_size,
            expert_parallel: a.switch("--enable-expert-parallel") == Some(true),
            enforce_eager: a.enforce_eager(),
            dtype: auto(&["--dtype"])?,
            block_size,
            quantization: a.text(&["--quantization", "-q"])?,
            kv_cache_memory_bytes,
            disable_hybrid_kv_cache_manager: a.switch("--disable-hybrid-kv-cache-manager")
                == Some(true),
            hybrid_kv_cache_manager_forced: a.switch("--disable-hybrid-kv-cache-manager")
                == Some(false),
            kv_transfer_config: a.flag(&["--kv-transfer-config"]).is_some(),
            disable_frontend_multiprocessing: a
                .switch("--disable-frontend-multiprocessing")
                .unwrap_or(false),
            max_num_batched_tokens: a.uint(&["--max-num-batched-tokens"])?,
            async_scheduling: a.switch("--async-scheduling"),
            version: None,
            mxfp4_backend: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::VllmSettings;

    fn read(cmd: &str) -> VllmSettings {
        let argv: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
        VllmSettings::from_args(&argv, "t").unwrap()
    }

    /// `vllm serve` with the model after the flags, as argparse allows, and the spellings
    /// vLLM's parser accepts (`--enforce_eager true` is vllm-project/vllm#22303's).
    #[test]
    fn the_model_and_flags_are_read_wherever_argparse_reads_them() {
        let s = read("vllm serve --host 0.0.0.0 --port 8000 --trust-remote-code --no-enable-prefix-caching /models/qwen --tensor_parallel_size 2");
        assert_eq!(s.model.as_deref(), Some("/models/qwen"));
        assert_eq!(s.tensor_parallel_size.value, 2);
        let s = read("vllm serve /mnt/general/models/Qwen3-30B-A3B-Instruct-2507-FP8 --served-model-name Qwen3-30B-A3B-Instruct-2507-FP8 --tensor-parallel-size 2 --pipeline-parallel-size 1 --gpu-memory-utilization 0.9 --port 8011 --trust-remote-code --max-model-len 64000 --enforce_eager true");
        assert_eq!(
            s.model.as_deref(),
            Some("/mnt/general/models/Qwen3-30B-A3B-Instruct-2507-FP8")
        );
        assert!(s.enforce_eager.value);
        assert_eq!(s.max_model_len.as_ref().map(|m| m.value), Some(64_000));
        // The positional wins over --model, as vLLM's `serve` takes model_tag.
        let s = read("vllm serve --model /a --pipeline_parallel_size=2 /b -dp 4");
        assert_eq!(s.model.as_deref(), Some("/b"));
        assert_eq!(
            (s.pipeline_parallel_size.value, s.data_parallel_size.value),
            (2, 4)
        );
        let s = read("python3 -m vllm.entrypoints.openai.api_server --model=/m --port 8000");
        assert_eq!(s.model.as_deref(), Some("/m"));
    }
}
