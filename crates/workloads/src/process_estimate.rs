//! The estimated ledger for a running process: the recipe run on the model the process has loaded
//! and the settings on its own command line and environment. Shared by `explain` (which adds the
//! server's live answers and the runtime's log) and the collection-time annotator (which caches it).

use crate::estimate::{estimate, Estimate};
pub use crate::runtimes::llamacpp::{llama_server_inputs, ProcessInputs};
use crate::runtimes::Asked;
use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;
use gpuledger_model::{EstimatedMemory, NoEstimate, Process, Vendor, Workload};
use gpuledger_sources::procfs::ProcReader;
use std::path::Path;

/// Gather the model and settings of a llama.cpp process. `vendor` is the vendor of the device the
/// process was measured on, if any. Errors say, in words, which link is missing.
pub fn inputs_for(
    p: &Process,
    w: &Workload,
    proc_root: &Path,
    vendor: Option<Vendor>,
) -> Result<ProcessInputs, Said> {
    llama_inputs(p, w, proc_root, vendor).unwrap_or_else(|| Err(no_llama_recipe(w)))
}

/// [`inputs_for`] for the collection path: `None` (no error to format on every refresh) for a
/// process the llama.cpp recipe does not cover.
pub fn llama_inputs(
    p: &Process,
    w: &Workload,
    proc_root: &Path,
    vendor: Option<Vendor>,
) -> Option<Result<ProcessInputs, Said>> {
    crate::runtimes::inputs_for(p, w, proc_root, vendor, &Default::default())
}

/// Why a process has no llama.cpp inputs: vLLM, SGLang, PyTorch and ComfyUI have their own
/// recipes ([`runtime_estimate`]); other kinds none.
fn no_llama_recipe(w: &Workload) -> Said {
    let kind = vec![("kind", w.kind.said().into())];
    if crate::runtimes::covers(w.kind) {
        Said::new("recipe-err-not-llama", kind)
    } else {
        Said::new("recipe-err-no-recipe", kind)
    }
}

/// llama-server's `--fit` (on by default) chose an unset `-c`/`-ngl` at load for the memory free
/// then. For a running server on one device that is taken as the device's free memory now plus
/// what the server itself holds there (other processes assumed unchanged since): the fitted
/// settings replace the unset ones, and the returned note says which inputs were used. The
/// replay is bounded and remembered (`fit_cached`): collection never waits on a crafted model.
pub fn replay_fit_at_load(
    i: &mut ProcessInputs,
    free_now: Option<u64>,
    own: Option<u64>,
) -> Option<Said> {
    replay_fit_at_load_by(i, free_now, own, crate::estimate::fit_cached)
}

/// [`replay_fit_at_load`] with the replay given (tests bound it tighter).
fn replay_fit_at_load_by(
    i: &mut ProcessInputs,
    free_now: Option<u64>,
    own: Option<u64>,
    fit: impl Fn(
        &crate::gguf::GgufModel,
        &crate::LlamaSettings,
    ) -> Result<crate::estimate::Fitting, crate::estimate::EstimateError>,
) -> Option<Said> {
    use crate::estimate::{devices::devices, Fitting, Setting};
    use gpuledger_model::llama_estimate::FitOutcome;
    // The free memory known is one GPU's: the carrier is filled only for a server on one.
    if devices(&i.settings).len() != 1 {
        return None;
    }
    let (free_now, own) = (free_now?, own?);
    let mut s = i.settings.clone();
    s.devices.free = Setting::runtime(
        vec![free_now.saturating_add(own)],
        Said::new("recipe-src-free-plus-own", vec![]),
    );
    let Fitting::Replayed(f) = fit(&i.model, &s).ok()? else {
        return None;
    };
    let r = &f.replay;
    let changed = f.settings.ctx_size != s.ctx_size
        || f.settings.n_gpu_layers != s.n_gpu_layers
        || f.settings.overrides != s.overrides;
    if let (FitOutcome::Stopped(why), false) = (&r.outcome, changed) {
        // Stopped before it changed anything: the settings stay as given, and the reader is
        // told that --fit may have changed them, not left to think it would not.
        let free = gpuledger_model::units::human_bytes(free_now.saturating_add(own));
        return Some(Said::new(
            "recipe-note-fit-not-replayed",
            vec![("free", free.into()), ("why", why.clone().into())],
        ));
    }
    if r.outcome == FitOutcome::Unchanged || !changed {
        return None;
    }
    use gpuledger_model::units::human_bytes;
    let outcome = Said::new(r.outcome.key(), vec![]);
    let mut args = vec![
        ("free", human_bytes(free_now).into()),
        ("own", human_bytes(own).into()),
        ("flags", r.flags.join(" ").into()),
        ("outcome", outcome.into()),
    ];
    let key = match r.outcome.reason() {
        Some(why) => {
            args.push(("why", why.into()));
            "recipe-note-fit-replayed-why"
        }
        None => "recipe-note-fit-replayed",
    };
    let note = Said::new(key, args);
    i.settings = f.settings;
    Some(note)
}

