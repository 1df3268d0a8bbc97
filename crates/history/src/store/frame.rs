//! The compact per-sample encoding of process usage.
//!
//! A day at 1 s with 200 processes is 17 million (sample, process, device) values; a SQLite row
//! each would cost several hundred MB a day. Instead each sample is one row holding a frame: a
//! *keyframe* lists every (process, device) entry, a *delta* frame lists only the entries that
//! appeared or changed since the previous frame and the ones that went away. GPU memory per process
//! is flat most of the time, so most frames are a few bytes. Keyframes every
//! [`KEYFRAME_EVERY`] samples (and at every recorder start) bound how far back a reader must decode.
//!
//! Numbers are LEB128 varints; an optional number is stored as value + 1 with 0 for unknown, so
//! unknown stays distinguishable from 0.

use std::collections::BTreeMap;

pub const KEYFRAME_EVERY: u32 = 60;

/// (process id, device id) in the store's own tables.
pub type Key = (u32, u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Vals {
    pub memory_bytes: Option<u64>,
    pub sm_percent: Option<u32>,
    /// String-table ids: who measured the memory, and why it is unknown.
    pub source: u32,
    pub reason: Option<u32>,
}

pub type State = BTreeMap<Key, Vals>;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("corrupt sample frame: {0}")]
pub struct FrameError(&'static str);

fn put(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn put_opt(out: &mut Vec<u8>, v: Option<u64>) {
    put(out, v.map(|x| x.saturating_add(1)).unwrap_or(0));
}

struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cur<'_> {
    fn get(&mut self) -> Result<u64, FrameError> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let byte = *self.b.get(self.i).ok_or(FrameError("truncated"))?;
            self.i += 1;
            v |= ((byte & 0x7f) as u64) << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(FrameError("varint too long"))
    }
    fn get_u32(&mut self) -> Result<u32, FrameError> {
        u32::try_from(self.get()?).map_err(|_| FrameError("value out of range"))
    }
    fn get_opt(&mut self) -> Result<Option<u64>, FrameError> {
        Ok(match self.get()? {
            0 => None,
            v => Some(v - 1),
        })
    }
    fn get_opt_u32(&mut self) -> Result<Option<u32>, FrameError> {
        self.get_opt()?
            .map(|v| u32::try_from(v).map_err(|_| FrameError("value out of range")))
            .transpose()
    }
}

fn put_entry(out: &mut Vec<u8>, k: Key, v: &Vals) {
    put(out, k.0 as u64);
    put(out, k.1 as u64);
    put_opt(out, v.memory_bytes);
    put_opt(out, v.sm_percent.map(u64::from));
    put(out, v.source as u64);
    put_opt(out, v.reason.map(u64::from));
}

fn get_entry(c: &mut Cur) -> Result<(Key, Vals), FrameError> {
    let k = (c.get_u32()?, c.get_u32()?);
    let v = Vals {
        memory_bytes: c.get_opt()?,
        sm_percent: c.get_opt_u32()?,
        source: c.get_u32()?,
        reason: c.get_opt_u32()?,
    };
    Ok((k, v))
}

/// Every entry of `state`.
pub fn encode_key(state: &State) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + state.len() * 10);
    put(&mut out, state.len() as u64);
    for (k, v) in state {
        put_entry(&mut out, *k, v);
    }
    out
}

/// What changed from `prev` to `cur`.
pub fn encode_delta(prev: &State, cur: &State) -> Vec<u8> {
    let mut out = Vec::new();
    let changed: Vec<(&Key, &Vals)> = cur.iter().filter(|(k, v)| prev.get(k) != Some(v)).collect();
    put(&mut out, changed.len() as u64);
    for (k, v) in changed {
        put_entry(&mut out, *k, v);
    }
    let removed: Vec<&Key> = prev.keys().filter(|k| !cur.contains_key(k)).collect();
    put(&mut out, removed.len() as u64);
    for k in removed {
        put(&mut out, k.0 as u64);
        put(&mut out, k.1 as u64);
    }
    out
}

/// Apply a frame to `state` (a keyframe replaces it). Counts are checked against the bytes left,
/// so a corrupt count cannot make us allocate or loop without bound.
pub fn apply(state: &mut State, keyframe: bool, blob: &[u8]) -> Result<(), FrameError> {
    let mut c = Cur { b: blob, i: 0 };
    let n = c.get()?;
    // Every entry takes at least 6 bytes.
    if n > blob.len() as u64 {
        return Err(FrameError("entry count larger than the frame"));
    }
    if keyframe {
        state.clear();
    }
    for _ in 0..n {
        let (k, v) = get_entry(&mut c)?;
        state.insert(k, v);
    }
    if !keyframe {
        let r = c.get()?;
        if r > blob.len() as u64 {
            return Err(FrameError("removal count larger than the frame"));
        }
        for _ in 0..r {
            let k = (c.get_u32()?, c.get_u32()?);
            state.remove(&k);
        }
    }
    if c.i != blob.len() {
        return Err(FrameError("trailing bytes"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn vals(mem: Option<u64>, sm: Option<u32>) -> Vals {
        Vals {
            memory_bytes: mem,
            sm_percent: sm,
            source: 1,
            reason: None,
        }
    }

    #[test]
    fn unchanged_frame_is_two_bytes_and_unknown_is_not_zero() {
        let mut s = State::new();
        s.insert((1, 1), vals(Some(0), None));
        s.insert((2, 1), vals(None, Some(0)));
        assert_eq!(encode_delta(&s, &s), vec![0, 0]);
        let mut back = State::new();
        apply(&mut back, true, &encode_key(&s)).unwrap();
        assert_eq!(back, s);
        assert_eq!(back[&(1, 1)].memory_bytes, Some(0));
        assert_eq!(back[&(2, 1)].memory_bytes, None);
        assert_eq!(back[&(2, 1)].sm_percent, Some(0));
    }

    #[test]
    fn garbage_is_an_error() {
        let mut s = State::new();
        assert_eq!(apply(&mut s, true, &[]), Err(FrameError("truncated")));
        assert!(apply(&mut s, true, &[0xff; 11]).is_err());
        assert_eq!(
            apply(&mut s, true, &[0x7f]),
            Err(FrameError("entry count larger than the frame"))
        );
        assert_eq!(
            apply(&mut s, false, &[0, 0, 9]),
            Err(FrameError("trailing bytes"))
        );
    }

    fn state() -> impl Strategy<Value = State> {
        proptest::collection::btree_map(
            (0u32..50, 0u32..3),
            (
                proptest::option::of(any::<u64>()),
                proptest::option::of(0u32..101),
                0u32..5,
                proptest::option::of(0u32..5),
            )
                .prop_map(|(m, s, src, r)| Vals {
                    memory_bytes: m.map(|x| x.min(u64::MAX - 1)),
                    sm_percent: s,
                    source: src,
                    reason: r,
                }),
            0..30,
        )
    }

    proptest! {
        #[test]
        fn delta_then_apply_gives_the_new_state(a in state(), b in state()) {
            let mut s = a.clone();
            apply(&mut s, false, &encode_delta(&a, &b)).unwrap();
            prop_assert_eq!(s, b.clone());
            let mut k = a;
            apply(&mut k, true, &encode_key(&b)).unwrap();
            prop_assert_eq!(k, b);
        }

        #[test]
        fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64), key in any::<bool>()) {
            let mut s = State::new();
            let _ = apply(&mut s, key, &bytes);
        }
    }
}
