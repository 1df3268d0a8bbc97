//! Step 3 of `common_fit_params`: fill the devices back to front with layers, by false position
//! on the projected memory of each device (a MoE model's layers without their experts, which
//! overflow to the host through buffer-type overrides).

use super::super::devices::devices;
use super::super::settings::{GpuLayers, OverridePattern, Setting, SettingSource, TensorOverride};
use super::super::LlamaSettings;
use super::{guess, Fit, Halt, MIB};
use gpuledger_model::llama_estimate::{FitProbe, FitStage};

/// Which part of a device's first partial layer overflows (`common_layer_fraction_t`); the
/// further partial layers overflow their experts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Fraction {
    /// The FFN: only attention stays.
    Attn = 1,
    /// The FFN but its up projection.
    Up = 2,
    /// The down projection.
    Gate = 3,
    /// The experts.
    #[default]
    Moe = 4,
}

/// Layers a device takes: `n_layer` in all, of which `n_part` overflow part of themselves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Ngl {
    pub n_layer: u32,
    pub n_part: u32,
    pub overflow: Fraction,
}

impl Ngl {
    pub(super) fn n_full(&self) -> u32 {
        self.n_layer - self.n_part
    }
}

/// The source of every setting `--fit` chose.
pub(super) const FIT_SOURCE: &str = "--fit";

/// What follows `blk\.I` in llama.cpp's pattern for a part of a layer (`get_overflow_pattern`).
fn block(f: Fraction) -> &'static str {
    match f {
        Fraction::Attn => r"\.ffn_(gate|up|gate_up|down).*",
        Fraction::Up => r"\.ffn_(gate|gate_up|down).*",
        Fraction::Gate => r"\.ffn_down.*",
        Fraction::Moe => r"\.ffn_(up|down|gate_up|gate)_(ch|)exps",
    }
}

/// The part `f` of layers `from..to` to `buffer_type`: one entry per layer in llama.cpp's list.
fn to_buffer(from: u32, to: u32, f: Fraction, buffer_type: String) -> TensorOverride {
    let pattern = OverridePattern::Layers {
        from,
        to,
        block: block(f).into(),
    };
    TensorOverride {
        given: format!("--fit: layers {from}..{to} {}={buffer_type}", block(f)),
        pattern,
        buffer_type,
        source: SettingSource::Runtime(FIT_SOURCE.into()),
    }
}

impl Fit<'_> {
    /// The settings for layers per device (`set_ngl_tensor_split_tbo`).
    pub(super) fn settings_for(&self, ngl: &[Ngl], overflow_to: &[Option<usize>]) -> LlamaSettings {
        let mut s = self.s.clone();
        let total: u32 = ngl.iter().map(|n| n.n_layer).sum();
        s.n_gpu_layers = Setting::runtime(GpuLayers::Count(total), FIT_SOURCE);
        if ngl.len() > 1 {
            let ts = ngl.iter().map(|n| n.n_layer as f32).collect();
            s.devices.tensor_split = Setting::runtime(ts, FIT_SOURCE);
        }
        let mut il0 = (self.n_layer + 1).saturating_sub(total);
        s.overrides.clear();
        for (id, n) in ngl.iter().enumerate() {
            il0 += n.n_full();
            if n.n_part > 0 {
                let to = overflow_to.get(id).copied().flatten();
                s.overrides
                    .push(to_buffer(il0, il0 + 1, n.overflow, self.buffer_type(to)));
                if n.n_part > 1 {
                    let end = il0 + n.n_part;
                    s.overrides
                        .push(to_buffer(il0 + 1, end, Fraction::Moe, "CPU".into()));
                }
            }
            il0 += n.n_part;
        }
        s
    }

    /// The buffer type of device `d` as an override names it (`CPU` for none).
    fn buffer_type(&self, d: Option<usize>) -> String {
        let devs = devices(&self.s);
        match d.and_then(|d| devs.get(d)) {
            Some(dev) => match &dev.endpoint {
                Some(e) => format!("RPC0[{e}]"),
                None => dev.name.clone(),
            },
            None => "CPU".into(),
        }
    }

    pub(super) fn memory_for(
        &self,
        ngl: &[Ngl],
        overflow_to: &[Option<usize>],
    ) -> Result<Vec<i64>, Halt> {
        let used = self.project(&self.settings_for(ngl, overflow_to))?.used;
        self.probes.borrow_mut().push(FitProbe {
            layers: ngl
                .iter()
                .map(|n| (n.n_layer, n.n_part, n.overflow as u8))
                .collect(),
            used: used.clone(),
        });
        Ok(used)
    }

    /// Free memory left over all devices with every expert on the host (MoE models).
    fn surplus_with_experts_on_host(&self) -> Result<i64, Halt> {
        let mut s = self.s.clone();
        s.overrides = vec![to_buffer(0, self.n_layer, Fraction::Moe, "CPU".into())];
        let p = self.project(&s)?;
        Ok((0..p.used.len())
            .map(|i| self.free[i] - p.used[i] - self.margins[i])
            .sum())
    }

    /// Step 3, then the settings it chose.
    pub(super) fn fill_layers(&mut self, nd: usize) -> Result<(), Halt> {
        let moe = self.moe;
        let surplus = if moe {
            self.surplus_with_experts_on_host()?
        } else {
            0
        };
        let targets: Vec<i64> = (0..nd).map(|i| self.free[i] - self.margins[i]).collect();
        let cpu = vec![None; nd];
        let mut ngl = vec![Ngl::default(); nd];
        let mut mem = self.memory_for(&ngl, &cpu)?;
        for id in (0..nd).rev() {
            let assigned: u32 = ngl[id + 1..].iter().map(|n| n.n_layer).sum();
            let mut high = ngl.clone();
            high[id].n_layer = self.n_layer + 1 - assigned;
            if moe {
                high[id].n_part = high[id].n_layer - u32::from(id == nd - 1);
            }
            if high[id].n_layer > 0 {
                let mut mem_high = self.memory_for(&high, &cpu)?;
                if mem_high[id] > targets[id] {
                    let mut delta = high[id].n_layer - ngl[id].n_layer;
                    let mut guesses = 0;
                    while delta > 1 {
                        let step = guess(guesses, delta, targets[id], mem[id], mem_high[id]);
                        guesses += 1;
                        let mut test = ngl.clone();
                        test[id].n_layer += step;
                        if moe {
                            // The last device's first layer is the output layer: always whole.
                            test[id].n_part += if id == nd - 1 && test[id].n_part == 0 {
                                step - 1
                            } else {
                                step
                            };
                        }
                        let mem_test = self.memory_for(&test, &cpu)?;
                        if mem_test[id] <= targets[id] {
                            (ngl, mem) = (test, mem_test);
                        } else {
                            (high, mem_high) = (test, mem_test);
                        }
                        delta = high[id].n_layer - ngl[id].n_layer;
                    }
                } else {
                    (ngl, mem) = (high, mem_high);
                }
            }
            let text = format!(
                "  - {}: {} layers, {} MiB used, {} MiB free",
                self.device_names[id],
                ngl[id].n_layer,
                mem[id] / MIB,
                (self.free[id] - mem[id]) / MIB
            );
            self.say(FitStage::Layers, text);
        }
        if moe && surplus > 0 {
            let (ngl, overflow_to) = self.experts_to_devices(ngl, mem, &targets)?;
            self.s = self.settings_for(&ngl, &overflow_to);
        } else {
            self.s = self.settings_for(&ngl, &cpu);
        }
        Ok(())
    }
}
