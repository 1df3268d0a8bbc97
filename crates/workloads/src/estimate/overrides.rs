//! llama.cpp's buffer-type overrides: `-ot/--override-tensor PATTERN=BUFFER_TYPE[,...]`,
//! `--cpu-moe`, `--n-cpu-moe N` and `--n-cpu-ffn N`, read from the flags (and their `LLAMA_ARG_*`
//! variables), then applied to the model's tensors as llama.cpp applies them.
//!
//! The rules, from the source of b11434 (`common/arg.cpp`, `common/common.h`,
//! `src/llama-model-loader.cpp`) and checked against the real servers (b11434 on the CPU,
//! b10434 on Vulkan):
//! - the overrides form one list: first those of the environment (read before the command line,
//!   and kept: a `-ot` on the command line adds to `LLAMA_ARG_OVERRIDE_TENSOR`, it does not
//!   replace it), then the command line's in the order written; a repeated `-ot` adds too;
//! - `-ot` splits its value at `,`; each item is `PATTERN=BUFFER_TYPE` (split at the first `=`);
//!   the buffer type is `CPU` or a device's own (`CUDA0`, `Vulkan0`, `MTL0`);
//! - `--cpu-moe` adds `LLM_FFN_EXPS_REGEX` → CPU; `--n-cpu-moe N` adds `blk\.I` + that pattern
//!   for each layer I < N (N entries); `--n-cpu-ffn N` the same with `LLM_FFN_DENSE_REGEX`;
//! - more than 4095 entries abort llama-server (its list is terminated within 4096 slots);
//! - loading a tensor, llama.cpp searches its name (`std::regex_search`: anywhere in the name)
//!   with each pattern in order; the first match decides its buffer, whatever its layer's place
//!   (`-ngl`): a tensor overridden to CPU stays in host memory in an offloaded layer, one
//!   overridden to a device goes there from a layer left on the host. The KV cache still
//!   follows the layer.

use std::collections::HashMap;

use gpuledger_lang::Said;
use regex::{Regex, RegexBuilder};

use super::devices::Device;
use super::settings::apply::value;
use super::settings::{
    flag_error, int32, LlamaSettings, OverridePattern, SettingSource, TensorOverride,
};
use super::{EstimateError, GgufModel, Record, TensorOverrideEstimate};
use gpuledger_model::llama_estimate::TensorPlace;

/// `LLM_FFN_EXPS_REGEX` (b11434 `common/common.h`): the expert tensors `--cpu-moe` and
/// `--n-cpu-moe` keep on the host.
pub const FFN_EXPS: &str = r"\.ffn_(up|down|gate|gate_up)_(ch|)exps";
/// `LLM_FFN_DENSE_REGEX`: the dense FFN tensors `--n-cpu-ffn` keeps on the host.
pub const FFN_DENSE: &str = r"\.ffn_(up|down|gate)\.";
/// llama-server aborts with more entries than this (`GGML_ASSERT` in common.cpp: the list is
/// padded to `llama_max_tensor_buft_overrides()` = 4096 and must end with an empty slot).
pub const MAX_OVERRIDES: u64 = 4095;
/// What one pattern may compile to: patterns come from a process's command line.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

impl TensorOverride {
    /// Entries of llama.cpp's list this override takes.
    fn entries(&self) -> u64 {
        match self.pattern {
            OverridePattern::Regex { .. } => 1,
            OverridePattern::Layers { from, to, .. } => u64::from(to.saturating_sub(from)),
        }
    }

    /// The pattern as llama.cpp searches with it.
    pub fn pattern_text(&self) -> String {
        match &self.pattern {
            OverridePattern::Regex { pattern } => pattern.clone(),
            OverridePattern::Layers { from: 0, to, block } => {
                format!(r"blk\.I{block} for each layer I < {to}")
            }
            OverridePattern::Layers { from, to, block } => {
                format!(r"blk\.I{block} for each layer {from} <= I < {to}")
            }
        }
    }
}

/// A pattern compiled with the size bound.
fn compile(pattern: &str) -> Result<Regex, String> {
    RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => "it compiles to more than 1 MiB".to_string(),
            _ => "it is not a regular expression gpuledger reads (no look-around or \
                  back-references)"
                .to_string(),
        })
}

/// The flag and its value as given; a variable as `VAR=value`.
fn given(f: &str, v: Option<&str>) -> String {
    match v {
        Some(v) if f.starts_with("LLAMA_ARG_") => format!("{f}={v}"),
        Some(v) => format!("{f} {v}"),
        None => f.to_string(),
    }
}

