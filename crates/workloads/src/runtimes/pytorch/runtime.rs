//! The [`Runtime`] for PyTorch programs (transformers scripts, torchrun) and ComfyUI: recognised
//! by ComfyUI in the command line (plain PyTorch by its libraries, in identification).

use super::super::{ProcessContext, Runtime, RuntimeEstimate, Seen};
use gpuledger_model::{Workload, WorkloadKind};

pub struct Pytorch;

impl Runtime for Pytorch {
    fn kinds(&self) -> &'static [WorkloadKind] {
        &[WorkloadKind::Pytorch, WorkloadKind::Comfyui]
    }

    fn named(&self, seen: &Seen) -> Option<WorkloadKind> {
        seen.lower
            .contains("comfyui")
            .then_some(WorkloadKind::Comfyui)
    }

    fn cmdline_signal(
        &self,
        kind: WorkloadKind,
        _named: bool,
        seen: &Seen,
    ) -> Option<(String, &'static str)> {
        let words = match kind {
            WorkloadKind::Comfyui => "ComfyUI in the command line",
            _ if seen.lower.contains("transformers") || seen.lower.contains("torchrun") => {
                "transformers / torchrun in the command line"
            }
            _ => return None,
        };
        Some((words.into(), "cmdline"))
    }

    fn has_recipe(&self) -> bool {
        true
    }

    fn estimate(
        &self,
        ctx: &ProcessContext,
        w: &Workload,
    ) -> Option<Result<RuntimeEstimate, String>> {
        Some(super::estimate_process(ctx, w))
    }
}
