//! The Vulkan child: the same protocol as the CUDA child (one command a line in, one
//! [`StepReport`] a line out; `context`, `alloc N`, `free`, `exit`), so the parent's sequence,
//! time limits and clean-up are the same for both paths.
//!
//! - idle: the loader is opened, an instance created and the physical devices listed; the chosen
//!   device is reported (no logical device yet, so no driver memory of the workload's own);
//! - context: a logical device with one queue and a command pool;
//! - allocated: a buffer of N bytes bound to N bytes of a DEVICE_LOCAL memory type, filled with
//!   `vkCmdFillBuffer` on the device and waited for, so the pages are really touched;
//! - freed: the buffer destroyed and the memory freed;
//! - exit: the device and the instance destroyed.
//!
//! Everything lives in [`Held`], whose `Drop` releases it in order (wait idle, buffer, memory,
//! pool, device, instance): an error, the end of input (the parent gave up or was interrupted)
//! or a Ctrl-C releases the memory before the process ends.

use std::ffi::CStr;
use std::io::{BufRead, Write};
use std::path::Path;

use ash::vk;
use gpuledger_cuda::signal;
use gpuledger_cuda::workload::{ChildDevice, StepReport, VulkanDevice};

/// How long the fill may take before the step is given up (the parent allows 5 s a step).
const FILL_TIMEOUT_NS: u64 = 4_000_000_000;
/// The pattern written over the allocation.
const FILL: u32 = 0xA5A5_A5A5;

/// A driver call that failed, in words: `vkCreateDevice: ERROR_OUT_OF_DEVICE_MEMORY`.
fn call(name: &str) -> impl Fn(vk::Result) -> String + '_ {
    move |e| format!("{name}: {e}")
}

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

/// NVML's spelling of a device UUID (`GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`): NVIDIA's Vulkan
/// driver reports the same 16 bytes as its `deviceUUID`, so this finds the device in NVML's list.
/// The spelling is CUDA's binding's (one owner).
pub fn nvml_uuid(bytes: &[u8; 16]) -> String {
    gpuledger_cuda::cuda::format_uuid(bytes)
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

struct Alloc {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
}

struct Logical {
    device: ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
    alloc: Option<Alloc>,
}

/// The chosen physical device and what the steps need of it.
struct Chosen {
    pd: vk::PhysicalDevice,
    queue_family: u32,
    memory_type: u32,
    heap: u32,
    budget_ext: bool,
}

/// Everything the workload holds; dropping it releases all of it, in order.
struct Held {
    instance: ash::Instance,
    /// The API version the instance was created for.
    api: u32,
    logical: Option<Logical>,
    /// Declared last so it is dropped last: the loader stays open while the instance exists.
    _entry: ash::Entry,
}

impl Held {
    /// Frees the allocation, if any.
    fn free(&mut self) {
        if let Some(l) = &mut self.logical {
            if let Some(a) = l.alloc.take() {
                // SAFETY: the buffer and memory were created from this device; waiting for the
                // device to be idle first means no command still uses them.
                unsafe {
                    let _ = l.device.device_wait_idle();
                    l.device.destroy_buffer(a.buffer, None);
                    l.device.free_memory(a.memory, None);
                }
            }
        }
    }

    fn release_device(&mut self) {
        self.free();
        if let Some(l) = self.logical.take() {
            // SAFETY: the allocation is gone (above) and the device is idle; the pool's command
            // buffers are freed with the pool; nothing refers to the device after this.
            unsafe {
                let _ = l.device.device_wait_idle();
                l.device.destroy_command_pool(l.pool, None);
                l.device.destroy_device(None);
            }
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.release_device();
        // SAFETY: every child object of the instance (the logical device) is destroyed above;
        // the instance is not used after this.
        unsafe { self.instance.destroy_instance(None) };
    }
}

/// Opens the loader and creates an instance: the idle step.
fn open(loader: Option<&Path>) -> Result<(Held, String), String> {
    // SAFETY: loading the Vulkan loader runs its initialisers; it is the system's (or the one the
    // user named) and is meant to be loaded into any process. The library stays loaded for as
    // long as `Entry` lives, which outlives every Vulkan object (see `Held`).
    let entry = unsafe {
        match loader {
            Some(p) => ash::Entry::load_from(p),
            None => ash::Entry::load(),
        }
    };
    let name = loader
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| default_loader().into());
    let entry = entry.map_err(|e| {
        format!("cannot load the Vulkan loader {name}: {e} (install the Vulkan loader, libvulkan1 on Debian/Ubuntu, and a Vulkan driver)")
    })?;
    // SAFETY: a plain query of the loaded loader.
    let loader_version = unsafe { entry.try_enumerate_instance_version() }
        .ok()
        .flatten()
        .unwrap_or(vk::API_VERSION_1_0);
    // Ask for 1.1 or later where the loader has it (device UUID, properties2 and the memory
    // budget query are 1.1), never more than 1.3.
    let api = loader_version.min(vk::API_VERSION_1_3);
    let app = vk::ApplicationInfo::default()
        .application_name(c"gpuledger verify")
        .api_version(api);
    let info = vk::InstanceCreateInfo::default().application_info(&app);
    // SAFETY: `info` and `app` are valid for the call; no extensions or layers are asked for.
    let instance =
        unsafe { entry.create_instance(&info, None) }.map_err(call("vkCreateInstance"))?;
    Ok((
        Held {
            instance,
            api,
            logical: None,
            _entry: entry,
        },
        name,
    ))
}

fn default_loader() -> &'static str {
    if cfg!(windows) {
        "vulkan-1.dll"
    } else if cfg!(target_os = "macos") {
        "libvulkan.dylib"
    } else {
        "libvulkan.so.1"
    }
}