fn push(s: &mut LlamaSettings, f: &str, o: TensorOverride) -> Result<(), Said> {
    s.overrides.push(o);
    check_total(&s.overrides).map_err(|why| {
        Said::new(
            "recipe-flag-why",
            vec![("flag", f.into()), ("why", why.into())],
        )
    })
}

/// llama-server's limit on the whole list (environment and command line together).
pub(super) fn check_total(list: &[TensorOverride]) -> Result<(), Said> {
    let n: u64 = list.iter().map(TensorOverride::entries).sum();
    if n > MAX_OVERRIDES {
        let args = vec![
            ("n", n.to_string().into()),
            ("max", MAX_OVERRIDES.to_string().into()),
        ];
        return Err(Said::new("recipe-overrides-too-many", args));
    }
    Ok(())
}

fn to_cpu(f: &str, v: Option<&str>, pattern: OverridePattern) -> TensorOverride {
    TensorOverride {
        pattern,
        buffer_type: "CPU".into(),
        source: SettingSource::Flag(f.into()),
        given: given(f, v),
    }
}

/// `-ot PATTERN=BUFFER_TYPE[,...]`. An item without `=` or without a buffer type is refused (as
/// llama-server refuses it); a pattern the regex crate cannot read is named among the flags not
/// modelled, and its tensors placed as if it were not given.
pub fn override_tensor(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
    let v = value(f, v)?;
    for item in v.split(',') {
        let Some((pattern, buft)) = item.split_once('=').filter(|(_, b)| !b.is_empty()) else {
            let item = format!("{item:?}");
            return Err(flag_error("recipe-flag-not-override", f, &item));
        };
        if let Err(why) = compile(pattern) {
            s.unmodelled.push(format!(
                "{} (placed as without it: {why})",
                given(f, Some(item))
            ));
            continue;
        }
        let o = TensorOverride {
            pattern: OverridePattern::Regex {
                pattern: pattern.into(),
            },
            buffer_type: buft.into(),
            source: SettingSource::Flag(f.into()),
            given: given(f, Some(item)),
        };
        push(s, f, o)?;
    }
    Ok(())
}

/// `--cpu-moe`: every expert tensor on the host. Its variable applies only when it reads as
/// true (`on`, `enabled`, `true`, `1`: llama.cpp's `is_truthy`).
pub fn cpu_moe(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
    if v.is_some_and(|w| !matches!(w, "on" | "enabled" | "true" | "1")) {
        return Ok(());
    }
    let pattern = OverridePattern::Regex {
        pattern: FFN_EXPS.into(),
    };
    push(s, f, to_cpu(f, v, pattern))
}

/// `--n-cpu-moe N` / `--n-cpu-ffn N`: the expert (dense FFN) tensors of layers 0..N on the host.
fn first_layers(
    s: &mut LlamaSettings,
    f: &str,
    v: Option<&str>,
    block: &'static str,
) -> Result<(), Said> {
    let n = int32(f, value(f, v)?)?;
    if n < 0 {
        return Err(flag_error("recipe-flag-layers", f, &n.to_string()));
    }
    if n == 0 {
        return Ok(());
    }
    let pattern = OverridePattern::Layers {
        from: 0,
        to: n as u32,
        block: block.to_string(),
    };
    push(s, f, to_cpu(f, v, pattern))
}

pub fn n_cpu_moe(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
    first_layers(s, f, v, FFN_EXPS)
}

pub fn n_cpu_ffn(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
    first_layers(s, f, v, FFN_DENSE)
}

/// An override's pattern, compiled.
enum Matcher {
    Search(Regex),
    /// `blk\.(I)` + block, with I in the range: the union of llama.cpp's patterns, one per
    /// layer (a layer number is read as written, so `blk.05.` matches none of them, as in
    /// llama.cpp).
    Layers(std::ops::Range<u64>, Regex),
}

impl Matcher {
    fn new(p: &OverridePattern) -> Result<Matcher, String> {
        Ok(match p {
            OverridePattern::Regex { pattern } => Matcher::Search(compile(pattern)?),
            OverridePattern::Layers { from, to, block } => Matcher::Layers(
                u64::from(*from)..u64::from(*to),
                compile(&format!(r"blk\.(0|[1-9][0-9]*){block}"))?,
            ),
        })
    }

