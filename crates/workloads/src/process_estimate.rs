//! The estimated ledger for a running process: the recipe run on the model the process has loaded
//! and the settings on its own command line and environment. Shared by `explain` (which adds the
//! server's live answers and the runtime's log) and the collection-time annotator (which caches it).

use crate::estimate::{estimate, Backend, Estimate, LlamaSettings, Setting};
use crate::gguf::GgufModel;
use gpuledger_model::{EstimatedMemory, EvidenceKind, Process, Vendor, Workload, WorkloadKind};
use std::path::{Path, PathBuf};

/// What the recipe needs about the process, read once.
pub struct ProcessInputs {
    pub model_path: PathBuf,
    pub model: GgufModel,
    pub settings: LlamaSettings,
}

/// Gather the model and settings of a llama.cpp process. `vendor` is the vendor of the device the
/// process was measured on, if any. Errors say, in words, which link is missing.
pub fn inputs_for(
    p: &Process,
    w: &Workload,
    proc_root: &Path,
    vendor: Option<Vendor>,
) -> Result<ProcessInputs, String> {
    if w.kind != WorkloadKind::LlamaCpp {
        return Err(format!(
            "no memory recipe for {} yet (llama.cpp only)",
            w.kind.label()
        ));
    }
    let model = w
        .model
        .clone()
        .ok_or("the model file is not known (see the missing links)")?;
    let mut path = PathBuf::from(&model);
    if path.is_relative() {
        // A relative -m is relative to the server's working directory, not ours.
        if let Ok(cwd) = std::fs::read_link(proc_root.join(p.pid.to_string()).join("cwd")) {
            path = cwd.join(path);
        }
    }
    let gguf =
        GgufModel::open(&path).map_err(|e| format!("cannot read the model's GGUF header: {e}"))?;
    let argv = p.cmdline.clone().unwrap_or_default();
    let (mut settings, _) = LlamaSettings::parse_known(argv.get(1..).unwrap_or(&[]))
        .map_err(|e| format!("cannot read the server's settings from its command line: {e}"))?;
    settings
        .apply_env(&llama_env(proc_root, p.pid))
        .map_err(|e| format!("cannot read the server's LLAMA_ARG_* settings: {e}"))?;
    settings.backend = backend_of(w, vendor);
    Ok(ProcessInputs {
        model_path: path,
        model: gguf,
        settings,
    })
}

/// llama-server's `LLAMA_ARG_*` settings from the process environment. Only those names are kept,
/// and never one that could hold a secret.
fn llama_env(proc_root: &Path, pid: u32) -> Vec<(String, String)> {
    let Ok(raw) = std::fs::read(proc_root.join(pid.to_string()).join("environ")) else {
        return Vec::new();
    };
    raw.split(|&b| b == 0)
        .filter_map(|kv| std::str::from_utf8(kv).ok()?.split_once('='))
        .filter(|(k, _)| k.starts_with("LLAMA_ARG_") && !k.contains("KEY") && !k.contains("TOKEN"))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Which device buffers llama.cpp uses: the backend library it loaded, else the vendor of the
/// device it was measured on, else llama-server's usual CUDA.
fn backend_of(w: &Workload, vendor: Option<Vendor>) -> Setting<Backend> {
    for (lib, b) in [
        ("libggml-cuda", Backend::Cuda),
        ("libggml-hip", Backend::Cuda),
        ("libggml-vulkan", Backend::Vulkan),
        ("libggml-metal", Backend::Metal),
    ] {
        if w.evidence
            .iter()
            .any(|e| e.kind == EvidenceKind::Library && e.showed.contains(lib))
        {
            return Setting::runtime(b, &format!("loaded {lib}"));
        }
    }
    match vendor {
        Some(Vendor::Nvidia | Vendor::Amd) => {
            Setting::runtime(Backend::Cuda, "measured on an NVIDIA/AMD device")
        }
        Some(Vendor::Apple) => Setting::runtime(Backend::Metal, "measured on an Apple GPU"),
        Some(_) => Setting::runtime(Backend::Vulkan, "measured on an Intel/other GPU"),
        None => LlamaSettings::default().backend,
    }
}

/// Run the recipe for `inputs`.
pub fn estimate_inputs(i: &ProcessInputs) -> Result<Estimate, String> {
    estimate(&i.model, &i.settings).map_err(|e| format!("no estimate for this model: {e}"))
}

/// The compact form a snapshot carries.
pub fn summary(e: &Estimate) -> EstimatedMemory {
    EstimatedMemory {
        recipe: e.recipe.to_string(),
        model: e.model.path.clone(),
        n_ctx: Some(e.context.n_ctx),
        weights_gpu_bytes: e.weights.gpu_bytes,
        kv_cache_gpu_bytes: Some(e.kv_cache.gpu_bytes),
        compute_gpu_bytes: Some(e.compute.gpu_bytes),
        compute_label: None,
        overhead_gpu_bytes: e.overhead.gpu_bytes,
        overhead_source: e.overhead.what.clone(),
        total_gpu_bytes: e.total_gpu_bytes,
        why: None,
        reported: Vec::new(),
        not_modelled: Vec::new(),
    }
}

/// The estimate for a runtime with its own recipe in [`crate::runtimes`] (vLLM, SGLang, PyTorch,
/// ComfyUI); `None` for other kinds. `device_total` is the measured size of the process's GPU;
/// `overhead` this machine's probed CUDA context. No HTTP: `explain` adds the server's answers.
pub fn runtime_estimate(
    p: &Process,
    w: &Workload,
    proc_root: &Path,
    device_total: Option<u64>,
    overhead: Option<(u64, String)>,
) -> Option<Result<crate::runtimes::RuntimeEstimate, String>> {
    if !crate::runtimes::covers(w.kind) {
        return None;
    }
    let mut ctx = crate::runtimes::ProcessContext::read(p, w.kind, proc_root, device_total);
    ctx.overhead = overhead;
    crate::runtimes::estimate_for(&ctx, w)
}
