//! The estimated ledger's runtime-overhead line, from this machine's own probe when one was saved
//! (`gpuledger probe --save`), instead of the recipe's generic figure.

use gpuledger_lang::Said;
use gpuledger_workloads::estimate::{Backend, Estimate};

/// The saved probe's CUDA context cost and the overhead line's sentence, if any.
pub fn probed_context() -> Option<(u64, Said)> {
    let path = crate::commands::probe::saved_path(None)?;
    let report = gpuledger_cuda::store::load(&path).ok()?;
    let m = gpuledger_cuda::store::measured_overhead(&report);
    Some((m.context_bytes?, m.said()))
}

/// Replace a CUDA estimate's overhead with the saved probe's measured context cost. Returns the
/// label used, or `None` when no probe applies.
pub fn apply_probe(e: &mut Estimate, backend: Backend) -> Option<Said> {
    if backend != Backend::Cuda {
        return None;
    }
    let (bytes, label) = probed_context()?;
    e.overhead.gpu_bytes = Some(bytes);
    e.overhead.approximate = false;
    e.overhead.range = None;
    e.overhead.what = label.clone();
    e.total_gpu_bytes = e.total_gpu_bytes_without_overhead + bytes;
    Some(label)
}
