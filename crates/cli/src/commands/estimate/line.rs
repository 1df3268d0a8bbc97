//! The words after `gpuledger estimate`: gpuledger's own options, the model, and llama-server's
//! flags. A whole llama-server command line may be pasted after `--`, or from its program
//! (`llama-server`, or a path to it) on: everything after that is read as llama-server reads it,
//! by the one flag table (`gpuledger_workloads::estimate::FLAGS`), with `NAME=value` assignments
//! in front of the program read as its environment (`LLAMA_ARG_*`).

use gpuledger_lang::Said;
use gpuledger_workloads::estimate::{parse_llama_build, Backend, LlamaSettings, Tool};
use std::path::PathBuf;

/// gpuledger's own options.
pub(super) struct Opts {
    pub log: Option<PathBuf>,
    pub llama_build: Option<u64>,
    pub json: bool,
    pub device: u32,
    /// `--device N` was given (not the default 0): a GPU that is not there is then an error.
    pub device_named: bool,
    pub backend: Option<Backend>,
    /// `--tool cli|server|mtmd|bench` (or a program's name): whose sequence rules apply.
    pub tool: Option<Tool>,
    pub fit_check: bool,
    /// `--gpus N`: local GPUs llama.cpp would use (default 1).
    pub gpus: Option<u32>,
    /// `--free 24GiB,24GiB`: free memory per device, in llama.cpp's device order.
    pub free: Vec<u64>,
}

/// What the words say.
pub(super) struct Line {
    pub opts: Opts,
    /// The model: the first word, else llama-server's `-m`.
    pub model: Option<PathBuf>,
    pub settings: LlamaSettings,
    /// Said on stderr: unknown flags, words that are no flag's, a second model.
    pub warnings: Vec<Said>,
}

/// Read the words; an error is a usage error (a bad value of a flag the recipe reads, or of one of
/// gpuledger's options).
pub(super) fn read(args: &[String]) -> anyhow::Result<Line> {
    let (ours, theirs, after_dashes) = split(args);
    let (opts, rest) = own_options(ours)?;
    let mut env = Vec::new();
    let mut words = rest.into_iter().peekable();
    while let Some(a) = words.next_if(|a| is_assignment(a)) {
        env.push(a);
    }
    let mut model = words.next_if(|a| !a.starts_with('-'));
    let mut flags: Vec<String> = words.collect();
    if let Some(theirs) = theirs {
        let mut theirs = theirs.iter().peekable();
        while let Some(a) = theirs.next_if(|a| is_assignment(a)) {
            env.push(a.clone());
        }
        if after_dashes {
            // The program's name (any name: a fork, a wrapper) when a word comes first.
            theirs.next_if(|a| !a.starts_with('-'));
        }
        flags.extend(theirs.cloned());
    }
    let (mut settings, stray) = LlamaSettings::parse_known(&flags).map_err(anyhow::Error::new)?;
    if let Some(t) = program_tool(args, after_dashes) {
        let source = Said::new(
            "recipe-src-line-program",
            vec![("program", t.program().into())],
        );
        settings.tool = gpuledger_workloads::estimate::Setting {
            value: t,
            source: gpuledger_workloads::estimate::SettingSource::Runtime(source),
        };
    }
    let mut warnings = Vec::new();
    let (llama_env, other_env): (Vec<_>, Vec<_>) = env
        .iter()
        .filter_map(|a| a.split_once('='))
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .partition(|(n, _)| n.starts_with("LLAMA_ARG_"));
    settings.apply_env(&llama_env).map_err(anyhow::Error::new)?;
    // A first word that is no GGUF file while -m names the model is the program's name.
    if model.as_deref().is_some_and(|m| !m.ends_with(".gguf")) && settings.model.is_some() {
        model = None;
    }
    if let (Some(word), Some(m)) = (&model, &settings.model) {
        if word != m {
            warnings.push(Said::new(
                "cli-warn-model-not-read",
                vec![("m", m.as_str().into()), ("word", word.as_str().into())],
            ));
        }
    }
    if !settings.unknown.is_empty() {
        warnings.push(Said::new(
            "cli-warn-not-flags",
            vec![("flags", settings.unknown.join(", ").into())],
        ));
    }
    if !stray.is_empty() {
        warnings.push(Said::new(
            "cli-warn-ignored",
            vec![("words", stray.join(" ").into())],
        ));
    }
    if !other_env.is_empty() {
        let names: Vec<&str> = other_env.iter().map(|(n, _)| n.as_str()).collect();
        warnings.push(Said::new(
            "cli-warn-env-not-read",
            vec![("names", names.join(", ").into())],
        ));
    }
    let model = model.or_else(|| settings.model.clone()).map(PathBuf::from);
    Ok(Line {
        opts,
        model,
        settings,
        warnings,
    })
}

