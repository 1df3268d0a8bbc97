//! The [`Runtime`] for LM Studio: its engine helper, recognised by LM Studio's paths.

use super::super::{Api, AskApi, Asked, Fetch, Library, Runtime, Seen};
use crate::live::LiveState;
use crate::runtimes::llamacpp::ProcessInputs;
use gpuledger_lang::Said;
use gpuledger_model::{Evidence, Process, RoleKind, Vendor, Workload, WorkloadKind};
use std::path::Path;
use std::time::Duration;

pub struct LmStudio;

/// A path in LM Studio's installation or its `~/.lmstudio` folder.
fn lmstudio_path(s: &str) -> bool {
    let s = s.to_ascii_lowercase();
    s.contains("lm studio")
        || s.contains("lm-studio")
        || s.contains("/.lmstudio/")
        || s.contains("\\.lmstudio\\")
}

impl Runtime for LmStudio {
    fn is_server(&self, _kind: WorkloadKind) -> bool {
        true
    }

    /// Its engine is llama.cpp.
    fn library(&self, _kind: WorkloadKind) -> Option<&'static Library> {
        Some(&crate::runtimes::llamacpp::GGML)
    }

    fn kinds(&self) -> &'static [WorkloadKind] {
        &[WorkloadKind::LmStudio]
    }

    fn named(&self, seen: &Seen) -> Option<WorkloadKind> {
        let by_path = lmstudio_path(seen.prog)
            || seen.args.first().is_some_and(|a| lmstudio_path(a))
            || seen.mapped.iter().any(|m| lmstudio_path(m));
        (seen.prog == "lms" || by_path).then_some(WorkloadKind::LmStudio)
    }

    /// The `node` helper LM Studio (or its headless `llmster`) runs models in,
    /// `~/.lmstudio/.internal/utils/node`, the process nvidia-smi charges
    /// (lmstudio-ai/lmstudio-bug-tracker#940), is its engine; the app is the root.
    fn role(&self, own: &Seen, _root_args: &[String]) -> Option<(RoleKind, String)> {
        let arg0 = own
            .args
            .first()
            .map(String::as_str)
            .unwrap_or("")
            .to_ascii_lowercase();
        let helper = arg0.replace('\\', "/");
        let helper = helper.trim_end_matches(".exe");
        helper
            .ends_with("/.lmstudio/.internal/utils/node")
            .then(|| (RoleKind::Runner, "engine (node helper)".into()))
    }

    fn api(&self) -> Option<Api<'_>> {
        Some(Api::Ask(self))
    }

    fn query(&self, port: u16, fetch: Fetch, ev: &mut Vec<Evidence>) -> Option<LiveState> {
        super::live::query(port, fetch, ev)
    }

    fn llama_inputs(
        &self,
        _p: &Process,
        w: &Workload,
        _proc_root: &Path,
        vendor: Option<Vendor>,
        asked: &Asked,
    ) -> Option<Result<ProcessInputs, Said>> {
        let models = match asked {
            Asked::LmStudio(Ok(m)) => Some(m),
            _ => None,
        };
        Some(super::inputs_for(w, vendor, models))
    }
}

/// LM Studio's `/api/v0/models`: the loaded model's context.
impl AskApi for LmStudio {
    fn ask(&self, p: &Process, _w: &Workload, proc_root: &Path, timeout: Duration) -> Asked {
        Asked::LmStudio(super::fetch_models(proc_root, p, timeout))
    }
}
