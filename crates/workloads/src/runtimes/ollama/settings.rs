//! The llama.cpp context settings of an Ollama llama.cpp runner, each with its source: from
//! the runner's flags (up to v0.11.4) or, for the `/load` request engine, from `ollama serve`'s
//! environment, `/api/ps` and the server's version.

use super::{go_bool, go_flag, parse_version, Engine, PsModel, ENV_NAMES, RECIPE};
use crate::estimate::{FlashAttn, GpuLayers, LlamaSettings, Setting, SettingSource};
use crate::gguf::GgmlType;
use crate::runtimes::{env_get, read_environ, RuntimeNotes};
use gpuledger_lang::Said;
use std::path::Path;

/// What the runner needs beyond the model: `ollama serve`'s environment and where it was read.
#[derive(Debug, Clone, Default)]
pub struct ServeEnv {
    pub vars: Vec<(String, String)>,
    /// `/proc/900/environ (ollama serve, the runner's parent)`.
    pub source: Said,
}

/// `OLLAMA_*` settings from the `ollama serve` parent's environment (the runner inherits the
/// same environment, so its own is the fallback). Only [`ENV_NAMES`] are read.
pub fn serve_env(proc_root: &Path, runner_pid: u32) -> ServeEnv {
    let procs = gpuledger_sources::procfs::ProcReader::new(proc_root);
    if let Some(ppid) = gpuledger_sources::parent_pid(&procs, runner_pid) {
        if let Ok(vars) = read_environ(proc_root, ppid, ENV_NAMES) {
            return ServeEnv {
                vars,
                source: Said::new(
                    "recipe-ollama-env-parent",
                    vec![("pid", ppid.to_string().into())],
                ),
            };
        }
    }
    match read_environ(proc_root, runner_pid, ENV_NAMES) {
        Ok(vars) => ServeEnv {
            vars,
            source: Said::new(
                "recipe-ollama-env-own",
                vec![("pid", runner_pid.to_string().into())],
            ),
        },
        Err(_) => ServeEnv::default(),
    }
}

fn env_src(env: &ServeEnv, var: &str) -> SettingSource {
    SettingSource::Env(Said::new(
        "recipe-ollama-env-in",
        vec![("var", var.into()), ("source", env.source.clone().into())],
    ))
}

/// A sentence of the catalogue with no values, as a setting's source.
fn default(key: &'static str) -> SettingSource {
    SettingSource::Default(Said::new(key, vec![]))
}

/// The catalogue's sentence `key` around a flag, as a setting's source.
fn flag(key: &'static str) -> SettingSource {
    SettingSource::Flag(Said::new(key, vec![]))
}

/// Ollama's boolean environment values (`strconv.ParseBool`).
fn env_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "t" | "true" => Some(true),
        "0" | "f" | "false" => Some(false),
        _ => None,
    }
}

/// The cache type Ollama's runner gives llama.cpp for `OLLAMA_KV_CACHE_TYPE` / `--kv-cache-type`:
/// q8_0 and q4_0, anything else f16.
fn runner_cache_type(v: &str) -> GgmlType {
    let name = match v.trim().to_ascii_lowercase().as_str() {
        "q8_0" => "q8_0",
        "q4_0" => "q4_0",
        _ => "f16",
    };
    GgmlType::from_name(name).expect("in the type table")
}

