//! A device's context in words, as nvitop's header gives it: driver, clocks, PCIe link, runtime
//! power state. Only what the snapshot holds; a value a source could not read is `n/a` (never a
//! number made up), and a field the device's source does not report at all is left out. Each item
//! is whole, most telling first, so a view fits as many as its width allows.

use gpuledger_model::{Device, Pcie};

/// `driver 550.54.15` for the devices' driver (one line for all: a machine runs one NVIDIA
/// driver); `None` without devices. Several versions (several vendors) are listed together.
pub fn driver_item(devices: &[Device], lang: gpuledger_lang::Lang) -> Option<String> {
    if devices.is_empty() {
        return None;
    }
    let mut versions: Vec<&str> = devices
        .iter()
        .filter_map(|d| d.driver_version.as_deref())
        .collect();
    versions.dedup();
    let version = match versions.as_slice() {
        [] => gpuledger_model::words::UNKNOWN.to_string(),
        v => gpuledger_model::term_safe(&v.join("/")).into_owned(),
    };
    Some(lang.t_args("report-driver-item", &[("version", version.into())]))
}

/// `SM 1980 MHz`, `mem 3201 MHz`, `PCIe 4.0 x16` (with `of 5.0 x16` when the link runs below
/// its maximum), the power state when reported (the driver's word): each item whole.
pub fn device_items(d: &Device, lang: gpuledger_lang::Lang) -> Vec<String> {
    let mhz = |v: Option<u32>| v.map_or("n/a".to_string(), |v| format!("{v} MHz"));
    let mem = mhz(d.clocks.memory_mhz);
    let mut items = vec![
        format!("SM {}", mhz(d.clocks.sm_mhz.or(d.clocks.graphics_mhz))),
        lang.t_args("report-context-mem-clock", &[("clock", mem.into())]),
        pcie_item(&d.pcie, lang),
    ];
    if let Some(state) = &d.power_state {
        items.push(gpuledger_model::term_safe(state).into_owned());
    }
    items
}

fn pcie_item(p: &Pcie, lang: gpuledger_lang::Lang) -> String {
    let link = |g: Option<u32>, w: Option<u32>| match (g, w) {
        (Some(g), Some(w)) => Some(format!("{g}.0 x{w}")),
        (Some(g), None) => Some(format!("{g}.0 x n/a")),
        (None, Some(w)) => Some(format!("gen n/a x{w}")),
        (None, None) => None,
    };
    let now = link(p.link_gen, p.link_width);
    let max = link(p.max_link_gen, p.max_link_width);
    match (now, max) {
        (Some(n), Some(m)) if n != m => lang.t_args(
            "report-context-pcie-below",
            &[("now", n.into()), ("max", m.into())],
        ),
        (Some(n), _) => format!("PCIe {n}"),
        (None, _) => "PCIe n/a".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_lang::Lang;
    use gpuledger_model::test_support::device;

    #[test]
    fn clocks_and_link_as_read_and_unknowns_as_na() {
        let mut d = device(0, "GPU-0", Some(1 << 34), Some(1 << 33));
        assert_eq!(
            device_items(&d, Lang::En),
            ["SM n/a", "mem n/a", "PCIe n/a"]
        );
        d.clocks.sm_mhz = Some(1980);
        d.clocks.memory_mhz = Some(3201);
        d.pcie.link_gen = Some(4);
        d.pcie.link_width = Some(16);
        d.pcie.max_link_gen = Some(5);
        d.pcie.max_link_width = Some(16);
        assert_eq!(
            device_items(&d, Lang::En),
            ["SM 1980 MHz", "mem 3201 MHz", "PCIe 4.0 x16 of 5.0 x16"]
        );
        assert_eq!(
            device_items(&d, Lang::ZhCn),
            [
                "SM 1980 MHz",
                "显存 3201 MHz",
                "PCIe 4.0 x16（最高 5.0 x16）"
            ]
        );
        assert_eq!(device_items(&d, Lang::ZhTw)[1], "記憶體 3201 MHz");
        d.pcie.max_link_gen = Some(4);
        d.power_state = Some("suspended".into());
        assert_eq!(
            device_items(&d, Lang::En)[2..],
            ["PCIe 4.0 x16", "suspended"]
        );
    }

    #[test]
    fn one_driver_item_for_the_machine() {
        assert_eq!(driver_item(&[], Lang::En), None);
        let mut a = device(0, "GPU-0", None, None);
        let mut b = device(1, "GPU-1", None, None);
        assert_eq!(
            driver_item(&[a.clone()], Lang::En).as_deref(),
            Some("driver n/a")
        );
        a.driver_version = Some("550.54.15".into());
        b.driver_version = Some("550.54.15".into());
        assert_eq!(
            driver_item(&[a.clone(), b.clone()], Lang::En).as_deref(),
            Some("driver 550.54.15")
        );
        assert_eq!(
            driver_item(&[a, b], Lang::ZhCn).as_deref(),
            Some("驱动 550.54.15")
        );
    }
}
