//! The token count vLLM prints as `GPU KV cache size`, by the rule of the release that runs
//! ([`TokenRule`], gated in `version`).
//!
//! Before v0.20.1 it is `num_blocks // groups × block_size`. From v0.20.1 it is
//! `int(max_concurrency × max_model_len)` with `max_concurrency = num_blocks / per_request`,
//! `per_request` the blocks one request of `max_model_len` tokens takes in every group
//! (`get_max_concurrency_for_kv_cache_config`): a full-attention group `cdiv(max_model_len,
//! block_size)`, a windowed one `cdiv(min(window − 1 + in_flight, max_model_len), block_size) + 1`
//! (`SlidingWindowSpec.max_memory_usage_bytes`; the + 1 because the window need not start at a
//! block's edge). The division and product are Python floats, as here, so the count is vLLM's to
//! the token.

use super::version::{KvRules, TokenRule};
use super::VllmSettings;
use crate::runtimes::reservation::{src, Src};
use crate::runtimes::InputSource;

/// The KV groups one request takes blocks in, by kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    pub full_groups: u64,
    pub sliding_groups: u64,
    /// The windowed layers' window, when config.json gives it.
    pub window: Option<u64>,
}

impl Layout {
    fn groups(&self) -> u64 {
        (self.full_groups + self.sliding_groups).max(1)
    }
}

/// What the count needs besides the blocks: the request length and, for windowed groups, the
/// tokens in flight.
pub struct Request {
    pub block_size: u64,
    pub max_model_len: Option<u64>,
    pub in_flight: Option<u64>,
}

/// vLLM's printed token count for `blocks` blocks, and the maximum concurrency it prints beside
/// it (from v0.20.1), or why it cannot be counted here.
pub fn tokens(
    rule: TokenRule,
    blocks: u64,
    layout: &Layout,
    r: &Request,
) -> Result<(u64, Option<f64>), String> {
    let bs = r.block_size.max(1);
    if rule == TokenRule::PerGroup {
        return Ok(((blocks / layout.groups()).saturating_mul(bs), None));
    }
    let len = r
        .max_model_len
        .ok_or("max_model_len: not on the command line and not in config.json")?;
    let full = len.div_ceil(bs);
    let sliding = if layout.sliding_groups == 0 {
        0
    } else {
        let w = layout
            .window
            .ok_or("the sliding window: config.json does not give it")?;
        let held = if w >= len {
            len
        } else {
            let x = r
                .in_flight
                .ok_or("the tokens in flight (max_num_batched_tokens)")?;
            w.saturating_sub(1).saturating_add(x).min(len)
        };
        held.div_ceil(bs) + 1
    };
    let per_request = layout
        .full_groups
        .checked_mul(full)
        .zip(layout.sliding_groups.checked_mul(sliding))
        .and_then(|(a, b)| a.checked_add(b))
        .filter(|&p| p > 0)
        .ok_or("the blocks per request: out of range")?;
    let concurrency = blocks as f64 / per_request as f64;
    Ok(((concurrency * len as f64) as u64, Some(concurrency)))
}

/// The tokens a windowed group reserves for besides its window: `--max-num-batched-tokens` or
/// `vllm serve`'s default for a GPU of this size, times the batches in flight from v0.26.0
/// (two under async scheduling, vLLM's default; one with `--no-async-scheduling`).
pub fn in_flight(
    s: &VllmSettings,
    rules: &KvRules,
    device_total: Option<u64>,
) -> Result<Src<u64>, String> {
    let mnbt = match &s.max_num_batched_tokens {
        Some(m) => m.clone(),
        None => default_batched_tokens(device_total)?,
    };
    if !rules.in_flight {
        return Ok(mnbt);
    }
    if s.pipeline_parallel_size.value > 1 {
        return Err("the batches in flight under pipeline parallelism".into());
    }
    let (batches, why) = match s.async_scheduling {
        Some(false) => (1, "one batch in flight (--no-async-scheduling)"),
        _ => (
            2,
            "two batches in flight (async scheduling, vLLM's default)",
        ),
    };
    Ok(src(
        mnbt.value.saturating_mul(batches),
        InputSource::Derived {
            rule: format!(
                "max_num_batched_tokens {} ({}) × {why}",
                mnbt.value,
                mnbt.source.detail()
            )
            .into(),
        },
    ))
}

