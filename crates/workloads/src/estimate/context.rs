//! The settings the recipe resolves before sizing anything, as llama-server does: the context
//! (`llama_context`'s constructor and the server's defaults), the layer placement (`-ngl`) and
//! the llama.cpp build's rules; each input recorded with its source, and the settings llama.cpp
//! refuses turned into errors with its wording.

use gpuledger_lang::Said;

use super::devices::Device;
use super::overrides::Placed;
use super::settings::SplitMode;
use super::{
    pad, place_of, EstimateError, FlashAttn, GgufModel, GpuLayers, Input, InputSource,
    LlamaSettings, ModelParams, Place, Rules, Setting, SettingSource, TensorInfo,
    TensorOverrideEstimate, Tool,
};

/// The inputs and notes of an estimate, in the order they are met.
pub(super) struct Record {
    pub(super) inputs: Vec<Input>,
    pub(super) notes: Vec<Said>,
}

impl Record {
    pub(super) fn add(&mut self, name: &str, value: String, source: InputSource) {
        self.add_said(name, value.into(), source)
    }

    /// An input whose value is a sentence each view says in its language.
    pub(super) fn add_said(&mut self, name: &str, value: Said, source: InputSource) {
        self.inputs.push(Input {
            name: name.into(),
            value,
            source,
        })
    }

    /// A setting under `name`, its source read from the setting (`flag` names it when defaulted).
    pub(super) fn setting<T>(&mut self, name: &str, s: &Setting<T>, flag: &str, value: String) {
        self.add(name, value, src_of(s, flag))
    }

    /// An input whose source is a setting's source.
    pub(super) fn setting_source(&mut self, name: &str, value: String, source: &SettingSource) {
        self.add(name, value, input_source(source, name))
    }

    /// A note: a sentence with a key, or words not given one yet (said as written).
    pub(super) fn note(&mut self, note: impl Into<Said>) {
        self.notes.push(note.into())
    }

    /// A flag recorded under its own name.
    fn flag<T: ToString>(&mut self, flag: &str, s: &Setting<T>) {
        self.setting(flag, s, flag, s.value.to_string())
    }
}

fn src_of<T>(s: &Setting<T>, flagname: &str) -> InputSource {
    input_source(&s.source, flagname)
}

fn input_source(source: &SettingSource, flagname: &str) -> InputSource {
    match source {
        SettingSource::Flag(f) => InputSource::Flag { flag: f.clone() },
        SettingSource::Env(v) => InputSource::Env { var: v.clone() },
        SettingSource::Runtime(d) => InputSource::Runtime { detail: d.clone() },
        SettingSource::Default(d) => InputSource::Default {
            detail: Said::new(
                "recipe-not-given",
                vec![("flag", flagname.into()), ("default", d.clone().into())],
            ),
        },
    }
}

/// The resolved context (llama_context's constructor in llama-context.cpp; llama-server's
/// defaults from common/common.h `common_params` and tools/server/server.cpp `main`).
pub(super) struct Resolved {
    pub(super) n_ctx: u64,
    pub(super) n_ctx_seq: u64,
    pub(super) n_seq: u64,
    pub(super) unified: bool,
    pub(super) n_batch: u64,
    pub(super) n_ubatch: u64,
    pub(super) fa: bool,
}