/// gpuledger's part and llama-server's part: split at `--`, else at the program's name; whether
/// it was `--`.
fn split(args: &[String]) -> (&[String], Option<&[String]>, bool) {
    if let Some(i) = args.iter().position(|a| a == "--") {
        return (&args[..i], Some(&args[i + 1..]), true);
    }
    match args.iter().position(|a| is_program(a)) {
        Some(i) => (&args[..i], Some(&args[i + 1..]), false),
        None => (args, None, false),
    }
}

/// `llama-server`, `./build/bin/llama-cli`, `D:\llama\llama-server.exe`: a llama.cpp tool.
fn is_program(a: &str) -> bool {
    let name = a
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(a)
        .to_ascii_lowercase();
    !a.starts_with('-') && name.starts_with("llama-") && Tool::parse(&name).is_some()
}

/// The program a pasted command line starts with (`llama-cli ...`, or any first word after
/// `--`), when it is a llama.cpp tool.
fn program_tool(args: &[String], after_dashes: bool) -> Option<Tool> {
    let word = if after_dashes {
        let i = args.iter().position(|a| a == "--")?;
        args[i + 1..].iter().find(|a| !is_assignment(a))?
    } else {
        args.iter().find(|a| is_program(a))?
    };
    Tool::parse(word)
}

