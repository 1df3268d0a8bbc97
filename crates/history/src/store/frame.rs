//! The compact per-sample encoding of process usage.
//!
//! A day at 1 s with 200 processes is 17 million (sample, process, device) values; a SQLite row
//! each would cost several hundred MB a day. Instead each sample is one row holding a frame: a
//! *keyframe* lists every (process, device) entry, a *delta* frame lists only the entries that
//! appeared or changed since the previous frame and the ones that went away. GPU memory per process
//! is flat most of the time, so most frames are a few bytes. Keyframes every
//! [`KEYFRAME_EVERY`] samples (and at every recorder start) bound how far back a reader must decode.
//!
//! Each entry is one header byte (which fields changed, and the step from the previous entry's
//! process id) followed by only the changed fields; the common case, the next process on the same
//! device whose SM % moved, is a single byte.
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

// Entry header bits: which fields follow; the top three bits carry the process-id step from the
// previous entry (entries are sorted), 7 meaning "a varint step follows".
const MEM: u8 = 1;
const SM: u8 = 2;
const SRC: u8 = 4;
const REASON: u8 = 8;
const DEV: u8 = 16;
const STEP_SHIFT: u8 = 5;
const STEP_ESCAPE: u8 = 3;
/// Top bit set: the whole entry is this byte. The next process (step 1) on the same device as the
/// previous entry changed only its SM %, held in the low seven bits (0 unknown, else value + 1).
const SM_ONLY: u8 = 0x80;

/// The entries of `cur` that differ from `prev`, each with only its changed fields.
fn put_changes(out: &mut Vec<u8>, prev: &State, cur: &State) {
    let changed: Vec<(&Key, &Vals, Option<&Vals>)> = cur
        .iter()
        .filter_map(|(k, v)| {
            let old = prev.get(k);
            (old != Some(v)).then_some((k, v, old))
        })
        .collect();
    put(out, changed.len() as u64);
    let (mut last_proc, mut last_dev) = (0u32, None::<u32>);
    for (k, v, old) in changed {
        let mut h = 0u8;
        if old.is_none_or(|o| o.memory_bytes != v.memory_bytes) {
            h |= MEM;
        }
        if old.is_none_or(|o| o.sm_percent != v.sm_percent) {
            h |= SM;
        }
        if old.is_none_or(|o| o.source != v.source) {
            h |= SRC;
        }
        if old.is_none_or(|o| o.reason != v.reason) {
            h |= REASON;
        }
        let step = k.0 - last_proc;
        let sm_code = v.sm_percent.map(|x| x as u64 + 1).unwrap_or(0);
        if h == SM && step == 1 && last_dev == Some(k.1) && sm_code < SM_ONLY as u64 {
            out.push(SM_ONLY | sm_code as u8);
            last_proc = k.0;
            continue;
        }
        // The device is written only when it differs from the previous entry's: on a one-GPU
        // machine, once per frame.
        if last_dev != Some(k.1) {
            h |= DEV;
        }
        h |= (step.min(STEP_ESCAPE as u32) as u8) << STEP_SHIFT;
        out.push(h);
        if step >= STEP_ESCAPE as u32 {
            put(out, step as u64);
        }
        if h & DEV != 0 {
            put(out, k.1 as u64);
        }
        if h & MEM != 0 {
            put_opt(out, v.memory_bytes);
        }
        if h & SM != 0 {
            put_opt(out, v.sm_percent.map(u64::from));
        }
        if h & SRC != 0 {
            put(out, v.source as u64);
        }
        if h & REASON != 0 {
            put_opt(out, v.reason.map(u64::from));
        }
        last_proc = k.0;
        last_dev = Some(k.1);
    }
}

/// Every entry of `state` (a delta from nothing).
pub fn encode_key(state: &State) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + state.len() * 10);
    put_changes(&mut out, &State::new(), state);
    out
}

/// What changed from `prev` to `cur`: changed fields of changed entries, then removed keys.
pub fn encode_delta(prev: &State, cur: &State) -> Vec<u8> {
    let mut out = Vec::new();
    put_changes(&mut out, prev, cur);
    let removed: Vec<&Key> = prev.keys().filter(|k| !cur.contains_key(k)).collect();
    put(&mut out, removed.len() as u64);
    let mut last = 0u32;
    for k in removed {
        put(&mut out, (k.0 - last) as u64);
        put(&mut out, k.1 as u64);
        last = k.0;
    }
    out
}

