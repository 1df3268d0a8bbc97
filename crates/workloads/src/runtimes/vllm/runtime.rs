//! The [`Runtime`] for vLLM: its API server, engine core and workers (`VLLM::EngineCore`,
//! `VLLM::Worker_TP0`: process titles that replace the command line).

use super::super::{
    Api, Fetch, Library, MpLayout, MpPlace, ProcessContext, Recipe, Runtime, RuntimeEstimate, Seen,
};
use crate::live::LiveState;
use crate::runtimes::InputSource;
use gpuledger_lang::Said;
use gpuledger_model::{Evidence, ReportedFigure, RoleKind, Workload, WorkloadKind};

pub struct Vllm;

/// Does a command line (in lower case) run one of vLLM's entry points as a module?
fn names_module(lower: &str) -> bool {
    lower.contains("vllm.entrypoints")
}

fn base(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The root's tensor- and pipeline-parallel sizes as vLLM reads its command line (the one
/// reader the recipe uses too), and the TP size when the command line gives it (`TP1/2`);
/// `None` when the command line does not read.
fn sizes(root_args: &[String]) -> Option<(usize, usize, Option<String>)> {
    let s = super::VllmSettings::from_args(root_args, "").ok()?;
    let tp = &s.tensor_parallel_size;
    let written = matches!(tp.source, InputSource::Flag { .. }).then(|| tp.value.to_string());
    let size = |v: u64| usize::try_from(v).ok();
    Some((
        size(tp.value)?,
        size(s.pipeline_parallel_size.value)?,
        written,
    ))
}

impl MpLayout for Vllm {
    /// Whether the API server runs the engine itself (`--disable-frontend-multiprocessing`, V0),
    /// so that a fork of it is a rank, not an engine core.
    fn root_runs_engine(&self, root_args: &[String]) -> bool {
        super::VllmSettings::from_args(root_args, "")
            .is_ok_and(|s| s.disable_frontend_multiprocessing)
    }

    /// The role of an untitled multiprocessing child (see [`MpPlace`]), for `n` ranks (tensor ×
    /// pipeline parallel, from the root's flags). vLLM V0 runs rank 0 in its engine process and
    /// starts ranks 1..n-1 as its children, one after the other
    /// (`MultiprocessingDistributedExecutor`); V1 before its processes had titles runs no model
    /// in the engine core and starts all n ranks as its children. Any other count is not a
    /// layout vLLM makes: no role is guessed.
    fn role(&self, place: MpPlace, root_args: &[String]) -> Option<(RoleKind, String)> {
        let (tp, pp, tp_written) = sizes(root_args)?;
        let tp_flag = tp_written.as_deref();
        let ranks = tp.checked_mul(pp)?.max(1);
        let rank_words = |r: usize| {
            let parts = if pp > 1 {
                format!("PP{}_TP{}", r / tp, r % tp)
            } else {
                format!("TP{r}")
            };
            super::super::title_role(&parts, tp_flag)
        };
        match place {
            // V1's engine core, forked: with one rank it runs the model itself.
            MpPlace::Engine {
                workers: 0,
                forked: true,
            } if ranks == 1 => Some((RoleKind::EngineCore, "engine core".into())),
            MpPlace::Engine {
                workers,
                forked: false,
            } if workers + 1 == ranks => Some((
                RoleKind::Engine,
                if ranks == 1 {
                    "engine".to_string()
                } else {
                    format!("engine {}", rank_words(0))
                },
            )),
            MpPlace::Engine { workers, .. } if workers == ranks && ranks > 1 => {
                Some((RoleKind::EngineCore, "engine core".into()))
            }
            MpPlace::Worker { index, of, .. } if of + 1 == ranks => Some((
                RoleKind::Worker,
                format!("worker {}", rank_words(index + 1)),
            )),
            MpPlace::Worker {
                index,
                of,
                under_root: false,
            } if of == ranks && ranks > 1 => {
                Some((RoleKind::Worker, format!("worker {}", rank_words(index))))
            }
            _ => None,
        }
    }
}

impl Runtime for Vllm {
    fn is_server(&self, _kind: WorkloadKind) -> bool {
        true
    }

    fn library(&self, _kind: WorkloadKind) -> Option<&'static Library> {
        Some(&crate::runtimes::pytorch::TORCH)
    }

    fn multiprocessing(&self) -> Option<&'static dyn MpLayout> {
        Some(&Vllm)
    }

    fn kinds(&self) -> &'static [WorkloadKind] {
        &[WorkloadKind::Vllm]
    }

    fn named(&self, seen: &Seen) -> Option<WorkloadKind> {
        let first_arg = seen.args.get(1).map(String::as_str).unwrap_or("");
        let serve = seen.args.get(2).is_some_and(|a| a == "serve");
        (seen.comm.starts_with("VLLM::")
            || seen.prog == "vllm"
            || seen.comm == "vllm"
            || first_arg == "vllm"
            || (base(first_arg) == "vllm" && serve)
            || names_module(seen.lower)
            || seen.lower.contains(" vllm serve"))
        .then_some(WorkloadKind::Vllm)
    }

    /// Also any argument named `vllm` (`/usr/bin/vllm serve`, where `named` has the process name).
    fn names_argv(&self, argv: &[String]) -> bool {
        names_module(&argv.join(" ").to_ascii_lowercase())
            || argv.iter().any(|a| a.rsplit('/').next() == Some("vllm"))
    }

    /// `VLLM::EngineCore` → `engine core`; `VLLM::Worker_TP1` → `worker TP1/2` (the size from
    /// the server's `--tensor-parallel-size`); `VLLM::Worker_PP0_TP1` → `worker PP0 TP1`.
    fn role(&self, own: &Seen, root_args: &[String]) -> Option<(RoleKind, String)> {
        let t = super::super::title_of(own)?.strip_prefix("VLLM::")?;
        // The kernel's name keeps 15 bytes: `VLLM::EngineCor` where only the name was read.
        if let Some(rest) = t.strip_prefix("EngineCor") {
            // `EngineCore_DP1`: one data-parallel replica's engine core.
            let dp = super::super::title_role(rest.trim_start_matches('e'), None);
            let text = format!("engine core {dp}").trim_end().to_string();
            return Some((RoleKind::EngineCore, text));
        }
        let Some(w) = t.strip_prefix("Worker") else {
            return Some((RoleKind::Helper, t.to_ascii_lowercase()));
        };
        let tp = sizes(root_args).and_then(|(_, _, written)| written);
        let parts = super::super::title_role(w, tp.as_deref());
        Some((
            RoleKind::Worker,
            format!("worker {parts}").trim_end().to_string(),
        ))
    }

    fn cmdline_signal(
        &self,
        _kind: WorkloadKind,
        _named: bool,
        seen: &Seen,
    ) -> Option<(Said, &'static str)> {
        let words = if seen.args.iter().any(|a| a == "serve") {
            Said::verbatim("`vllm serve`")
        } else {
            Said::new("report-ev-vllm-engine", vec![])
        };
        Some((words, "cmdline"))
    }

    /// `--config FILE.yaml` read into the options it stands for (`config`).
    fn read_args(
        &self,
        argv: &[String],
        proc_root: &std::path::Path,
        pid: u32,
    ) -> (Vec<String>, Option<Said>) {
        super::config::expand_in_process(argv, proc_root, pid)
    }

    fn model_in_args(&self, args: &[String]) -> Option<String> {
        super::VllmSettings::from_args(args, "").ok()?.model
    }

    fn api(&self) -> Option<Api<'_>> {
        Some(Api::Fetch(super::API_PATHS))
    }

    fn query(&self, port: u16, fetch: Fetch, ev: &mut Vec<Evidence>) -> Option<LiveState> {
        super::live::query(port, fetch, ev)
    }

    fn recipe(&self) -> Option<&'static dyn Recipe> {
        Some(&Vllm)
    }

    fn reported_from_log(&self, text: &str, source: &str) -> Vec<ReportedFigure> {
        super::parse_log(text).reported(source)
    }

    fn version_in_log(&self, text: &str) -> Option<String> {
        super::parse_log(text).version
    }
}

