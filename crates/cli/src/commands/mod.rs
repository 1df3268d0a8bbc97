//! One module per sub-command.

pub mod selftest;
pub mod serve;
pub mod snapshot;