/// `EngineArgs.get_batch_defaults` for `vllm serve` on a GPU (the same from v0.20.1 to v0.33.0):
/// 8192 on a GPU of 70 GiB or more except an A100, else 2048. The GPU's name is not known here,
/// so an 80 GB A100 is taken for the larger default: said in the source.
fn default_batched_tokens(device_total: Option<u64>) -> Result<Src<u64>, String> {
    let total = device_total.ok_or(
        "max_num_batched_tokens: not on the command line, and vLLM's default depends on the GPU's size, not known here",
    )?;
    Ok(if total >= 70 << 30 {
        src(
            8192,
            InputSource::Assumed {
                why: "vllm serve's default on a GPU of 70 GiB or more (2048 on an A100, whose name is not read here)".into(),
            },
        )
    } else {
        src(
            2048,
            InputSource::Default {
                detail: "vllm serve's default on a GPU under 70 GiB".into(),
            },
        )
    })
}

#[cfg(test)]
mod tests {
    use super::{tokens, Layout, Request};
    use crate::runtimes::vllm::version::TokenRule;

    #[test]
    fn the_count_follows_the_rule() {
        // Gemma-3-27B: 1 full group + 6 windowed groups of 10 layers, window 1024.
        let gemma = Layout {
            full_groups: 1,
            sliding_groups: 6,
            window: Some(1024),
        };
        let r = Request {
            block_size: 16,
            max_model_len: Some(4096),
            in_flight: Some(8192),
        };
        // Before v0.20.1: blocks ÷ 7 × 16.
        assert_eq!(
            tokens(TokenRule::PerGroup, 89_994, &gemma, &r).unwrap(),
            (205_696, None)
        );
        // From v0.20.1: a request takes 256 + 6 × 257 = 1,798 blocks.
        let (t, c) = tokens(TokenRule::Concurrency, 89_994, &gemma, &r).unwrap();
        assert_eq!(t, (89_994.0f64 / 1798.0 * 4096.0) as u64);
        assert_eq!(format!("{:.2}", c.unwrap()), "50.05");
        // A dense model: blocks × 16 less the float's rounding (1478 / 1250 × 20000 is
        // 23647.999… in Python as here), and less again where max_model_len is not a multiple
        // of 16 (29,000 tokens take 1,813 blocks, not 1,812.5).
        let dense = Layout {
            full_groups: 1,
            sliding_groups: 0,
            window: None,
        };
        let r = |len| Request {
            block_size: 16,
            max_model_len: Some(len),
            in_flight: None,
        };
        assert_eq!(
            tokens(TokenRule::Concurrency, 1478, &dense, &r(20_000))
                .unwrap()
                .0,
            1478 * 16 - 1
        );
        assert_eq!(
            tokens(TokenRule::Concurrency, 1478, &dense, &r(29_000))
                .unwrap()
                .0,
            23_641
        );
        // What the count cannot do without is said.
        let no_len = Request {
            block_size: 16,
            max_model_len: None,
            in_flight: None,
        };
        assert!(tokens(TokenRule::Concurrency, 10, &dense, &no_len)
            .unwrap_err()
            .contains("max_model_len"));
        assert!(tokens(TokenRule::Concurrency, 10, &gemma, &r(4096))
            .unwrap_err()
            .contains("max_num_batched_tokens"));
        // A window as long as the request needs no in-flight figure.
        assert!(tokens(TokenRule::Concurrency, 10, &gemma, &r(1024)).is_ok());
    }
}
