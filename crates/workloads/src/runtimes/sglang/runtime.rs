//! The [`Runtime`] for SGLang: its server and its scheduler processes, which retitle themselves
//! `sglang::scheduler_TP0` (setproctitle replaces the command line and the comm).

use super::super::{Api, Fetch, Library, ProcessContext, Recipe, Runtime, RuntimeEstimate, Seen};
use crate::live::LiveState;
use crate::runtimes::InputSource;
use gpuledger_lang::Said;
use gpuledger_model::{Evidence, ReportedFigure, RoleKind, Workload, WorkloadKind};

pub struct Sglang;

/// Does a command line (in lower case) start SGLang's server?
fn names_server(lower: &str) -> bool {
    lower.contains("sglang.launch_server") || lower.contains("sglang serve")
}

/// Is the process name or command line (in lower case) an SGLang process title?
fn is_title(comm: &str, lower: &str) -> bool {
    comm.starts_with("sglang::") || lower.trim_start().starts_with("sglang::")
}

impl Runtime for Sglang {
    fn is_server(&self, _kind: WorkloadKind) -> bool {
        true
    }

    fn library(&self, _kind: WorkloadKind) -> Option<&'static Library> {
        Some(&crate::runtimes::pytorch::TORCH)
    }

    fn kinds(&self) -> &'static [WorkloadKind] {
        &[WorkloadKind::Sglang]
    }

    fn named(&self, seen: &Seen) -> Option<WorkloadKind> {
        (names_server(seen.lower) || is_title(seen.comm, seen.lower))
            .then_some(WorkloadKind::Sglang)
    }

    fn names_argv(&self, argv: &[String]) -> bool {
        names_server(&argv.join(" ").to_ascii_lowercase())
    }

    /// `sglang::scheduler_TP0` → `scheduler TP0/2` (the size from the server's `--tp-size`,
    /// read as the recipe reads it); `sglang::detokenizer` → `detokenizer`.
    fn role(&self, own: &Seen, root_args: &[String]) -> Option<(RoleKind, String)> {
        let t = super::super::title_of(own)?.strip_prefix("sglang::")?;
        let tp = super::SglangSettings::from_args(root_args, "")
            .ok()
            .map(|s| s.tp_size)
            .filter(|tp| matches!(tp.source, InputSource::Flag { .. }))
            .map(|tp| tp.value.to_string());
        // A scheduler runs the model on its GPU; the other processes (detokenizer, the
        // data-parallel controller) hold none.
        let kind = if t.starts_with("scheduler") {
            RoleKind::Worker
        } else {
            RoleKind::Helper
        };
        Some((kind, super::super::title_role(t, tp.as_deref())))
    }

    fn model_in_args(&self, args: &[String]) -> Option<String> {
        super::SglangSettings::from_args(args, "").ok()?.model
    }

    /// Says which rule matched: the module, the console script, or a process title.
    fn cmdline_signal(
        &self,
        _kind: WorkloadKind,
        _named: bool,
        seen: &Seen,
    ) -> Option<(Said, &'static str)> {
        let title = |t: &str| Said::new("report-ev-sglang-title", vec![("title", t.into())]);
        Some(if seen.lower.contains("sglang.launch_server") {
            ("`sglang.launch_server`".into(), "cmdline")
        } else if seen.lower.contains("sglang serve") {
            ("`sglang serve`".into(), "cmdline")
        } else if is_title("", seen.lower) {
            (title(seen.joined.trim()), "cmdline")
        } else {
            (title(seen.comm), "comm")
        })
    }

    fn api(&self) -> Option<Api<'_>> {
        Some(Api::Fetch(super::SERVER_INFO))
    }

    fn query(&self, port: u16, fetch: Fetch, ev: &mut Vec<Evidence>) -> Option<LiveState> {
        super::live::query(port, fetch, ev)
    }

    fn recipe(&self) -> Option<&'static dyn Recipe> {
        Some(&Sglang)
    }

    fn reported_from_log(&self, text: &str, source: &str) -> Vec<ReportedFigure> {
        super::parse_log(text).reported(source)
    }
}

impl Recipe for Sglang {
    fn estimate(&self, ctx: &ProcessContext, _w: &Workload) -> Result<RuntimeEstimate, Said> {
        super::estimate_process(ctx)
    }
}
