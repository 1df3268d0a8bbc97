//! A real SIGINT in the middle of the sequence (raised by the fake driver inside
//! cuMemHostAlloc, with the pinned memory about to be held): the handler sets the flag, the
//! sequence unwinds through its guards, and the driver sees everything released. Its own test
//! binary, because it installs a process-wide signal handler.

#![cfg(unix)]

mod common;

use std::time::Duration;

use common::*;
use gpuledger_cuda::{run, signal, ProbeError, ProbeOptions};

#[test]
fn sigint_mid_sequence_cleans_up() {
    signal::install().unwrap();
    let fake = Fake::new(&(wddm_scenario() + "sigint|cuMemHostAlloc|1\n"));
    let mut o = ProbeOptions::new(vec![32 * MIB], signal::flag());
    o.cuda_lib = Some(fake.lib_path.clone());
    o.meminfo = Some(fake.meminfo.clone());
    o.settle = Duration::from_millis(1);
    let e = run(&o).unwrap_err();
    assert!(matches!(e, ProbeError::Interrupted), "{e:?}");
    assert!(signal::interrupted());
    let log = fake.log();
    assert!(log.iter().any(|l| l == "sigint|cuMemHostAlloc"), "{log:?}");
    let l = fake.ledger();
    l.assert_clean();
    assert_eq!(
        l.host_allocs, 1,
        "the allocation that was interrupted was freed"
    );
    assert_eq!(l.registrations, 0, "nothing ran after the interruption");
}
