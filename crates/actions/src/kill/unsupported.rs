//! Platforms without a kill implementation: every request says so instead of pretending.

use super::{ActError, Exit, InspectError, ProcInfo, Sent, Signal, Survivor};
use std::time::Duration;

const WHY: &str = "process termination is not implemented on this operating system";

pub(crate) struct Sys;
pub(crate) struct Handle;

impl Sys {
    pub(crate) fn new() -> Self {
        Sys
    }
    pub(crate) fn inspect(&self, _pid: u32) -> Result<ProcInfo, InspectError> {
        Err(InspectError::Other(WHY.into()))
    }
    pub(crate) fn open(&self, _pid: u32, _i: &ProcInfo) -> Result<Handle, ActError> {
        Err(ActError::Os(WHY.into()))
    }
    pub(crate) fn inspect_pinned(&self, _h: &Handle, pid: u32) -> Result<ProcInfo, InspectError> {
        self.inspect(pid)
    }
    pub(crate) fn send(&self, _h: &Handle, _pid: u32, _s: Signal) -> Result<Sent, ActError> {
        Err(ActError::Os(WHY.into()))
    }
    pub(crate) fn wait_exit(&self, _h: &Handle, _p: u32, _t: Duration) -> Result<bool, String> {
        Err(WHY.into())
    }
    pub(crate) fn observe_exit(&self, _h: &Handle, _p: u32, _s: u64, _w: Duration) -> Exit {
        Exit::Gone(String::new())
    }
    pub(crate) fn survivor(&self, _pid: u32, _f: &str) -> Survivor {
        Survivor {
            state: None,
            wchan: None,
            remedies: vec![WHY.into()],
        }
    }
}

pub(crate) fn ancestors(_self_pid: u32) -> Vec<u32> {
    Vec::new()
}
pub(crate) fn current_uid() -> Option<u32> {
    None
}
pub(crate) fn current_user() -> String {
    "the current user".into()
}
