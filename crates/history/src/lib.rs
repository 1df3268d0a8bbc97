//! The recording: samples written into SQLite and read back (`store`), its CSV export (`csv`) and
//! its charts (`plot`). Comparing snapshots (diff, alerts) is the `gpuledger-compare` crate.
//!
//! `store` owns the database file; the rest is pure logic over what it reads.

pub mod csv;
pub mod plot;
pub mod store;
// Time values live in the model (one owner); re-exported for the modules that say `crate::time`.
pub use gpuledger_model::time;
