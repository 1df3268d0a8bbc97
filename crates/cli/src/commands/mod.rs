//! One module per sub-command.

pub mod kill;
pub mod selftest;
pub mod snapshot;
