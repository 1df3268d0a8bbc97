//! The estimated ledger's families: computed by a recipe, never summed with a measured one.

use super::family::{bytes, Family, Val};
use super::labels::ProcessLabels;
use super::ESTIMATED_METRICS;
use gpuledger_model::{EstimatedMemory, Process};

/// The estimated ledger: its own families, never summed with the measured one. The parts
/// family holds only the parts, so that summing it never counts the total as well; the total
/// and whether it is a floor are families of their own.
pub(super) fn estimated_parts(out: &mut String, chosen: &[&Process], labels: &[ProcessLabels]) {
    let estimated: Vec<(&EstimatedMemory, &ProcessLabels)> = chosen
        .iter()
        .zip(labels)
        .filter_map(|(p, l)| Some((p.estimate.as_deref()?, l)))
        .collect();
    let mut f = Family::new(
        out,
        ESTIMATED_METRICS[0],
        "gauge",
        "ESTIMATED GPU memory of an AI process by component, computed by a recipe from the model file and the runtime's settings (not measured). Unknown parts have no series: see gpuledger_process_estimated_partial.",
    );
    for (e, l) in &estimated {
        for (component, v) in [
            ("weights", Some(e.weights_gpu_bytes)),
            ("kv_cache", e.kv_cache_gpu_bytes),
            ("compute", e.compute_gpu_bytes),
            ("overhead", e.overhead_gpu_bytes),
        ] {
            let mut ls = estimate_labels(l, e);
            ls.push(("component", Some(component)));
            f.sample(&ls, bytes(v));
        }
    }
    let mut f = Family::new(
        out,
        ESTIMATED_METRICS[1],
        "gauge",
        "ESTIMATED total GPU memory of an AI process (not measured): the sum of its parts, or the runtime's reservation; a floor when gpuledger_process_estimated_partial is 1.",
    );
    for (e, l) in &estimated {
        f.sample(&estimate_labels(l, e), Some(Val::U(e.total_gpu_bytes)));
    }
    let mut f = Family::new(
        out,
        ESTIMATED_METRICS[2],
        "gauge",
        "1 when a part of the ESTIMATED memory is unknown: the estimated total is then a floor and the parts do not sum to it; 0 otherwise.",
    );
    for (e, l) in &estimated {
        f.sample(
            &estimate_labels(l, e),
            Some(Val::U(u64::from(e.is_partial()))),
        );
    }
}

/// The labels every estimated series of a process carries (the parts add `component`): the
/// measured families' `device` too when the process holds one device, so a member's estimated
/// share joins its own GPU's measured memory on `(pid, device)`.
pub(super) fn estimate_labels<'a>(
    l: &'a ProcessLabels,
    e: &'a EstimatedMemory,
) -> Vec<(&'static str, Option<&'a str>)> {
    let mut ls = l.of_process();
    ls.push(("recipe", Some(e.recipe.as_str())));
    ls
}
