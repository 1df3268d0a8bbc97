//! gpuledger's actions: the only code in the project that changes the system.
//!
//! Today that is [`kill`]: safe termination of processes, graceful first and forced after a grace
//! period, verified by observing the process rather than trusting a return value, and fenced by guard
//! rails (never PID 1, kernel threads, ourselves or our parents, critical Windows processes; display
//! servers, compositors and session shells only with a second confirmation).

pub mod kill;