fn has_ext(instance: &ash::Instance, pd: vk::PhysicalDevice, name: &CStr) -> bool {
    // SAFETY: `pd` came from this instance.
    unsafe { instance.enumerate_device_extension_properties(pd) }
        .unwrap_or_default()
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(name))
}

/// Lists the physical devices and describes the chosen one: `choice`, or else the first that is
/// not a CPU device, or else the first.
fn choose(held: &Held, loader: &str, choice: Option<i32>) -> Result<(Chosen, ChildDevice), String> {
    let inst = &held.instance;
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
    let label = |i: usize| {
        format!(
            "{i}: {} ({})",
            c_text(props[i].device_name_as_c_str()).unwrap_or_default(),
            device_type(props[i].device_type)
        )
    };
    let index = match choice {
        Some(i) if i >= 0 && (i as usize) < pds.len() => i as usize,
        Some(i) => {
            return Err(format!(
                "there is no Vulkan device {i}: the loader lists {} ({})",
                pds.len(),
                (0..pds.len()).map(label).collect::<Vec<_>>().join(", ")
            ))
        }
        None => props
            .iter()
            .position(|p| p.device_type != vk::PhysicalDeviceType::CPU)
            .unwrap_or(0),
    };
    let pd = pds[index];
    let p = props[index];
    let v11 = p.api_version >= vk::API_VERSION_1_1 && held.api >= vk::API_VERSION_1_1;
    let pci_ext = has_ext(inst, pd, vk::EXT_PCI_BUS_INFO_NAME);
    let budget_ext = v11 && has_ext(inst, pd, vk::EXT_MEMORY_BUDGET_NAME);
    let driver_ext =
        p.api_version >= vk::API_VERSION_1_2 || has_ext(inst, pd, vk::KHR_DRIVER_PROPERTIES_NAME);
    let mut dev = VulkanDevice {
        device_type: device_type(p.device_type).into(),
        vendor_id: p.vendor_id,
        device_id: p.device_id,
        api_version: version(p.api_version),
        loader: loader.into(),
        memory_budget: budget_ext,
        others: (0..pds.len()).filter(|&i| i != index).map(label).collect(),
        ..VulkanDevice::default()
    };
    let mut uuid = None;
    if v11 {
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
        if id.device_uuid != [0; 16] {
            let hex: String = id.device_uuid.iter().map(|b| format!("{b:02x}")).collect();
            dev.device_uuid = Some(hex);
            if p.vendor_id == 0x10de {
                uuid = Some(nvml_uuid(&id.device_uuid));
            }
        }
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
    }
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
    // SAFETY: a query of a device of this instance.
    let families = unsafe { inst.get_physical_device_queue_family_properties(pd) };
    let family = families
        .iter()
        .position(|f| {
            f.queue_count > 0
                && f.queue_flags
                    .intersects(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
        })
        .ok_or_else(|| format!("Vulkan device {index} has no graphics or compute queue"))?;
    let child = ChildDevice {
        ordinal: index as i32,
        name: c_text(p.device_name_as_c_str()).unwrap_or_else(|| "unnamed".into()),
        uuid,
        total_bytes: dev.heap_bytes,
        vulkan: Some(dev),
        ..ChildDevice::default()
    };
    Ok((
        Chosen {
            pd,
            queue_family: family as u32,
            memory_type,
            heap,
            budget_ext,
        },
        child,
    ))
}

/// The heap's budget and this process's usage of it (VK_EXT_memory_budget).
fn budget(held: &Held, c: &Chosen) -> Option<(u64, u64)> {
    if !c.budget_ext {
        return None;
    }
    let mut b = vk::PhysicalDeviceMemoryBudgetPropertiesEXT::default();
    let mut p2 = vk::PhysicalDeviceMemoryProperties2::default().push_next(&mut b);
    // SAFETY: the device supports VK_EXT_memory_budget (checked in `choose`) and the instance is
    // 1.1; both structures live until the call returns.
    unsafe {
        held.instance
            .get_physical_device_memory_properties2(c.pd, &mut p2)
    };
    let h = c.heap as usize;
    Some((b.heap_budget[h], b.heap_usage[h]))
}

fn create_device(held: &mut Held, c: &Chosen) -> Result<(), String> {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(c.queue_family)
        .queue_priorities(&prio)];
    let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
    // SAFETY: `pd` belongs to this instance; `info` and what it points to live for the call.
    let device = unsafe { held.instance.create_device(c.pd, &info, None) }
        .map_err(call("vkCreateDevice"))?;
    // SAFETY: the queue family and index 0 were asked for at creation.
    let queue = unsafe { device.get_device_queue(c.queue_family, 0) };
    let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(c.queue_family);
    // SAFETY: a valid device and create info.
    let pool = match unsafe { device.create_command_pool(&pool_info, None) } {
        Ok(p) => p,
        Err(e) => {
            // SAFETY: nothing else was created from the device.
            unsafe { device.destroy_device(None) };
            return Err(call("vkCreateCommandPool")(e));
        }
    };
    held.logical = Some(Logical {
        device,
        queue,
        pool,
        alloc: None,
    });
    Ok(())
}