/// Run the recipe for `inputs`.
pub fn estimate_inputs(i: &ProcessInputs) -> Result<Estimate, Said> {
    estimate(&i.model, &i.settings)
        .map_err(|e| Said::new("recipe-err-no-estimate", vec![("why", e.said().into())]))
}

/// The compact form a snapshot carries. Over several devices the GPU figures are this process's
/// own devices' (an RPC device's part is held by its `rpc-server`, whose estimate it becomes).
pub fn summary(e: &Estimate) -> EstimatedMemory {
    let local: Vec<_> = e.devices.iter().filter(|d| d.endpoint.is_none()).collect();
    let (weights, kv, compute) = if e.devices.is_empty() {
        (
            e.weights.gpu_bytes,
            e.kv_cache.gpu_bytes,
            e.compute.gpu_bytes,
        )
    } else {
        local.iter().fold((0u64, 0u64, 0u64), |(w, k, c), d| {
            (w + d.weights_bytes, k + d.kv_bytes, c + d.compute_bytes)
        })
    };
    let overhead = e
        .overhead
        .gpu_bytes
        .filter(|_| e.devices.is_empty() || !local.is_empty());
    EstimatedMemory {
        recipe: e.recipe.to_string(),
        model: e.model.path.clone(),
        n_ctx: Some(e.context.n_ctx),
        weights_gpu_bytes: weights,
        kv_cache_gpu_bytes: Some(kv),
        compute_gpu_bytes: Some(compute),
        compute_exact: !e.compute.approximate,
        compute_label: None,
        overhead_gpu_bytes: overhead,
        overhead_included: false,
        overhead_source: e.overhead.what.clone(),
        total_gpu_bytes: weights + kv + compute + overhead.unwrap_or(0),
        why: Some(why_llama(e)),
        reported: Vec::new(),
        // What the recipe filled in with a generic rule (an unknown architecture, a memory
        // module it does not size): said beside the process, not only in `estimate`.
        not_modelled: e.guesses.iter().map(|g| g.as_str().into()).collect(),
        device_shares: e.devices.clone(),
    }
}

/// An RPC device's part of a llama.cpp estimate, as the estimate of the `rpc-server` process
/// that serves it (`root` is the llama-server's pid).
pub fn rpc_share(
    root: u32,
    of: &EstimatedMemory,
    d: &gpuledger_model::llama_estimate::DeviceShare,
) -> EstimatedMemory {
    let total = d.weights_bytes + d.kv_bytes + d.compute_bytes;
    EstimatedMemory {
        recipe: of.recipe.clone(),
        model: of.model.clone(),
        n_ctx: of.n_ctx,
        weights_gpu_bytes: d.weights_bytes,
        kv_cache_gpu_bytes: Some(d.kv_bytes),
        compute_gpu_bytes: Some(d.compute_bytes),
        compute_exact: of.compute_exact,
        compute_label: None,
        overhead_gpu_bytes: None,
        overhead_included: false,
        overhead_source: Said::new("recipe-overhead-rpc", vec![]),
        total_gpu_bytes: total,
        why: Some(Said::new(
            if d.output_layer {
                "recipe-why-rpc-output"
            } else {
                "recipe-why-rpc"
            },
            vec![
                ("device", d.name.as_str().into()),
                ("pid", root.to_string().into()),
                ("layers", d.layers.to_string().into()),
            ],
        )),
        reported: Vec::new(),
        not_modelled: vec![Said::new("recipe-nm-rpc-backend", vec![])],
        device_shares: Vec::new(),
    }
}

