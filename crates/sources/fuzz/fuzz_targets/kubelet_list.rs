//! Any byte string as the protobuf body of a `List` or `GetAllocatableResources` answer: items or
//! an error, within the item limits, never a panic; errors carry no control character.
#![no_main]

use gpuledger_sources::owner::kubelet::decode_bodies;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (list, allocatable) = decode_bodies(data);
    for e in [list.err(), allocatable.err()].into_iter().flatten() {
        assert!(!e.chars().any(char::is_control), "control character in {e:?}");
    }
});
