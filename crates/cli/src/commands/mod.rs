//! One module per sub-command.

pub mod explain;
pub mod kill;
pub mod probe;
pub mod selftest;
pub mod serve;
pub mod snapshot;
