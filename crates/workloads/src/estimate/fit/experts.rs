//! Step 4 of `common_fit_params`, for a MoE model whose dense weights all fit: turn the
//! dense-only layers at the back into whole layers at the front until each device is full, then
//! try one more layer of which only a part overflows (up, gate or attention only), to the next
//! device or the host.

use super::layers::{Fraction, Ngl};
use super::{guess, Fit, Halt, MIB};
use gpuledger_model::llama_estimate::FitStage;

/// The layers per device, the memory per device, and the device each first partial layer
/// overflows to (`None`: the host).
type State = (Vec<Ngl>, Vec<i64>, Vec<Option<usize>>);

impl Fit<'_> {
    /// Step 4; returns the layers and where each device's partial layer overflows to.
    pub(super) fn experts_to_devices(
        &mut self,
        ngl: Vec<Ngl>,
        mem: Vec<i64>,
        targets: &[i64],
    ) -> Result<(Vec<Ngl>, Vec<Option<usize>>), Halt> {
        let nd = ngl.len();
        let mut dense_start = (0..nd)
            .rev()
            .take_while(|&id| ngl[id].n_layer > 0)
            .last()
            .unwrap_or(nd);
        let mut st: State = (ngl, mem, vec![None; nd]);
        let mut id = 0;
        while id <= dense_start && dense_start < nd {
            dense_start = self.convert(&mut st, id, dense_start, targets)?;
            dense_start = self.one_more_layer(&mut st, id, dense_start, targets)?;
            self.say_device(&st, id);
            id += 1;
        }
        // The devices the conversion left as they were, as llama.cpp lists them too.
        for id in dense_start.saturating_add(1)..nd {
            self.say_device(&st, id);
        }
        Ok((st.0, st.2))
    }

    fn say_device(&mut self, (ngl, mem, _): &State, id: usize) {
        let text = format!(
            "  - {}: {} layers ({} overflowing), {} MiB used, {} MiB free",
            self.device_names[id],
            ngl[id].n_layer,
            ngl[id].n_part,
            mem[id] / MIB,
            (self.free[id] - mem[id]) / MIB
        );
        self.say(FitStage::Experts, text);
    }

    /// Turn dense-only layers from `dense_start` on into whole layers of device `id`, as many
    /// as fit. Returns the new first device with dense-only layers.
    fn convert(
        &self,
        (ngl, mem, to): &mut State,
        id: usize,
        mut dense_start: usize,
        targets: &[i64],
    ) -> Result<usize, Halt> {
        let nd = ngl.len();
        let mut high = ngl.clone();
        for jd in dense_start..nd {
            let n_move = high[jd].n_layer - u32::from(jd == nd - 1);
            high[id].n_layer += n_move;
            high[jd].n_layer -= n_move;
            high[jd].n_part = 0;
        }
        let mut mem_high = self.memory_for(&high, to)?;
        if mem_high[id] <= targets[id] {
            (*ngl, *mem) = (high, mem_high);
            return Ok(nd - 1);
        }
        let mut delta = high[id].n_full() - ngl[id].n_full();
        let mut guesses = 0;
        while delta > 1 {
            let n = guess(guesses, delta, targets[id], mem[id], mem_high[id]);
            guesses += 1;
            let mut test = ngl.clone();
            let mut start = dense_start;
            let mut done = 0;
            while start < nd {
                let c = (n - done).min(test[start].n_part);
                test[start].n_layer -= c;
                test[start].n_part -= c;
                test[id].n_layer += c;
                done += c;
                if test[start].n_part > 0 {
                    break;
                }
                start += 1;
            }
            let mem_test = self.memory_for(&test, to)?;
            if mem_test[id] <= targets[id] {
                (*ngl, *mem, dense_start) = (test, mem_test, start);
            } else {
                (high, mem_high) = (test, mem_test);
            }
            delta = high[id].n_full() - ngl[id].n_full();
        }
        Ok(dense_start)
    }

    /// Try one more layer on device `id` of which only a part overflows: first all but its up
    /// projection's FFN (then also the gate), else only its attention stays.
    fn one_more_layer(
        &self,
        (ngl, mem, to): &mut State,
        id: usize,
        dense_start: usize,
        targets: &[i64],
    ) -> Result<usize, Halt> {
        let nd = ngl.len();
        let min_left = u32::from(id == nd - 1);
        if ngl.get(dense_start).is_none_or(|n| n.n_layer <= min_left) {
            return Ok(dense_start);
        }
        let mut test = ngl.clone();
        test[dense_start].n_layer -= 1;
        test[dense_start].n_part -= 1;
        test[id].n_layer += 1;
        test[id].n_part += 1;
        let start = dense_start + usize::from(test[dense_start].n_part == 0);
        let mut to_test = to.clone();
        if id < nd - 1 {
            to_test[id] = Some(id + 1);
        }
        let fits = |m: &[i64]| m[id] < targets[id] && (id + 1 == nd || m[id + 1] < targets[id + 1]);
        let mut kept = dense_start;
        for tries in [
            [Fraction::Up, Fraction::Gate],
            [Fraction::Attn, Fraction::Attn],
        ] {
            test[id].overflow = tries[0];
            let m = self.memory_for(&test, &to_test)?;
            if !fits(&m) {
                if tries[0] == Fraction::Up {
                    continue;
                }
                break;
            }
            (*ngl, *mem, *to, kept) = (test.clone(), m, to_test.clone(), start);
            if tries[1] == Fraction::Gate {
                test[id].overflow = Fraction::Gate;
                let m = self.memory_for(&test, &to_test)?;
                if fits(&m) {
                    (*ngl, *mem, *to) = (test.clone(), m, to_test.clone());
                }
            }
            break;
        }
        Ok(kept)
    }
}