/// "Why this much" for a llama.cpp server, from the estimate's own parts: where the weights are,
/// how many tokens the KV cache holds and in which types, the compute buffers.
fn why_llama(e: &Estimate) -> Said {
    use gpuledger_model::units::human_bytes;
    let name = e
        .model
        .path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(&e.model.path);
    let c = &e.context;
    let kv = &e.kv_cache;
    let slots: Arg = if c.n_seq_max == 1 {
        "".into()
    } else {
        let key = if c.kv_unified {
            "recipe-why-slots-shared"
        } else {
            "recipe-why-slots-each"
        };
        Said::new(key, vec![("slots", c.n_seq_max.into())]).into()
    };
    // Approximate figures carry a tilde, as in `explain`'s ledger.
    let tilde = if e.compute.approximate { "~" } else { "" };
    Said::new(
        "recipe-why-llama",
        vec![
            ("model", name.into()),
            ("weights", human_bytes(e.weights.gpu_bytes).into()),
            ("gpu_layers", e.weights.gpu_layers.to_string().into()),
            ("layers", e.weights.n_layer.to_string().into()),
            ("kv", human_bytes(kv.gpu_bytes).into()),
            ("tokens", c.n_ctx_seq.to_string().into()),
            ("slots", slots),
            ("type_k", kv.type_k.to_string().into()),
            ("type_v", kv.type_v.to_string().into()),
            (
                "compute",
                format!("{tilde}{}", human_bytes(e.compute.gpu_bytes)).into(),
            ),
        ],
    )
}

/// The compact form, with what the runtime adds (recipe name, why, its own figures, unknowns).
pub fn summary_for(i: &ProcessInputs, e: &Estimate) -> EstimatedMemory {
    let mut m = summary(e);
    i.notes.apply(e, &mut m);
    m
}

/// The estimate for a runtime with its own recipe in [`crate::runtimes`] (vLLM, SGLang, PyTorch,
/// ComfyUI); `None` for other kinds. `device`: the process's GPU (its measured size and CUDA
/// compute capability);
/// `overhead` this machine's probed CUDA context; `round` the collection round's budget for
/// model headers (it records the models skipped); `ask`: the loopback requests of this round,
/// when the server's own answers are to be asked (else flags and files only).
pub fn runtime_estimate(
    p: &Process,
    w: &Workload,
    procs: &gpuledger_sources::procfs::ProcReader,
    device: Option<&Dev>,
    overhead: Option<(u64, Said)>,
    round: Option<&crate::safetensors::Round>,
    ask: Option<&crate::live::Asker>,
) -> Option<Result<crate::runtimes::RuntimeEstimate, Said>> {
    if !crate::runtimes::covers(w.kind) {
        return None;
    }
    let mut ctx = crate::runtimes::ProcessContext::read(p, w.kind, procs, device.and_then(|d| d.2));
    ctx.device_capability = device.and_then(|d| d.4);
    ctx.overhead = overhead;
    ctx.round = round;
    let Some(asker) = ask else {
        return crate::runtimes::estimate_for(&ctx, w);
    };
    let fetch = |port: u16, path: &str| asker.get(port, path);
    let ports = ctx.api_ports(&p.listen_ports, procs);
    if !ports.is_empty() {
        ctx.fetch = Some((&ports, &fetch));
    }
    crate::runtimes::estimate_for(&ctx, w)
}

/// The estimate for a process, or why there is none; `None` when no recipe applies.
pub type Outcome = Option<Result<EstimatedMemory, NoEstimate>>;

/// A device as the collection path needs it: id, vendor, total and free memory, and its CUDA
/// compute capability (which kernels a runtime picks).
pub type Dev = (
    String,
    Vendor,
    Option<u64>,
    Option<u64>,
    Option<gpuledger_model::snapshot::ComputeCapability>,
);

