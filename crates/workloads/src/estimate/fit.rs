//! `--fit` replayed: what llama.cpp's `common_fit_params` (common/fit.cpp, b11434) chooses for an
//! unset `-c` and `-ngl` from each device's free memory and the `--fit-target` margins. llama.cpp
//! projects each candidate by loading the model without allocating (`no_alloc`, no mmap) and
//! reading the buffers' sizes; the replay asks the recipe for the same buffers, sized as that
//! projection sizes them (`Sizing::FitProjection`: its prompt pass loses the norms' pinned
//! backends, so with full offload each device holding a later layer copies one more input).
//!
//! Steps, as llama.cpp takes them:
//! 1. project the settings as given; stop when every device keeps its margin;
//! 2. with `-c` unset, shrink the context by linear interpolation between the training context
//!    and `--fit-ctx` (rounded down to 256 per stream); one device (or the host) stops here;
//! 3. with `-ngl` unset, fill devices back to front with whole layers (MoE models: layers without
//!    their experts, which stay on the host), by false position on the projected memory
//!    (`fit/layers.rs`);
//! 4. MoE models whose dense weights all fit: move experts back onto the devices with room left,
//!    a partial layer's FFN overflowing to the next device or the host (`fit/experts.rs`).
//!
//! Not replayed (said in the outcome's flags being for the main model only): a draft or MTP
//! model fitted alongside.
//!
//! Cost: each projection is one estimate (linear in the model's tensors: `--fit`'s per-layer
//! overrides are kept as one range per device, not one pattern per layer), and the searches
//! fall back from false position to bisection after a few guesses (see [`guess`]), so a replay
//! makes O(devices × log layers) projections; a [`Budget`] bounds them outright.

mod budget;
mod experts;
mod flags;
mod layers;

use std::cell::Cell;

use gpuledger_lang::Said;

use gpuledger_model::llama_estimate::{FitOutcome, FitProbe, FitReplay, FitStage, FitStep};

pub use budget::{fit_cached, Budget};

use super::devices::devices;
use super::settings::{GpuLayers, Setting};
use super::{estimate_as, read_params, EstimateError, GgufModel, LlamaSettings, Sizing};

const MIB: i64 = 1024 * 1024;

/// The first llama.cpp build that fits by default: PR #16653 (merged 2025-12-15). The number is
/// bracketed by the merge date (b7780 was 2026-01-18), not read from a release: not verified.
pub const FIT_SINCE_BUILD: u64 = 7400;

/// Guesses by false position before the searches bisect instead.
const FALSE_POSITION_GUESSES: u32 = 6;

/// What [`fit`] did.
#[derive(Debug, Clone)]
pub enum Fitting {
    /// `--fit off`, or a build older than fitting: llama.cpp fits nothing.
    Off,
    /// Fitting is on but cannot be replayed here (why, in words).
    NotReplayed(Said),
    /// The replay, and the settings llama.cpp would load with.
    Replayed(Box<Fitted>),
}

#[derive(Debug, Clone)]
pub struct Fitted {
    pub replay: FitReplay,
    pub settings: LlamaSettings,
}

/// Replay llama.cpp's fitting for the settings `s`, with each device's free memory taken from
/// `s.devices.free` (llama.cpp's device order; with no device, one figure: the host's total
/// memory), within the default [`Budget`].
pub fn fit(model: &GgufModel, s: &LlamaSettings) -> Result<Fitting, EstimateError> {
    fit_within(model, s, &Budget::default())
}