/// Allocates `n` bytes of the chosen memory type, binds them to a buffer and fills it. What was
/// created is kept in `held` as soon as it exists, so an error half-way is released too.
fn allocate(held: &mut Held, c: &Chosen, n: u64) -> Result<(), String> {
    let inst = &held.instance;
    let l = held.logical.as_mut().ok_or("no device")?;
    let d = &l.device;
    let info = vk::BufferCreateInfo::default()
        .size(n)
        .usage(vk::BufferUsageFlags::TRANSFER_DST)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: a valid device and create info.
    let buffer = unsafe { d.create_buffer(&info, None) }.map_err(call("vkCreateBuffer"))?;
    l.alloc = Some(Alloc {
        buffer,
        memory: vk::DeviceMemory::null(),
    });
    // SAFETY: `buffer` was created from `d`.
    let req = unsafe { d.get_buffer_memory_requirements(buffer) };
    // SAFETY: a query of a device of this instance.
    let mem = unsafe { inst.get_physical_device_memory_properties(c.pd) };
    let ty = if req.memory_type_bits & (1 << c.memory_type) != 0 {
        c.memory_type
    } else {
        pick_memory_type(&mem, req.memory_type_bits)
            .filter(|&t| mem.memory_types[t as usize].heap_index == c.heap)
            .ok_or("the buffer cannot be bound to any DEVICE_LOCAL memory type on the heap")?
    };
    let ainfo = vk::MemoryAllocateInfo::default()
        .allocation_size(req.size)
        .memory_type_index(ty);
    // SAFETY: a valid device; the type index is one of the device's.
    let memory = unsafe { d.allocate_memory(&ainfo, None) }.map_err(call("vkAllocateMemory"))?;
    if let Some(a) = &mut l.alloc {
        a.memory = memory;
    }
    // SAFETY: buffer and memory are from `d`, the memory is at least `req.size` of an allowed
    // type, and offset 0 meets any alignment.
    unsafe { d.bind_buffer_memory(buffer, memory, 0) }.map_err(call("vkBindBufferMemory"))?;
    fill(d, l.queue, l.pool, buffer)
}

