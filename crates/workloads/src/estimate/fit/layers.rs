//! Step 3 of `common_fit_params`: fill the devices back to front with layers, by false position
//! on the projected memory of each device (a MoE model's layers without their experts, which
//! overflow to the host through buffer-type overrides).

use super::super::devices::devices;
use super::super::settings::{GpuLayers, OverridePattern, Setting, SettingSource, TensorOverride};
use super::super::{EstimateError, LlamaSettings};
use super::{project, step, Fit, Projection, MIB};

/// Which part of a device's first partial layer overflows (`common_layer_fraction_t`); the
/// further partial layers overflow their experts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Fraction {
    /// The FFN: only attention stays.
    Attn,
    /// The FFN but its up projection.
    Up,
    /// The down projection.
    Gate,
    /// The experts.
    #[default]
    Moe,
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

/// llama.cpp's pattern for a part of layer `il` (`get_overflow_pattern`); the experts of every
/// layer with `None`.
fn pattern(il: Option<u32>, f: Fraction) -> String {
    let layer = il.map_or(r"\d+".to_string(), |i| i.to_string());
    let part = match f {
        Fraction::Attn => r"ffn_(gate|up|gate_up|down).*",
        Fraction::Up => r"ffn_(gate|gate_up|down).*",
        Fraction::Gate => r"ffn_down.*",
        Fraction::Moe => r"ffn_(up|down|gate_up|gate)_(ch|)exps",
    };
    format!(r"blk\.{layer}\.{part}")
}

fn to_buffer(pattern: String, buffer_type: String) -> TensorOverride {
    TensorOverride {
        given: format!("--fit: -ot {pattern}={buffer_type}"),
        pattern: OverridePattern::Regex { pattern },
        buffer_type,
        source: SettingSource::Runtime("--fit".into()),
    }
}

fn to_cpu(pattern: String) -> TensorOverride {
    to_buffer(pattern, "CPU".into())
}

impl Fit<'_> {
    /// The settings for layers per device (`set_ngl_tensor_split_tbo`).
    pub(super) fn settings_for(&self, ngl: &[Ngl], overflow_to: &[Option<usize>]) -> LlamaSettings {
        let mut s = self.s.clone();
        let total: u32 = ngl.iter().map(|n| n.n_layer).sum();
        s.n_gpu_layers = Setting::runtime(GpuLayers::Count(total), "--fit");
        if ngl.len() > 1 {
            let ts = ngl.iter().map(|n| n.n_layer as f32).collect();
            s.devices.tensor_split = Setting::runtime(ts, "--fit");
        }
        let mut il0 = (self.hp_ngl + 1).saturating_sub(total);
        s.overrides.clear();
        for (id, n) in ngl.iter().enumerate() {
            il0 += n.n_full();
            for il in il0..il0 + n.n_part {
                s.overrides.push(if il == il0 {
                    let to = overflow_to.get(id).copied().flatten();
                    to_buffer(pattern(Some(il), n.overflow), self.buffer_type(to))
                } else {
                    to_cpu(pattern(Some(il), Fraction::Moe))
                });
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
    ) -> Result<Vec<i64>, EstimateError> {
        Ok(project(self.model, &self.settings_for(ngl, overflow_to))?.used)
    }

    /// Free memory left over all devices with every expert on the host (MoE models).
    fn surplus_with_experts_on_host(&self) -> Result<i64, EstimateError> {
        let mut s = self.s.clone();
        s.overrides = vec![to_cpu(pattern(None, Fraction::Moe))];
        let p: Projection = project(self.model, &s)?;
        Ok((0..p.used.len())
            .map(|i| self.free[i] - p.used[i] - self.margins[i])
            .sum())
    }

    /// Step 3, then the settings it chose.
    pub(super) fn fill_layers(&mut self, nd: usize) -> Result<(), EstimateError> {
        let moe = self.hp_nex > 0;
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
            high[id].n_layer = self.hp_ngl + 1 - assigned;
            if moe {
                high[id].n_part = high[id].n_layer - u32::from(id == nd - 1);
            }
            if high[id].n_layer > 0 {
                let mut mem_high = self.memory_for(&high, &cpu)?;
                if mem_high[id] > targets[id] {
                    let mut delta = high[id].n_layer - ngl[id].n_layer;
                    while delta > 1 {
                        let step = step(delta, targets[id], mem[id], mem_high[id]);
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
            let name = self.device_names[id].clone();
            self.say(format!(
                "  - {name}: {} layers, {} MiB used, {} MiB free",
                ngl[id].n_layer,
                mem[id] / MIB,
                (self.free[id] - mem[id]) / MIB
            ));
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
