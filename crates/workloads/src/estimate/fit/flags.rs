//! The llama-server flags that pin what `--fit` chose, each runnable as written: `-c`, `-ngl`,
//! `-ts`, and one `-ot` per override `--fit` added, a range of layers written as one regular
//! expression over their numbers (llama.cpp adds one pattern per layer; the same tensors match).
//! An override that matches no tensor of the model changes nothing and is left out.

use super::super::overrides::matches_any;
use super::super::settings::{OverridePattern, SettingSource, TensorOverride};
use super::super::{GgufModel, LlamaSettings};

pub(super) struct Pinned {
    pub tensor_split: Vec<u32>,
    pub overrides: Vec<String>,
    pub flags: Vec<String>,
}

/// The flags for the settings `s` reached by the replay.
pub(super) fn pinned(model: &GgufModel, s: &LlamaSettings) -> Pinned {
    let tensor_split: Vec<u32> = s
        .devices
        .tensor_split
        .value
        .iter()
        .map(|&x| x as u32)
        .collect();
    let overrides: Vec<String> = s
        .overrides
        .iter()
        .filter(|o| is_fits(o) && matches_any(model, &o.pattern))
        .map(override_text)
        .collect();
    let mut flags = vec![format!("-c {}", s.ctx_size.value)];
    if let super::GpuLayers::Count(n) = s.n_gpu_layers.value {
        flags.push(format!("-ngl {n}"));
    }
    if tensor_split.len() > 1 && is_fits_source(&s.devices.tensor_split.source) {
        let t: Vec<String> = tensor_split.iter().map(u32::to_string).collect();
        flags.push(format!("-ts {}", t.join(",")));
    }
    // Single quotes: the patterns hold `\`, `|` and `(` but never a quote.
    flags.extend(overrides.iter().map(|o| format!("-ot '{o}'")));
    Pinned {
        tensor_split,
        overrides,
        flags,
    }
}

fn is_fits_source(s: &SettingSource) -> bool {
    matches!(s, SettingSource::Runtime(w) if w == super::layers::FIT_SOURCE)
}

/// An override `--fit` added (the user's own are in the command line already).
fn is_fits(o: &TensorOverride) -> bool {
    is_fits_source(&o.source)
}

/// `PATTERN=BUFFER_TYPE` as `-ot` takes it.
fn override_text(o: &TensorOverride) -> String {
    let pattern = match &o.pattern {
        OverridePattern::Regex { pattern } => pattern.clone(),
        OverridePattern::Layers { from, to, block } => {
            format!(r"blk\.{}{block}", number_range(*from, *to))
        }
    };
    format!("{pattern}={}", o.buffer_type)
}

/// A regular expression for exactly the numbers `from..to` written without leading zeros: `7`,
/// or a group of alternatives (`(9|1[0-9]|2[0-3])`).
pub(super) fn number_range(from: u32, to: u32) -> String {
    if to <= from + 1 {
        return from.to_string();
    }
    let (a, b) = (u64::from(from), u64::from(to) - 1);
    let mut alts = Vec::new();
    let mut lo = a;
    while lo <= b {
        let width = lo.to_string().len() as u32;
        let hi = b.min(10u64.pow(width) - 1);
        alts.extend(same_width(lo, hi, width));
        lo = hi + 1;
    }
    format!("({})", alts.join("|"))
}

/// Alternatives for `lo..=hi`, both written with `width` digits (leading zeros inside).
fn same_width(lo: u64, hi: u64, width: u32) -> Vec<String> {
    if width == 0 {
        return vec![String::new()];
    }
    let p = 10u64.pow(width - 1);
    let (a0, b0, ar, br) = (lo / p, hi / p, lo % p, hi % p);
    let prefixed = |d: u64, v: Vec<String>| v.into_iter().map(move |s| format!("{d}{s}"));
    if a0 == b0 {
        return prefixed(a0, same_width(ar, br, width - 1)).collect();
    }
    let mut out = Vec::new();
    let mut first = a0;
    if ar != 0 {
        out.extend(prefixed(a0, same_width(ar, p - 1, width - 1)));
        first += 1;
    }
    let last = if br != p - 1 { b0 - 1 } else { b0 };
    if first <= last {
        let digit = if first == last {
            first.to_string()
        } else {
            format!("[{first}-{last}]")
        };
        let rest = match width - 1 {
            0 => String::new(),
            1 => "[0-9]".into(),
            n => format!("[0-9]{{{n}}}"),
        };
        out.push(format!("{digit}{rest}"));
    }
    if br != p - 1 {
        out.extend(prefixed(b0, same_width(0, br, width - 1)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::number_range;

    #[test]
    fn a_number_range_matches_exactly_its_numbers() {
        for (from, to) in [
            (0, 1),
            (7, 8),
            (0, 10),
            (3, 5),
            (9, 24),
            (10, 100),
            (1, 1000),
            (99, 101),
            (17, 2300),
            (123, 4567),
            (1000, 1001),
            (0, 7000),
        ] {
            let re = regex::Regex::new(&format!("^{}$", number_range(from, to))).unwrap();
            for n in 0..8000u32 {
                assert_eq!(
                    re.is_match(&n.to_string()),
                    (from..to).contains(&n),
                    "{n} in {from}..{to}: {}",
                    number_range(from, to)
                );
            }
            // Never a zero-padded layer number (llama.cpp's names have none).
            assert!(!re.is_match(&format!("0{from}")));
        }
        assert_eq!(number_range(9, 24), "(9|1[0-9]|2[0-3])");
        assert_eq!(number_range(0, 48), "([0-9]|[1-3][0-9]|4[0-7])");
    }
}