/// `NAME=value` in front of a command (`CUDA_VISIBLE_DEVICES=0`, `LLAMA_ARG_CTX_SIZE=8192`).
fn is_assignment(a: &str) -> bool {
    a.split_once('=').is_some_and(|(n, _)| {
        n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Take gpuledger's own options out; the rest is the model and llama-server's flags.
/// `--device` is gpuledger's when its value is a GPU index; a device name (`CUDA0,CUDA1`) is
/// llama-server's own `--device`.
fn own_options(flags: &[String]) -> anyhow::Result<(Opts, Vec<String>)> {
    let mut o = Opts {
        log: None,
        llama_build: None,
        json: false,
        device: 0,
        device_named: false,
        backend: None,
        tool: None,
        fit_check: true,
        gpus: None,
        free: Vec::new(),
    };
    let mut rest = Vec::new();
    let mut it = flags.iter().peekable();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => o.json = true,
            "--no-fit-check" => o.fit_check = false,
            "--log" => {
                o.log = Some(PathBuf::from(needs(
                    it.next(),
                    "--log",
                    "cli-err-needs-file",
                )?))
            }
            "--device"
                if it
                    .peek()
                    .is_some_and(|v| !v.starts_with(|c: char| c.is_ascii_digit())) =>
            {
                rest.push(a.clone());
            }
            "--device" => {
                let v = needs(it.next(), "--device", "cli-err-needs-gpu-index")?;
                o.device = v
                    .parse()
                    .map_err(|_| refused("--device", v, "cli-err-not-gpu-index"))?;
                o.device_named = true;
            }
            "--llama-build" => {
                let v = needs(it.next(), "--llama-build", "cli-err-needs-build")?;
                o.llama_build = Some(
                    parse_llama_build(v)
                        .ok_or_else(|| refused("--llama-build", v, "cli-err-not-build"))?,
                );
            }
            "--backend" => {
                let v = needs(it.next(), "--backend", "cli-err-needs-backend")?;
                o.backend = Some(
                    Backend::parse(v)
                        .ok_or_else(|| refused("--backend", v, "cli-err-not-backend"))?,
                );
            }
            "--tool" => o.tool = Some(tool_option(it.next())?),
            "--gpus" => {
                let v = needs(it.next(), "--gpus", "cli-err-needs-gpus")?;
                o.gpus = Some(
                    v.parse()
                        .ok()
                        .filter(|&n| n <= 16)
                        .ok_or_else(|| refused("--gpus", v, "cli-err-not-gpus"))?,
                );
            }
            "--free" => {
                let v = needs(it.next(), "--free", "cli-err-needs-free")?;
                o.free = v
                    .split(',')
                    .map(|x| gpuledger_model::units::parse_bytes(x.trim()))
                    .collect::<Result<_, _>>()
                    .map_err(|e| crate::flags::option_error("--free", e))?;
            }
            _ => rest.push(a.clone()),
        }
    }
    Ok((o, rest))
}

/// `--tool`'s value: a tool's short name or a llama.cpp program's.
fn tool_option(v: Option<&String>) -> anyhow::Result<Tool> {
    let v = needs(v, "--tool", "cli-err-needs-tool")?;
    Tool::parse(v).ok_or_else(|| refused("--tool", v, "cli-err-not-tool"))
}

/// The value after `option`, or the error `key` saying what it needs.
fn needs<'a>(v: Option<&'a String>, option: &str, key: &'static str) -> anyhow::Result<&'a String> {
    v.ok_or_else(|| crate::failed::failed(key, vec![("option", option.into())]))
}

/// `option`'s value `v` refused: `key` says what it is not.
fn refused(option: &str, v: &str, key: &'static str) -> anyhow::Error {
    let why = gpuledger_lang::said::Said::new(key, vec![("value", format!("{v:?}").into())]);
    crate::flags::option_error(option, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn a_pasted_command_line_after_dashes_or_from_the_program_on() {
        for line in [
            "--json -- CUDA_VISIBLE_DEVICES=0 ./bin/llama-server -m x.gguf --device CUDA0 -c 512",
            "--json CUDA_VISIBLE_DEVICES=0 ./bin/llama-server -m x.gguf --device CUDA0 -c 512",
            "--json -- my-fork -m x.gguf --device CUDA0 -c 512",
        ] {
            let l = read(&words(line)).unwrap();
            assert!(l.opts.json, "{line}");
            assert_eq!(
                l.opts.device, 0,
                "{line}: --device after the program is llama-server's"
            );
            assert_eq!(l.model, Some(PathBuf::from("x.gguf")), "{line}");
            assert_eq!(l.settings.ctx_size.value, 512, "{line}");
            assert_eq!(l.settings.unmodelled, ["--device CUDA0"], "{line}");
        }
        let l = read(&words("-- llama-server -m x.gguf")).unwrap();
        assert_eq!(l.model, Some(PathBuf::from("x.gguf")));
    }

    #[test]
    fn the_tool_from_the_option_or_the_pasted_program() {
        let l = read(&words("m.gguf --tool cli -c 512")).unwrap();
        assert_eq!(l.opts.tool, Some(Tool::Cli));
        for (line, tool) in [
            ("-- /opt/llama/llama-bench -m x.gguf", Tool::Bench),
            ("llama-mtmd-cli -m x.gguf -c 512", Tool::Mtmd),
            ("-- llama-server -m x.gguf", Tool::Server),
        ] {
            let l = read(&words(line)).unwrap();
            assert_eq!(l.settings.tool.value, tool, "{line}");
            assert_eq!(l.model, Some(PathBuf::from("x.gguf")), "{line}");
        }
        assert!(read(&words("m.gguf --tool kobold")).is_err());
    }

    #[test]
    fn the_model_word_first_then_flags_and_our_options_mixed() {
        let l = read(&words(
            "m.gguf -c 4096 --device 1 --host 0.0.0.0 --frobnicate x",
        ))
        .unwrap();
        assert_eq!(l.model, Some(PathBuf::from("m.gguf")));
        assert_eq!(l.opts.device, 1);
        assert_eq!(l.settings.no_effect, ["--host"]);
        assert_eq!(
            l.warnings,
            ["not llama-server flags, ignored: --frobnicate"]
        );
        // No model word: -m names it; a second one is said.
        let l = read(&words("-m a.gguf -c 1")).unwrap();
        assert_eq!(l.model, Some(PathBuf::from("a.gguf")));
        let l = read(&words("b.gguf -- llama-server -m a.gguf")).unwrap();
        assert_eq!(l.model, Some(PathBuf::from("b.gguf")));
        assert!(l.warnings[0].contains("-m a.gguf"), "{:?}", l.warnings);
        assert_eq!(read(&words("-c 1")).unwrap().model, None);
    }

    #[test]
    fn llama_arg_assignments_are_read_as_the_servers_environment() {
        let l = read(&words(
            "-- LLAMA_ARG_CTX_SIZE=8192 LLAMA_ARG_N_PARALLEL=2 HF_TOKEN=hf_x llama-server -m x.gguf -np 1",
        ))
        .unwrap();
        assert_eq!(l.settings.ctx_size.value, 8192);
        assert_eq!(l.settings.parallel.value, 1, "the flag wins");
        assert_eq!(l.warnings, [Said::from("environment not read: HF_TOKEN")]);
        assert!(read(&words("-- LLAMA_ARG_CTX_SIZE=lots llama-server -m x.gguf")).is_err());
    }
}
