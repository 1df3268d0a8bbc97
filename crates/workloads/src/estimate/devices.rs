//! Several devices: which devices llama.cpp uses and which layers each holds (`--rpc`, `-sm`,
//! `-mg`, `-ts`), as `llama_prepare_model_devices` (src/llama.cpp) and
//! `llama_model_base::load_tensors` (src/llama-model.cpp) decide:
//! - RPC servers come first in the device list, then the local GPUs;
//! - `-sm none` keeps only the `--main-gpu` device;
//! - the repeating layers and the output layer are cut by the cumulative `-ts` proportions (by
//!   each device's free memory when `-ts` is not given): layer `il` of the offloaded ones goes to
//!   the first device whose cumulative share exceeds `(il - first) / offloaded`, in 32-bit floats
//!   as llama.cpp computes it.
//!
//! Not modelled (said in words): `-sm row` (matrices split by rows over CUDA devices) and
//! `-sm tensor` (one meta device), an RPC server exposing more than one device.

use super::settings::{apply::value, flag_error};
use super::settings::{Backend, DeviceSettings, Setting, SettingSource, SplitMode};
use super::LlamaSettings;
use gpuledger_lang::Said;

/// One device llama.cpp puts buffers on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    /// As llama.cpp names the device: `RPC0`, `CUDA1`, `Vulkan0`.
    pub name: String,
    /// `127.0.0.1:50052` for an RPC device.
    pub endpoint: Option<String>,
    /// Lets ops on host weights run here for a large batch (`offload_op`): local GPUs do, RPC
    /// devices do not.
    pub offloads: bool,
    /// Whose buffer rules apply (row padding, alignment): the build's GPU backend; an RPC
    /// server is taken to run the same one (the CPU's on a CPU build).
    pub kind: Backend,
}

/// The devices in llama.cpp's order, after `-sm none`.
pub fn devices(s: &LlamaSettings) -> Vec<Device> {
    let d = &s.devices;
    let mut all: Vec<Device> = d
        .rpc
        .value
        .iter()
        .enumerate()
        .map(|(i, e)| Device {
            name: format!("RPC{i}"),
            endpoint: Some(e.clone()),
            offloads: false,
            kind: s.backend.value,
        })
        .collect();
    let prefix = match s.backend.value {
        Backend::Cuda => Some("CUDA"),
        Backend::Rocm => Some("ROCm"),
        Backend::Vulkan => Some("Vulkan"),
        Backend::Metal => Some("MTL"),
        Backend::Cpu => None,
    };
    if let Some(prefix) = prefix {
        all.extend((0..d.local.value).map(|i| Device {
            name: format!("{prefix}{i}"),
            endpoint: None,
            offloads: true,
            kind: s.backend.value,
        }));
    }
    if d.split_mode.value == SplitMode::None {
        let kept = usize::try_from(d.main_gpu.value)
            .ok()
            .and_then(|i| all.get(i).cloned());
        all = kept.into_iter().collect();
    }
    all
}

/// The device of each of `n_layer + 1` layers (the repeating ones, then the output layer), or
/// `None` for the host, for `-ngl` = `n_gpu_layers` over devices with cumulative `splits`.
pub fn assign_layers(n_layer: u32, n_gpu_layers: u32, splits: &[f32]) -> Vec<Option<u8>> {
    let n_all = n_layer as i64 + 1;
    let start = (n_all - n_gpu_layers as i64).max(0);
    let act = if splits.is_empty() {
        0
    } else {
        (n_gpu_layers as i64).min(n_all)
    };
    (0..n_all)
        .map(|il| {
            if il < start || il - start >= act {
                return None;
            }
            let x = (il - start) as f32 / act as f32;
            let i = splits.iter().take_while(|&&s| s <= x).count();
            // upper_bound past the end only when the shares are not normalised (all zero).
            u8::try_from(i.min(splits.len() - 1)).ok()
        })
        .collect()
}

/// Cumulative shares of `n` devices, normalised as llama.cpp does: from `-ts` when it has a
/// non-zero entry, else from free memory, else equal (free memory unknown: said in a note).
pub fn splits(s: &DeviceSettings, n: usize) -> (Vec<f32>, Option<Said>) {
    let given = &s.tensor_split.value;
    let raw: Vec<f32> = if given.iter().take(n).any(|&x| x != 0.0) {
        (0..n)
            .map(|i| given.get(i).copied().unwrap_or(0.0))
            .collect()
    } else if s.free.value.len() >= n && n > 0 {
        s.free.value[..n].iter().map(|&b| b as f32).collect()
    } else {
        vec![1.0; n]
    };
    let note = (n > 1 && given.iter().all(|&x| x == 0.0) && s.free.value.len() < n)
        .then(|| Said::new("recipe-note-split-evenly", vec![]));
    // Nothing to go by (every share 0, or free memory all unknown as 0): evenly, not NaN.
    let raw = if raw.iter().sum::<f32>() > 0.0 {
        raw
    } else {
        vec![1.0; n]
    };
    let mut sum = 0.0f32;
    let mut cum: Vec<f32> = raw
        .iter()
        .map(|x| {
            sum += x;
            sum
        })
        .collect();
    cum.iter_mut().for_each(|x| *x /= sum);
    (cum, note)
}

