//! A llama.cpp process's recipe inputs: the model its own command line names (followed inside
//! its root), its flags and `LLAMA_ARG_*` environment, and the backend it runs. Ollama and LM
//! Studio build the same inputs with settings of their own.

use crate::estimate::{env_vars, Backend, LlamaSettings, Setting, SettingSource, Tool};
use crate::gguf::GgufModel;
use gpuledger_lang::Said;
use gpuledger_model::{EvidenceKind, Process, Vendor, Workload};
use std::path::{Path, PathBuf};

/// What the recipe needs about the process, read once.
pub struct ProcessInputs {
    pub model_path: PathBuf,
    pub model: GgufModel,
    pub settings: LlamaSettings,
    /// What the runtime adds (Ollama, LM Studio): why sentence, its own figures, unknowns.
    pub notes: crate::runtimes::RuntimeNotes,
}

/// The llama-server recipe's inputs from a llama.cpp process's own command line and
/// `LLAMA_ARG_*` environment (also what Ollama v0.30+ starts).
pub fn llama_server_inputs(
    p: &Process,
    w: &Workload,
    proc_root: &Path,
    vendor: Option<Vendor>,
) -> Result<ProcessInputs, Said> {
    let model = w
        .model
        .clone()
        .ok_or_else(|| Said::new("recipe-err-model-unknown", vec![]))?;
    let mut path = PathBuf::from(&model);
    if path.is_relative() {
        // A relative -m is relative to the server's working directory, not ours.
        if let Ok(cwd) = std::fs::read_link(proc_root.join(p.pid.to_string()).join("cwd")) {
            path = cwd.join(path);
        }
    }
    // The path is the server's own: in a container it names a file under its root, not ours.
    let path = crate::runtimes::hf::in_process_root(proc_root, p.pid, &path);
    let gguf = GgufModel::open(&in_own_root(proc_root, p.pid, &path)?)
        .map_err(crate::runtimes::gguf_unreadable)?;
    let argv = p.cmdline.clone().unwrap_or_default();
    let (mut settings, _) = LlamaSettings::parse_known(argv.get(1..).unwrap_or(&[]))
        .map_err(|e| Said::new("recipe-err-argv", vec![("error", e.into())]))?;
    settings
        .apply_env(&llama_env(proc_root, p.pid))
        .map_err(|e| Said::new("recipe-err-llama-env", vec![("error", e.into())]))?;
    settings.backend = backend_of(w, vendor);
    // The program decides the sequence rules: llama-cli and llama-bench are not servers.
    if let Some(t) = argv.first().and_then(|a| Tool::parse(a)) {
        let source = Said::new(
            "recipe-src-process-program",
            vec![("program", t.program().into())],
        );
        settings.tool = Setting {
            value: t,
            source: SettingSource::Runtime(source),
        };
    }
    Ok(ProcessInputs {
        model_path: path,
        model: gguf,
        settings,
        notes: Default::default(),
    })
}

/// `path` (reached through [`crate::runtimes::hf::in_process_root`]) with its links followed
/// inside the process's own root when that is another than ours (a container): the kernel
/// would follow an absolute link under `/proc/PID/root` from our root, to a file of the host.
fn in_own_root(proc_root: &Path, pid: u32, path: &Path) -> Result<PathBuf, Said> {
    let (root, inner) = crate::confine::ProcessRoot::split(proc_root, pid, path);
    if !root.is_other() {
        return Ok(path.to_path_buf());
    }
    root.reached(&inner)
        .map(|r| r.host)
        .map_err(|e| crate::runtimes::gguf_unreadable(format!("{}: {e}", path.display())))
}

/// llama-server's `LLAMA_ARG_*` settings from the process environment: only the names the recipe
/// reads ([`env_vars`]: the variables of flags that change memory) are kept, so no other
/// variable (a token, a key) leaves the process.
pub(crate) fn llama_env(proc_root: &Path, pid: u32) -> Vec<(String, String)> {
    let names = env_vars();
    gpuledger_sources::environ::named(proc_root, pid, &names).unwrap_or_default()
}

/// Which device buffers llama.cpp uses: the backend library it loaded, else the vendor of the
/// device it was measured on, else llama-server's usual CUDA.
pub(crate) fn backend_of(w: &Workload, vendor: Option<Vendor>) -> Setting<Backend> {
    for (lib, b) in [
        ("libggml-cuda", Backend::Cuda),
        ("libggml-hip", Backend::Rocm),
        ("libggml-vulkan", Backend::Vulkan),
        ("libggml-metal", Backend::Metal),
    ] {
        if w.evidence
            .iter()
            .any(|e| e.kind == EvidenceKind::Library && e.showed.contains(lib))
        {
            let loaded = Said::new("recipe-src-loaded-library", vec![("lib", lib.into())]);
            return Setting::runtime(b, loaded);
        }
    }
    let (backend, key) = match vendor {
        Some(Vendor::Nvidia) => (Backend::Cuda, "recipe-src-measured-nvidia"),
        Some(Vendor::Amd) => (Backend::Rocm, "recipe-src-measured-amd"),
        Some(Vendor::Apple) => (Backend::Metal, "recipe-src-measured-apple"),
        Some(_) => (Backend::Vulkan, "recipe-src-measured-other"),
        None => return LlamaSettings::default().backend,
    };
    Setting::runtime(backend, Said::new(key, vec![]))
}