/// [`fit`] within `budget`: past it the outcome is [`FitOutcome::Stopped`].
pub fn fit_within(
    model: &GgufModel,
    s: &LlamaSettings,
    budget: &Budget,
) -> Result<Fitting, EstimateError> {
    let free = match gate(s) {
        Ok(free) => free,
        Err(f) => return Ok(f),
    };
    let p = read_params(model)?;
    let nd = devices(s).len();
    let t = &s.fit.target_mib.value;
    let margins = (0..nd.max(1))
        .map(|i| {
            t.get(if t.len() == 1 { 0 } else { i })
                .copied()
                .unwrap_or(1024) as i64
                * MIB
        })
        .collect();
    let mut f = Fit {
        model,
        s: s.clone(),
        free,
        margins,
        steps: Vec::new(),
        n_layer: p.n_layer,
        n_ctx_train: p.n_ctx_train,
        moe: p.n_expert > 0,
        n_streams: 1,
        device_names: devices(s).into_iter().map(|d| d.name).collect(),
        budget: budget.clone(),
        projections: Cell::new(0),
        n_tensors: model.tensors().count() as u64,
        placements: Cell::new(0),
        probes: Default::default(),
    };
    let outcome = match f.run(nd) {
        Ok(true) => FitOutcome::Fitted,
        Ok(false) => FitOutcome::Unchanged,
        Err(Halt::Abort(why)) => FitOutcome::Failed(why),
        Err(Halt::Budget(why)) => FitOutcome::Stopped(why),
        Err(Halt::Error(e)) => return Err(e),
    };
    Ok(Fitting::Replayed(Box::new(Fitted {
        replay: f.outcome(outcome),
        settings: f.s,
    })))
}

/// The one place that decides whether fitting is replayed: on, a build that fits, and the free
/// memory of every device known. Returns each device's free memory (the host's total without one).
fn gate(s: &LlamaSettings) -> Result<Vec<i64>, Fitting> {
    let older = s.llama_build.value.is_some_and(|b| b < FIT_SINCE_BUILD);
    if older || !s.fit.enabled.value {
        return Err(Fitting::Off);
    }
    let nd = devices(s).len();
    let free = &s.devices.free.value;
    if free.len() < nd.max(1) {
        return Err(Fitting::NotReplayed(if nd == 0 {
            Said::new("recipe-fit-not-replayed-host", vec![])
        } else {
            let all = devices(s);
            let names: Vec<&str> = all.iter().map(|d| d.name.as_str()).collect();
            Said::new(
                "recipe-fit-not-replayed",
                vec![("count", nd.into()), ("devices", names.join(", ").into())],
            )
        }));
    }
    let i = |b: u64| i64::try_from(b).unwrap_or(i64::MAX);
    Ok(free[..nd.max(1)].iter().map(|&b| i(b)).collect())
}

/// llama.cpp's next guess by false position (an int64 quotient stored in a uint32: a negative
/// one wraps, then is clamped); after [`FALSE_POSITION_GUESSES`] guesses, the middle.
///
/// Why bisecting gives llama.cpp's answer: both keep `low` fitting and `high` not fitting and
/// stop when they are one apart, so for memory that grows with the layers placed the answer is
/// the one boundary between them, however the guesses got there. False position on a crafted
/// file (one huge layer) can take a guess per layer; bisection takes log2 of them.
pub(super) fn guess(n: u32, delta: u32, target: i64, low: i64, high: i64) -> u32 {
    if n >= FALSE_POSITION_GUESSES || high <= low {
        return (delta / 2).clamp(1, delta - 1);
    }
    let q = i64::from(delta) * (target - low) / (high - low);
    (q as u32).clamp(1, delta - 1)
}

/// One projection (`common_get_device_memory_data`): bytes each device would hold, its model
/// part, and the host's.
struct Projection {
    used: Vec<i64>,
    model: Vec<i64>,
    host: i64,
}

/// Why a replay ended before its last step.
enum Halt {
    /// llama.cpp gives up (`common_params_fit_exception`): the settings reached so far stay.
    Abort(String),
    /// The replay's own budget is spent.
    Budget(Said),
    Error(EstimateError),
}

impl From<EstimateError> for Halt {
    fn from(e: EstimateError) -> Self {
        Halt::Error(e)
    }
}

/// The replay's state: the settings being changed, and what it said on the way.
struct Fit<'a> {
    model: &'a GgufModel,
    s: LlamaSettings,
    free: Vec<i64>,
    margins: Vec<i64>,
    steps: Vec<FitStep>,
    n_layer: u32,
    n_ctx_train: u64,
    moe: bool,
    n_streams: u64,
    device_names: Vec<String>,
    budget: Budget,
    projections: Cell<u32>,
    n_tensors: u64,
    placements: Cell<u64>,
    probes: std::cell::RefCell<Vec<FitProbe>>,
}