/// The estimate for `p`, or why there is none (with what its runtime reported meanwhile);
/// `None` when no recipe applies to its kind. The recipe reads only the GGUF header (about a
/// millisecond), once per refresh. Each kind has at most one recipe: llama.cpp's, else a
/// runtime's (vLLM, SGLang, PyTorch: headers only, cached, within the `round`'s budget), else
/// none. `ask`: ask the runtime's API on loopback through this round's requests (never on the
/// collection thread unless the command asked for it inline).
pub fn estimate_process(
    p: &gpuledger_model::Process,
    workload: &Workload,
    procs: &ProcReader,
    device: Option<&Dev>,
    round: &crate::safetensors::Round,
    overhead: Option<(u64, Said)>,
    ask: Option<&crate::live::Asker>,
) -> Outcome {
    let vendor = device.map(|(_, v, ..)| *v);
    let asked = ask.map_or(Asked::Nothing, |a| {
        crate::runtimes::ask(p, workload, procs.root(), a.timeout)
    });
    let without = |why: Said| NoEstimate {
        why,
        reported: crate::runtimes::reported(p, workload, procs.root(), &asked),
    };
    match crate::runtimes::inputs_for(p, workload, procs.root(), vendor, &asked) {
        Some(inputs) => Some(
            inputs
                .map(|mut i| {
                    // One device: what the server holds there is all it holds.
                    let own = (p.usage.len() == 1)
                        .then(|| p.usage[0].memory_bytes)
                        .flatten();
                    i.notes.placement = replay_fit_at_load(&mut i, device.and_then(|d| d.3), own);
                    i
                })
                .and_then(|i| estimate_inputs(&i).map(|e| (i, e)))
                .map(|(i, mut e)| {
                    if let Some((bytes, label)) = &overhead {
                        // The settings' backend, the key the estimate's `backend` input words.
                        if i.settings.backend.value == crate::estimate::Backend::Cuda {
                            e.overhead.gpu_bytes = Some(*bytes);
                            e.overhead.what = label.clone();
                            e.total_gpu_bytes = e.total_gpu_bytes_without_overhead + bytes;
                        }
                    }
                    summary_for(&i, &e)
                })
                .map_err(without),
        ),
        None => runtime_estimate(p, workload, procs, device, overhead, Some(round), ask)
            .map(|r| r.map(|r| r.summary).map_err(without)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::LlamaSettings;
    use crate::gguf::writer::GgufWriter;
    use crate::gguf::MetaValue;
    use crate::runtimes::llamacpp::llama_env;
    use gpuledger_model::Confidence;
    use gpuledger_model::WorkloadKind;
    use std::path::PathBuf;

    fn workload(kind: WorkloadKind, model: &str) -> Workload {
        Workload {
            kind,
            model: Some(model.into()),
            model_name: None,
            confidence: Confidence::High,
            evidence: Vec::new(),
            missing: Vec::new(),
            member: None,
        }
    }

    /// Why a runtime's process has no llama.cpp estimate names its kind in the reader's words:
    /// `Ollama runner` is a word, `vLLM` a product's name kept as written.
    #[test]
    fn no_recipe_names_the_kind_in_the_readers_language() {
        use gpuledger_lang::Lang;
        let runner = no_llama_recipe(&workload(WorkloadKind::OllamaRunner, "m"));
        assert_eq!(runner, *"no memory recipe for Ollama runner yet");
        let cn = runner.in_lang(Lang::ZhCn);
        assert!(cn.contains("还没有 Ollama 运行器 的"), "{cn}");
        assert!(!cn.contains("runner"), "{cn}");
        let vllm = no_llama_recipe(&workload(WorkloadKind::Vllm, "m")).in_lang(Lang::ZhTw);
        assert!(
            vllm.starts_with("不是 llama.cpp 處理程序：vLLM 的估算"),
            "{vllm}"
        );
    }

    /// A fake `/proc` with process 4242 whose own root holds `/models/m.gguf`, and its environment.
    fn proc_root(name: &str, environ: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("gl-pe-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        let models = d.join("4242/root/models");
        std::fs::create_dir_all(&models).unwrap();
        let mut w = GgufWriter::new();
        w.kv("general.architecture", MetaValue::String("llama".into()));
        w.write(&models.join("m.gguf")).unwrap();
        std::fs::write(d.join("4242/environ"), environ).unwrap();
        d
    }

    #[test]
    fn runtimes_with_their_own_recipe_are_not_told_llama_cpp_only() {
        let p = Process::new(4242);
        let root = Path::new("/nonexistent");
        let w = workload(WorkloadKind::Vllm, "/models/x");
        assert!(llama_inputs(&p, &w, root, None).is_none());
        let err = inputs_for(&p, &w, root, None).err().unwrap();
        assert!(err.starts_with("not a llama.cpp process"), "{err}");
        assert!(!err.contains("llama.cpp only"), "{err}");
        let w = workload(WorkloadKind::Unknown, "/models/x");
        assert!(llama_inputs(&p, &w, root, None).is_none());
        let err = inputs_for(&p, &w, root, None).err().unwrap();
        assert!(err.starts_with("no memory recipe for"), "{err}");
    }

    #[test]
    fn a_containerised_llama_server_model_is_read_through_its_root() {
        let d = proc_root("root", "");
        let mut p = Process::new(4242);
        p.cmdline = Some(vec![
            "llama-server".into(),
            "-m".into(),
            "/models/m.gguf".into(),
        ]);
        let w = workload(WorkloadKind::LlamaCpp, "/models/m.gguf");
        let i = inputs_for(&p, &w, &d, None).unwrap();
        assert_eq!(i.model_path, d.join("4242/root/models/m.gguf"));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_containers_absolute_model_link_is_not_followed_on_the_host() {
        // Inside the container /models/m.gguf -> /host-only/m.gguf names nothing; followed from
        // the host (through /proc/PID/root, then our root) it would name the host's file.
        let d = proc_root("link", "");
        let host = d.join("host-only");
        std::fs::create_dir_all(&host).unwrap();
        std::fs::rename(d.join("4242/root/models/m.gguf"), host.join("m.gguf")).unwrap();
        std::os::unix::fs::symlink(host.join("m.gguf"), d.join("4242/root/models/m.gguf")).unwrap();
        let mut p = Process::new(4242);
        p.cmdline = Some(vec![
            "llama-server".into(),
            "-m".into(),
            "/models/m.gguf".into(),
        ]);
        let w = workload(WorkloadKind::LlamaCpp, "/models/m.gguf");
        let r = inputs_for(&p, &w, &d, None);
        std::fs::remove_dir_all(&d).unwrap();
        let e = r.err().expect("the host's file was read");
        assert!(e.contains("m.gguf"), "{e}");
    }

    #[test]
    fn only_the_llama_arg_names_the_recipe_reads_are_kept() {
        let d = proc_root(
            "env",
            "LLAMA_ARG_CTX_SIZE=8192\0LLAMA_ARG_HF_REPO=org/private\0LLAMA_ARG_API_KEY=s\0HOME=/\0",
        );
        let env = llama_env(&d, 4242);
        // The variables of flags that change memory; never a key, never anything else.
        assert_eq!(
            env,
            vec![
                ("LLAMA_ARG_CTX_SIZE".into(), "8192".into()),
                ("LLAMA_ARG_HF_REPO".into(), "org/private".into())
            ]
        );
        // A flag the recipe does not model is named, its value not kept.
        let mut s = LlamaSettings::default();
        s.apply_env(&env).unwrap();
        assert_eq!(s.ctx_size.value, 8192);
        assert_eq!(s.unmodelled, ["LLAMA_ARG_HF_REPO (environment)"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// A llama with 32 layers of 64 MiB (F16 4096 x 8192), for the fit replay.
    fn fit_inputs(args: &str) -> ProcessInputs {
        use crate::gguf::GgmlType;
        let d = std::env::temp_dir().join(format!("gl-fit-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let path = d.join("fit.gguf");
        let f16 = GgmlType::from_name("F16").unwrap();
        let mut w = GgufWriter::new();
        w.kv("general.architecture", MetaValue::String("llama".into()));
        for (k, v) in [
            ("block_count", 32),
            ("context_length", 32768),
            ("embedding_length", 4096),
            ("attention.head_count", 32),
            ("attention.head_count_kv", 8),
            ("vocab_size", 32000),
        ] {
            w.kv(&format!("llama.{k}"), MetaValue::U32(v));
        }
        w.tensor("token_embd.weight", &[4096, 32000], f16);
        for il in 0..32 {
            w.tensor(&format!("blk.{il}.attn_norm.weight"), &[4096], f16);
            w.tensor(&format!("blk.{il}.ffn_up.weight"), &[4096, 8192], f16);
        }
        w.tensor("output_norm.weight", &[4096], f16);
        w.tensor("output.weight", &[4096, 32000], f16);
        w.write(&path).unwrap();
        let argv: Vec<String> = args.split_whitespace().map(String::from).collect();
        let mut settings = LlamaSettings::from_args(&argv).unwrap();
        settings.backend =
            crate::estimate::Setting::runtime(crate::estimate::Backend::Cuda, "test");
        ProcessInputs {
            model_path: path.clone(),
            model: crate::gguf::GgufModel::open(&path).unwrap(),
            settings,
            notes: Default::default(),
        }
    }

    #[test]
    fn a_running_server_with_fit_defaults_is_estimated_as_fitted_at_load() {
        use crate::estimate::GpuLayers;
        const GIB: u64 = 1 << 30;
        // 32 x 64 MiB of layers plus 500 MiB of output on a GPU that had 1.5 GiB free at load
        // (0.5 GiB free now, the server holds 1 GiB): fewer layers, -c 8192 as given.
        let mut i = fit_inputs("-c 8192 -np 1");
        let note = replay_fit_at_load(&mut i, Some(GIB / 2), Some(GIB)).unwrap();
        let GpuLayers::Count(n) = i.settings.n_gpu_layers.value else {
            panic!("{:?}", i.settings.n_gpu_layers);
        };
        assert!(n < 33 && n > 0, "{n}");
        assert!(
            note.contains("free now (512 MiB)") && note.contains("own (1 GiB)"),
            "{note}"
        );
        assert!(note.contains(&format!("-c 8192 -ngl {n}")), "{note}");
        let e = estimate_inputs(&i).unwrap();
        assert!(
            e.total_gpu_bytes_without_overhead <= GIB / 2,
            "{}",
            e.total_gpu_bytes
        );
        // Everything fits: nothing to say, nothing changed.
        let mut i = fit_inputs("-c 8192 -np 1");
        assert!(replay_fit_at_load(&mut i, Some(40 * GIB), Some(GIB)).is_none());
        assert_eq!(i.settings.n_gpu_layers.value, GpuLayers::Auto);
        // -ngl and -c given, or --fit off: llama.cpp fitted nothing.
        for args in ["-c 8192 -ngl 99", "-c 8192 --fit off"] {
            let mut i = fit_inputs(args);
            assert!(
                replay_fit_at_load(&mut i, Some(GIB / 2), Some(GIB)).is_none(),
                "{args}"
            );
        }
        // Free memory not known: no replay.
        let mut i = fit_inputs("-c 8192");
        assert!(replay_fit_at_load(&mut i, None, Some(GIB)).is_none());
    }

    /// A replay stopped by its budget before it changed anything is said, not passed over as
    /// "everything fits" (a crafted deep model on the collection path).
    #[test]
    fn a_replay_stopped_by_its_budget_is_said() {
        use crate::estimate::{fit_within, Budget, GpuLayers};
        const GIB: u64 = 1 << 30;
        let mut i = fit_inputs("-c 8192 -np 1");
        let one = Budget {
            projections: 1,
            deadline: None,
        };
        let note = replay_fit_at_load_by(&mut i, Some(GIB / 2), Some(GIB), |m, s| {
            fit_within(m, s, &one)
        })
        .expect("a note");
        assert!(
            note.contains("was not replayed to the end for the memory free at load (1.50 GiB)")
                && note.contains("stopped after 1 memory projections")
                && note.contains("may have lowered"),
            "{note}"
        );
        assert_eq!(i.settings.n_gpu_layers.value, GpuLayers::Auto);
    }
}
