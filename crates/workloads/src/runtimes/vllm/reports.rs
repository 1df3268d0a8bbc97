//! What a running vLLM says about itself: its `/metrics` (cache configuration, KV usage) and
//! its start-up log lines, as the runtime's own figures.

use crate::figures::{Checked, Kind};
use crate::runtimes::hf::thousands;
use crate::runtimes::{gib_bytes, number_text_after, set_noting};
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
    /// Figures the server gave that cannot be true (left out above).
    pub invalid: Checked,
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
    let mut invalid = Checked::default();
    // The labels the recipe reads as numbers: one that cannot be true is left out (vLLM writes
    // `None` before its profiling has run: not known yet, nothing to say).
    for (key, kind) in [
        ("num_gpu_blocks", Kind::Count),
        ("block_size", Kind::Count),
        ("kv_cache_size_tokens", Kind::Count),
        ("gpu_memory_utilization", Kind::Fraction),
    ] {
        let Some(v) = cache_config.get(key) else {
            continue;
        };
        if v == "None" || v.is_empty() || invalid.take(key, Some(v), kind).is_none() {
            cache_config.remove(key);
        }
    }
    let usage = crate::live::metric_raw(body, "vllm:kv_cache_usage_perc")
        .or_else(|| crate::live::metric_raw(body, "vllm:gpu_cache_usage_perc"));
    let kv_usage = invalid.take("KV cache in use", usage, Kind::Fraction);
    Some(VllmMetrics {
        cache_config,
        kv_usage,
        source: source.to_string(),
        invalid,
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
    /// `Maximum concurrency for M tokens per request: X.XXx`: (M, X).
    pub concurrency: Option<(u64, f64)>,
    /// The release: `vLLM API server version X`, `Initializing a V1 LLM engine (vX) with
    /// config` (V0: `an LLM engine (vX)`). The KV rules depend on it (`version`).
    pub version: Option<String>,
    /// The lines the figures came from, as printed.
    pub lines: Vec<String>,
    /// Figures the log printed that cannot be true (left out above).
    pub invalid: Checked,
}

/// The number after the first of `keys` the line holds, as written.
fn after_any(line: &str, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| number_text_after(line, k))
}

pub fn parse_log(text: &str) -> VllmLog {
    let mut l = VllmLog::default();
    for line in text.lines().take(1_000_000) {
        let mut changed = false;
        let c = &mut changed;
        // V1's API server: `vllm cache_config_info with initialization after num_gpu_blocks is: N`.
        let bad = &mut l.invalid;
        let blocks = after_any(line, &["GPU blocks:", "cuda blocks:", "num_gpu_blocks is:"]);
        if let Some(n) = bad.count("GPU blocks", blocks.as_deref()) {
            set_noting(&mut l.gpu_blocks, Some(n), c);
        }
        if line.contains("GPU KV cache size:") {
            let t = after_any(line, &["GPU KV cache size:"]);
            let t = bad.count("GPU KV cache size", t.as_deref());
            set_noting(&mut l.kv_tokens, t, c);
        }
        let kv = after_any(
            line,
            &[
                "Available KV cache memory:",
                "kv_cache_size",
                "reserved for KV Cache is",
            ],
        );
        if let Some(x) = bad.take("KV cache memory", kv.as_deref(), Kind::Gib) {
            set_noting(&mut l.kv_gib, Some(x), c);
        }
        let w = after_any(line, &["Model loading took", "Loading model weights took"]);
        if let Some(x) = bad.take("model loading took", w.as_deref(), Kind::Gib) {
            set_noting(&mut l.weights_gib, Some(x), c);
        }
        let t = after_any(line, &["total_gpu_memory"]);
        if let Some(x) = bad.take("total_gpu_memory", t.as_deref(), Kind::Gib) {
            set_noting(&mut l.total_gpu_gib, Some(x), c);
        }
        let u = after_any(line, &["gpu_memory_utilization"]);
        if let Some(x) = bad.take("gpu_memory_utilization", u.as_deref(), Kind::Fraction) {
            set_noting(&mut l.gpu_memory_utilization, Some(x), c);
        }
        let (m, x) = (
            after_any(line, &["Maximum concurrency for"]),
            after_any(line, &["tokens per request:"]),
        );
        if let (Some(m), Some(x)) = (
            bad.count("maximum concurrency", m.as_deref()),
            bad.take("maximum concurrency", x.as_deref(), Kind::Rate),
        ) {
            set_noting(&mut l.concurrency, Some((m, x)), c);
        }
        if let Some(v) = log_version(line) {
            set_noting(&mut l.version, Some(v), c);
        }
        if changed {
            l.lines.push(line.trim().to_string());
        }
    }
    l
}