/// Writes the pattern over the whole buffer on the device and waits for it.
fn fill(
    d: &ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
    buffer: vk::Buffer,
) -> Result<(), String> {
    let info = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: `pool` belongs to `d`.
    let cbs =
        unsafe { d.allocate_command_buffers(&info) }.map_err(call("vkAllocateCommandBuffers"))?;
    // SAFETY: a fresh fence on a valid device.
    let fence = match unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) } {
        Ok(f) => f,
        Err(e) => {
            // SAFETY: the command buffer was never submitted.
            unsafe { d.free_command_buffers(pool, &cbs) };
            return Err(call("vkCreateFence")(e));
        }
    };
    let cb = cbs[0];
    let begin =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: `cb` is a fresh primary command buffer; the buffer was created with TRANSFER_DST
    // and is bound to memory; WHOLE_SIZE fills to the end (rounded down to 4 bytes).
    let res = unsafe {
        d.begin_command_buffer(cb, &begin)
            .map_err(call("vkBeginCommandBuffer"))
            .and_then(|_| {
                d.cmd_fill_buffer(cb, buffer, 0, vk::WHOLE_SIZE, FILL);
                d.end_command_buffer(cb).map_err(call("vkEndCommandBuffer"))
            })
            .and_then(|_| {
                let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
                d.queue_submit(queue, &submit, fence)
                    .map_err(call("vkQueueSubmit"))
            })
            .and_then(|_| {
                d.wait_for_fences(&[fence], true, FILL_TIMEOUT_NS)
                    .map_err(|e| match e {
                        vk::Result::TIMEOUT => format!(
                            "the fill did not finish within {} s",
                            FILL_TIMEOUT_NS / 1_000_000_000
                        ),
                        e => call("vkWaitForFences")(e),
                    })
            })
    };
    // SAFETY: the fence has signalled or the device is waited idle before these go.
    unsafe {
        if res.is_err() {
            let _ = d.device_wait_idle();
        }
        d.destroy_fence(fence, None);
        d.free_command_buffers(pool, &cbs);
    }
    res
}

