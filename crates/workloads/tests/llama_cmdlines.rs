//! Public llama-server command lines (fixtures/llama-server-cmdlines, each with its source) read
//! the way collection reads a running server's argv (`process_estimate`: argv without the
//! program): every one is accepted, and every setting the recipe reads comes out as the line
//! says; what the line does not set stays llama-server's default.

use std::path::Path;

use gpuledger_workloads::estimate::{FlashAttn, GpuLayers};
use gpuledger_workloads::LlamaSettings;

#[path = "../../../testing/cmdlines.rs"]
mod cmdlines;
use cmdlines::Entry;

/// What the settings show for `key`, and whether it came from the line (not a default).
fn shown(s: &LlamaSettings, key: &str) -> (String, bool) {
    let fa = |f: FlashAttn| format!("{f:?}").to_lowercase();
    let ngl = |g: GpuLayers| match g {
        GpuLayers::Auto => "auto".to_string(),
        GpuLayers::All => "all".to_string(),
        GpuLayers::Count(n) => n.to_string(),
    };
    let d = &s.devices;
    match key {
        "model" => (s.model.clone().unwrap_or_default(), s.model.is_some()),
        "c" => (s.ctx_size.value.to_string(), !s.ctx_size.is_default()),
        "np" => (s.parallel.value.to_string(), !s.parallel.is_default()),
        "ngl" => (ngl(s.n_gpu_layers.value), !s.n_gpu_layers.is_default()),
        "b" => (s.batch.value.to_string(), !s.batch.is_default()),
        "ub" => (s.ubatch.value.to_string(), !s.ubatch.is_default()),
        "ctk" => (
            s.cache_type_k.value.name.to_lowercase(),
            !s.cache_type_k.is_default(),
        ),
        "ctv" => (
            s.cache_type_v.value.name.to_lowercase(),
            !s.cache_type_v.is_default(),
        ),
        "fa" => (fa(s.flash_attn.value), !s.flash_attn.is_default()),
        "kvu" => (
            format!("{}", s.kv_unified.value.unwrap_or_default()),
            !s.kv_unified.is_default(),
        ),
        "kvo" => (s.kv_offload.value.to_string(), !s.kv_offload.is_default()),
        "mmap" => (s.mmap.value.to_string(), !s.mmap.is_default()),
        "swa" => (s.swa_full.value.to_string(), !s.swa_full.is_default()),
        "rpc" => (d.rpc.value.len().to_string(), !d.rpc.is_default()),
        "ts" => {
            let ts: Vec<String> = d.tensor_split.value.iter().map(|x| x.to_string()).collect();
            (ts.join(","), !d.tensor_split.is_default())
        }
        "sm" => (
            format!("{:?}", d.split_mode.value).to_lowercase(),
            !d.split_mode.is_default(),
        ),
        "mg" => (d.main_gpu.value.to_string(), !d.main_gpu.is_default()),
        "fit" => (s.fit.enabled.value.to_string(), !s.fit.enabled.is_default()),
        other => panic!("unknown expectation key {other}"),
    }
}

const KEYS: [&str; 18] = [
    "model", "c", "np", "ngl", "b", "ub", "ctk", "ctv", "fa", "kvu", "kvo", "mmap", "swa", "rpc",
    "ts", "sm", "mg", "fit",
];

/// What differs between the settings and the entry's expectations.
pub fn problems(e: &Entry, s: &LlamaSettings) -> Vec<String> {
    let mut out = Vec::new();
    for key in KEYS {
        let (value, given) = shown(s, key);
        match e.expected(key) {
            Some(want) if !given || value != want => {
                out.push(format!("{key}: {value} (given: {given}), expected {want}"))
            }
            None if given => out.push(format!("{key}: {value} set, expected the default")),
            _ => {}
        }
    }
    let mut words: Vec<&str> = s
        .unmodelled
        .iter()
        .map(|u| u.split(' ').next().unwrap_or(""))
        .collect();
    words.sort();
    let mut want: Vec<&str> = e.not_modelled.iter().map(String::as_str).collect();
    want.sort();
    if words != want {
        out.push(format!(
            "not modelled {:?}, expected {want:?}",
            s.unmodelled
        ));
    }
    let overrides: Vec<&str> = s
        .overrides
        .iter()
        .map(|o| o.given.split(' ').next().unwrap_or(""))
        .collect();
    if overrides != e.overrides {
        out.push(format!(
            "overrides {:?}, expected {:?}",
            s.overrides, e.overrides
        ));
    }
    if s.unknown != e.unknown {
        out.push(format!("unknown {:?}, expected {:?}", s.unknown, e.unknown));
    }
    out
}

#[test]
fn every_public_command_line_is_read_as_collection_reads_a_running_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let entries = cmdlines::read(&root);
    assert!(entries.len() >= 20, "only {} command lines", entries.len());
    let mut failed = Vec::new();
    for e in &entries {
        assert!(e.source.starts_with("https://github.com/"), "{}", e.source);
        let argv = e.argv();
        let (s, rest) = match LlamaSettings::parse_known(&argv[1..]) {
            Ok(x) => x,
            Err(err) => {
                failed.push(format!("{}: refused: {err}", e.source));
                continue;
            }
        };
        for p in problems(e, &s) {
            failed.push(format!("{}: {p}", e.source));
        }
        if !rest.is_empty() {
            failed.push(format!("{}: words left over: {rest:?}", e.source));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