/// Resolve the context settings: sizes, sequences, micro-batch, flash attention, cache types.
pub(super) fn resolve_context(
    p: &ModelParams,
    s: &LlamaSettings,
    rec: &mut Record,
) -> Result<Resolved, EstimateError> {
    rec.flag("-c", &s.ctx_size);
    let mut c = context_size(p, s, rec);
    let (n_seq, mut unified) = if s.tool.value == Tool::Server {
        sequences(s, rec)
    } else {
        tool_sequences(s, rec)
    };
    let rules = Rules::for_build(s.llama_build.value);
    if s.ctx_size.value == 0 && !unified && n_seq > 1 && rules.ctx_train_per_seq {
        c = c.saturating_mul(n_seq);
        rec.note(Said::new(
            "recipe-note-ctx0-per-slot",
            vec![
                ("slots", n_seq.into()),
                ("train", p.n_ctx_train.to_string().into()),
                ("n_ctx", c.to_string().into()),
            ],
        ));
    }
    if !unified && !rules.kv_set_rows {
        // llama_context before rule kv-write-idxs: "non-unified KV cache requires
        // ggml_set_rows() - forcing unified KV cache".
        unified = true;
        rec.note(Said::new("recipe-note-kv-unified-forced", vec![]));
    }
    check_sizes(c, n_seq, s)?;
    // Flash attention is read before the cache exists (its padding depends on it).
    let fa = flash_attn(s, rec) && !grok_forces_fa_off(p, s, rec);
    if fa && p.arch == "plm" {
        // models/plm.cpp hands build_attn a 2-D V; llama_kv_cache::cpy_v's flash-attention
        // path flattens it wrongly and ggml_set_rows asserts (seen with b11434).
        rec.note(Said::new("recipe-note-plm-fa-abort", vec![]));
    }
    let (n_ctx, n_ctx_seq) = context_cells(c, n_seq, unified, fa, s);
    let n_batch = c.min(s.batch.value);
    let n_ubatch = n_batch.min(if s.ubatch.value == 0 {
        n_batch
    } else {
        s.ubatch.value
    });
    rec.flag("-b", &s.batch);
    rec.flag("-ub", &s.ubatch);
    cache_types(p, s, rec)?;
    rec.notes.extend(super::flags::notes(s));
    Ok(Resolved {
        n_ctx,
        n_ctx_seq,
        n_seq,
        unified,
        n_batch,
        n_ubatch,
        fa,
    })
}

/// The context's cells and the cells per stream, padded as the build pads them.
/// `fa`: flash attention on or auto (llama_context reads -fa before the cache exists: auto
/// counts as on there).
fn context_cells(c: u64, n_seq: u64, unified: bool, fa: bool, s: &LlamaSettings) -> (u64, u64) {
    let rules = Rules::for_build(s.llama_build.value);
    let p = rules.kv_pad(fa);
    if rules.kv_pad_256 {
        // llama_context's constructor: n_ctx, then n_ctx_seq, each padded to 256.
        let n_ctx = pad(c, p);
        if unified {
            return (n_ctx, n_ctx);
        }
        let n_ctx_seq = pad(n_ctx / n_seq, p);
        return (n_ctx_seq * n_seq, n_ctx_seq);
    }
    // Before PR #17046: llama_model::create_memory sizes each stream as
    // GGML_PAD(ceil(n_ctx / n_seq), n_pad) (n_pad = 1 after PR #16812).
    if unified {
        let n_ctx = pad(c, p);
        return (n_ctx, n_ctx);
    }
    // PR #16736 moved the split into llama_context: n_ctx / n_seq, rounded down.
    let per = if rules.server_unified_slots {
        c / n_seq
    } else {
        c.div_ceil(n_seq)
    };
    let n_ctx_seq = pad(per, p);
    (n_ctx_seq * n_seq, n_ctx_seq)
}

/// The context asked for: `-c`, its 0 = the training context, and llama-bench's own sum when
/// no `-c` is given (tools/llama-bench: `cparams.n_ctx = n_prompt + n_gen + n_depth`).
fn context_size(p: &ModelParams, s: &LlamaSettings, rec: &mut Record) -> u64 {
    let prog = s.tool.value.program();
    rec.setting("tool", &s.tool, "--tool", prog.into());
    if s.tool.value == Tool::Bench && matches!(s.ctx_size.source, SettingSource::Default(_)) {
        let detail = "llama-bench's default test: -p 512 + -n 128 + -d 0 (give -c for another \
                      n_prompt + n_gen + n_depth)"
            .into();
        rec.add(
            "n_ctx (llama-bench)",
            "640".into(),
            InputSource::Default { detail },
        );
        return 640;
    }
    if s.tool.value == Tool::Mtmd {
        rec.note(Said::new("recipe-note-mtmd-projector", vec![]));
    }
    if s.ctx_size.value == 0 {
        p.n_ctx_train
    } else {
        s.ctx_size.value
    }
}