    fn is_match(&self, name: &str) -> bool {
        match self {
            Matcher::Search(re) => re.is_match(name),
            Matcher::Layers(range, re) => re
                .captures_iter(name)
                .any(|c| c[1].parse::<u64>().is_ok_and(|i| range.contains(&i))),
        }
    }
}

/// Whether `pattern` matches any tensor of the model (a pattern that cannot be compiled matches
/// none).
pub(super) fn matches_any(model: &GgufModel, pattern: &OverridePattern) -> bool {
    Matcher::new(pattern).is_ok_and(|m| model.tensors().any(|t| m.is_match(&t.name)))
}

/// Where the overrides put the tensors they match.
#[derive(Debug, Clone, Default)]
pub(super) struct Placed {
    /// Tensor name → the index of the first override that matches it.
    by_name: HashMap<String, usize>,
    /// Each override: on the GPU (a device's buffer type) or the host (`CPU`).
    on_gpu: Vec<bool>,
    /// Each override's buffer type as given.
    buffer_type: Vec<String>,
}

impl Placed {
    /// The tensor's place: the first matching override's, else `default` (its layer's).
    pub(super) fn on_gpu(&self, name: &str, default: bool) -> bool {
        self.placed(name).unwrap_or(default)
    }

    /// The place an override gave the tensor, if one matched it.
    pub(super) fn placed(&self, name: &str) -> Option<bool> {
        self.by_name.get(name).map(|&i| self.on_gpu[i])
    }

    /// The device an override put the tensor on, by the buffer type it names (`CUDA1`,
    /// `RPC0[host:port]`), when that is one of `devices`; an override to a device buffer type
    /// this list does not name (`Vulkan0` for a list of RPC devices) counts as the first device.
    pub(super) fn device(&self, name: &str, devices: &[Device]) -> Option<u8> {
        let i = *self.by_name.get(name)?;
        if !self.on_gpu[i] {
            return None;
        }
        let buft = self.buffer_type.get(i).map(String::as_str).unwrap_or("");
        u8::try_from(names_device(buft, devices).unwrap_or(0)).ok()
    }

    /// Names of the tensors overrides placed, with their device (`None`: the host).
    pub(super) fn all_devices(&self, devices: &[Device]) -> HashMap<String, Option<u8>> {
        self.by_name
            .keys()
            .map(|n| (n.clone(), self.device(n, devices)))
            .collect()
    }
}

/// Whether a buffer type is on a device, and what the estimate says about it: `CPU` is the
/// host; a device's name (`CUDA1`, `Vulkan0`, `RPC0[host:port]`) that device.
fn target(buft: &str, devices: &[Device], given: &str) -> (bool, Option<Said>) {
    if buft == "CPU" {
        return (false, None);
    }
    if devices.is_empty() {
        let why = Said::new(
            "recipe-note-override-no-gpu-backend",
            vec![("flag", given.into()), ("type", format!("{buft:?}").into())],
        );
        return (false, Some(why));
    }
    if names_device(buft, devices).is_some() {
        return (true, None);
    }
    let names: Vec<&str> = devices.iter().map(|d| d.name.as_str()).collect();
    let why = Said::new(
        "recipe-note-override-unknown-device",
        vec![
            ("flag", given.into()),
            ("type", format!("{buft:?}").into()),
            ("devices", names.join(", ").into()),
            ("first", names[0].into()),
        ],
    );
    (true, Some(why))
}

/// The device a buffer type names: `CUDA1`, or an RPC server's `RPC0[host:port]`.
fn names_device(buft: &str, devices: &[Device]) -> Option<usize> {
    devices.iter().position(|d| {
        buft == d.name
            || d.endpoint
                .as_deref()
                .is_some_and(|e| buft.starts_with("RPC") && buft.contains(e))
    })
}