impl Recipe for Vllm {
    /// With tensor or pipeline parallelism vLLM V1's engine core runs no model: it starts one
    /// worker per rank (`VLLM::Worker_TPn`), and each worker holds its share.
    fn estimate(&self, ctx: &ProcessContext, w: &Workload) -> Result<RuntimeEstimate, Said> {
        let engine_core = w
            .member
            .as_ref()
            .is_some_and(|m| m.role_kind == RoleKind::EngineCore);
        if engine_core {
            if let Ok(s) = super::VllmSettings::from_args(&ctx.argv, ctx.argv_source()) {
                let ranks = s
                    .tensor_parallel_size
                    .value
                    .saturating_mul(s.pipeline_parallel_size.value);
                if ranks > 1 {
                    let ranks = vec![("ranks", ranks.to_string().into())];
                    return Err(Said::new("recipe-err-vllm-core-ranks", ranks));
                }
            }
            if let Some(worker) = worker_child(ctx.proc_root, ctx.pid) {
                let worker = vec![("pid", worker.to_string().into())];
                return Err(Said::new("recipe-err-vllm-core-worker", worker));
            }
        }
        super::estimate_process(ctx)
    }
}

/// A child of the engine core `pid` titled `VLLM::Worker…`, read from the kernel's list of the
/// process's children (`task/PID/children`): with one rank, vLLM's GPU build runs the model in
/// the engine core (its uniprocess executor), its CPU build (0.32) in a worker all the same.
fn worker_child(proc_root: &std::path::Path, pid: u32) -> Option<u32> {
    let list =
        std::fs::read_to_string(proc_root.join(format!("{pid}/task/{pid}/children"))).ok()?;
    list.split_ascii_whitespace()
        .filter_map(|c| c.parse::<u32>().ok())
        .take(64)
        .find(|c| {
            std::fs::read(proc_root.join(format!("{c}/cmdline")))
                .is_ok_and(|t| t.starts_with(b"VLLM::Worker"))
        })
}