/// Apply a frame to `state` (a keyframe replaces it). Counts are checked against the bytes left,
/// so a corrupt count cannot make us allocate or loop without bound.
pub fn apply(state: &mut State, keyframe: bool, blob: &[u8]) -> Result<(), FrameError> {
    let mut c = Cur { b: blob, i: 0 };
    let n = c.get()?;
    // Every entry takes at least one byte.
    if n > blob.len() as u64 {
        return Err(FrameError("entry count larger than the frame"));
    }
    if keyframe {
        state.clear();
    }
    let (mut proc, mut dev) = (0u32, None::<u32>);
    for _ in 0..n {
        let h = *c.b.get(c.i).ok_or(FrameError("truncated"))?;
        c.i += 1;
        if h & SM_ONLY != 0 {
            proc = proc
                .checked_add(1)
                .ok_or(FrameError("value out of range"))?;
            let key = (proc, dev.ok_or(FrameError("entry without a device"))?);
            let v = state
                .get_mut(&key)
                .ok_or(FrameError("change to an entry that is not there"))?;
            v.sm_percent = match h & !SM_ONLY {
                0 => None,
                code => Some(code as u32 - 1),
            };
            continue;
        }
        let mut step = (h >> STEP_SHIFT) as u32;
        if step == STEP_ESCAPE as u32 {
            step = c.get_u32()?;
        }
        proc = proc
            .checked_add(step)
            .ok_or(FrameError("value out of range"))?;
        if h & DEV != 0 {
            dev = Some(c.get_u32()?);
        }
        let key = (proc, dev.ok_or(FrameError("entry without a device"))?);
        let all = MEM | SM | SRC | REASON;
        let mut v = match state.get(&key) {
            Some(v) => *v,
            None if h & all == all => Vals::default(),
            None => return Err(FrameError("change to an entry that is not there")),
        };
        if h & MEM != 0 {
            v.memory_bytes = c.get_opt()?;
        }
        if h & SM != 0 {
            v.sm_percent = c.get_opt_u32()?;
        }
        if h & SRC != 0 {
            v.source = c.get_u32()?;
        }
        if h & REASON != 0 {
            v.reason = c.get_opt_u32()?;
        }
        state.insert(key, v);
    }
    if !keyframe {
        let r = c.get()?;
        if r > blob.len() as u64 {
            return Err(FrameError("removal count larger than the frame"));
        }
        let mut last = 0u32;
        for _ in 0..r {
            last = last
                .checked_add(c.get_u32()?)
                .ok_or(FrameError("value out of range"))?;
            let k = (last, c.get_u32()?);
            state.remove(&k);
        }
    }
    if c.i != blob.len() {
        return Err(FrameError("trailing bytes"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The extension frame (schema 2): what only some sources report.

/// Per (process, device): the system memory charged to it (GTT / shared) and the busy % per
/// engine type (DRM fdinfo, WDDM). Kept in a second, optional frame beside the main one, so a
/// recording whose sources report neither (NVML) pays nothing for them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Extra {
    pub system_memory_bytes: Option<u64>,
    /// (engine type as a string-table id, busy %), sorted by id.
    pub engines: Vec<(u32, u32)>,
}

pub type ExtState = BTreeMap<Key, Extra>;

/// The entries whose extras changed from `prev` to `cur` (an entry that lost them is written
/// as empty); `None` when nothing changed, so the row stores NULL.
pub fn encode_ext(prev: &ExtState, cur: &ExtState) -> Option<Vec<u8>> {
    let empty = Extra::default();
    let mut changed: Vec<(&Key, &Extra)> = cur
        .iter()
        .filter(|(k, v)| prev.get(k) != Some(*v))
        .collect();
    changed.extend(
        prev.keys()
            .filter(|k| !cur.contains_key(k))
            .map(|k| (k, &empty)),
    );
    if changed.is_empty() {
        return None;
    }
    changed.sort_by_key(|(k, _)| **k);
    let mut out = Vec::with_capacity(changed.len() * 8);
    put(&mut out, changed.len() as u64);
    let mut last = 0u32;
    for (k, v) in changed {
        put(&mut out, (k.0 - last) as u64);
        put(&mut out, k.1 as u64);
        put_opt(&mut out, v.system_memory_bytes);
        put(&mut out, v.engines.len() as u64);
        for (name, pct) in &v.engines {
            put(&mut out, *name as u64);
            put(&mut out, *pct as u64);
        }
        last = k.0;
    }
    Some(out)
}

/// Apply an extension frame (`None`: nothing changed) after the main frame was applied to
/// `main`. A keyframe starts from nothing; entries the main frame removed go with it.
pub fn apply_ext(
    ext: &mut ExtState,
    keyframe: bool,
    blob: Option<&[u8]>,
    main: &State,
) -> Result<(), FrameError> {
    if keyframe {
        ext.clear();
    }
    if let Some(blob) = blob {
        let mut c = Cur { b: blob, i: 0 };
        let n = c.get()?;
        // Every entry takes at least four bytes.
        if n > blob.len() as u64 {
            return Err(FrameError("extension entry count larger than the frame"));
        }
        let mut proc = 0u32;
        for _ in 0..n {
            proc = proc
                .checked_add(c.get_u32()?)
                .ok_or(FrameError("value out of range"))?;
            let key = (proc, c.get_u32()?);
            let system_memory_bytes = c.get_opt()?;
            let m = c.get()?;
            if m > (blob.len() - c.i) as u64 {
                return Err(FrameError("engine count larger than the frame"));
            }
            let mut engines = Vec::with_capacity(m as usize);
            for _ in 0..m {
                engines.push((c.get_u32()?, c.get_u32()?));
            }
            let v = Extra {
                system_memory_bytes,
                engines,
            };
            if v == Extra::default() {
                ext.remove(&key);
            } else {
                ext.insert(key, v);
            }
        }
        if c.i != blob.len() {
            return Err(FrameError("trailing bytes in the extension frame"));
        }
    }
    if ext.len() > main.len() || ext.keys().any(|k| !main.contains_key(k)) {
        ext.retain(|k, _| main.contains_key(k));
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
        // Only SM % moved: count, header (process step 2, device follows as it is the frame's
        // first entry, SM follows), device 1, SM 40 stored as 41, no removals.
        let mut t = s.clone();
        t.get_mut(&(2, 1)).unwrap().sm_percent = Some(40);
        assert_eq!(encode_delta(&s, &t), vec![1, (2 << 5) | 16 | 2, 1, 41, 0]);
        let mut back = State::new();
        apply(&mut back, true, &encode_key(&s)).unwrap();
        assert_eq!(back, s);
        assert_eq!(back[&(1, 1)].memory_bytes, Some(0));
        assert_eq!(back[&(2, 1)].memory_bytes, None);
        assert_eq!(back[&(2, 1)].sm_percent, Some(0));
    }

    #[test]
    fn an_sm_only_change_of_the_next_process_is_one_byte() {
        let mut s = State::new();
        s.insert((1, 1), vals(Some(5), Some(0)));
        s.insert((2, 1), vals(Some(6), Some(0)));
        let mut t = s.clone();
        t.get_mut(&(1, 1)).unwrap().sm_percent = Some(10);
        t.get_mut(&(2, 1)).unwrap().sm_percent = None;
        let blob = encode_delta(&s, &t);
        assert_eq!(blob, vec![2, (1 << 5) | 16 | 2, 1, 11, 0x80, 0]);
        let mut back = s.clone();
        apply(&mut back, false, &blob).unwrap();
        assert_eq!(back, t);
        // A one-byte entry with no entry to change is corrupt, not a panic or a silent insert.
        assert_eq!(
            apply(&mut State::new(), false, &[1, 0x85, 0]),
            Err(FrameError("entry without a device"))
        );
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

    fn ext_state() -> impl Strategy<Value = ExtState> {
        proptest::collection::btree_map(
            (0u32..50, 0u32..3),
            (
                proptest::option::of(0u64..u64::MAX),
                proptest::collection::btree_map(0u32..6, 0u32..101, 0..3),
            )
                .prop_map(|(m, e)| Extra {
                    system_memory_bytes: m,
                    engines: e.into_iter().collect(),
                })
                .prop_filter("not empty", |x| *x != Extra::default()),
            0..20,
        )
    }

    #[test]
    fn no_extras_cost_nothing() {
        assert_eq!(encode_ext(&ExtState::new(), &ExtState::new()), None);
        let mut main = State::new();
        main.insert((1, 1), vals(Some(1), None));
        let mut e = ExtState::new();
        e.insert(
            (1, 1),
            Extra {
                system_memory_bytes: Some(7),
                engines: vec![(3, 40)],
            },
        );
        assert_eq!(encode_ext(&e, &e), None);
        // Removed from the main state: gone from the extras too.
        let mut back = ExtState::new();
        apply_ext(
            &mut back,
            true,
            encode_ext(&ExtState::new(), &e).as_deref(),
            &main,
        )
        .unwrap();
        assert_eq!(back, e);
        apply_ext(&mut back, false, None, &State::new()).unwrap();
        assert!(back.is_empty());
        assert_eq!(
            apply_ext(&mut back, false, Some(&[1, 0, 1, 0, 100]), &main),
            Err(FrameError("engine count larger than the frame"))
        );
    }

    proptest! {
        #[test]
        fn ext_delta_then_apply_gives_the_new_extras(a in ext_state(), b in ext_state()) {
            // The main state holds every key of both.
            let main: State = a.keys().chain(b.keys()).map(|k| (*k, Vals::default())).collect();
            let mut s = a.clone();
            apply_ext(&mut s, false, encode_ext(&a, &b).as_deref(), &main).unwrap();
            prop_assert_eq!(&s, &b);
            let mut k = a;
            apply_ext(&mut k, true, encode_ext(&ExtState::new(), &b).as_deref(), &main).unwrap();
            prop_assert_eq!(k, b);
        }

        #[test]
        fn decoding_arbitrary_ext_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut s = ExtState::new();
            let _ = apply_ext(&mut s, false, Some(&bytes), &State::new());
        }

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
