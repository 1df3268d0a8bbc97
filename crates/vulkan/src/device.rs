//! Choosing the Vulkan physical device and describing it: its identity (name, type, UUID, PCI
//! address, driver), the DEVICE_LOCAL memory type and heap the allocation comes from, the queue
//! family the fill runs on, and the heap's budget where VK_EXT_memory_budget reports it.

use std::ffi::CStr;

use ash::vk;
use gpuledger_cuda::workload::{ChildDevice, VulkanDevice};

use crate::call;

fn version(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}

fn device_type(t: vk::PhysicalDeviceType) -> &'static str {
    match t {
        vk::PhysicalDeviceType::CPU => "cpu",
        vk::PhysicalDeviceType::DISCRETE_GPU => "discrete-gpu",
        vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated-gpu",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual-gpu",
        _ => "other",
    }
}

/// A fixed-size C string field, without trusting it to be terminated.
fn c_text(r: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> Option<String> {
    r.ok()
        .map(|c| c.to_string_lossy().trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The DEVICE_LOCAL memory type to allocate from, among those `allowed` (a bit per type): the one
/// on the largest DEVICE_LOCAL heap, and on that heap the one with the fewest other properties
/// (plain VRAM before the host-visible BAR window). `None` when the device has none.
pub fn pick_memory_type(props: &vk::PhysicalDeviceMemoryProperties, allowed: u32) -> Option<u32> {
    let heaps = props.memory_heaps_as_slice();
    props
        .memory_types_as_slice()
        .iter()
        .enumerate()
        .filter(|(i, t)| {
            allowed & (1 << i) != 0
                && t.property_flags
                    .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
                && heaps
                    .get(t.heap_index as usize)
                    .is_some_and(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        })
        .max_by_key(|(i, t)| {
            (
                heaps[t.heap_index as usize].size,
                std::cmp::Reverse(t.property_flags.as_raw().count_ones()),
                std::cmp::Reverse(*i),
            )
        })
        .map(|(i, _)| i as u32)
}

fn has_ext(instance: &ash::Instance, pd: vk::PhysicalDevice, name: &CStr) -> bool {
    // SAFETY: `pd` came from this instance.
    unsafe { instance.enumerate_device_extension_properties(pd) }
        .unwrap_or_default()
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(name))
}

/// The chosen physical device and what the steps need of it.
pub(crate) struct Chosen {
    pub(crate) pd: vk::PhysicalDevice,
    pub(crate) queue_family: u32,
    pub(crate) memory_type: u32,
    pub(crate) heap: u32,
    budget_ext: bool,
}

/// Lists the physical devices of `inst` (created for API version `api`) and describes the chosen
/// one: `choice`, or else the first that is not a CPU device, or else the first.
pub(crate) fn choose(
    inst: &ash::Instance,
    api: u32,
    loader: &str,
    choice: Option<i32>,
) -> Result<(Chosen, ChildDevice), String> {
    // SAFETY: a query of a live instance.
    let pds =
        unsafe { inst.enumerate_physical_devices() }.map_err(call("vkEnumeratePhysicalDevices"))?;
    if pds.is_empty() {
        return Err("the Vulkan loader lists no devices (no Vulkan driver is installed, or none found a device)".into());
    }
    // SAFETY: each `pd` came from this instance.
    let props: Vec<vk::PhysicalDeviceProperties> = pds
        .iter()
        .map(|&pd| unsafe { inst.get_physical_device_properties(pd) })
        .collect();
    let labels: Vec<String> = props.iter().enumerate().map(|(i, p)| label(i, p)).collect();
    let index = pick_index(choice, &props, &labels)?;
    let (pd, p) = (pds[index], props[index]);
    let v11 = p.api_version >= vk::API_VERSION_1_1 && api >= vk::API_VERSION_1_1;
    let budget_ext = v11 && has_ext(inst, pd, vk::EXT_MEMORY_BUDGET_NAME);
    let mut dev = VulkanDevice {
        device_type: device_type(p.device_type).into(),
        vendor_id: p.vendor_id,
        device_id: p.device_id,
        api_version: version(p.api_version),
        loader: loader.into(),
        memory_budget: budget_ext,
        others: (0..pds.len())
            .filter(|&i| i != index)
            .map(|i| labels[i].clone())
            .collect(),
        ..VulkanDevice::default()
    };
    let uuid = if v11 {
        identify(inst, pd, &p, &mut dev)
    } else {
        None
    };
    let (memory_type, heap) = memory(inst, pd, index, &p, &mut dev)?;
    let queue_family = queue_family(inst, pd, index)?;
    let child = ChildDevice {
        ordinal: index as i32,
        name: c_text(p.device_name_as_c_str()).unwrap_or_else(|| "unnamed".into()),
        uuid,
        total_bytes: dev.heap_bytes,
        vulkan: Some(dev),
        ..ChildDevice::default()
    };
    let chosen = Chosen {
        pd,
        queue_family,
        memory_type,
        heap,
        budget_ext,
    };
    Ok((chosen, child))
}

/// `0: llvmpipe (LLVM 15.0.6, 256 bits) (cpu)`: a device in the loader's list, for messages.
fn label(i: usize, p: &vk::PhysicalDeviceProperties) -> String {
    format!(
        "{i}: {} ({})",
        c_text(p.device_name_as_c_str()).unwrap_or_default(),
        device_type(p.device_type)
    )
}

/// The index in the loader's list: `choice` if the list has it, else the first device that is
/// not a CPU device, else the first.
fn pick_index(
    choice: Option<i32>,
    props: &[vk::PhysicalDeviceProperties],
    labels: &[String],
) -> Result<usize, String> {
    match choice {
        Some(i) if i >= 0 && (i as usize) < props.len() => Ok(i as usize),
        Some(i) => Err(format!(
            "there is no Vulkan device {i}: the loader lists {} ({})",
            props.len(),
            labels.join(", ")
        )),
        None => Ok(props
            .iter()
            .position(|p| p.device_type != vk::PhysicalDeviceType::CPU)
            .unwrap_or(0)),
    }
}

/// Fills in what Vulkan 1.1's properties2 tell of the device (UUID, PCI address, driver) and
/// returns its NVML spelling of the UUID where the device is NVIDIA's.
fn identify(
    inst: &ash::Instance,
    pd: vk::PhysicalDevice,
    p: &vk::PhysicalDeviceProperties,
    dev: &mut VulkanDevice,
) -> Option<String> {
    let pci_ext = has_ext(inst, pd, vk::EXT_PCI_BUS_INFO_NAME);
    let driver_ext =
        p.api_version >= vk::API_VERSION_1_2 || has_ext(inst, pd, vk::KHR_DRIVER_PROPERTIES_NAME);
    let mut id = vk::PhysicalDeviceIDProperties::default();
    let mut pci = vk::PhysicalDevicePCIBusInfoPropertiesEXT::default();
    let mut drv = vk::PhysicalDeviceDriverProperties::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
    if pci_ext {
        p2 = p2.push_next(&mut pci);
    }
    if driver_ext {
        p2 = p2.push_next(&mut drv);
    }
    // SAFETY: every structure chained is one the device supports (checked above), and all
    // live until the call returns.
    unsafe { inst.get_physical_device_properties2(pd, &mut p2) };
    if pci_ext {
        dev.pci_bus_id = Some(format!(
            "{:04x}:{:02x}:{:02x}.{:x}",
            pci.pci_domain, pci.pci_bus, pci.pci_device, pci.pci_function
        ));
    }
    if driver_ext {
        dev.driver_name = c_text(drv.driver_name_as_c_str());
        dev.driver_info = c_text(drv.driver_info_as_c_str());
    }
    if id.device_uuid == [0; 16] {
        return None;
    }
    let hex: String = id.device_uuid.iter().map(|b| format!("{b:02x}")).collect();
    dev.device_uuid = Some(hex);
    // NVIDIA's Vulkan driver reports the same 16 bytes as CUDA: NVML's spelling (`GPU-...`),
    // the CUDA binding's, finds the device in NVML's list.
    (p.vendor_id == 0x10de).then(|| gpuledger_cuda::cuda::format_uuid(&id.device_uuid))
}

/// The memory type and heap the allocation comes from, noted in `dev`.
fn memory(
    inst: &ash::Instance,
    pd: vk::PhysicalDevice,
    index: usize,
    p: &vk::PhysicalDeviceProperties,
    dev: &mut VulkanDevice,
) -> Result<(u32, u32), String> {
    // SAFETY: a query of a device of this instance.
    let mem = unsafe { inst.get_physical_device_memory_properties(pd) };
    let memory_type = pick_memory_type(&mem, u32::MAX).ok_or_else(|| {
        format!(
            "Vulkan device {index} ({}) has no DEVICE_LOCAL memory type",
            c_text(p.device_name_as_c_str()).unwrap_or_default()
        )
    })?;
    let heap = mem.memory_types[memory_type as usize].heap_index;
    dev.memory_type_index = memory_type;
    dev.heap_index = heap;
    dev.heap_bytes = mem.memory_heaps[heap as usize].size;
    Ok((memory_type, heap))
}

/// The first queue family that can run the fill (graphics or compute).
fn queue_family(inst: &ash::Instance, pd: vk::PhysicalDevice, index: usize) -> Result<u32, String> {
    // SAFETY: a query of a device of this instance.
    let families = unsafe { inst.get_physical_device_queue_family_properties(pd) };
    families
        .iter()
        .position(|f| {
            f.queue_count > 0
                && f.queue_flags
                    .intersects(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
        })
        .map(|f| f as u32)
        .ok_or_else(|| format!("Vulkan device {index} has no graphics or compute queue"))
}

/// The heap's budget and this process's usage of it (VK_EXT_memory_budget).
pub(crate) fn budget(instance: &ash::Instance, c: &Chosen) -> Option<(u64, u64)> {
    if !c.budget_ext {
        return None;
    }
    let mut b = vk::PhysicalDeviceMemoryBudgetPropertiesEXT::default();
    let mut p2 = vk::PhysicalDeviceMemoryProperties2::default().push_next(&mut b);
    // SAFETY: the device supports VK_EXT_memory_budget (checked in `choose`) and the instance is
    // 1.1; both structures live until the call returns.
    unsafe { instance.get_physical_device_memory_properties2(c.pd, &mut p2) };
    let h = c.heap as usize;
    Some((b.heap_budget[h], b.heap_usage[h]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(
        types: &[(u32, vk::MemoryPropertyFlags)],
        heaps: &[(u64, bool)],
    ) -> vk::PhysicalDeviceMemoryProperties {
        let mut p = vk::PhysicalDeviceMemoryProperties {
            memory_type_count: types.len() as u32,
            memory_heap_count: heaps.len() as u32,
            ..Default::default()
        };
        for (i, (h, f)) in types.iter().enumerate() {
            p.memory_types[i] = vk::MemoryType {
                property_flags: *f,
                heap_index: *h,
            };
        }
        for (i, (size, local)) in heaps.iter().enumerate() {
            p.memory_heaps[i] = vk::MemoryHeap {
                size: *size,
                flags: if *local {
                    vk::MemoryHeapFlags::DEVICE_LOCAL
                } else {
                    vk::MemoryHeapFlags::empty()
                },
            };
        }
        p
    }

    type F = vk::MemoryPropertyFlags;

    #[test]
    fn plain_vram_is_chosen_over_the_bar_window_and_host_memory() {
        // A discrete GPU: host heap, VRAM heap, a 256 MiB BAR heap.
        let p = props(
            &[
                (0, F::HOST_VISIBLE | F::HOST_COHERENT),
                (1, F::DEVICE_LOCAL | F::HOST_VISIBLE | F::HOST_COHERENT),
                (1, F::DEVICE_LOCAL),
                (2, F::DEVICE_LOCAL | F::HOST_VISIBLE),
            ],
            &[(32 << 30, false), (16 << 30, true), (256 << 20, true)],
        );
        assert_eq!(pick_memory_type(&p, u32::MAX), Some(2));
        // The buffer does not allow type 2: the other type on the VRAM heap.
        assert_eq!(pick_memory_type(&p, 0b1011), Some(1));
        // Only host memory allowed: nothing device-local.
        assert_eq!(pick_memory_type(&p, 0b0001), None);
    }

    #[test]
    fn lavapipe_shape_one_host_visible_device_local_type() {
        let p = props(
            &[(
                0,
                F::DEVICE_LOCAL | F::HOST_VISIBLE | F::HOST_COHERENT | F::HOST_CACHED,
            )],
            &[(23 << 30, true)],
        );
        assert_eq!(pick_memory_type(&p, u32::MAX), Some(0));
        let none = props(&[(0, F::HOST_VISIBLE)], &[(1 << 30, false)]);
        assert_eq!(pick_memory_type(&none, u32::MAX), None);
    }
}
