//! One device's identity, memory, utilisation, clocks, power and PCIe link, each value read on
//! its own so that one missing entry point leaves only that value unknown.

use super::{c_chars, ffi, missing, read_string, Device, DeviceHandle, Nvml, Return};
use gpuledger_model::snapshot::ComputeCapability;
use std::ffi::c_uint;

impl Nvml {
    /// Every value of one device, in order: identity, memory, utilisation, sensors (temperature,
    /// power), clocks, PCIe link.
    pub(super) fn fill_device(&self, h: DeviceHandle, dev: &mut Device) {
        self.fill_identity(h, dev);
        self.fill_mig(h, dev);
        self.fill_memory(h, dev);
        self.fill_utilization(h, dev);
        self.fill_sensors(h, dev);
        self.fill_clocks(h, dev);
        self.fill_pcie(h, dev);
    }

    /// UUID, name and PCI bus id.
    fn fill_identity(&self, h: DeviceHandle, dev: &mut Device) {
        let api = &self.api;
        match api.uuid.map(|f| read_string(|b, l| unsafe { f(h, b, l) })) {
            Some(Ok(u)) => dev.uuid = u,
            Some(Err(rc)) => dev.mark_unavailable("uuid", self.call_err("nvmlDeviceGetUUID", rc)),
            None => dev.mark_unavailable("uuid", missing("nvmlDeviceGetUUID")),
        }
        match api.name.map(|f| read_string(|b, l| unsafe { f(h, b, l) })) {
            Some(Ok(n)) => dev.name = Some(n),
            Some(Err(rc)) => dev.mark_unavailable("name", self.call_err("nvmlDeviceGetName", rc)),
            None => dev.mark_unavailable("name", missing("nvmlDeviceGetName")),
        }
        // Optional: older drivers lack it, and only the runtimes' kernel choice needs it.
        if let Some(f) = api.compute_capability {
            let (mut major, mut minor) = (0, 0);
            // SAFETY: two out-pointers to ints, as nvml.h declares.
            if unsafe { f(h, &mut major, &mut minor) } == ffi::SUCCESS {
                if let (Ok(major @ 1..=99), Ok(minor @ 0..=99)) =
                    (u32::try_from(major), u32::try_from(minor))
                {
                    dev.compute_capability = Some(ComputeCapability { major, minor });
                }
            }
        }
        if let Some(f) = api.pci_info {
            let mut pci = ffi::PciInfo::default();
            // SAFETY: out-pointer to a PciInfo with nvmlPciInfo_t's layout.
            match unsafe { f(h, &mut pci) } {
                ffi::SUCCESS => dev.pci_bus_id = Some(c_chars(&pci.bus_id)),
                rc => dev.mark_unavailable("pci_bus_id", self.call_err("nvmlDeviceGetPciInfo", rc)),
            }
        } else {
            dev.mark_unavailable("pci_bus_id", missing("nvmlDeviceGetPciInfo_v3"));
        }
    }

    /// The UUIDs of the GPU's MIG devices (none when MIG is unsupported or off, where NVML
    /// counts 0 slots or says not supported). Only the kubelet's device ids need them, so a
    /// failure leaves the list empty without a note.
    fn fill_mig(&self, h: DeviceHandle, dev: &mut Device) {
        let (Some(max), Some(by_index), Some(uuid)) =
            (self.api.mig_max, self.api.mig_by_index, self.api.uuid)
        else {
            return;
        };
        let mut slots: c_uint = 0;
        // SAFETY: out-pointer to an unsigned int.
        if unsafe { max(h, &mut slots) } != ffi::SUCCESS {
            return;
        }
        // An A100/H100 has 7 slots; the bound keeps a lying library from costing the round.
        for i in 0..slots.min(64) {
            let mut mig: DeviceHandle = std::ptr::null_mut();
            // SAFETY: out-pointer to a device handle; an empty slot answers NOT_FOUND.
            if unsafe { by_index(h, i, &mut mig) } != ffi::SUCCESS {
                continue;
            }
            if let Ok(u) = read_string(|b, l| unsafe { uuid(mig, b, l) }) {
                dev.mig_devices.push(u);
            }
        }
    }

