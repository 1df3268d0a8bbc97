//! A process's environment as shown (the live view's `v`): values only for names known to be
//! safe and useful for "why this much GPU memory" (paths, locale, the GPU runtimes' settings),
//! each value still passed through the detector; every other value is hidden and says so. An
//! environment holds secrets under any name at all (`SESSION`, `MY_JWT`, `GITHUB_PAT`), so no
//! list of bad names is enough.

use super::names::{strength, Strength};

/// What stands in for the value of a name not on the safe list.
pub const HIDDEN_ENV: &str = "<hidden: not on the safe list>";

/// Names whose values are shown (through the detector).
const SAFE_NAMES: &[&str] = &[
    "PATH",
    "HOME",
    "PWD",
    "OLDPWD",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "COLORTERM",
    "LANG",
    "LANGUAGE",
    "TZ",
    "HOSTNAME",
    "SHLVL",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "TMPDIR",
    "TMP",
    "TEMP",
    "container",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "LIBRARY_PATH",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_HIP_ALLOC_CONF",
    "PYTORCH_ALLOC_CONF",
    "PYTORCH_NVML_BASED_CUDA_CHECK",
    "TORCH_HOME",
    "TORCH_CUDA_ARCH_LIST",
    "TORCHINDUCTOR_CACHE_DIR",
    "TRITON_CACHE_DIR",
    "HF_HOME",
    "HF_HUB_CACHE",
    "HF_HUB_OFFLINE",
    "HF_HUB_ENABLE_HF_TRANSFER",
    "HF_DATASETS_CACHE",
    "TRANSFORMERS_CACHE",
    "TRANSFORMERS_OFFLINE",
    "TOKENIZERS_PARALLELISM",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MASTER_ADDR",
    "MASTER_PORT",
    "WORLD_SIZE",
    "RANK",
    "LOCAL_RANK",
    "LOCAL_WORLD_SIZE",
    "ROCM_PATH",
    "GPU_DEVICE_ORDINAL",
    "ZE_AFFINITY_MASK",
    "ONEAPI_DEVICE_SELECTOR",
];

/// Families of names whose values are shown unless the name itself looks like a credential's
/// (`OLLAMA_HOST` yes, `LLAMA_ARG_API_KEY` and `VLLM_API_KEY` no).
const SAFE_PREFIXES: &[&str] = &[
    "LC_",
    "CUDA_",
    "NVIDIA_",
    "OLLAMA_",
    "LLAMA_ARG_",
    "GGML_",
    "VLLM_",
    "SGLANG_",
    "NCCL_",
    "HIP_",
    "HSA_",
    "ROCR_",
    "SLURM_",
    "XDG_",
];

/// Whether the value of variable `name` may be shown (still through the detector).
pub fn is_safe_env_name(name: &str) -> bool {
    // Windows keeps each drive's working directory as `=C:`: a path, as `PWD` is.
    let drive_dir = name.len() == 3
        && name.starts_with('=')
        && name.ends_with(':')
        && name.as_bytes()[1].is_ascii_alphabetic();
    drive_dir
        || SAFE_NAMES.contains(&name)
        || (SAFE_PREFIXES
            .iter()
            .any(|p| name.starts_with(p) && name.len() > p.len())
            && strength(name) == Strength::None)
}

/// One environment variable as it may be shown: `NAME=value` through the detector for a safe
/// name, `NAME=<hidden: not on the safe list>` for any other; the name itself goes through the
/// detector too (an environment may hold anything).
pub fn redact_env_var(name: &str, value: &str) -> String {
    let shown = super::redact_text(name);
    if is_safe_env_name(name) {
        format!("{shown}={}", super::redact_text(value))
    } else {
        format!("{shown}={HIDDEN_ENV}")
    }
}