/// llama.cpp's context settings for an Ollama llama.cpp runner, each with its source, and what
/// the recipe cannot know about it. `ps` is the runner's model in `/api/ps`, when asked.
pub fn settings(
    engine: Engine,
    argv: &[String],
    env: &ServeEnv,
    ps: Option<(&PsModel, &str)>,
    version: Option<&str>,
    n_ctx_train: Option<u64>,
) -> Result<(LlamaSettings, RuntimeNotes), Said> {
    let mut s = LlamaSettings::default();
    let mut notes = RuntimeNotes {
        recipe: Some(RECIPE.to_string()),
        ..Default::default()
    };
    // What Ollama's runner leaves at llama_context_default_params().
    s.kv_unified = match one_unified_cache(argv, version) {
        Some(why) => Setting {
            value: Some(true),
            source: SettingSource::Default(why),
        },
        None => Setting {
            value: Some(false),
            source: default("recipe-ollama-kv-per-slot"),
        },
    };
    if s.kv_unified.value == Some(true) {
        // Every build-dependent rule the recipe knows came later (b7780 on), so any build of
        // that era reads the same.
        s.llama_build = Setting {
            value: Some(OLD_RUNNER_BUILD),
            source: default("recipe-ollama-old-build"),
        };
        notes
            .not_modelled
            .push(Said::new("recipe-ollama-nm-old-compute", vec![]));
    }
    if s.kv_unified.value == Some(false) && engine == Engine::LlamaFlags && version.is_none() {
        notes
            .not_modelled
            .push(Said::new("recipe-ollama-nm-version-unknown", vec![]));
    }
    s.swa_full = Setting {
        value: true,
        source: default("recipe-ollama-swa-full"),
    };
    match engine {
        Engine::OllamaEngine | Engine::Mlx => {
            return Err(no_recipe(engine, argv, ps));
        }
        Engine::LlamaFlags => {
            let cpp = cpp_server(argv, version);
            flag_sizes(argv, cpp, &mut s, &mut notes)?;
            flag_placement(argv, cpp, &mut s, &mut notes)?;
        }
        Engine::LlamaLoadRequest => {
            let load = LoadRequest {
                env,
                ps,
                version,
                n_ctx_train,
            };
            load.sizes(&mut s, &mut notes)?;
            load.placement(&mut s, &mut notes);
        }
    }
    // llama/llama.go `NewContextParams` (the Go runner from v0.4 on, github.com/ollama/ollama):
    // `params.embeddings = C.bool(true)`, so llama_context::output_reserve keeps n_embd floats
    // per output row beside the logits (ollama/ollama#10738: (151936 + 5120) × 4 = 0.60 MiB).
    s.output_embeddings = Setting {
        value: true,
        source: default("recipe-ollama-embeddings"),
    };
    Ok((s, notes))
}

/// A llama.cpp build number older than every build-dependent rule the recipe knows.
const OLD_RUNNER_BUILD: u64 = 4000;

/// Why the runner's llama.cpp keeps one unified KV cache for all slots, when it predates
/// per-slot cache streams (llama.cpp #14363, July 2025): its attention then spans every slot's
/// cells, so the compute buffer grows with num_ctx × slots. `ollama_llama_server` is the runner
/// of v0.4–v0.5 (2024–early 2025); runners up to v0.7 printed one `kv_size = num_ctx × slots`
/// cache (ollama/ollama#9362, #10738); v0.11's printed per-slot streams (#12147).
fn one_unified_cache(argv: &[String], version: Option<&str>) -> Option<Said> {
    let program = argv
        .first()
        .map(|a| a.rsplit(['/', '\\']).next().unwrap_or(a));
    if program == Some("ollama_llama_server") {
        return Some(Said::new("recipe-ollama-unified-old-server", vec![]));
    }
    let v = version.and_then(super::parse_version)?;
    (v < (0, 8, 0)).then(|| {
        Said::new(
            "recipe-ollama-unified-version",
            vec![("version", version.unwrap_or_default().into())],
        )
    })
}

/// Is this Ollama's C++ `ollama_llama_server` (llama.cpp's server example in `llm/ext_server`,
/// up to v0.3.x), which takes `--batch-size` as llama.cpp's n_batch and honours `--memory-f32`?
/// v0.4.0 to v0.5.1 ran the Go runner under the same name with the same flags (`llm/server.go`
/// at v0.3.14 and v0.4.0); from v0.5.2 it is started as `ollama_llama_server runner`. `None`:
/// the same command line, and the server's version (`GET /api/version`) is not known.
fn cpp_server(argv: &[String], version: Option<&str>) -> Option<bool> {
    let program = argv
        .first()
        .map(|a| a.rsplit(['/', '\\']).next().unwrap_or(a));
    if program != Some("ollama_llama_server") || argv.get(1).is_some_and(|a| a == "runner") {
        return Some(false);
    }
    version
        .and_then(super::parse_version)
        .map(|v| v < (0, 4, 0))
}

