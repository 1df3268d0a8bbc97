//! `--fit` replayed: what llama.cpp's `common_fit_params` (common/fit.cpp, b11434) chooses for an
//! unset `-c` and `-ngl` from each device's free memory and the `--fit-target` margins. llama.cpp
//! projects each candidate by loading the model without allocating (`no_alloc`, no mmap) and
//! reading the buffers' sizes; the replay asks the recipe for the same buffers.
//!
//! Steps, as llama.cpp takes them:
//! 1. project the settings as given; stop when every device keeps its margin;
//! 2. with `-c` unset, shrink the context by linear interpolation between the training context
//!    and `--fit-ctx` (rounded down to 256 per stream); one device (or the host) stops here;
//! 3. with `-ngl` unset, fill devices back to front with whole layers (MoE models: layers without
//!    their experts, which stay on the host), by false position on the projected memory.
//!
//! Not replayed (said in the outcome): step 4, which moves MoE layers' experts back onto devices
//! with room left; a draft or MTP model fitted alongside.

mod experts;
mod layers;

use gpuledger_model::llama_estimate::FitReplay;

use super::devices::devices;
use super::settings::{GpuLayers, OverridePattern, Setting, SettingSource, TensorOverride};
use super::{estimate, Estimate, EstimateError, GgufModel, LlamaSettings};

const MIB: i64 = 1024 * 1024;

/// The first llama.cpp build that fits by default: PR #16653 (merged 2025-12-15). The number is
/// bracketed by the merge date (b7780 was 2026-01-18), not read from a release: not verified.
pub const FIT_SINCE_BUILD: u64 = 7400;

/// What fitting needs that no flag says: each device's free memory, in llama.cpp's device order
/// (with no device: the host's total memory).
#[derive(Debug, Clone, Default)]
pub struct FreeMemory {
    pub devices: Vec<u64>,
    pub host_total: Option<u64>,
}

