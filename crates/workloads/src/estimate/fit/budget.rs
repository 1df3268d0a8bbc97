//! What a replay may cost. `gpuledger estimate` replays within a bound on projections; the
//! collection path (every llama-server a snapshot sees) also within a deadline, and remembers
//! each model's replay, so that a crafted file costs one bounded replay, not one per round.

use gpuledger_lang::Said;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::{fit_within, Fitting};
use crate::estimate::{EstimateError, GgufModel, LlamaSettings};
use gpuledger_model::llama_estimate::FitOutcome;

/// Projections a replay may make: a 16-device MoE model takes a few hundred (two searches of
/// log2(layers) guesses per device); a dense model on one device about 25.
pub const MAX_PROJECTIONS: u32 = 1024;

/// The collection path's bounds: a round must finish well inside the refresh.
const COLLECTION_PROJECTIONS: u32 = 256;
const COLLECTION_TIME: Duration = Duration::from_millis(250);

/// Replays remembered on the collection path (cleared when full: distinct models are few).
const CACHED_REPLAYS: usize = 64;

#[derive(Debug, Clone)]
pub struct Budget {
    pub projections: u32,
    pub deadline: Option<Instant>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            projections: MAX_PROJECTIONS,
            deadline: None,
        }
    }
}

impl Budget {
    /// The collection path's budget, from now.
    pub fn collection() -> Budget {
        Budget {
            projections: COLLECTION_PROJECTIONS,
            deadline: Some(Instant::now() + COLLECTION_TIME),
        }
    }

    /// Why the replay must stop before its projection number `n`, if it must.
    pub(super) fn spent(&self, n: u32) -> Option<Said> {
        if n >= self.projections {
            return Some(Said::new("recipe-fit-stopped-bound", vec![("n", n.into())]));
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(Said::new("recipe-fit-stopped-time", vec![("n", n.into())]));
        }
        None
    }
}

/// A remembered replay: for which free memory, and what it gave.
type Entry = (Vec<u64>, Fitting);

fn cache() -> &'static Mutex<HashMap<String, Entry>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Entry>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// [`fit_within`] the collection budget, remembered per (file, settings): asked again with the
/// same free memory, or after a replay that ran out of budget (whatever the free memory now),
/// the remembered outcome is returned without a projection.
pub fn fit_cached(model: &GgufModel, s: &LlamaSettings) -> Result<Fitting, EstimateError> {
    let mut keyed = s.clone();
    let free = std::mem::take(&mut keyed.devices.free.value);
    let key = format!(
        "{}\0{}\0{keyed:?}",
        model.path().display(),
        model.file_size()
    );
    let lock = || cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some((was, f)) = lock().get(&key) {
        if *was == free || stopped(f) {
            return Ok(f.clone());
        }
    }
    let f = fit_within(model, s, &Budget::collection())?;
    let mut c = lock();
    if c.len() >= CACHED_REPLAYS {
        c.clear();
    }
    c.insert(key, (free, f.clone()));
    Ok(f)
}

fn stopped(f: &Fitting) -> bool {
    matches!(f, Fitting::Replayed(r) if matches!(r.replay.outcome, FitOutcome::Stopped(_)))
}