/// A count llama.cpp accepts (an `int32`), read from `flag`'s value.
fn count(flag: &str, v: &str) -> Result<u64, String> {
    v.trim()
        .parse::<u64>()
        .ok()
        .filter(|&n| n <= i32::MAX as u64)
        .ok_or_else(|| format!("{flag}: {v:?} is not a count llama.cpp accepts"))
}

/// Up to v0.11.4: slots, context and batches from the runner's flags (`--ctx-size` is already
/// num_ctx × slots).
fn flag_sizes(
    argv: &[String],
    cpp: Option<bool>,
    s: &mut LlamaSettings,
    notes: &mut RuntimeNotes,
) -> Result<(), String> {
    let parallel = match go_flag(argv, "parallel") {
        Some(v) => Setting {
            value: count("--parallel", v)?.max(1) as i64,
            source: SettingSource::Flag("--parallel".into()),
        },
        None => Setting {
            value: 1,
            source: default("recipe-ollama-parallel-default"),
        },
    };
    let p = parallel.value as u64;
    s.ctx_size = match go_flag(argv, "ctx-size") {
        Some(v) => Setting {
            value: count("--ctx-size", v)?,
            source: flag("recipe-ollama-ctx-flag"),
        },
        None => Setting {
            value: 2048,
            source: default("recipe-ollama-ctx-default"),
        },
    };
    let (batch, batch_source) = match go_flag(argv, "batch-size") {
        Some(v) => (count("--batch-size", v)?, flag("recipe-ollama-batch-flag")),
        None => (512, default("recipe-ollama-batch-default")),
    };
    s.batch = match cpp {
        Some(false) => Setting {
            value: batch * p,
            source: batch_source,
        },
        Some(true) => Setting {
            value: batch,
            source: flag("recipe-ollama-batch-cpp"),
        },
        None => Setting {
            value: batch * p,
            source: flag("recipe-ollama-batch-unknown"),
        },
    };
    s.ubatch = Setting {
        value: 512,
        source: default("recipe-ollama-ubatch-default"),
    };
    s.parallel = parallel;
    notes.slots = Some(p);
    notes.ctx_per_slot = Some(s.ctx_size.value / p);
    Ok(())
}

/// Up to v0.11.4: flash attention, the cache type, the layers on the GPU and mmap from the
/// runner's flags; a tensor split cuts the layers over the GPUs it lists.
fn flag_placement(
    argv: &[String],
    cpp: Option<bool>,
    s: &mut LlamaSettings,
    notes: &mut RuntimeNotes,
) -> Result<(), String> {
    s.flash_attn = if go_bool(argv, "flash-attn") {
        Setting {
            value: FlashAttn::On,
            source: SettingSource::Flag("--flash-attn".into()),
        }
    } else {
        Setting {
            value: FlashAttn::Off,
            source: default("recipe-ollama-fa-default"),
        }
    };
    // `--memory-f32` (Ollama passed it for the option f16_kv false up to v0.4): an f32 cache in
    // the C++ server; the Go runner accepts and ignores it (`runner.go` at v0.4.0).
    if go_bool(argv, "memory-f32") {
        match cpp {
            Some(true) => {
                let f32 = GgmlType::from_name("f32").expect("in the type table");
                for slot in [&mut s.cache_type_k, &mut s.cache_type_v] {
                    *slot = Setting {
                        value: f32,
                        source: flag("recipe-ollama-memory-f32"),
                    };
                }
            }
            Some(false) => {}
            None => notes
                .not_modelled
                .push(Said::new("recipe-ollama-nm-memory-f32", vec![])),
        }
    }
    if let Some(t) = go_flag(argv, "kv-cache-type") {
        let ty = runner_cache_type(t);
        for slot in [&mut s.cache_type_k, &mut s.cache_type_v] {
            *slot = Setting {
                value: ty,
                source: SettingSource::Flag("--kv-cache-type".into()),
            };
        }
    }
    s.n_gpu_layers = match go_flag(argv, "n-gpu-layers") {
        Some(v) => Setting {
            value: GpuLayers::Count(count("--n-gpu-layers", v)? as u32),
            source: SettingSource::Flag("--n-gpu-layers".into()),
        },
        None => Setting {
            value: GpuLayers::Count(0),
            source: default("recipe-ollama-ngl-default"),
        },
    };
    if go_bool(argv, "no-mmap") {
        s.mmap = Setting {
            value: false,
            source: SettingSource::Flag("--no-mmap".into()),
        };
    }
    if let Some(ts) = go_flag(argv, "tensor-split") {
        // Ollama writes one entry per GPU it chose, the layers each gets
        // (`llm/server.go`: `--tensor-split 8,8,8,8,8,8,7,7`, ollama#10172): the llama.cpp
        // recipe cuts the layers over that many devices by these proportions.
        let split = crate::estimate::devices::parse_tensor_split("--tensor-split", ts)
            .map_err(|e| e.to_string())?;
        s.devices.local = Setting {
            value: split.len() as u32,
            source: flag("recipe-ollama-tensor-split"),
        };
        s.devices.tensor_split = Setting {
            value: split,
            source: SettingSource::Flag("--tensor-split".into()),
        };
    }
    Ok(())
}

