//! One module per sub-command.

pub mod probe;
pub mod selftest;
pub mod snapshot;