impl Fit<'_> {
    fn say(&mut self, stage: FitStage, text: String) {
        self.steps.push(FitStep { stage, text });
    }

    /// One estimate of the model with `s`, counted against the budget.
    fn estimate(&self, s: &LlamaSettings) -> Result<super::Estimate, Halt> {
        let n = self.projections.get();
        if let Some(why) = self.budget.spent(n) {
            return Err(Halt::Budget(why));
        }
        self.projections.set(n + 1);
        let per = 1 + s.overrides.len() as u64;
        let p = self.placements.get();
        self.placements
            .set(p.saturating_add(self.n_tensors.saturating_mul(per)));
        Ok(estimate_as(self.model, s, Sizing::FitProjection)?)
    }

    fn project(&self, s: &LlamaSettings) -> Result<Projection, Halt> {
        let mut s = s.clone();
        // The projection loads without mapping the file (load_mode NONE).
        s.mmap = Setting::runtime(false, Said::new("recipe-src-fit-no-mmap", vec![]));
        let e = self.estimate(&s)?;
        let n = self.device_names.len();
        let i = |x: u64| i64::try_from(x).unwrap_or(i64::MAX);
        let (used, model) = if !e.devices.is_empty() {
            e.devices
                .iter()
                .map(|d| {
                    let used = d.weights_bytes + d.kv_bytes + d.compute_bytes;
                    (i(used), i(d.weights_bytes))
                })
                .unzip()
        } else if n == 1 {
            let w = e.weights.gpu_bytes;
            let used = w + e.kv_cache.gpu_bytes + e.compute.gpu_bytes;
            (vec![i(used)], vec![i(w)])
        } else {
            (Vec::new(), Vec::new())
        };
        let host = i(e.weights.host_bytes + e.kv_cache.host_bytes + e.compute.host_bytes)
            + i(e.output.host_bytes);
        Ok(Projection { used, model, host })
    }

    /// Steps 1 to 4; `Ok(changed)` on success.
    fn run(&mut self, nd: usize) -> Result<bool, Halt> {
        let first = self.estimate(&self.s)?;
        self.n_streams = if first.context.kv_unified {
            1
        } else {
            first.context.n_seq_max.max(1)
        };
        let n_ctx_auto = self.s.ctx_size.value == 0;
        let cap = |n: u64| n.saturating_mul(self.n_streams).min(u32::MAX as u64);
        let n_ctx_max = cap(self.n_ctx_train);
        let n_ctx_min_total = cap(self.s.fit.min_ctx.value as u64);
        if n_ctx_auto {
            self.set_ctx(n_ctx_max);
        }
        let full = self.project(&self.s)?;
        if self.margins_met(&full, nd) {
            return Ok(n_ctx_auto);
        }
        let reduced = self.reduce_context(&full, nd, n_ctx_auto, (n_ctx_max, n_ctx_min_total))?;
        if reduced && nd <= 1 {
            return Ok(true);
        }
        if nd == 0 {
            return Err(Halt::Abort(
                "was unable to fit model into system memory by reducing context".into(),
            ));
        }
        self.may_place(nd)?;
        self.fill_layers(nd)?;
        Ok(true)
    }

    fn set_ctx(&mut self, n: u64) {
        self.s.ctx_size = Setting::runtime(n, "--fit");
    }

    /// Step 1: whether every device (or the host) keeps its margin as things are.
    fn margins_met(&mut self, p: &Projection, nd: usize) -> bool {
        if nd == 0 {
            let left = self.free[0] - p.host;
            let text = format!(
                "projected to use {} MiB of host memory vs. {} MiB of total host memory",
                p.host / MIB,
                self.free[0] / MIB
            );
            self.say(FitStage::Project, text);
            return left >= self.margins[0];
        }
        let used: i64 = p.used.iter().sum();
        let free: i64 = self.free.iter().sum();
        let text = format!(
            "projected to use {} MiB of device memory vs. {} MiB of free device memory",
            used / MIB,
            free / MIB
        );
        self.say(FitStage::Project, text);
        (0..nd).all(|i| self.free[i] - p.used.get(i).copied().unwrap_or(0) >= self.margins[i])
    }

    /// Step 2: a smaller context when `-c` was not given. Returns whether the context alone is
    /// expected to make everything fit.
    fn reduce_context(
        &mut self,
        full: &Projection,
        nd: usize,
        n_ctx_auto: bool,
        (n_ctx_max, n_ctx_min_total): (u64, u64),
    ) -> Result<bool, Halt> {
        let sum_free: i64 = self.free.iter().sum();
        let sum_margin: i64 = self.margins.iter().sum();
        let total = |p: &Projection| {
            if nd == 0 {
                p.host
            } else {
                p.used.iter().sum()
            }
        };
        let sum_used = total(full);
        if sum_free - sum_used - sum_margin >= 0 {
            return Ok(false);
        }
        if !n_ctx_auto {
            let text = format!(
                "context size set by user to {} -> no change",
                self.s.ctx_size.value
            );
            self.say(FitStage::Context, text);
            return Ok(false);
        }
        if n_ctx_max <= n_ctx_min_total {
            let text = if self.s.fit.min_ctx.value == u32::MAX {
                format!("user has requested full context size of {n_ctx_max} -> no change")
            } else {
                format!(
                    "default model context size is {n_ctx_max} which is <= the min. context \
                     size of {n_ctx_min_total} -> no change"
                )
            };
            self.say(FitStage::Context, text);
            return Ok(false);
        }
        let mut target = sum_free - sum_margin;
        if nd > 1 {
            // Whole layers (dense) or tensors (MoE, ~1/3 layer) per device waste some room.
            let model: i64 = full.model.iter().sum();
            let per_layer = model / i64::from(self.n_layer.max(1));
            target -= (nd as i64 + 1) * per_layer / if self.moe { 6 } else { 2 };
        }
        self.set_ctx(n_ctx_min_total);
        let used_min = total(&self.project(&self.s)?);
        if target <= used_min {
            let text = format!(
                "context size reduced from {n_ctx_max} to {n_ctx_min_total} -> need {} MiB less \
                 memory in total",
                (sum_used - used_min) / MIB
            );
            self.say(FitStage::Context, text);
            return Ok(false);
        }
        let span = (n_ctx_max - n_ctx_min_total) as i64;
        let mut n = n_ctx_min_total as i64 + span * (target - used_min) / (sum_used - used_min);
        let align = 256 * self.n_streams as i64;
        n = (n - n % align).max(n_ctx_min_total as i64);
        self.set_ctx(n as u64);
        let text = format!("context size reduced from {n_ctx_max} to {n}");
        self.say(FitStage::Context, text);
        Ok(true)
    }

    /// What llama.cpp requires before it moves layers: nothing the user placed.
    fn may_place(&self, nd: usize) -> Result<(), Halt> {
        let abort = |why: &str| Err(Halt::Abort(why.into()));
        if !matches!(self.s.n_gpu_layers.value, GpuLayers::Auto) {
            return abort("n_gpu_layers already set by user, abort");
        }
        let d = &self.s.devices;
        if nd > 1 && d.tensor_split.value.iter().any(|&x| x != 0.0) {
            return abort("model_params::tensor_split already set by user, abort");
        }
        if !self.s.overrides.is_empty() {
            return abort("model_params::tensor_buft_overrides already set by user, abort");
        }
        Ok(())
    }

    /// The outcome in the estimate's terms, with the flags that pin it.
    fn outcome(&self, outcome: FitOutcome) -> FitReplay {
        let n_gpu_layers = match self.s.n_gpu_layers.value {
            GpuLayers::Count(n) => Some(n),
            _ => None,
        };
        let pinned = flags::pinned(self.model, &self.s);
        FitReplay {
            outcome,
            steps: self.steps.clone(),
            n_ctx: self.s.ctx_size.value,
            n_gpu_layers,
            tensor_split: pinned.tensor_split,
            overrides: pinned.overrides,
            flags: pinned.flags,
            free_bytes: self.free.iter().map(|&b| b.max(0) as u64).collect(),
            margin_bytes: self.margins.iter().map(|&b| b.max(0) as u64).collect(),
            projections: self.projections.get(),
            placements: self.placements.get(),
            probes: self.probes.borrow().clone(),
        }
    }
}
