//! The estimated ledger's runtime-overhead line, from this machine's own probe when one was saved
//! (`gpuledger probe --save`), instead of the recipe's generic figure.

use gpuledger_workloads::estimate::{Backend, Estimate};

/// The saved probe's CUDA context cost and its label (`measured by probe on DATE`), if any.
pub fn probed_context() -> Option<(u64, String)> {
    let path = crate::commands::probe::saved_path(None)?;
    let report = gpuledger_cuda::store::load(&path).ok()?;
    let m = gpuledger_cuda::store::measured_overhead(&report);
    Some((
        m.context_bytes?,
        format!("on {}, {}", m.device_name, m.label),
    ))
}

/// Replace a CUDA estimate's overhead with the saved probe's measured context cost. Returns the
/// label used, or `None` when no probe applies.
pub fn apply_probe(e: &mut Estimate, backend: Backend) -> Option<String> {
    if backend != Backend::Cuda {
        return None;
    }
    let (bytes, label) = probed_context()?;
    e.overhead.gpu_bytes = Some(bytes);
    e.overhead.approximate = false;
    e.overhead.range = None;
    e.overhead.what = format!("CUDA context {label}").into();
    e.total_gpu_bytes = e.total_gpu_bytes_without_overhead + bytes;
    Some(label)
}
