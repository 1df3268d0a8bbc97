//! The [`Runtime`] for PyTorch programs (transformers scripts, torchrun) and ComfyUI: recognised
//! by ComfyUI in the command line (plain PyTorch by its libraries, in identification).

use super::super::{Library, ProcessContext, Recipe, Runtime, RuntimeEstimate, Seen};
use gpuledger_lang::Said;
use gpuledger_model::{Workload, WorkloadKind};

pub struct Pytorch;

/// PyTorch's GPU libraries: what any program on PyTorch maps (vLLM and SGLang included).
pub static TORCH: Library = Library {
    what: "report-lib-torch",
    prefixes: &[
        "libtorch_cuda",
        "libtorch_hip",
        "libc10_cuda",
        "torch_cuda.dll",
    ],
};

/// Programs and modules that start one rank per GPU: the root of the ranks they start.
const LAUNCHERS: &[&str] = &[
    "torchrun",
    "torch.distributed.run",
    "torch.distributed.launch",
    "accelerate launch",
    "deepspeed",
];

impl Runtime for Pytorch {
    fn kinds(&self) -> &'static [WorkloadKind] {
        &[WorkloadKind::Pytorch, WorkloadKind::Comfyui]
    }

    fn named(&self, seen: &Seen) -> Option<WorkloadKind> {
        seen.lower
            .contains("comfyui")
            .then_some(WorkloadKind::Comfyui)
    }

    fn library(&self, _kind: WorkloadKind) -> Option<&'static Library> {
        Some(&TORCH)
    }

    fn named_by_library(&self) -> Option<WorkloadKind> {
        Some(WorkloadKind::Pytorch)
    }

    /// ComfyUI's command line, or a launcher's.
    fn names_root(&self, seen: &Seen) -> Option<WorkloadKind> {
        self.named(seen).or_else(|| {
            LAUNCHERS
                .iter()
                .any(|l| seen.lower.contains(l))
                .then_some(WorkloadKind::Pytorch)
        })
    }

    /// A process known only by its PyTorch libraries, under a serving engine, is the engine's.
    fn yields_to_root(&self, kind: WorkloadKind) -> bool {
        kind == WorkloadKind::Pytorch
    }

    fn cmdline_signal(
        &self,
        kind: WorkloadKind,
        _named: bool,
        seen: &Seen,
    ) -> Option<(Said, &'static str)> {
        let words = match kind {
            WorkloadKind::Comfyui => "ComfyUI",
            _ if seen.lower.contains("transformers") || seen.lower.contains("torchrun") => {
                "transformers / torchrun"
            }
            _ => return None,
        };
        let said = Said::new("report-ev-in-cmdline", vec![("what", words.into())]);
        Some((said, "cmdline"))
    }

    fn recipe(&self) -> Option<&'static dyn Recipe> {
        Some(&Pytorch)
    }
}

impl Recipe for Pytorch {
    fn estimate(&self, ctx: &ProcessContext, w: &Workload) -> Result<RuntimeEstimate, Said> {
        super::estimate_process(ctx, w)
    }
}
