//! SGLang's command line (`python -m sglang.launch_server`, `sglang serve`), read once into
//! [`SglangSettings`] with where each value came from; identification, roles and the recipe
//! all read it here. The option names and aliases are those of SGLang's `ServerArgs`
//! (`python/sglang/srt/server_args.py`): `--tp-size`/`--tensor-parallel-size`,
//! `--pp-size`/`--pipeline-parallel-size`, `--dp-size`/`--data-parallel-size`,
//! `--enable-dp-attention`, `--ep-size`/`--expert-parallel-size`.

use super::super::pyargs;
use super::super::reservation::{default_of, flag_from, Src};
use crate::runtimes::InputSource;
use gpuledger_lang::Said;

/// The largest parallel size read (as vLLM's `MAX_PARALLEL`): products of sizes stay far
/// inside 64 bits.
const MAX_PARALLEL: u64 = 1 << 16;

#[derive(Debug, Clone, PartialEq)]
pub struct SglangSettings {
    pub model: Option<String>,
    pub mem_fraction_static: Option<Src<f64>>,
    pub tp_size: Src<u64>,
    /// Pipeline stages: each holds its own slice of the layers (weights and KV).
    pub pp_size: Src<u64>,
    /// Data-parallel replicas; with DP attention, the attention groups inside the TP ranks.
    pub dp_size: Src<u64>,
    /// `--enable-dp-attention`: attention runs data-parallel over `dp_size` groups of
    /// `tp_size / dp_size` ranks, so each rank keeps the KV heads of its group, not `1/tp` of
    /// them.
    pub enable_dp_attention: Src<bool>,
    pub ep_size: Option<Src<u64>>,
    pub kv_cache_dtype: Src<String>,
    pub dtype: Src<String>,
    pub context_length: Option<Src<u64>>,
    pub max_total_tokens: Option<Src<u64>>,
    /// This process's pipeline stage, from its own title (`parallel::stage_in_title`); not a
    /// flag. `None`: not known (the server itself, or a title without `PP`).
    pub stage: Option<u64>,
}

/// The last occurrence of one of `names` that has a value.
fn value(argv: &[String], names: &[&str]) -> Option<(String, String)> {
    let (n, v) = pyargs::last(argv, names)?;
    Some((n, v?))
}

fn s<T>(value: T, source: InputSource) -> Src<T> {
    Src { value, source }
}

impl SglangSettings {
    pub fn from_args(argv: &[String], from: impl Into<Said>) -> Result<SglangSettings, String> {
        let from: Said = from.into();
        let fs = |n: &str, v: &str| flag_from(format!("{n} {v}"), &from);
        let uint = |names: &[&str]| -> Result<Option<Src<u64>>, String> {
            value(argv, names)
                .map(|(n, v)| {
                    v.parse()
                        .map(|x| s(x, fs(&n, &v)))
                        .map_err(|_| format!("{n} {v:?} is not a whole number"))
                })
                .transpose()
        };
        let size = |names: &[&str]| -> Result<Src<u64>, String> {
            let p = uint(names)?.unwrap_or_else(|| s(1, default_of("SGLang")));
            if p.value == 0 || p.value > MAX_PARALLEL {
                return Err(format!(
                    "{} is not a usable parallel size (1 to {MAX_PARALLEL})",
                    p.source.detail()
                ));
            }
            Ok(p)
        };
        let mem_fraction_static = value(argv, &["--mem-fraction-static"])
            .map(|(n, v)| {
                let x: f64 = v
                    .parse()
                    .map_err(|_| format!("{n} {v:?} is not a number"))?;
                if !(x > 0.0 && x <= 1.0) {
                    return Err(format!("{n} {v} is outside (0, 1]"));
                }
                Ok(s(x, fs(&n, &v)))
            })
            .transpose()?;
        let tp_size = size(&["--tp-size", "--tp", "--tensor-parallel-size"])?;
        let pp_size = size(&["--pp-size", "--pp", "--pipeline-parallel-size"])?;
        let dp_size = size(&["--dp-size", "--dp", "--data-parallel-size"])?;
        let enable_dp_attention = match pyargs::last(argv, &["--enable-dp-attention"]) {
            Some((n, _)) => s(true, flag_from(n, &from)),
            None => s(false, default_of("SGLang")),
        };
        let ep_size = uint(&["--ep-size", "--ep", "--expert-parallel-size"])?;
        let text = |names: &[&str]| {
            value(argv, names)
                .map(|(n, v)| s(v.clone(), fs(&n, &v)))
                .unwrap_or_else(|| s("auto".into(), default_of("SGLang")))
        };
        Ok(SglangSettings {
            model: value(argv, &["--model-path", "--model"]).map(|(_, v)| v),
            mem_fraction_static,
            tp_size,
            pp_size,
            dp_size,
            enable_dp_attention,
            ep_size,
            kv_cache_dtype: text(&["--kv-cache-dtype"]),
            dtype: text(&["--dtype"]),
            context_length: uint(&["--context-length"])?,
            max_total_tokens: uint(&["--max-total-tokens"])?,
            stage: None,
        })
    }

    /// The ranks attention is split over: `tp / dp` under DP attention (SGLang's
    /// `compute_dp_attention_world_info` in `python/sglang/srt/layers/dp_attention.py`:
    /// `attn_tp_size = tp_size // dp_size`), else `tp`.
    pub fn attention_tp(&self) -> u64 {
        if self.enable_dp_attention.value {
            (self.tp_size.value / self.dp_size.value.max(1)).max(1)
        } else {
            self.tp_size.value
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    /// The command lines of SGLang's PR #13075 (`--tp 2 --pp-size=2`) and #4390 (`--tp 8
    /// --enable-dp-attention --dp 2`), and underscored spellings.
    #[test]
    fn parallel_options_in_every_spelling() {
        let s = SglangSettings::from_args(
            &argv("python3 -m sglang.launch_server --model /home/admin/Qwen2.5-VL-7B-Instruct --tp 2 --pp-size=2"),
            "t",
        )
        .unwrap();
        assert_eq!(
            (s.tp_size.value, s.pp_size.value, s.dp_size.value),
            (2, 2, 1)
        );
        assert_eq!(
            s.model.as_deref(),
            Some("/home/admin/Qwen2.5-VL-7B-Instruct")
        );
        assert_eq!(s.attention_tp(), 2);
        let s = SglangSettings::from_args(
            &argv("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct --trust-remote-code --tp 8 --enable-dp-attention --dp 2"),
            "t",
        )
        .unwrap();
        assert!(s.enable_dp_attention.value);
        assert_eq!(
            (s.tp_size.value, s.dp_size.value, s.attention_tp()),
            (8, 2, 4)
        );
        let s = SglangSettings::from_args(
            &argv("sglang serve --model_path /m --tp_size 4 --dp_size 4 --enable_dp_attention"),
            "t",
        )
        .unwrap();
        assert_eq!((s.model.as_deref(), s.attention_tp()), (Some("/m"), 1));
        assert!(SglangSettings::from_args(&argv("x --pp-size 0"), "t").is_err());
    }
}