/// The release a start-up line names, when it is a version vLLM's numbering reads.
fn log_version(line: &str) -> Option<String> {
    let v = if let Some(i) = line.find("LLM engine (v") {
        let rest = &line[i + "LLM engine (v".len()..];
        &rest[..rest.find(')')?]
    } else {
        let i = line.find("API server version ")?;
        line[i + "API server version ".len()..]
            .split_whitespace()
            .next()?
    };
    super::version::parse(v).map(|_| v.to_string())
}

impl VllmLog {
    /// The log's figures as the runtime's own, for `reported`.
    pub fn reported(&self, source: &str) -> Vec<ReportedFigure> {
        let mut out = Vec::new();
        let mut push = |what: &str, bytes: Option<u64>, text: Option<String>| {
            out.push(ReportedFigure::new(
                what,
                bytes,
                text.map(Into::into),
                source,
            ))
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
        if let Some((m, x)) = self.concurrency {
            push(
                "maximum concurrency",
                None,
                Some(format!("{x:.2}x at {} tokens per request", thousands(m))),
            );
        }
        if let Some(v) = &self.version {
            push("vLLM version", None, Some(v.clone()));
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
        out.extend(self.invalid.figures(source));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::parse_log;

    #[test]
    fn the_release_and_the_concurrency_from_start_up_lines() {
        // Verbatim from public logs (fixtures/vllm/README.md): a V1 engine on 0.28.1rc1
        // (SmolVLM on the CPU backend, its one-line KV report), a V0 engine
        // (vllm-project/vllm#10517), an API server (the gemma-3 fixture's 0.11.0rc2).
        let v1 = "INFO 09-06 20:23:31 [core.py:123] Initializing a V1 LLM engine (v0.28.1rc1.dev453+ga1541f574.d20260906) with config: model='/m'\nINFO 09-06 20:23:33 [kv_cache_utils.py:2312] GPU KV cache size: 23,296 tokens, Maximum concurrency for 4,096 tokens per request: 5.69x";
        let l = parse_log(v1);
        assert_eq!(
            l.version.as_deref(),
            Some("0.28.1rc1.dev453+ga1541f574.d20260906")
        );
        assert_eq!(l.kv_tokens, Some(23_296));
        assert_eq!(l.concurrency, Some((4096, 5.69)));
        let v0 = "Initializing an LLM engine (v0.5.4) with config";
        assert_eq!(parse_log(v0).version.as_deref(), Some("0.5.4"));
        let api = "(APIServer pid=8) INFO 09-25 13:38:14 [api_server.py:1822] vLLM API server version 0.11.0rc2.dev98+g393de22d2";
        assert_eq!(
            parse_log(api).version.as_deref(),
            Some("0.11.0rc2.dev98+g393de22d2")
        );
        // Not a version vLLM's numbering reads: nothing.
        assert_eq!(parse_log("vLLM API server version main").version, None);
        let r = parse_log(v1).reported("log");
        assert!(r.iter().any(|f| f.what == "vLLM version"), "{r:?}");
    }
}