/// A one-sequence tool's sequences: `-np` as given, else 1 (common_params' `n_parallel`; the
/// auto slots are llama-server's), one shared cache only with `-kvu`; none of llama-server's
/// slot rules (older servers' "-np 1 became 4 unified slots" included).
fn tool_sequences(s: &LlamaSettings, rec: &mut Record) -> (u64, bool) {
    let prog = s.tool.value.program();
    let n = s.parallel.value.max(1) as u64;
    let n_src = match &s.parallel.source {
        SettingSource::Default(_) => InputSource::Default {
            detail: Said::new("recipe-tool-one-sequence", vec![("tool", prog.into())]),
        },
        _ => src_of(&s.parallel, "-np"),
    };
    rec.add("-np", n.to_string(), n_src);
    let u = s.kv_unified.value.unwrap_or(false);
    let u_src = match &s.kv_unified.source {
        SettingSource::Default(_) => InputSource::Default {
            detail: Said::new("recipe-tool-not-unified", vec![("tool", prog.into())]),
        },
        _ => src_of(&s.kv_unified, "-kvu"),
    };
    rec.add("kv_unified", u.to_string(), u_src);
    (n, u)
}

/// Sequences (`-np`) and whether they share one cache (`-kvu`).
fn sequences(s: &LlamaSettings, rec: &mut Record) -> (u64, bool) {
    let rules = Rules::for_build(s.llama_build.value);
    let (n_seq, unified, why) = if s.parallel.value < 0 && rules.np_auto {
        // llama-server: "n_parallel is set to auto, using n_parallel = 4 and kv_unified = true";
        // an explicit -no-kvu keeps the per-slot caches.
        let u = s.kv_unified.value.unwrap_or(true);
        (4, u, "recipe-unified-np-auto")
    } else {
        // Before -np auto (rule np-auto) the default was 1 slot.
        let n = s.parallel.value.max(1) as u64;
        if n == 1
            && rules.server_unified_slots
            && !rules.np_auto
            && s.kv_unified.value != Some(true)
        {
            rec.notes.push(Said::new("recipe-np-1-became-4", vec![]));
            (4, true, "recipe-unified-np-1-became-4")
        } else {
            let u = s.kv_unified.value.unwrap_or(false);
            let why = if s.parallel.value < 0 {
                "recipe-one-slot-no-np-auto"
            } else {
                "recipe-per-slot-caches"
            };
            (n, u, why)
        }
    };
    rec.flag("-np", &s.parallel);
    rec.add(
        "kv_unified",
        unified.to_string(),
        match &s.kv_unified.source {
            SettingSource::Default(_) => InputSource::Default {
                detail: Said::new(why, vec![]),
            },
            _ => src_of(&s.kv_unified, "-kvu"),
        },
    );
    (n_seq, unified)
}

/// The sizes llama.cpp refuses before allocating anything.
fn check_sizes(c: u64, n_seq: u64, s: &LlamaSettings) -> Result<(), EstimateError> {
    // llama_context refuses more sequences than LLAMA_MAX_SEQ (256 since PR #15916).
    if n_seq > 256 {
        return Err(EstimateError::Settings(Said::new(
            "recipe-err-refuses-n-seq",
            vec![("n", n_seq.to_string().into())],
        )));
    }
    // llama.cpp keeps n_ctx in 32 bits; a context that does not fit is not a setting it can run.
    if c > i32::MAX as u64 || s.batch.value > i32::MAX as u64 || s.ubatch.value > i32::MAX as u64 {
        return Err(EstimateError::Settings(Said::new(
            "recipe-err-ctx-32bit",
            vec![
                ("c", c.to_string().into()),
                ("batch", s.batch.value.to_string().into()),
                ("ubatch", s.ubatch.value.to_string().into()),
                ("max", i32::MAX.to_string().into()),
            ],
        )));
    }
    Ok(())
}

/// `-fa`: auto resolves to enabled (every layer's KV sits with its layer).
fn flash_attn(s: &LlamaSettings, rec: &mut Record) -> bool {
    let default = matches!(s.flash_attn.source, SettingSource::Default(_));
    if default && !Rules::for_build(s.llama_build.value).fa_auto {
        rec.add(
            "flash_attn",
            "disabled".into(),
            InputSource::Default {
                detail: Said::new("recipe-fa-off-old-build", vec![]),
            },
        );
        return false;
    }
    let fa = match s.flash_attn.value {
        FlashAttn::On => true,
        FlashAttn::Off => false,
        FlashAttn::Auto => true,
    };
    let value = format!("{:?}", s.flash_attn.value).to_lowercase();
    rec.setting("-fa", &s.flash_attn, "-fa", value);
    if s.flash_attn.value == FlashAttn::Auto {
        rec.add(
            "flash_attn",
            "enabled".into(),
            InputSource::Assumed {
                why: Said::new("recipe-fa-auto-enabled", vec![]),
            },
        );
    }
    fa
}