    /// GPU and memory-controller busy percentages (one call gives both).
    fn fill_utilization(&self, h: DeviceHandle, dev: &mut Device) {
        let why = match self.api.utilization {
            Some(f) => {
                let mut u = ffi::Utilization::default();
                // SAFETY: out-pointer to nvmlUtilization_t.
                match unsafe { f(h, &mut u) } {
                    ffi::SUCCESS => {
                        dev.utilization.gpu_percent = Some(u.gpu);
                        dev.utilization.memory_percent = Some(u.memory);
                        return;
                    }
                    rc => self.call_err("nvmlDeviceGetUtilizationRates", rc),
                }
            }
            None => missing("nvmlDeviceGetUtilizationRates"),
        };
        dev.mark_unavailable("utilization.gpu_percent", why.clone());
        dev.mark_unavailable("utilization.memory_percent", why);
    }

    /// Temperature and power (NVML gives milliwatts).
    fn fill_sensors(&self, h: DeviceHandle, dev: &mut Device) {
        let api = &self.api;
        if let Some(t) = self.u32_arg(
            h,
            api.temperature,
            ffi::TEMPERATURE_GPU,
            "nvmlDeviceGetTemperature",
            dev,
            "temperature_c",
        ) {
            dev.temperature_c = i32::try_from(t).ok();
        }
        let watts = |mw: u32| mw as f64 / 1000.0;
        dev.power.usage_watts = self
            .u32(
                h,
                api.power_usage,
                "nvmlDeviceGetPowerUsage",
                dev,
                "power.usage_watts",
            )
            .map(watts);
        dev.power.limit_watts = self
            .u32(
                h,
                api.power_limit,
                "nvmlDeviceGetEnforcedPowerLimit",
                dev,
                "power.limit_watts",
            )
            .map(watts);
    }

    /// Graphics, SM and memory clocks: one entry point, one clock per call.
    fn fill_clocks(&self, h: DeviceHandle, dev: &mut Device) {
        let [graphics, sm, memory] = [
            (ffi::CLOCK_GRAPHICS, "clocks.graphics_mhz"),
            (ffi::CLOCK_SM, "clocks.sm_mhz"),
            (ffi::CLOCK_MEM, "clocks.memory_mhz"),
        ]
        .map(|(clock, field)| {
            self.u32_arg(
                h,
                self.api.clock,
                clock,
                "nvmlDeviceGetClockInfo",
                dev,
                field,
            )
        });
        dev.clocks.graphics_mhz = graphics;
        dev.clocks.sm_mhz = sm;
        dev.clocks.memory_mhz = memory;
    }

    /// Current and maximum PCIe link generation and width.
    fn fill_pcie(&self, h: DeviceHandle, dev: &mut Device) {
        let api = &self.api;
        let [gen, width, max_gen, max_width] = [
            (
                api.pcie_gen,
                "nvmlDeviceGetCurrPcieLinkGeneration",
                "pcie.link_gen",
            ),
            (
                api.pcie_width,
                "nvmlDeviceGetCurrPcieLinkWidth",
                "pcie.link_width",
            ),
            (
                api.pcie_max_gen,
                "nvmlDeviceGetMaxPcieLinkGeneration",
                "pcie.max_link_gen",
            ),
            (
                api.pcie_max_width,
                "nvmlDeviceGetMaxPcieLinkWidth",
                "pcie.max_link_width",
            ),
        ]
        .map(|(f, fname, field)| self.u32(h, f, fname, dev, field));
        dev.pcie.link_gen = gen;
        dev.pcie.link_width = width;
        dev.pcie.max_link_gen = max_gen;
        dev.pcie.max_link_width = max_width;
    }

