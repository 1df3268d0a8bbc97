//! The estimated ledger's runtime-overhead line, from this machine's own probe when one was saved
//! (`gpuledger probe --save`), instead of the recipe's generic figure.

use gpuledger_workloads::estimate::{Backend, Estimate};

/// Replace a CUDA estimate's overhead with the saved probe's measured context cost, labelled with
/// the probe's date. Returns what was used, or `None` when no probe applies.
pub fn apply_probe(e: &mut Estimate, backend: Backend) -> Option<String> {
    if backend != Backend::Cuda {
        return None;
    }
    let path = crate::commands::probe::saved_path(None)?;
    let report = gpuledger_probe::store::load(&path).ok()?;
    let m = gpuledger_probe::store::measured_overhead(&report);
    let bytes = m.context_bytes?;
    e.overhead.gpu_bytes = Some(bytes);
    e.overhead.approximate = false;
    e.overhead.range = None;
    e.overhead.what = format!("CUDA context on {}, {}", m.device_name, m.label);
    e.total_gpu_bytes = e.total_gpu_bytes_without_overhead + bytes;
    Some(m.label)
}
