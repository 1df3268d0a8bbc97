//! Apple's MLX (`mlx_lm` and programs on libmlx): recognised, counted as AI, not yet estimated
//! (no recipe: the estimated ledger says so for its processes).

use super::{Library, Runtime, Seen};
use gpuledger_lang::Said;
use gpuledger_model::WorkloadKind;

pub struct Mlx;

/// MLX's library.
pub static MLX: Library = Library {
    what: "report-lib-mlx",
    prefixes: &["libmlx"],
};

impl Runtime for Mlx {
    fn kinds(&self) -> &'static [WorkloadKind] {
        &[WorkloadKind::Mlx]
    }

    fn named(&self, seen: &Seen) -> Option<WorkloadKind> {
        seen.lower.contains("mlx_lm").then_some(WorkloadKind::Mlx)
    }

    fn library(&self, _kind: WorkloadKind) -> Option<&'static Library> {
        Some(&MLX)
    }

    fn named_by_library(&self) -> Option<WorkloadKind> {
        Some(WorkloadKind::Mlx)
    }

    fn cmdline_signal(
        &self,
        _kind: WorkloadKind,
        named: bool,
        seen: &Seen,
    ) -> Option<(Said, &'static str)> {
        let words = || Said::new("report-ev-in-cmdline", vec![("what", "mlx_lm".into())]);
        (named || seen.lower.contains("mlx_lm")).then(|| (words(), "cmdline"))
    }
}