    pub(super) fn fill_memory(&self, h: DeviceHandle, dev: &mut Device) {
        // Prefer v2: it separates `reserved` (driver/firmware) from `used`.
        if let Some(f) = self.api.memory_v2 {
            let mut m = ffi::MemoryV2 {
                version: ffi::MEMORY_V2_VERSION,
                ..Default::default()
            };
            // SAFETY: out-pointer to nvmlMemory_v2_t with its version set.
            let rc = unsafe { f(h, &mut m) };
            if rc == ffi::SUCCESS {
                dev.memory.total_bytes = Some(m.total);
                dev.memory.used_bytes = Some(m.used);
                dev.memory.free_bytes = Some(m.free);
                dev.memory.reserved_bytes = Some(m.reserved);
                return;
            }
            if self.api.memory.is_none() {
                mark_memory_unavailable(dev, self.call_err("nvmlDeviceGetMemoryInfo_v2", rc));
                return;
            }
        }
        match self.api.memory {
            Some(f) => {
                let mut m = ffi::Memory::default();
                // SAFETY: out-pointer to nvmlMemory_t.
                match unsafe { f(h, &mut m) } {
                    ffi::SUCCESS => {
                        dev.memory.total_bytes = Some(m.total);
                        dev.memory.used_bytes = Some(m.used);
                        dev.memory.free_bytes = Some(m.free);
                        dev.mark_unavailable(
                            "memory.reserved_bytes",
                            "this driver has no nvmlDeviceGetMemoryInfo_v2; reserved memory is counted in used",
                        );
                    }
                    rc => {
                        mark_memory_unavailable(dev, self.call_err("nvmlDeviceGetMemoryInfo", rc))
                    }
                }
            }
            None => mark_memory_unavailable(dev, missing("nvmlDeviceGetMemoryInfo")),
        }
    }

    /// Read one `unsigned int` through `call` (which gets the out-pointer); a missing function or
    /// an error becomes the field's reason.
    pub(super) fn read_u32(
        &self,
        present: bool,
        fname: &str,
        dev: &mut Device,
        field: &str,
        call: impl FnOnce(*mut c_uint) -> Return,
    ) -> Option<u32> {
        if !present {
            dev.mark_unavailable(field, missing(fname));
            return None;
        }
        let mut v: c_uint = 0;
        match call(&mut v) {
            ffi::SUCCESS => Some(v),
            rc => {
                dev.mark_unavailable(field, self.call_err(fname, rc));
                None
            }
        }
    }

    pub(super) fn u32(
        &self,
        h: DeviceHandle,
        f: Option<unsafe extern "C" fn(DeviceHandle, *mut c_uint) -> Return>,
        fname: &str,
        dev: &mut Device,
        field: &str,
    ) -> Option<u32> {
        // SAFETY: `f` is the resolved symbol; the out-pointer is a valid c_uint.
        self.read_u32(f.is_some(), fname, dev, field, |out| match f {
            Some(f) => unsafe { f(h, out) },
            None => ffi::ERROR_NOT_SUPPORTED,
        })
    }

    pub(super) fn u32_arg(
        &self,
        h: DeviceHandle,
        f: Option<unsafe extern "C" fn(DeviceHandle, c_uint, *mut c_uint) -> Return>,
        arg: c_uint,
        fname: &str,
        dev: &mut Device,
        field: &str,
    ) -> Option<u32> {
        // SAFETY: as in `u32`, with the sensor/clock argument passed through.
        self.read_u32(f.is_some(), fname, dev, field, |out| match f {
            Some(f) => unsafe { f(h, arg, out) },
            None => ffi::ERROR_NOT_SUPPORTED,
        })
    }
}

/// Every memory figure unknown, for one reason.
fn mark_memory_unavailable(dev: &mut Device, why: String) {
    for k in ["total_bytes", "used_bytes", "free_bytes", "reserved_bytes"] {
        dev.mark_unavailable(&format!("memory.{k}"), why.clone());
    }
}