/// Apply the overrides to every tensor of the model: record each as an input (with its source)
/// and say in notes which matched nothing or name a device not modelled.
pub(super) fn place(
    model: &GgufModel,
    s: &LlamaSettings,
    rec: &mut Record,
) -> Result<(Placed, Vec<TensorOverrideEstimate>), EstimateError> {
    let mut placed = Placed::default();
    let devices = super::devices::devices(s);
    let mut matchers = Vec::new();
    let mut effects = Vec::new();
    for o in &s.overrides {
        let m = Matcher::new(&o.pattern)
            .map_err(|why| EstimateError::Settings(format!("{}: {why}", o.given).into()))?;
        let (on_gpu, note) = target(&o.buffer_type, &devices, &o.given);
        rec.notes.extend(note);
        let name = match &o.source {
            SettingSource::Env(n) | SettingSource::Flag(n) => n.as_str(),
            _ => "tensor override",
        };
        // The value as given after the flag (`VAR=` or `-ot `); a bare switch is on.
        let value = o.given.strip_prefix(name).unwrap_or(&o.given);
        let value = value.trim_start_matches(['=', ' ']);
        let value = if value.is_empty() { "on" } else { value };
        rec.setting_source(name, value.to_string(), &o.source);
        matchers.push(m);
        placed.on_gpu.push(on_gpu);
        placed.buffer_type.push(o.buffer_type.clone());
        effects.push(TensorOverrideEstimate {
            given: o.given.clone(),
            pattern: o.pattern_text(),
            buffer_type: o.buffer_type.clone(),
            place: if on_gpu {
                TensorPlace::Gpu
            } else {
                TensorPlace::Host
            },
            tensors: 0,
            bytes: 0,
        });
    }
    if matchers.is_empty() {
        return Ok((placed, effects));
    }
    for t in model.tensors() {
        if let Some(i) = matchers.iter().position(|m| m.is_match(&t.name)) {
            placed.by_name.insert(t.name.clone(), i);
            effects[i].tensors += 1;
            effects[i].bytes = effects[i].bytes.saturating_add(t.n_bytes);
        }
    }
    for e in effects.iter().filter(|e| e.tensors == 0) {
        rec.note(Said::new(
            "recipe-note-override-matches-nothing",
            vec![("flag", e.given.clone().into())],
        ));
    }
    Ok((placed, effects))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: OverridePattern) -> Matcher {
        Matcher::new(&p).unwrap()
    }

    #[test]
    fn the_expert_pattern_is_llama_cpps() {
        let exps = m(OverridePattern::Regex {
            pattern: FFN_EXPS.into(),
        });
        for n in [
            "blk.0.ffn_up_exps.weight",
            "blk.12.ffn_gate_exps.weight",
            "blk.3.ffn_down_exps.weight",
            "blk.3.ffn_gate_up_exps.weight",
            "blk.3.ffn_down_chexps.weight",
            "blk.3.ffn_up_exps.bias",
        ] {
            assert!(exps.is_match(n), "{n}");
        }
        for n in [
            "blk.0.ffn_up.weight",
            "blk.0.ffn_up_shexp.weight",
            "blk.0.ffn_gate_inp.weight",
            "token_embd.weight",
        ] {
            assert!(!exps.is_match(n), "{n}");
        }
    }

    #[test]
    fn first_layers_is_the_union_of_llama_cpps_per_layer_patterns() {
        let two = m(OverridePattern::Layers {
            from: 0,
            to: 2,
            block: FFN_EXPS.into(),
        });
        assert!(two.is_match("blk.0.ffn_up_exps.weight"));
        assert!(two.is_match("blk.1.ffn_down_exps.weight"));
        assert!(!two.is_match("blk.2.ffn_down_exps.weight"));
        // `blk\.1\.` does not match layer 11 or 10, nor a zero-padded number.
        assert!(!two.is_match("blk.11.ffn_up_exps.weight"));
        assert!(!two.is_match("blk.10.ffn_up_exps.weight"));
        assert!(!two.is_match("blk.01.ffn_up_exps.weight"));
        assert!(!two.is_match("blk.1.attn_q.weight"));
        let huge = m(OverridePattern::Layers {
            from: 0,
            to: 4095,
            block: FFN_DENSE.into(),
        });
        assert!(huge.is_match("blk.4094.ffn_up.weight"));
        assert!(!huge.is_match("blk.99999999999999999999999.ffn_up.weight"));
        assert!(!huge.is_match("blk.1.ffn_up_exps.weight"));
        // --fit's layers from 3 on: neither 2 nor 5.
        let mid = m(OverridePattern::Layers {
            from: 3,
            to: 5,
            block: FFN_EXPS.into(),
        });
        assert!(!mid.is_match("blk.2.ffn_up_exps.weight"));
        assert!(mid.is_match("blk.3.ffn_up_exps.weight"));
        assert!(mid.is_match("blk.4.ffn_gate_exps.weight"));
        assert!(!mid.is_match("blk.5.ffn_up_exps.weight"));
    }

    #[test]
    fn patterns_are_bounded() {
        assert!(compile(r"(a|b)*exps").is_ok());
        assert!(compile(r"\w{1000}\w{1000}\w{1000}").is_err());
        assert!(compile(r"(?=exps)").is_err());
    }
}
