//! Step 3 of `common_fit_params`: fill the devices back to front with layers, by false position
//! on the projected memory of each device (a MoE model's layers without their experts, which
//! overflow to the host through buffer-type overrides).

use super::super::settings::{GpuLayers, OverridePattern, Setting, SettingSource, TensorOverride};
use super::super::{EstimateError, LlamaSettings};
use super::{project, Fit, Projection, MIB};

/// Layers a device takes: `n_layer` in all, of which `n_part` keep their experts on the host.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Ngl {
    pub n_layer: u32,
    pub n_part: u32,
}

/// llama.cpp's pattern for the expert tensors of layer `il` (`LAYER_FRACTION_MOE`), or of every
/// layer.
fn moe_pattern(il: Option<u32>) -> String {
    let layer = il.map_or(r"\d+".to_string(), |i| i.to_string());
    format!(r"blk\.{layer}\.ffn_(up|down|gate_up|gate)_(ch|)exps")
}

fn to_cpu(pattern: String) -> TensorOverride {
    TensorOverride {
        given: format!("--fit: -ot {pattern}=CPU"),
        pattern: OverridePattern::Regex { pattern },
        buffer_type: "CPU".into(),
        source: SettingSource::Runtime("--fit".into()),
    }
}

impl Fit<'_> {
    /// The settings for layers per device (`set_ngl_tensor_split_tbo`).
    pub(super) fn settings_for(&self, ngl: &[Ngl]) -> LlamaSettings {
        let mut s = self.s.clone();
        let total: u32 = ngl.iter().map(|n| n.n_layer).sum();
        s.n_gpu_layers = Setting::runtime(GpuLayers::Count(total), "--fit");
        if ngl.len() > 1 {
            let ts = ngl.iter().map(|n| n.n_layer as f32).collect();
            s.devices.tensor_split = Setting::runtime(ts, "--fit");
        }
        let mut il0 = (self.hp_ngl + 1).saturating_sub(total);
        s.overrides.clear();
        for n in ngl {
            il0 += n.n_layer - n.n_part;
            s.overrides
                .extend((il0..il0 + n.n_part).map(|il| to_cpu(moe_pattern(Some(il)))));
            il0 += n.n_part;
        }
        s
    }

    fn memory_for(&self, ngl: &[Ngl]) -> Result<Vec<i64>, EstimateError> {
        Ok(project(self.model, &self.settings_for(ngl))?.used)
    }

    /// Free memory left over all devices with every expert on the host (MoE models).
    fn surplus_with_experts_on_host(&self) -> Result<i64, EstimateError> {
        let mut s = self.s.clone();
        s.overrides = vec![to_cpu(moe_pattern(None))];
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
        let mut ngl = vec![Ngl::default(); nd];
        let mut mem = self.memory_for(&ngl)?;
        for id in (0..nd).rev() {
            let assigned: u32 = ngl[id + 1..].iter().map(|n| n.n_layer).sum();
            let mut high = ngl.clone();
            high[id].n_layer = self.hp_ngl + 1 - assigned;
            if moe {
                high[id].n_part = high[id].n_layer - u32::from(id == nd - 1);
            }
            if high[id].n_layer > 0 {
                let mut mem_high = self.memory_for(&high)?;
                if mem_high[id] > targets[id] {
                    let mut delta = high[id].n_layer - ngl[id].n_layer;
                    while delta > 1 {
                        // C++: an int64 quotient stored in a uint32 (a negative one wraps).
                        let q =
                            i64::from(delta) * (targets[id] - mem[id]) / (mem_high[id] - mem[id]);
                        let step = (q as u32).clamp(1, delta - 1);
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
                        let mem_test = self.memory_for(&test)?;
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
        self.s = self.settings_for(&ngl);
        if moe && surplus > 0 {
            self.partly = Some(
                "llama.cpp then moves the experts of some layers back onto devices with room \
                 left (its step 4), which is not replayed: more weights may sit on the devices \
                 than shown"
                    .into(),
            );
        }
        Ok(())
    }
}
