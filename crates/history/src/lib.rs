//! Evidence over time: what changed between two snapshots (`diff`), samples recorded into SQLite
//! (`store`), CSV export (`csv`), threshold alerts (`alert`) and charts (`plot`).
//!
//! Everything here is pure logic over snapshots except `store`, which owns the database file.

pub mod alert;
pub mod csv;
pub mod diff;
pub mod plot;
pub mod store;
pub mod time;

pub use diff::{diff, parse_for_diff, SnapshotDiff};
