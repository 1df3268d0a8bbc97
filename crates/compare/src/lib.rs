//! Comparisons of snapshots, pure logic with no I/O: with each other ([`mod@diff`]: what changed,
//! processes paired by stated rules, the estimated ledger apart from the measured one) and with
//! thresholds ([`alert`]: the `watch`/`--alert` expression language and its tracker).

pub mod alert;
pub mod diff;

pub use diff::{diff, SnapshotDiff};
