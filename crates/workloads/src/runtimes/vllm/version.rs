//! Which vLLM runs, for the defaults that changed between releases: the server's `GET /version`
//! answer, else the `vllm-X.dist-info` beside the `vllm` package the process mapped.
//!
//! `--gpu-memory-utilization` defaulted to 0.9 from vLLM's first releases until v0.21.0, which
//! turned CUDA-graph memory profiling on by default and raised the default to 0.92 to match
//! (vllm-project/vllm#38284; start-up logs of v0.21+ say "CUDA graph memory profiling is enabled
//! (default since v0.21.0). The current --gpu-memory-utilization=0.9200").
//!
//! The KV rules below were read from the released sources (the PyPI sdists of every release
//! from 0.8.0 to 0.33.0, `vllm/v1/core/kv_cache_utils.py` and `vllm/v1/kv_cache_interface.py`),
//! each gate at the first release whose source has the new rule.

use crate::runtimes::hf::in_process_root;
use crate::runtimes::reservation::{default, derived, first_answer, src, Src};
use crate::runtimes::{InputSource, ProcessContext};
use gpuledger_lang::Said;
use gpuledger_sources::regular::read_regular;

/// The release that raised the default to 0.92.
pub const DEFAULT_092_SINCE: (u64, u64, u64) = (0, 21, 0);

/// The first release whose V1 engine groups a hybrid model's layers (the hybrid KV cache
/// manager: `_get_kv_cache_config_uniform_page_size`, `--disable-hybrid-kv-cache-manager`).
/// Before it V1 gave every layer a full-context page: 0.8.0–0.8.2's model runner made a
/// `FullAttentionSpec` of every layer, 0.8.3–0.9.0.1's `unify_hybrid_kv_cache_specs` turned each
/// `SlidingWindowSpec` into one when full layers were present.
pub const HYBRID_KV_SINCE: (u64, u64, u64) = (0, 9, 1);
/// The first release that prints `GPU KV cache size` as `int(max_concurrency × max_model_len)`
/// (`_report_kv_cache_config`, "Sourcing this from the concurrency calculation handles hybrid
/// layouts correctly"; proposed as vllm-project/vllm#38364 and #40694). 0.20.0 and before:
/// `num_blocks // len(kv_cache_groups) × block_size`.
pub const CAPACITY_TOKENS_SINCE: (u64, u64, u64) = (0, 20, 1);
/// The first release whose windowed groups reserve for every batch in flight
/// (`VllmConfig.max_in_flight_tokens` = concurrent batches × `max_num_batched_tokens`, two
/// batches under async scheduling); 0.20.1–0.25.x: one `max_num_batched_tokens`.
pub const IN_FLIGHT_SINCE: (u64, u64, u64) = (0, 26, 0);

/// How vLLM counts the tokens it prints as `GPU KV cache size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenRule {
    /// `num_blocks // groups × block_size` (V1 before 0.20.1).
    PerGroup,
    /// `int(num_blocks / blocks_per_request × max_model_len)`, `blocks_per_request` summed
    /// over the groups for one request of `max_model_len` tokens (0.20.1 on).
    Concurrency,
}

/// The KV rules of the release that runs, and the words that say which and why.
#[derive(Debug, Clone, PartialEq)]
pub struct KvRules {
    /// The hybrid KV cache manager groups a hybrid model's layers.
    pub hybrid_groups: bool,
    pub tokens: TokenRule,
    /// A windowed group reserves for every batch in flight, not one.
    pub in_flight: bool,
    /// Where the rules came from: the version that runs, or assumed when it is not known.
    pub source: InputSource,
    /// The rules in words, for the estimate's inputs.
    pub words: Said,
}

