//! Which processes and workloads show a large measured-vs-estimated gap, for every view: the
//! table's lines, and `estimate_gaps` of `snapshot --json` / `/api/v1/snapshot` that the page
//! writes in its why pane (with the sentence and causes of `/api/v1/words`).

use super::{difference, gap_cause_key};
use gpuledger_model::{GroupTotals, Process};

/// A large gap between what the driver measured and what a recipe estimated, of one process
/// (`pid`) or of a workload of several (`root_pid`: its members summed).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EstimateGap {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_pid: Option<u32>,
    pub measured_bytes: u64,
    pub estimated_bytes: u64,
    /// The estimated weights on the GPU (what a low measurement is compared with: the cause).
    pub weights_bytes: u64,
    /// `more` or `less`: the driver reports more or less than estimated.
    pub side: &'static str,
    /// The likely cause: `above-estimate`, `below-weights` or `between` (its words are the
    /// catalogue's `report-gap-` + this, and `gap.causes` of `/api/v1/words`).
    pub cause: &'static str,
}

/// The process's gap, where the driver measured all of its memory, its estimate has no unknown
/// part (a floor says nothing of a gap) and the gap is large.
pub fn process_gap(p: &Process) -> Option<EstimateGap> {
    let e = p.estimate.as_ref().filter(|e| !e.is_partial())?;
    let m: u64 = p
        .usage
        .iter()
        .map(|u| u.memory_bytes)
        .sum::<Option<u64>>()?;
    let cause = code(gap_cause_key(
        m,
        e.total_gpu_bytes,
        Some(e.weights_gpu_bytes),
    )?);
    Some(EstimateGap {
        pid: Some(p.pid),
        root_pid: None,
        measured_bytes: m,
        estimated_bytes: e.total_gpu_bytes,
        weights_bytes: e.weights_gpu_bytes,
        side: difference(m, e.total_gpu_bytes).1,
        cause,
    })
}

/// The workload's gap: its members' measurements summed against their estimates summed, where
/// both are whole (no member unmeasured, no estimate a floor) and the gap is large.
pub fn group_gap(g: &GroupTotals, with: &[&Process]) -> Option<EstimateGap> {
    if g.estimated_is_floor {
        return None;
    }
    let (m, e) = (g.measured_bytes?, g.estimated_bytes?);
    let weights = with
        .iter()
        .filter(|p| g.members.contains(&p.pid))
        .filter_map(|p| p.estimate.as_ref())
        .fold(0u64, |a, e| a.saturating_add(e.weights_gpu_bytes));
    let cause = code(gap_cause_key(m, e, Some(weights))?);
    Some(EstimateGap {
        pid: None,
        root_pid: Some(g.root_pid),
        measured_bytes: m,
        estimated_bytes: e,
        weights_bytes: weights,
        side: difference(m, e).1,
        cause,
    })
}

/// A cause's code: its catalogue key without `report-gap-`.
pub fn code(key: &'static str) -> &'static str {
    key.strip_prefix("report-gap-").unwrap_or(key)
}

/// Every large gap among `with`: each process's, then each workload's of `groups`.
pub fn gaps(with: &[&Process], groups: &[GroupTotals]) -> Vec<EstimateGap> {
    let mut out: Vec<EstimateGap> = with.iter().filter_map(|p| process_gap(p)).collect();
    out.extend(groups.iter().filter_map(|g| group_gap(g, with)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::test_support::process;
    use gpuledger_model::{EstimatedMemory, Member, RoleKind, Snapshot};

    const GIB: f64 = (1u64 << 30) as f64;
    fn g(x: f64) -> u64 {
        (x * GIB) as u64
    }

    fn with_estimate(pid: u32, measured: u64, total: u64, weights: u64) -> Process {
        let mut p = process(pid, "GPU-A", Some(measured));
        p.estimate = Some(std::sync::Arc::new(EstimatedMemory {
            weights_gpu_bytes: weights,
            kv_cache_gpu_bytes: Some(total - weights),
            compute_gpu_bytes: Some(0),
            overhead_gpu_bytes: Some(0),
            total_gpu_bytes: total,
            ..Default::default()
        }));
        p
    }

    /// The Ollama runner (8.38 GiB measured, 12.4 GiB estimated of which 10.7 GiB
    /// weights), alone and as one of two members of a workload; a floor says nothing.
    #[test]
    fn gaps_of_a_process_and_of_its_workload() {
        let p = with_estimate(7, g(8.38), g(12.4), g(10.7));
        let gap = process_gap(&p).unwrap();
        assert_eq!(
            (gap.pid, gap.cause, gap.side),
            (Some(7), "below-weights", "less")
        );
        let mut floor = p.clone();
        std::sync::Arc::make_mut(floor.estimate.as_mut().unwrap()).compute_gpu_bytes = None;
        assert_eq!(process_gap(&floor), None);

        let mut members = vec![
            with_estimate(8, g(4.0), g(4.2), g(3.0)),
            with_estimate(9, g(4.0), g(4.2), g(3.0)),
        ];
        for m in &mut members {
            let mut w = crate::test_support::llama_workload("m");
            w.member = Some(Member {
                root_pid: Some(8),
                role: "worker".into(),
                role_kind: RoleKind::Worker,
                evidence: "test".into(),
            });
            m.workload = Some(std::sync::Arc::new(w));
        }
        let all: Vec<&Process> = members.iter().collect();
        let groups = Snapshot::group_totals(&all);
        // Each member is 5 % under its estimate, the workload too: no gap.
        assert_eq!(gaps(&all, &groups), vec![]);
        members[1].usage[0].memory_bytes = Some(g(1.0));
        let all: Vec<&Process> = members.iter().collect();
        let groups = Snapshot::group_totals(&all);
        let found = gaps(&all, &groups);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!((found[0].pid, found[0].cause), (Some(9), "below-weights"));
        // 5 GiB measured against 8.4 estimated, 6 of it weights.
        let w = &found[1];
        assert_eq!((w.root_pid, w.cause), (Some(8), "below-weights"));
        assert_eq!(
            (w.measured_bytes, w.weights_bytes),
            (g(4.0) + g(1.0), 2 * g(3.0))
        );
    }
}
