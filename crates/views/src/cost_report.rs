//! What `gpuledger probe` measured, as the table it prints: the device, what a CUDA context
//! costs, then one row per way of allocating memory with its VRAM cost and whether it came back.

use crate::columns::{or_unknown_with, Align, Columns};
use gpuledger_model::probe_report::{ProbeReport, Row};
use gpuledger_model::units::human_bytes;
use gpuledger_model::words;

/// `-12 MiB`, `256 MiB`: a VRAM change, negative when free memory grew.
pub fn signed_bytes(v: i64) -> String {
    if v < 0 {
        format!("-{}", human_bytes(v.unsigned_abs()))
    } else {
        human_bytes(v as u64)
    }
}

const HEADER: [&str; 7] = [
    "method",
    "host bytes",
    "VRAM delta (driver)",
    "VRAM delta (NVML)",
    "ratio (driver)",
    "ratio (NVML)",
    "released",
];

/// The human-readable table `gpuledger probe` prints.
pub fn render_table(r: &ProbeReport) -> String {
    let mut out = format!(
        "gpuledger probe: {} (CUDA device {}), {} of VRAM\n",
        r.device.name,
        r.device.ordinal,
        human_bytes(r.device.total_bytes)
    );
    out.push_str(&format!(
        "driver {}, CUDA {}, {}, measured {}\n\n",
        r.driver_version.as_deref().unwrap_or(words::UNKNOWN),
        r.cuda_driver_version.as_deref().unwrap_or(words::UNKNOWN),
        r.os,
        r.measured_at
    ));
    out.push_str(&format!(
        "context cost: {} by NVML (first context); {} by driver free memory, {} by NVML (a second context)\n\n",
        or_unknown_with(r.context.first_by_nvml, signed_bytes),
        signed_bytes(r.context.second_by_driver),
        or_unknown_with(r.context.second_by_nvml, signed_bytes),
    ));
    let mut rows = vec![HEADER.map(String::from).to_vec()];
    rows.extend(r.rows.iter().map(cells));
    let mut align = [Align::Right; 7];
    align[0] = Align::Left;
    align[6] = Align::Left;
    out.push_str(&Columns::new(&align).render(&rows));
    for n in &r.notes {
        out.push_str(&format!("\nnote: {n}"));
    }
    if !r.notes.is_empty() {
        out.push('\n');
    }
    out
}

/// One measured allocation's cells, in [`HEADER`]'s order.
fn cells(row: &Row) -> Vec<String> {
    vec![
        row.method.label().to_string(),
        human_bytes(row.host_bytes),
        signed_bytes(row.vram_delta_driver),
        or_unknown_with(row.vram_delta_nvml, signed_bytes),
        format!("{:.2}", row.ratio_driver),
        or_unknown_with(row.ratio_nvml, |x| format!("{x:.2}")),
        if row.release.released {
            format!("yes, read {}", row.release.reads)
        } else {
            format!(
                "NO: {} still missing after {} reads",
                signed_bytes(row.release.residual_bytes),
                row.release.reads
            )
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed() {
        assert_eq!(signed_bytes(-(12 << 20)), "-12 MiB");
        assert_eq!(signed_bytes(256 << 20), "256 MiB");
        assert_eq!(signed_bytes(0), "0 B");
    }
}