/// `-ts` as llama.cpp reads it: numbers separated by `,` or `/`.
pub fn parse_tensor_split(f: &str, v: &str) -> Result<Vec<f32>, Said> {
    let parts: Vec<&str> = v
        .split([',', '/'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() > 16 {
        return Err(flag_error(
            "recipe-flag-ts-too-many",
            f,
            &parts.len().to_string(),
        ));
    }
    parts
        .iter()
        .map(|p| match p.parse::<f32>() {
            Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
            _ => Err(flag_error(
                "recipe-flag-ts-proportion",
                f,
                &format!("{p:?}"),
            )),
        })
        .collect()
}

/// `-sm none|layer|row|tensor`.
pub fn parse_split_mode(f: &str, v: &str) -> Result<SplitMode, Said> {
    Ok(match v.trim().to_ascii_lowercase().as_str() {
        "none" => SplitMode::None,
        "layer" => SplitMode::Layer,
        "row" => SplitMode::Row,
        "tensor" => SplitMode::Tensor,
        _ => return Err(flag_error("recipe-flag-split-mode", f, &format!("{v:?}"))),
    })
}

/// `--rpc a:1,b:2` (at most 16 servers: llama.cpp's device limit).
pub fn parse_rpc(f: &str, v: &str) -> Result<Vec<String>, Said> {
    let servers: Vec<String> = v
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect();
    if servers.len() > 16 {
        return Err(flag_error(
            "recipe-flag-rpc-too-many",
            f,
            &servers.len().to_string(),
        ));
    }
    Ok(servers)
}

fn from_flag<T>(value: T, f: &str) -> Setting<T> {
    Setting {
        value,
        source: SettingSource::Flag(f.into()),
    }
}

/// The flag table's functions (`flags::FLAGS`) for the device flags.
pub fn rpc(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
    s.devices.rpc = from_flag(parse_rpc(f, value(f, v)?)?, f);
    Ok(())
}
pub fn split_mode(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
    let mode = parse_split_mode(f, value(f, v)?)?;
    if matches!(mode, SplitMode::Row | SplitMode::Tensor) {
        s.unmodelled.push(format!(
            "{f} {}: matrices split over devices (placed as -sm layer)",
            v.unwrap_or_default()
        ));
    }
    s.devices.split_mode = from_flag(mode, f);
    Ok(())
}
pub fn tensor_split(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
    s.devices.tensor_split = from_flag(parse_tensor_split(f, value(f, v)?)?, f);
    Ok(())
}
pub fn main_gpu(s: &mut LlamaSettings, f: &str, v: Option<&str>) -> Result<(), Said> {
    s.devices.main_gpu = from_flag(super::settings::int32(f, value(f, v)?)?, f);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_to_one_over_eight_layers_and_the_output() {
        let mut s = DeviceSettings::default();
        s.tensor_split.value = vec![3.0, 1.0];
        let (cum, note) = splits(&s, 2);
        assert_eq!(cum, vec![0.75, 1.0]);
        assert!(note.is_none());
        // llama-server -ngl 99 -ts 3,1 over two RPC servers, llama-deep (8 layers): the KV
        // buffers are 0.88 and 0.12 MiB, 7 layers and 1 (the output layer is on the second).
        let l = assign_layers(8, 99, &cum);
        assert_eq!(l.iter().filter(|&&d| d == Some(0)).count(), 7);
        assert_eq!(l[7], Some(1));
        assert_eq!(l[8], Some(1));
    }

    #[test]
    fn partial_offload_keeps_the_first_layers_on_the_host() {
        let (cum, _) = splits(&DeviceSettings::default(), 2);
        let l = assign_layers(8, 5, &cum);
        assert_eq!(&l[..4], &[None; 4]);
        // Five offloaded (4 layers + output) split evenly: 0/5, 1/5, 2/5 < 0.5 on the first.
        assert_eq!(&l[4..], &[Some(0), Some(0), Some(0), Some(1), Some(1)]);
    }

    #[test]
    fn free_memory_of_zero_everywhere_splits_evenly_not_into_nan() {
        let mut s = DeviceSettings::default();
        s.free.value = vec![0, 0];
        let (cum, _) = splits(&s, 2);
        assert_eq!(cum, vec![0.5, 1.0]);
    }

    #[test]
    fn tensor_split_reads_commas_and_slashes_and_refuses_words() {
        assert_eq!(parse_tensor_split("-ts", "3,1").unwrap(), vec![3.0, 1.0]);
        assert_eq!(
            parse_tensor_split("-ts", "1/1/2").unwrap(),
            vec![1.0, 1.0, 2.0]
        );
        assert!(parse_tensor_split("-ts", "3,x")
            .unwrap_err()
            .contains("\"x\""));
        assert!(parse_tensor_split("-ts", "-1").is_err());
    }
}