/// The KV rules for the version that runs; the newest rules read, said to be assumed, when the
/// version is not known.
pub fn kv_rules(version: Option<&(String, Said)>) -> KvRules {
    let known = version.and_then(|(v, from)| Some((parse(v)?, v, from)));
    let n = known.as_ref().map_or((u64::MAX, 0, 0), |k| k.0);
    let hybrid_groups = n >= HYBRID_KV_SINCE;
    let tokens = if n >= CAPACITY_TOKENS_SINCE {
        TokenRule::Concurrency
    } else {
        TokenRule::PerGroup
    };
    let in_flight = n >= IN_FLIGHT_SINCE;
    let mut words = vec![if hybrid_groups {
        "recipe-vllm-rule-groups"
    } else {
        "recipe-vllm-rule-no-groups"
    }];
    words.push(match tokens {
        TokenRule::Concurrency => "recipe-vllm-rule-concurrency",
        TokenRule::PerGroup => "recipe-vllm-rule-per-group",
    });
    if tokens == TokenRule::Concurrency {
        words.push(if in_flight {
            "recipe-vllm-rule-in-flight"
        } else {
            "recipe-vllm-rule-batched"
        });
    }
    let words = words.into_iter().map(|k| Said::new(k, vec![])).collect();
    let words = Said::joined("report-said-list", words).unwrap_or_default();
    let source = match known {
        Some((_, v, from)) => {
            let said = vec![
                ("version", v.as_str().into()),
                ("from", from.clone().into()),
            ];
            derived(Said::new("recipe-vllm-version-from", said))
        }
        None => InputSource::Assumed {
            why: Said::new("recipe-vllm-version-assumed", vec![]),
        },
    };
    KvRules {
        hybrid_groups,
        tokens,
        in_flight,
        source,
        words,
    }
}

/// `0.11.0`, `0.11.1rc2.dev141+g38f225c2a` → (major, minor, patch).
pub fn parse(v: &str) -> Option<(u64, u64, u64)> {
    let mut it = v.trim().trim_start_matches('v').split('.');
    let num = |s: Option<&str>| -> Option<u64> {
        let s = s?;
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        s[..end].parse().ok()
    };
    Some((
        num(it.next())?,
        num(it.next())?,
        num(it.next()).unwrap_or(0),
    ))
}

/// The version and where it was read.
pub fn running(ctx: &ProcessContext) -> Option<(String, Said)> {
    let from_api = first_answer(ctx, &[super::VERSION_PATH], |body, source| {
        let v: serde_json::Value = serde_json::from_str(body).ok()?;
        let s = v.get("version")?.as_str()?.to_string();
        parse(&s).map(|_| (s, Said::verbatim(source)))
    });
    // Then the log of this run, if one was given; then the package the process mapped (which
    // may have been upgraded under a running server).
    from_api
        .or_else(|| ctx.log_version.clone())
        .or_else(|| installed(ctx))
}

/// The `vllm-X.dist-info` folder beside the `vllm` package whose files the process mapped.
fn installed(ctx: &ProcessContext) -> Option<(String, Said)> {
    let maps_path = ctx.proc_root.join(ctx.pid.to_string()).join("maps");
    let maps = read_regular(&maps_path, 64 << 20).ok()?;
    let mapped = gpuledger_sources::procfs::parse_maps(&String::from_utf8_lossy(&maps));
    let pkg = mapped.iter().find_map(|m| {
        let i = m.find("-packages/vllm/")?;
        Some(m[..i + "-packages/".len()].to_string())
    })?;
    let site = in_process_root(ctx.proc_root, ctx.pid, std::path::Path::new(&pkg));
    std::fs::read_dir(&site)
        .ok()?
        .take(100_000)
        .filter_map(|e| e.ok())
        .find_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let v = name.strip_prefix("vllm-")?.strip_suffix(".dist-info")?;
            parse(v).map(|_| {
                let path = vec![("path", format!("{pkg}{name}").into())];
                (v.to_string(), Said::new("recipe-vllm-version-mapped", path))
            })
        })
}

/// `--gpu-memory-utilization`'s default for the version that runs (the flag and `/metrics` win).
pub fn default_utilization(version: Option<&(String, Said)>) -> Src<f64> {
    match version.and_then(|(v, from)| Some((parse(v)?, v, from))) {
        Some((n, v, from)) => {
            let args = vec![
                ("version", v.as_str().into()),
                ("from", from.clone().into()),
            ];
            if n < DEFAULT_092_SINCE {
                src(0.9, default(Said::new("recipe-vllm-util-before", args)))
            } else {
                src(0.92, default(Said::new("recipe-vllm-util-since", args)))
            }
        }
        None => src(0.92, default(Said::new("recipe-vllm-util-unknown", vec![]))),
    }
}

#[cfg(test)]
mod tests {
    use super::{default_utilization, kv_rules, parse, running, TokenRule};
    use crate::live::Reply;
    use crate::runtimes::ProcessContext;