/// v0.11.5 to v0.29: the parameters went in the `/load` request; what shows of them is
/// `ollama serve`'s environment, `/api/ps` and the server's version.
struct LoadRequest<'a> {
    env: &'a ServeEnv,
    ps: Option<(&'a PsModel, &'a str)>,
    version: Option<&'a str>,
    n_ctx_train: Option<u64>,
}

impl LoadRequest<'_> {
    /// Slots, context (num_ctx × slots) and batches.
    fn sizes(&self, s: &mut LlamaSettings, notes: &mut RuntimeNotes) -> Result<(), String> {
        let env = self.env;
        let parallel = match env_get(&env.vars, "OLLAMA_NUM_PARALLEL") {
            Some(v) => Setting {
                value: count("OLLAMA_NUM_PARALLEL", v)?.max(1) as i64,
                source: env_src(env, "OLLAMA_NUM_PARALLEL"),
            },
            None => Setting {
                value: 1,
                source: default("recipe-ollama-parallel-unset"),
            },
        };
        let p = parallel.value as u64;
        let (num_ctx, ctx_source) = self.num_ctx(p)?;
        s.ctx_size = Setting {
            // Both are at most i32::MAX (count), so the product fits.
            value: num_ctx * p,
            source: ctx_source,
        };
        let batch = 512.min(num_ctx);
        s.batch = Setting {
            value: batch * p,
            source: default("recipe-ollama-batch-load"),
        };
        s.ubatch = Setting {
            value: batch,
            source: default("recipe-ollama-ubatch-load"),
        };
        s.parallel = parallel;
        notes.slots = Some(p);
        notes.ctx_per_slot = Some(num_ctx);
        Ok(())
    }

    /// num_ctx: what /api/ps says it loaded, else the server's default; capped at the training
    /// context as Ollama caps it. The source names the `p` slots it is multiplied by.
    fn num_ctx(&self, p: u64) -> Result<(u64, SettingSource), String> {
        let env = self.env;
        let (mut num_ctx, ctx_from) =
            match self.ps.and_then(|(m, src)| Some((m.context_length?, src))) {
                // /api/ps is outside input: a context llama.cpp cannot take is an error, not a product
                // that overflows below.
                Some((c, src)) => (
                    count(&format!("context_length from {src}"), &c.to_string())?,
                    Said::new(
                        "recipe-ollama-ctx-ps",
                        vec![("ctx", c.to_string().into()), ("source", src.into())],
                    ),
                ),
                None => match env_get(&env.vars, "OLLAMA_CONTEXT_LENGTH")
                    .map(|v| count("OLLAMA_CONTEXT_LENGTH", v))
                    .transpose()?
                    .filter(|&c| c > 0)
                {
                    Some(c) => (
                        c,
                        Said::new(
                            "recipe-ollama-ctx-env",
                            vec![
                                ("ctx", c.to_string().into()),
                                ("source", env.source.clone().into()),
                            ],
                        ),
                    ),
                    None => (4096, Said::new("recipe-ollama-ctx-assumed", vec![])),
                },
            };
        if let Some(train) = self.n_ctx_train.filter(|&t| t > 0 && num_ctx > t) {
            num_ctx = train; // Ollama caps num_ctx at the training context
        }
        let slots = Said::new(
            "recipe-ollama-ctx-slots",
            vec![("from", ctx_from.into()), ("slots", p.into())],
        );
        let ctx_source = match (
            self.ps.is_some_and(|(m, _)| m.context_length.is_some()),
            env_get(&env.vars, "OLLAMA_CONTEXT_LENGTH").is_some(),
        ) {
            (true, _) => SettingSource::Runtime(slots),
            (false, true) => SettingSource::Env(slots),
            (false, false) => SettingSource::Default(slots),
        };
        Ok((num_ctx, ctx_source))
    }

    /// Flash attention, the cache type (a quantised one only with flash attention forced on),
    /// and the layer placement (not visible: all assumed; a partial offload `/api/ps` shows is
    /// named).
    fn placement(&self, s: &mut LlamaSettings, notes: &mut RuntimeNotes) {
        let env = self.env;
        let fa_env = env_get(&env.vars, "OLLAMA_FLASH_ATTENTION").and_then(env_bool);
        s.flash_attn = self.flash_attn(fa_env);
        if let Some(t) = env_get(&env.vars, "OLLAMA_KV_CACHE_TYPE").filter(|t| !t.is_empty()) {
            let ty = runner_cache_type(t);
            if ty.is_quantized() && fa_env != Some(true) {
                notes.not_modelled.push(Said::new(
                    "recipe-ollama-nm-kv-type-ignored",
                    vec![("type", t.into())],
                ));
            } else {
                for slot in [&mut s.cache_type_k, &mut s.cache_type_v] {
                    *slot = Setting {
                        value: ty,
                        source: env_src(env, "OLLAMA_KV_CACHE_TYPE"),
                    };
                }
            }
        }
        s.n_gpu_layers = Setting {
            value: GpuLayers::All,
            source: default("recipe-ollama-ngl-load"),
        };
        if let Some((m, src)) = self.ps {
            if let (Some(size), Some(vram)) = (m.size, m.size_vram) {
                if vram < size {
                    notes.not_modelled.push(Said::new(
                        "recipe-ollama-nm-partial",
                        vec![
                            ("source", src.into()),
                            ("vram", vram.to_string().into()),
                            ("size", size.to_string().into()),
                        ],
                    ));
                }
            }
        }
    }

    /// `OLLAMA_FLASH_ATTENTION` when set (`fa_env`), else the server version's default.
    fn flash_attn(&self, fa_env: Option<bool>) -> Setting<FlashAttn> {
        let version = self.version;
        match fa_env {
            Some(true) => Setting {
                value: FlashAttn::On,
                source: env_src(self.env, "OLLAMA_FLASH_ATTENTION"),
            },
            Some(false) => Setting {
                value: FlashAttn::Off,
                source: env_src(self.env, "OLLAMA_FLASH_ATTENTION"),
            },
            // Auto since v0.13.4 (PR #13052); before, off unless the variable was set.
            None => match version.and_then(parse_version) {
                Some(v) if v < (0, 13, 4) => Setting {
                    value: FlashAttn::Off,
                    source: SettingSource::Runtime(Said::new(
                        "recipe-ollama-fa-old",
                        vec![("version", version.unwrap_or("?").into())],
                    )),
                },
                Some(_) => Setting {
                    value: FlashAttn::Auto,
                    source: SettingSource::Runtime(Said::new(
                        "recipe-ollama-fa-auto",
                        vec![("version", version.unwrap_or("?").into())],
                    )),
                },
                None => Setting {
                    value: FlashAttn::Auto,
                    source: default("recipe-ollama-fa-unknown"),
                },
            },
        }
    }
}

