//! The [`Runtime`] for Ollama: `ollama serve`, its runner (`ollama runner`, `ollama_llama_server`)
//! and the upstream llama-server it starts since v0.30.

use super::super::{Api, AskApi, Asked, Fetch, Library, Runtime, Seen};
use crate::live::LiveState;
use crate::runtimes::llamacpp::ProcessInputs;
use gpuledger_lang::Said;
use gpuledger_model::{
    Evidence, Process, ReportedFigure, RoleKind, Vendor, Workload, WorkloadKind,
};
use std::path::Path;
use std::time::Duration;

pub struct Ollama;

impl Runtime for Ollama {
    fn kinds(&self) -> &'static [WorkloadKind] {
        &[WorkloadKind::Ollama, WorkloadKind::OllamaRunner]
    }

    fn named(&self, seen: &Seen) -> Option<WorkloadKind> {
        match seen.prog {
            "ollama" if seen.args.iter().any(|a| a == "runner") => Some(WorkloadKind::OllamaRunner),
            "ollama" => Some(WorkloadKind::Ollama),
            "ollama_llama_server" => Some(WorkloadKind::OllamaRunner),
            _ => None,
        }
    }

    fn is_server(&self, kind: WorkloadKind) -> bool {
        kind == WorkloadKind::Ollama
    }

    /// Its runner is llama.cpp (the server loads no model itself).
    fn library(&self, kind: WorkloadKind) -> Option<&'static Library> {
        (kind == WorkloadKind::OllamaRunner).then_some(&crate::runtimes::llamacpp::GGML)
    }

    /// A runner's parent, and any process under `ollama serve`.
    fn parent_is_evidence(&self, kind: WorkloadKind, parent: &str) -> bool {
        kind == WorkloadKind::OllamaRunner || parent == "ollama"
    }

    fn role(&self, _own: &Seen, _root_args: &[String]) -> Option<(RoleKind, String)> {
        Some((RoleKind::Runner, "runner".into()))
    }

    fn cmdline_signal(
        &self,
        kind: WorkloadKind,
        _named: bool,
        seen: &Seen,
    ) -> Option<(Said, &'static str)> {
        let words = match kind {
            WorkloadKind::Ollama => seen
                .args
                .iter()
                .any(|a| a == "serve")
                .then(|| Said::verbatim("`ollama serve`"))?,
            _ => match seen.flag(&["--model"]) {
                Some(m) => Said::new("report-ev-ollama-runner", vec![("model", m.into())]),
                None => Said::verbatim("`ollama runner`"),
            },
        };
        Some((words, "cmdline"))
    }

    fn model_name(&self, w: &Workload) -> Option<String> {
        super::names::cached_model_name(std::path::Path::new(w.model.as_deref()?))
    }

    fn reported(
        &self,
        p: &Process,
        w: &Workload,
        proc_root: &Path,
        asked: &Asked,
    ) -> Vec<ReportedFigure> {
        match asked {
            Asked::OllamaPs(Ok(ps)) => super::reported_for(p, w, proc_root, ps),
            _ => Vec::new(),
        }
    }

    fn api(&self) -> Option<Api<'_>> {
        Some(Api::Ask(self))
    }

    fn query(&self, port: u16, fetch: Fetch, ev: &mut Vec<Evidence>) -> Option<LiveState> {
        super::live::query(port, fetch, ev)
    }

    fn llama_inputs(
        &self,
        p: &Process,
        w: &Workload,
        proc_root: &Path,
        vendor: Option<Vendor>,
        asked: &Asked,
    ) -> Option<Result<ProcessInputs, Said>> {
        let ps = match asked {
            Asked::OllamaPs(Ok(ps)) => Some(ps),
            _ => None,
        };
        Some(match w.kind {
            WorkloadKind::OllamaRunner => super::inputs_for(p, w, proc_root, vendor, ps),
            // Ollama v0.30+ starts upstream llama-server: its command line is llama-server's.
            WorkloadKind::LlamaCpp => super::llama_server_child(p, w, proc_root, vendor, ps),
            // `ollama serve` itself runs no model.
            _ => return None,
        })
    }
}

/// Ollama's `/api/ps`, asked of the runner's parent server: the loaded model's context and split.
impl AskApi for Ollama {
    fn ask(&self, p: &Process, _w: &Workload, proc_root: &Path, timeout: Duration) -> Asked {
        Asked::OllamaPs(super::fetch_ps(proc_root, p.pid, timeout))
    }
}