    fn ctx<'a>(
        root: &'a std::path::Path,
        fetch: Option<(&'a [u16], super::super::super::Fetch<'a>)>,
    ) -> ProcessContext<'a> {
        ProcessContext {
            pid: 4242,
            proc_root: root,
            argv: vec![],
            argv_from: None,
            cwd: None,
            env: vec![],
            device_total: None,
            overhead: None,
            fetch,
            round: None,
            log_version: None,
            device_capability: None,
            log_mxfp4_backend: None,
            argv_note: None,
            title: None,
        }
    }

    #[test]
    fn the_version_from_the_api_else_the_mapped_package() {
        let d = std::env::temp_dir().join(format!("gl-vllm-ver-{}", std::process::id()));
        let site = d.join("venv/lib/python3.12/site-packages");
        std::fs::create_dir_all(site.join("vllm-0.11.0.dist-info")).unwrap();
        std::fs::create_dir_all(d.join("4242")).unwrap();
        std::fs::write(
            d.join("4242/maps"),
            format!(
                "7f00-7f10 r-xp 00000000 08:01 123 {}/vllm/_C.abi3.so\n",
                site.display()
            ),
        )
        .unwrap();
        let (v, from) = running(&ctx(&d, None)).unwrap();
        assert_eq!(v, "0.11.0");
        assert!(from.contains("vllm-0.11.0.dist-info"), "{from}");
        // A log of this run, given to explain --log, names the release the run had.
        let mut c = ctx(&d, None);
        c.log_version = Some(("0.8.2".into(), "vllm.log (--log)".into()));
        assert_eq!(running(&c).unwrap().0, "0.8.2");
        // The server's own answer wins (vLLM's `/version`: {"version": "..."}).
        let fetch = |_: u16, path: &str| -> Result<Reply, String> {
            match path {
                "/version" => Ok(Reply {
                    status: 200,
                    body: r#"{"version":"0.21.1"}"#.into(),
                }),
                _ => Err("no".into()),
            }
        };
        let (v, from) = running(&ctx(&d, Some((&[8000], &fetch)))).unwrap();
        assert_eq!(
            (v.as_str(), from.as_str()),
            ("0.21.1", "GET http://127.0.0.1:8000/version")
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn the_default_follows_the_version() {
        assert_eq!(parse("0.11.1rc2.dev141+g38f225c2a"), Some((0, 11, 1)));
        assert_eq!(parse("v0.21.0"), Some((0, 21, 0)));
        assert_eq!(parse("main"), None);
        let v = |s: &str| Some((s.to_string(), gpuledger_lang::Said::from("GET /version")));
        assert_eq!(default_utilization(v("0.11.0").as_ref()).value, 0.9);
        assert_eq!(default_utilization(v("0.20.2").as_ref()).value, 0.9);
        assert_eq!(default_utilization(v("0.21.0").as_ref()).value, 0.92);
        let d = default_utilization(None);
        assert_eq!(d.value, 0.92);
        assert!(d.source.detail().contains("not known"), "{:?}", d.source);
    }

    #[test]
    fn the_kv_rules_follow_the_version() {
        let v = |s: &str| Some((s.to_string(), gpuledger_lang::Said::from("GET /version")));
        let r = |s: &str| {
            let k = kv_rules(v(s).as_ref());
            (k.hybrid_groups, k.tokens, k.in_flight)
        };
        use TokenRule::{Concurrency, PerGroup};
        assert_eq!(r("0.9.0.1"), (false, PerGroup, false));
        assert_eq!(r("0.9.1"), (true, PerGroup, false));
        assert_eq!(r("0.20.0"), (true, PerGroup, false));
        assert_eq!(r("0.20.1"), (true, Concurrency, false));
        assert_eq!(r("0.25.1"), (true, Concurrency, false));
        assert_eq!(r("0.26.0"), (true, Concurrency, true));
        let k = kv_rules(v("0.11.0rc2").as_ref());
        assert!(k.source.detail().contains("vLLM 0.11.0rc2 (GET /version)"));
        // Unknown: the newest rules, said to be assumed.
        let k = kv_rules(None);
        assert_eq!(
            (k.hybrid_groups, k.tokens, k.in_flight),
            (true, Concurrency, true)
        );
        assert!(matches!(
            k.source,
            crate::runtimes::InputSource::Assumed { .. }
        ));
        assert!(k.source.detail().contains("not known"), "{:?}", k.source);
    }
}