/// Why an engine has no recipe, in words, with what the command line and `/api/ps` say.
pub(super) fn no_recipe(engine: Engine, argv: &[String], ps: Option<(&PsModel, &str)>) -> Said {
    let what = Said::new(
        match engine {
            Engine::OllamaEngine => "recipe-err-ollama-go",
            _ => "recipe-err-ollama-mlx",
        },
        vec![],
    );
    let mut args = vec![("what", what.into()), ("argv", argv.join(" ").into())];
    let Some((m, src)) = ps else {
        return Said::new("recipe-err-ollama-engine", args);
    };
    let human = gpuledger_model::units::human_opt;
    let context = m.context_length.map(|c| c.to_string());
    args.extend([
        ("source", src.into()),
        ("name", m.name.as_str().into()),
        ("size", human(m.size).into()),
        ("vram", human(m.size_vram).into()),
        ("context", context.unwrap_or_else(|| "n/a".into()).into()),
    ]);
    Said::new("recipe-err-ollama-engine-ps", args)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn flags(line: &str, version: Option<&str>) -> (LlamaSettings, RuntimeNotes) {
        settings(
            Engine::LlamaFlags,
            &args(line),
            &ServeEnv::default(),
            None,
            version,
            None,
        )
        .unwrap()
    }

    /// The command line `llm/server.go` builds at v0.3.14 (the C++ server) and at v0.4.0 (the Go
    /// runner under the same name): only the server's version tells them apart.
    const V03_LINE: &str = "/tmp/ollama1/runners/cuda_v12/ollama_llama_server --model /b --ctx-size 8192 --batch-size 512 --embedding --n-gpu-layers 37 --threads 8 --memory-f32 --parallel 4 --port 1";

    /// The runner command line of ollama#10172 (8 GPUs): the split is the llama.cpp recipe's,
    /// one device per entry, not a note.
    #[test]
    fn a_tensor_split_cuts_the_layers_over_its_gpus() {
        let line = "/usr/local/bin/ollama runner --model /usr/share/ollama/.ollama/models/blobs/sha256-e765360bed4cbcc829a85dcb7e7cfff4fd0461a3210b555bec6bd0d2faf27b75 --ctx-size 2048 --batch-size 512 --n-gpu-layers 66 --verbose --threads 32 --parallel 1 --tensor-split 8,8,8,8,8,8,7,7 --port 44979";
        let (s, _) = flags(line, Some("0.6.5"));
        assert_eq!(s.devices.local.value, 8);
        assert_eq!(
            s.devices.tensor_split.value,
            [8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 7.0, 7.0]
        );
        assert!(s.unmodelled.is_empty(), "{:?}", s.unmodelled);
    }

    #[test]
    fn the_cpp_server_of_v0_3_takes_batch_size_as_n_batch_and_honours_memory_f32() {
        let (s, _) = flags(V03_LINE, Some("0.3.14"));
        assert_eq!(s.batch.value, 512);
        assert_eq!(s.cache_type_k.value, GgmlType::from_name("f32").unwrap());
        assert_eq!(s.cache_type_v.value, GgmlType::from_name("f32").unwrap());
        // v0.4.0's Go runner: n_batch = --batch-size × --parallel, --memory-f32 ignored.
        let (s, _) = flags(V03_LINE, Some("0.4.0"));
        assert_eq!(s.batch.value, 2048);
        assert_eq!(s.cache_type_k.value, GgmlType::from_name("f16").unwrap());
        // Version unknown: the Go runner's reading, and both differences said in words.
        let (s, notes) = flags(V03_LINE, None);
        assert_eq!(s.batch.value, 2048);
        let SettingSource::Flag(src) = &s.batch.source else {
            panic!("{:?}", s.batch.source)
        };
        assert!(src.contains("version is not known"), "{src}");
        assert!(
            notes
                .not_modelled
                .iter()
                .any(|n| n.starts_with("--memory-f32")),
            "{:?}",
            notes.not_modelled
        );
        // `ollama_llama_server runner` (v0.5.2 on) and `ollama runner` are the Go runner.
        let (s, notes) = flags(
            &V03_LINE.replace(
                "ollama_llama_server --model",
                "ollama_llama_server runner --model",
            ),
            None,
        );
        assert_eq!(s.batch.value, 2048);
        assert_eq!(s.cache_type_k.value, GgmlType::from_name("f16").unwrap());
        assert!(!notes.not_modelled.iter().any(|n| n.contains("memory-f32")));
    }
}