/// llama_init_from_model (llama-context.cpp): "flash_attn is not compatible with Grok - forcing
/// off", whatever -fa says.
fn grok_forces_fa_off(p: &ModelParams, s: &LlamaSettings, rec: &mut Record) -> bool {
    if p.arch != "grok" || s.flash_attn.value == FlashAttn::Off {
        return false;
    }
    rec.note(Said::new("recipe-note-grok-fa-off", vec![]));
    true
}

/// The cache types (`-ctk`, `-ctv`) and the combinations llama.cpp refuses at context creation
/// (same wording as its error lines).
fn cache_types(p: &ModelParams, s: &LlamaSettings, rec: &mut Record) -> Result<(), EstimateError> {
    let type_k = s.cache_type_k.value;
    let type_v = s.cache_type_v.value;
    rec.setting("-ctk", &s.cache_type_k, "-ctk", type_k.lower_name());
    rec.setting("-ctv", &s.cache_type_v, "-ctv", type_v.lower_name());
    if type_v.is_quantized() && p.arch == "grok" {
        return Err(EstimateError::Settings(Said::new(
            "recipe-err-refuses-qv-grok",
            vec![("type", type_v.lower_name().into())],
        )));
    }
    if type_v.is_quantized() && s.flash_attn.value == FlashAttn::Off {
        return Err(EstimateError::Settings(Said::new(
            "recipe-err-refuses-qv-fa-off",
            vec![("type", type_v.lower_name().into())],
        )));
    }
    if p.is_mla && type_k != type_v {
        return Err(EstimateError::Settings(Said::new(
            "recipe-err-refuses-mla-types",
            vec![
                ("k", type_k.lower_name().into()),
                ("v", type_v.lower_name().into()),
            ],
        )));
    }
    Ok(())
}

/// Which layers `-ngl` puts on the GPU, and which tensors the buffer-type overrides place
/// whatever their layer.
pub(super) struct Offload {
    pub(super) output_on_gpu: bool,
    /// Repeating layers on the GPU: the last `gpu_layers` of them.
    pub(super) gpu_layers: u32,
    first_gpu_layer: u32,
    pub(super) overrides: Placed,
    /// What each override placed (for the weights line).
    pub(super) effects: Vec<TensorOverrideEstimate>,
    /// The devices, in llama.cpp's order.
    pub(super) devices: Vec<Device>,
    /// The device of each repeating layer and (last) of the output layer; `None`: the host.
    pub(super) layer_dev: Vec<Option<u8>>,
    /// llama_context's conditions for pipeline parallelism hold (several devices, every layer
    /// offloaded, -sm layer, KV with its layers, no buffer-type overrides); whether the devices
    /// support it is the build's rule.
    pub(super) pipeline: bool,
}

impl Offload {
    pub(super) fn layer_on_gpu(&self, il: u32) -> bool {
        il >= self.first_gpu_layer && self.gpu_layers > 0
    }

    /// The device of repeating layer `il` (`n_layer`: the output layer); `None`: the host.
    pub(super) fn layer_device(&self, il: u32) -> Option<u8> {
        self.layer_dev.get(il as usize).copied().flatten()
    }

    /// The device a tensor on the GPU is on: its layer's (the input layer's and an overridden
    /// tensor's: the device the override names, else the first device).
    pub(super) fn tensor_device(&self, t: &TensorInfo) -> u8 {
        let layer = match place_of(t) {
            Place::Input => None,
            Place::Layer(il) => self.layer_device(il),
            Place::Output => self.layer_device(self.layer_dev.len().saturating_sub(1) as u32),
        };
        self.overrides
            .device(&t.name, &self.devices)
            .or(layer)
            .unwrap_or(0)
    }

    /// Where a tensor's weights are: its layer's place (the input layer on the host), unless an
    /// override placed it.
    pub(super) fn tensor_on_gpu(&self, t: &TensorInfo) -> bool {
        let layer = match place_of(t) {
            Place::Input => false,
            Place::Layer(il) => self.layer_on_gpu(il),
            Place::Output => self.output_on_gpu,
        };
        self.overrides.on_gpu(&t.name, layer)
    }