/// This process's resident memory (`VmRSS` in /proc/self/status); `None` elsewhere.
fn rss() -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Runs the workload: `input` carries the parent's commands, `output` gets the reports. Returns
/// the process exit status. Never panics on bad input: an unknown command is an error report,
/// and everything is released.
pub fn run_child(
    loader: Option<&Path>,
    choice: Option<i32>,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> i32 {
    let pid = std::process::id();
    let mut say = |r: StepReport| r.send(output);
    let fail = |e: String| StepReport {
        step: "error".into(),
        pid,
        error: Some(e),
        ..StepReport::default()
    };
    let (mut held, loader_name) = match open(loader) {
        Ok(h) => h,
        Err(e) => {
            say(fail(e));
            return 1;
        }
    };
    let (chosen, device) = match choose(&held, &loader_name, choice) {
        Ok(c) => c,
        Err(e) => {
            say(fail(e));
            return 1;
        }
    };
    let heap_bytes = device.total_bytes;
    let mut idle = StepReport {
        step: "idle".into(),
        pid,
        device: Some(device),
        total_bytes: Some(heap_bytes),
        rss_bytes: rss(),
        ..StepReport::default()
    };
    if let Some((b, u)) = budget(&held, &chosen) {
        idle.free_bytes = Some(b.saturating_sub(u));
        idle.heap_usage_bytes = Some(u);
    }
    if !say(idle) {
        return 1;
    }
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            // End of input: the parent is gone or gave up; `held` is dropped and releases.
            Ok(0) | Err(_) => return 1,
            Ok(_) => {}
        }
        let cmd = line.trim();
        let mut r = StepReport {
            pid,
            ..StepReport::default()
        };
        let allocated = held.logical.as_ref().is_some_and(|l| l.alloc.is_some());
        let res: Result<(), String> = match cmd.split_once(' ').unwrap_or((cmd, "")) {
            ("context", _) if held.logical.is_none() => {
                r.step = "context".into();
                create_device(&mut held, &chosen)
            }
            ("alloc", n) if held.logical.is_some() && !allocated => {
                r.step = "allocated".into();
                match n.trim().parse::<u64>() {
                    Ok(b) if b > 0 => {
                        allocate(&mut held, &chosen, b).map(|_| r.touched = Some(true))
                    }
                    _ => Err(format!("alloc needs a size in bytes, got {n:?}")),
                }
            }
            ("free", _) if allocated => {
                r.step = "freed".into();
                held.free();
                Ok(())
            }
            ("exit", _) => {
                held.release_device();
                r.step = "exiting".into();
                say(r);
                return 0;
            }
            _ => Err(format!("unexpected command {cmd:?} at this step")),
        };
        if let Err(e) = res {
            say(fail(e));
            return 1;
        }
        // Ctrl-C during the step: stop here; `held` releases everything.
        if signal::interrupted() {
            say(fail(format!(
                "interrupted (Ctrl-C) during the {} step; everything was released",
                r.step
            )));
            return 130;
        }
        r.total_bytes = Some(heap_bytes);
        r.rss_bytes = rss();
        if let Some((b, u)) = budget(&held, &chosen) {
            r.free_bytes = Some(b.saturating_sub(u));
            r.heap_usage_bytes = Some(u);
        }
        if !say(r) {
            return 1;
        }
    }
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

    #[test]
    fn nvidia_device_uuid_in_nvml_spelling() {
        let b: [u8; 16] = [
            0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
            0x88, 0x99,
        ];
        assert_eq!(nvml_uuid(&b), "GPU-aabbccdd-eeff-0011-2233-445566778899");
    }

    /// Lavapipe's ICD where it is installed; `None` (skipped with a reason) where it or the
    /// loader is not, a failure under CI=true.
    fn lavapipe() -> Option<std::path::PathBuf> {
        let icd = std::path::PathBuf::from(format!(
            "/usr/share/vulkan/icd.d/lvp_icd.{}.json",
            std::env::consts::ARCH
        ));
        // SAFETY: probing the loader; dropped at once.
        let loader = unsafe { ash::Entry::load() }.is_ok();
        if loader && icd.exists() {
            return Some(icd);
        }
        let why = if loader {
            "lavapipe is not installed"
        } else {
            "the Vulkan loader is not installed"
        };
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{why} (run .ci/setup-vulkan.sh)");
        }
        eprintln!("SKIPPED: {why} (run .ci/setup-vulkan.sh)");
        None
    }

    /// Sets the Ctrl-C flag when the parent's `alloc` command is read, as a Ctrl-C during the
    /// allocation would.
    struct CtrlCAtAlloc(std::io::Cursor<&'static [u8]>);

    impl std::io::Read for CtrlCAtAlloc {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.read(buf)
        }
    }

    impl BufRead for CtrlCAtAlloc {
        fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
            self.0.fill_buf()
        }
        fn consume(&mut self, n: usize) {
            if self.0.fill_buf().is_ok_and(|b| b.starts_with(b"alloc")) {
                signal::flag().store(true, std::sync::atomic::Ordering::SeqCst);
            }
            self.0.consume(n)
        }
    }

    /// On lavapipe for real: a Ctrl-C during the allocation stops the workload with 130 after
    /// the step, and the allocation (host memory on a CPU device) is released on the way out.
    #[cfg(target_os = "linux")]
    #[test]
    fn ctrl_c_during_the_allocation_releases_it_on_lavapipe() {
        let Some(icd) = lavapipe() else { return };
        // Process-wide, but only this test in this crate starts a Vulkan instance.
        std::env::set_var("VK_ICD_FILENAMES", icd);
        // Well above what loading lavapipe itself adds to the resident set (about 60 MiB), so a
        // leak of the allocation cannot hide in it.
        const N: u64 = 256 << 20;
        let before = rss().unwrap();
        let mut input = CtrlCAtAlloc(std::io::Cursor::new(
            b"context\nalloc 268435456\nfree\nexit\n",
        ));
        let mut out = Vec::new();
        let code = run_child(None, None, &mut input, &mut out);
        signal::flag().store(false, std::sync::atomic::Ordering::SeqCst);
        let after = rss().unwrap();
        let text = String::from_utf8_lossy(&out);
        assert_eq!(code, 130, "{text}");
        let last: StepReport = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(
            last.error.as_deref(),
            Some("interrupted (Ctrl-C) during the allocated step; everything was released")
        );
        // The allocation was made (the context step before it reported) and is gone again.
        let ctx: StepReport = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
        assert_eq!(ctx.step, "context");
        assert!(
            after < before + N / 2,
            "resident memory {before} before, {after} after: the {N}-byte allocation was not released"
        );
    }

    #[test]
    fn a_missing_loader_is_a_sentence() {
        let mut out = Vec::new();
        let code = run_child(
            Some(Path::new("/nonexistent/libvulkan.so.1")),
            None,
            &mut std::io::empty(),
            &mut out,
        );
        assert_eq!(code, 1);
        let r: StepReport = serde_json::from_slice(&out).unwrap();
        assert_eq!(r.step, "error");
        let e = r.error.unwrap();
        assert!(
            e.contains("cannot load the Vulkan loader /nonexistent/libvulkan.so.1"),
            "{e}"
        );
        assert!(e.contains("libvulkan1"), "{e}");
    }
}
