//! The probe's result. Its types live in `gpuledger_model::probe_report` (so views render them
//! without the CUDA binding) and are re-exported here under their old paths; the table
//! `gpuledger probe` prints is `gpuledger_views::cost_report`.

pub use gpuledger_model::probe_report::{
    ContextCost, DeviceInfo, Method, ProbeReport, Release, Row, SCHEMA,
};