    /// The device of the output layer's copy of a tied `token_embd` (when on a device).
    pub(super) fn tied_copy_device(&self) -> u8 {
        self.overrides
            .device("token_embd.weight", &self.devices)
            .or(self.layer_device(self.layer_dev.len().saturating_sub(1) as u32))
            .unwrap_or(0)
    }

    /// Where the output layer's copy of a tied `token_embd` is (overrides match its name too).
    pub(super) fn tied_copy_on_gpu(&self) -> bool {
        self.overrides
            .on_gpu("token_embd.weight", self.output_on_gpu)
    }
}

/// The layer placement (`--backend`, `-ngl`) and the buffer-type overrides.
pub(super) fn placement(
    model: &GgufModel,
    p: &ModelParams,
    s: &LlamaSettings,
    rec: &mut Record,
) -> Result<Offload, EstimateError> {
    let nl = p.n_layer;
    let backend = s.backend.value;
    let value = format!("{backend:?}").to_lowercase();
    rec.setting("backend", &s.backend, "--backend", value);
    let value = match s.n_gpu_layers.value {
        GpuLayers::Auto => "auto".into(),
        GpuLayers::All => "all".into(),
        GpuLayers::Count(n) => n.to_string(),
    };
    rec.setting("-ngl", &s.n_gpu_layers, "-ngl", value);
    let devices = super::devices::devices(s);
    let offloaded = if devices.is_empty() {
        0
    } else {
        match s.n_gpu_layers.value {
            GpuLayers::Count(n) => n.min(nl + 1),
            GpuLayers::All => nl + 1,
            GpuLayers::Auto => {
                rec.notes.push(Said::new("recipe-ngl-auto-all-fit", vec![]));
                nl + 1
            }
        }
    };
    // Current llama.cpp counts the output layer first: -ngl 1 offloads only the output layer,
    // -ngl N the output layer and the last N-1 repeating layers (observed on build 7e4c0a9).
    let gpu_layers = offloaded.saturating_sub(1).min(nl);
    let (overrides, effects) = super::overrides::place(model, s, rec)?;
    let (cum, note) = super::devices::splits(&s.devices, devices.len());
    rec.notes.extend(note);
    let layer_dev = super::devices::assign_layers(nl, offloaded, &cum);
    record_devices(s, &devices, rec);
    let pipeline = devices.len() > 1
        && offloaded > nl
        && s.devices.split_mode.value == SplitMode::Layer
        && s.kv_offload.value
        && s.overrides.is_empty();
    Ok(Offload {
        output_on_gpu: offloaded >= 1,
        gpu_layers,
        first_gpu_layer: nl - gpu_layers,
        overrides,
        effects,
        devices,
        layer_dev,
        pipeline,
    })
}

/// The device settings as inputs, when more than one device or a chosen one is in play.
fn record_devices(s: &LlamaSettings, devices: &[Device], rec: &mut Record) {
    let d = &s.devices;
    if devices.len() <= 1 && d.rpc.is_default() && d.split_mode.is_default() {
        return;
    }
    let names: Vec<&str> = devices.iter().map(|d| d.name.as_str()).collect();
    rec.add(
        "devices",
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        },
        InputSource::Derived {
            rule: Said::new("recipe-rule-device-order", vec![]),
        },
    );
    let ts: Vec<String> = d.tensor_split.value.iter().map(|x| x.to_string()).collect();
    rec.setting("-ts", &d.tensor_split, "-ts", ts.join(","));
    rec.setting(
        "-sm",
        &d.split_mode,
        "-sm",
        format!("{:?}", d.split_mode.value).to_lowercase(),
    );
}

/// The llama.cpp build whose rules apply (`--llama-build`, or the newest).
pub(super) fn build_rules(s: &LlamaSettings, rec: &mut Record) -> Rules {
    let build = s.llama_build.value;
    rec.add_said(
        "llama build",
        build.map_or_else(
            || Said::new("recipe-value-newest-rules", vec![]),
            |b| format!("b{b}").into(),
        ),
        match &s.llama_build.source {
            // A runtime's own assumption (Ollama's old runners) says why in its own words.
            SettingSource::Default(why) if build.is_some() => {
                InputSource::Assumed { why: why.clone() }
            }
            SettingSource::Default(_) => InputSource::Assumed {
                why: Said::new("recipe-build-unknown", vec![]),
            },
            _ => src_of(&s.llama_build, "--llama-build"),
        },
    );
    Rules::for_build(build)
}
