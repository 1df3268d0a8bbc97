//! llama.cpp's own server (`llama-server`, and the other `llama-*` programs): recognised by its
//! program name, asked through `/props`, `/slots` and `/metrics` (`api`), estimated by the
//! llama.cpp recipe ([`crate::estimate()`]) from its command line and `LLAMA_ARG_*` environment.

mod api;
mod inputs;
mod rpc;

pub(crate) use inputs::backend_of;
#[cfg(test)]
pub(crate) use inputs::llama_env;
pub use inputs::{llama_server_inputs, ProcessInputs};

use super::{Asked, Fetch, Library, Runtime, Seen};
use crate::live::LiveState;
use gpuledger_lang::Said;
use gpuledger_model::{Evidence, Member, Process, RoleKind, Vendor, Workload, WorkloadKind};
use gpuledger_sources::procfs::{ProcReader, ProcessFacts};
use std::path::Path;

pub struct LlamaCpp;

/// llama.cpp's libraries (ggml and its backends, libllama): what llama-server maps, and what the
/// runtimes built on llama.cpp (Ollama's runner, LM Studio) map too.
pub static GGML: Library = Library {
    what: "report-lib-ggml",
    prefixes: &[
        "libggml-cuda",
        "libggml-vulkan",
        "libggml-metal",
        "libggml-hip",
        "libggml-base",
        "libggml.so",
        "libllama",
        "ggml-cuda.dll",
        "llama.dll",
    ],
};

impl Runtime for LlamaCpp {
    fn kinds(&self) -> &'static [WorkloadKind] {
        &[WorkloadKind::LlamaCpp]
    }

    fn named(&self, seen: &Seen) -> Option<WorkloadKind> {
        let p = seen.prog;
        // `rpc-server` (llama.cpp's RPC backend) is a device of a llama-server: `group` says whose.
        (p.starts_with("llama-") || p == "llama" || p == "rpc-server" || p == "ggml-rpc-server")
            .then_some(WorkloadKind::LlamaCpp)
    }

    fn is_server(&self, _kind: WorkloadKind) -> bool {
        true
    }

    fn library(&self, _kind: WorkloadKind) -> Option<&'static Library> {
        Some(&GGML)
    }

    fn named_by_library(&self) -> Option<WorkloadKind> {
        Some(WorkloadKind::LlamaCpp)
    }

    /// An `rpc-server` is a device of the llama-server that names it in `--rpc`.
    fn member_apart(&self, f: &ProcessFacts, procs: &ProcReader) -> Option<Member> {
        rpc::is_rpc_server(f).then(|| rpc::rpc_device(f, procs))
    }

    /// The upstream llama-server that `ollama serve` starts (v0.30+) is its runner.
    fn role(&self, _own: &Seen, root_args: &[String]) -> Option<(RoleKind, String)> {
        let arg0 = root_args.first()?;
        (arg0.rsplit(['/', '\\']).next() == Some("ollama"))
            .then(|| (RoleKind::Runner, "runner".into()))
    }

    fn cmdline_signal(
        &self,
        _kind: WorkloadKind,
        named: bool,
        seen: &Seen,
    ) -> Option<(Said, &'static str)> {
        if !named {
            return None;
        }
        let mut parts = Vec::new();
        for (names, key) in [
            (&["-m", "--model"][..], "report-ev-flag-model"),
            (&["-c", "--ctx-size"], "report-ev-flag-context"),
            (
                &["-ngl", "--n-gpu-layers", "--gpu-layers"],
                "report-ev-flag-gpu-layers",
            ),
            (&["-np", "--parallel"], "report-ev-flag-slots"),
        ] {
            if let Some(v) = seen.flag(names) {
                parts.push(Said::new(key, vec![("value", v.into())]));
            }
        }
        let flags = Said::joined("report-said-comma", parts)?;
        let said = Said::new("report-ev-llama-flags", vec![("flags", flags.into())]);
        Some((said, "cmdline"))
    }

    fn query(&self, port: u16, fetch: Fetch, ev: &mut Vec<Evidence>) -> Option<LiveState> {
        api::query(port, fetch, ev)
    }

    fn llama_inputs(
        &self,
        p: &Process,
        w: &Workload,
        proc_root: &Path,
        vendor: Option<Vendor>,
        _asked: &Asked,
    ) -> Option<Result<ProcessInputs, Said>> {
        if w.member
            .as_ref()
            .is_some_and(|m| m.role_kind == RoleKind::RpcDevice)
        {
            return Some(Err(Said::new("recipe-err-rpc-device", vec![])));
        }
        Some(llama_server_inputs(p, w, proc_root, vendor))
    }
}
