//! What a running vLLM says about itself: its `/metrics` (cache configuration, KV usage) and
//! its start-up log lines, as the runtime's own figures.

use crate::runtimes::hf::thousands;
use crate::runtimes::{gib_bytes, number_after, set_noting};
use gpuledger_model::ReportedFigure;
use std::collections::BTreeMap;

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
    /// `# GPU blocks: N` (V0; `# cuda blocks: N` in later V0; V1's API server logs
    /// `num_gpu_blocks is: N`).
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
        let mut changed = false;
        let c = &mut changed;
        // V1's API server: `vllm cache_config_info with initialization after num_gpu_blocks is: N`.
        if let Some(n) = number_after(line, "GPU blocks:")
            .or_else(|| number_after(line, "cuda blocks:"))
            .or_else(|| number_after(line, "num_gpu_blocks is:"))
        {
            set_noting(&mut l.gpu_blocks, Some(n as u64), c);
        }
        if line.contains("GPU KV cache size:") {
            let t = number_after(line, "GPU KV cache size:").map(|n| n as u64);
            set_noting(&mut l.kv_tokens, t, c);
        }
        if let Some(x) = number_after(line, "Available KV cache memory:")
            .or_else(|| number_after(line, "kv_cache_size"))
            .or_else(|| number_after(line, "reserved for KV Cache is"))
        {
            set_noting(&mut l.kv_gib, Some(x), c);
        }
        if let Some(x) = number_after(line, "Model loading took")
            .or_else(|| number_after(line, "Loading model weights took"))
        {
            set_noting(&mut l.weights_gib, Some(x), c);
        }
        if let Some(x) = number_after(line, "total_gpu_memory") {
            set_noting(&mut l.total_gpu_gib, Some(x), c);
        }
        if let Some(x) = number_after(line, "gpu_memory_utilization") {
            set_noting(&mut l.gpu_memory_utilization, Some(x), c);
        }
        if changed {
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
