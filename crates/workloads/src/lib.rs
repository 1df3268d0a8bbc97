//! Workloads: what a GPU process is and what it should need.
//!
//! - [`identify`]: evidence chains from executable, command line, libraries, model files, ports;
//! - [`annotate`]: identification on the collection path, cached per process;
//! - [`live`]: the runtime's own HTTP answers (loopback only, time-bounded, off the collection path).

pub mod annotate;
pub mod identify;
pub mod live;
