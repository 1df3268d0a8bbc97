//! One module per sub-command.

pub mod explain;
pub mod probe;
pub mod selftest;
pub mod snapshot;