/// llama.cpp's next guess by false position (an int64 quotient stored in a uint32: a negative
/// one wraps, then is clamped).
pub(super) fn step(delta: u32, target: i64, low: i64, high: i64) -> u32 {
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

fn project(model: &GgufModel, s: &LlamaSettings) -> Result<Projection, EstimateError> {
    let mut s = s.clone();
    // The projection loads without mapping the file (load_mode NONE).
    s.mmap = Setting::runtime(false, "--fit's projection loads without mmap");
    let e = estimate(model, &s)?;
    let n = devices(&s).len();
    let i = |x: u64| i64::try_from(x).unwrap_or(i64::MAX);
    let (used, model) = if !e.devices.is_empty() {
        e.devices
            .iter()
            .map(|d| {
                (
                    i(d.weights_bytes + d.kv_bytes + d.compute_bytes),
                    i(d.weights_bytes),
                )
            })
            .unzip()
    } else if n == 1 {
        let w = e.weights.gpu_bytes;
        (
            vec![i(w + e.kv_cache.gpu_bytes + e.compute.gpu_bytes)],
            vec![i(w)],
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let host = i(e.weights.host_bytes + e.kv_cache.host_bytes + e.compute.host_bytes)
        + i(e.output.host_bytes);
    Ok(Projection { used, model, host })
}

/// Why fitting stopped short (`common_params_fit_exception`): the settings reached so far stay.
struct Abort(String);

/// The replay's state: the settings being changed, and what it said on the way.
struct Fit<'a> {
    model: &'a GgufModel,
    s: LlamaSettings,
    free: Vec<i64>,
    margins: Vec<i64>,
    steps: Vec<String>,
    hp_ngl: u32,
    hp_nex: u64,
    n_streams: u64,
    device_names: Vec<String>,
    /// Set when the replay stopped before llama.cpp would (why, in words).
    partly: Option<String>,
}

/// Replay llama.cpp's fitting for `s` and return what it chose, with the steps in words.
/// `Ok(None)`: fitting is off, or free memory is not known (said by the caller).
pub fn fit(
    model: &GgufModel,
    s: &LlamaSettings,
    free: &FreeMemory,
) -> Result<Option<(FitReplay, LlamaSettings)>, EstimateError> {
    let nd = devices(s).len();
    let older = s.llama_build.value.is_some_and(|b| b < FIT_SINCE_BUILD);
    if older || !s.fit.enabled.value || (nd > 0 && free.devices.len() < nd) {
        return Ok(None);
    }
    let Some(free_v) = (if nd == 0 {
        free.host_total.map(|t| vec![t as i64])
    } else {
        Some(free.devices[..nd].iter().map(|&b| b as i64).collect())
    }) else {
        return Ok(None);
    };
    let t = &s.fit.target_mib.value;
    let margins = (0..nd.max(1))
        .map(|i| {
            t.get(if t.len() == 1 { 0 } else { i })
                .copied()
                .unwrap_or(1024) as i64
                * MIB
        })
        .collect();
    let arch = model.architecture().unwrap_or_default().to_string();
    let mut f = Fit {
        model,
        s: s.clone(),
        free: free_v,
        margins,
        steps: Vec::new(),
        hp_ngl: model.get_u64(&format!("{arch}.block_count")).unwrap_or(0) as u32,
        hp_nex: model.get_u64(&format!("{arch}.expert_count")).unwrap_or(0),
        n_streams: 1,
        device_names: devices(s).into_iter().map(|d| d.name).collect(),
        partly: None,
    };
    let status = match f.run(nd)? {
        Ok(_) if f.partly.is_some() => ("partly replayed", f.partly.clone()),
        Ok(changed) => (if changed { "fitted" } else { "unchanged" }, None),
        Err(Abort(why)) => ("failed", Some(why)),
    };
    Ok(Some((f.outcome(status), f.s)))
}

impl Fit<'_> {
    fn say(&mut self, line: String) {
        self.steps.push(line);
    }

    /// Steps 1 to 3; `Ok(changed)` on success.
    fn run(&mut self, nd: usize) -> Result<Result<bool, Abort>, EstimateError> {
        let first = estimate(self.model, &self.s)?;
        let n_streams = if first.context.kv_unified {
            1
        } else {
            first.context.n_seq_max.max(1)
        };
        self.n_streams = n_streams;
        let n_ctx_auto = self.s.ctx_size.value == 0;
        let n_ctx_max = first
            .model_ctx_train()
            .saturating_mul(n_streams)
            .min(u32::MAX as u64);
        let min_ctx = self.s.fit.min_ctx.value as u64;
        let n_ctx_min_total = min_ctx.saturating_mul(n_streams).min(u32::MAX as u64);
        if n_ctx_auto {
            self.set_ctx(n_ctx_max);
        }
        let full = project(self.model, &self.s)?;
        if self.margins_met(&full, nd) {
            return Ok(Ok(n_ctx_auto));
        }
        let reduced = self.reduce_context(&full, nd, n_ctx_auto, (n_ctx_max, n_ctx_min_total))?;
        if reduced && nd <= 1 {
            return Ok(Ok(true));
        }
        if nd == 0 {
            return Ok(Err(Abort(
                "was unable to fit model into system memory by reducing context".into(),
            )));
        }
        if let Err(a) = self.may_place(nd) {
            return Ok(Err(a));
        }
        self.fill_layers(nd)?;
        Ok(Ok(true))
    }

    fn set_ctx(&mut self, n: u64) {
        self.s.ctx_size = Setting::runtime(n, "--fit");
    }

    /// Step 1: whether every device (or the host) keeps its margin as things are.
    fn margins_met(&mut self, p: &Projection, nd: usize) -> bool {
        if nd == 0 {
            let left = self.free[0] - p.host;
            self.say(format!(
                "projected to use {} MiB of host memory vs. {} MiB of total host memory",
                p.host / MIB,
                self.free[0] / MIB
            ));
            return left >= self.margins[0];
        }
        let used: i64 = p.used.iter().sum();
        let free: i64 = self.free.iter().sum();
        self.say(format!(
            "projected to use {} MiB of device memory vs. {} MiB of free device memory",
            used / MIB,
            free / MIB
        ));
        (0..nd).all(|i| self.free[i] - p.used[i] >= self.margins[i])
    }

    /// Step 2: a smaller context when `-c` was not given. Returns whether the context alone is
    /// expected to make everything fit.
    fn reduce_context(
        &mut self,
        full: &Projection,
        nd: usize,
        n_ctx_auto: bool,
        (n_ctx_max, n_ctx_min_total): (u64, u64),
    ) -> Result<bool, EstimateError> {
        let sum_free: i64 = self.free.iter().sum();
        let sum_margin: i64 = self.margins.iter().sum();
        let sum_used = if nd == 0 {
            full.host
        } else {
            full.used.iter().sum()
        };
        if sum_free - sum_used - sum_margin >= 0 {
            return Ok(false);
        }
        if !n_ctx_auto {
            self.say(format!(
                "context size set by user to {} -> no change",
                self.s.ctx_size.value
            ));
            return Ok(false);
        }
        if n_ctx_max <= n_ctx_min_total {
            self.say(format!(
                "the model's context {n_ctx_max} is not above the minimum {n_ctx_min_total} \
                 (--fit-ctx, or -c 0 for the full context) -> no change"
            ));
            return Ok(false);
        }
        let mut target = sum_free - sum_margin;
        if nd > 1 {
            // Whole layers (dense) or tensors (MoE, ~1/3 layer) per device waste some room.
            let model: i64 = full.model.iter().sum();
            let per_layer = model / i64::from(self.hp_ngl.max(1));
            target -= (nd as i64 + 1) * per_layer / if self.hp_nex == 0 { 2 } else { 6 };
        }
        self.set_ctx(n_ctx_min_total);
        let min = project(self.model, &self.s)?;
        let used_min = if nd == 0 {
            min.host
        } else {
            min.used.iter().sum()
        };
        if target <= used_min {
            self.say(format!(
                "context size reduced from {n_ctx_max} to {n_ctx_min_total} -> need {} MiB less \
                 memory in total",
                (sum_used - used_min) / MIB
            ));
            return Ok(false);
        }
        let span = (n_ctx_max - n_ctx_min_total) as i64;
        let mut n = n_ctx_min_total as i64 + span * (target - used_min) / (sum_used - used_min);
        let align = 256 * self.n_streams as i64;
        n = (n - n % align).max(n_ctx_min_total as i64);
        self.set_ctx(n as u64);
        self.say(format!("context size reduced from {n_ctx_max} to {n}"));
        Ok(true)
    }

    /// What llama.cpp requires before it moves layers: nothing the user placed.
    fn may_place(&self, nd: usize) -> Result<(), Abort> {
        if !matches!(self.s.n_gpu_layers.value, GpuLayers::Auto) {
            return Err(Abort("n_gpu_layers already set by user, abort".into()));
        }
        let d = &self.s.devices;
        if nd > 1 && d.tensor_split.value.iter().any(|&x| x != 0.0) {
            return Err(Abort(
                "model_params::tensor_split already set by user, abort".into(),
            ));
        }
        if !self.s.overrides.is_empty() {
            return Err(Abort(
                "model_params::tensor_buft_overrides already set by user, abort".into(),
            ));
        }
        Ok(())
    }

    /// The outcome in the estimate's terms, with the flags that pin it.
    fn outcome(&self, (status, reason): (&str, Option<String>)) -> FitReplay {
        let n_gpu_layers = match self.s.n_gpu_layers.value {
            GpuLayers::Count(n) => Some(n),
            _ => None,
        };
        let ts: Vec<u32> = self
            .s
            .devices
            .tensor_split
            .value
            .iter()
            .map(|&x| x as u32)
            .collect();
        let overrides: Vec<String> = self.s.overrides.iter().map(override_text).collect();
        let mut flags = format!("-c {}", self.s.ctx_size.value);
        if let Some(n) = n_gpu_layers {
            flags.push_str(&format!(" -ngl {n}"));
        }
        if ts.len() > 1
            && matches!(
                self.s.devices.tensor_split.source,
                SettingSource::Runtime(_)
            )
        {
            let t: Vec<String> = ts.iter().map(u32::to_string).collect();
            flags.push_str(&format!(" -ts {}", t.join(",")));
        }
        if !overrides.is_empty() {
            flags.push_str(&format!(" -ot \"{}\"", overrides.join(",")));
        }
        FitReplay {
            status: status.to_string(),
            reason,
            steps: self.steps.clone(),
            n_ctx: self.s.ctx_size.value,
            n_gpu_layers,
            tensor_split: ts,
            overrides,
            flags,
            free_bytes: self.free.iter().map(|&b| b.max(0) as u64).collect(),
            margin_bytes: self.margins.iter().map(|&b| b.max(0) as u64).collect(),
        }
    }
}

fn override_text(o: &TensorOverride) -> String {
    match &o.pattern {
        OverridePattern::Regex { pattern } => format!("{pattern}={}", o.buffer_type),
        OverridePattern::FirstLayers { n, block } => format!("first {n} layers' {block}"),
    }
}

/// The `n_ctx_train` an estimate read.
trait CtxTrain {
    fn model_ctx_train(&self) -> u64;
}

impl CtxTrain for Estimate {
    fn model_ctx_train(&self) -> u64 {
        self.inputs
            .iter()
            .find(|i| i.name == "n_ctx_train")
            .and_then(|i| i.value.parse().ok())
            .unwrap_or(self.context.n_ctx)
    }
}
