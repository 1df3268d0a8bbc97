//! One module per sub-command.

pub mod explain;
pub mod selftest;
pub mod snapshot;
