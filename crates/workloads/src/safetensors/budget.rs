//! What reading models' headers may cost: per file, per model, per collection round. A model
//! folder is named by another process and may be built to hurt (thousands of shards, each a link
//! to one file with a 10 MB header); past a budget the model is skipped, with the reason, and
//! the round goes on.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The budgets. [`Budget::default`] is what the collector and `explain` use; each figure is far
/// above a real model's (the largest published ones have about 200 shards, headers of at most a
/// few hundred KiB each, and a few thousand tensors per file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Header bytes parsed for one file (the format itself allows 100 MB).
    pub file_header_bytes: u64,
    /// Tensors in one file: GGUF's cap per file, for the same reason.
    pub file_tensors: u64,
    /// Shard files one model may name (links to one file count once each).
    pub model_shards: usize,
    /// Header bytes of one model's distinct files, all together.
    pub model_header_bytes: u64,
    /// Header bytes parsed in one round (a header found in the cache costs nothing).
    pub round_header_bytes: u64,
    /// Time spent reading headers in one round: checked before each file, so a round overruns
    /// it by at most one file (itself bounded by the budgets per file).
    pub round_time: Duration,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            file_header_bytes: 16 << 20,
            file_tensors: crate::gguf::MAX_TENSORS,
            model_shards: 1024,
            model_header_bytes: 64 << 20,
            round_header_bytes: 64 << 20,
            round_time: Duration::from_millis(250),
        }
    }
}

impl Budget {
    /// A command of one round (`snapshot`, `explain`): it has no later round to read a skipped
    /// model on, so its round may take longer; every other bound stays.
    pub fn one_shot() -> Budget {
        Budget {
            round_time: Duration::from_secs(2),
            ..Budget::default()
        }
    }
}

/// A model (or one file) that was not read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    pub path: PathBuf,
    pub why: String,
    /// [`super::ErrorKind::Round`]: skipped for this round only.
    pub kind: super::ErrorKind,
}

/// One collection round's budget: what it has spent, and the models it skipped.
#[derive(Debug)]
pub struct Round {
    budget: Budget,
    start: Instant,
    parsed: AtomicU64,
    skips: Mutex<Vec<Skip>>,
}

impl Default for Round {
    fn default() -> Round {
        Round::new(Budget::default())
    }
}

impl Round {
    pub fn new(budget: Budget) -> Round {
        Round {
            budget,
            start: Instant::now(),
            parsed: AtomicU64::new(0),
            skips: Mutex::new(Vec::new()),
        }
    }

    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// When the round's time for reading headers ends.
    pub fn deadline(&self) -> Instant {
        self.start + self.budget.round_time
    }

    /// May a header be read now? `Err(why)` once the round's time is spent.
    pub(super) fn admit(&self) -> Result<(), String> {
        if Instant::now() >= self.deadline() {
            return Err(format!(
                "this round's {} ms for reading model headers are spent: read on a later round",
                self.budget.round_time.as_millis()
            ));
        }
        Ok(())
    }

    /// Charge `bytes` of header about to be parsed. `Err(why)` when they do not fit in what
    /// is left of the round's bytes.
    pub(super) fn charge(&self, bytes: u64) -> Result<(), String> {
        let limit = self.budget.round_header_bytes;
        let fits = self
            .parsed
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |p| {
                p.checked_add(bytes).filter(|&t| t <= limit)
            })
            .is_ok();
        if fits {
            Ok(())
        } else {
            Err(format!(
                "this round's {} of model headers are spent: read on a later round",
                super::mib(limit)
            ))
        }
    }

    /// Header bytes parsed so far in this round.
    pub fn parsed_bytes(&self) -> u64 {
        self.parsed.load(Ordering::Relaxed)
    }

    /// Record that `path` was skipped, and why (the snapshot says so).
    pub fn note_skip(&self, path: &Path, why: &str, kind: super::ErrorKind) {
        if let Ok(mut s) = self.skips.lock() {
            let skip = Skip {
                path: path.to_path_buf(),
                why: why.to_string(),
                kind,
            };
            if !s.contains(&skip) {
                s.push(skip);
            }
        }
    }

    /// The skips recorded since the last call.
    pub fn take_skips(&self) -> Vec<Skip> {
        self.skips
            .lock()
            .map(|mut s| std::mem::take(&mut *s))
            .unwrap_or_default()
    }
}
