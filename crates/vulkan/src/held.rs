//! The Vulkan objects the workload holds (instance, logical device, queue, command pool, buffer
//! and its memory) and their release: [`Held`]'s `Drop` releases them in order (wait idle,
//! buffer, memory, pool, device, instance), so an error, the end of input or a Ctrl-C releases the
//! memory before the process ends.

use std::path::Path;

use ash::vk;

use crate::call;
use crate::device::{pick_memory_type, Chosen};

/// How long the fill may take before the step is given up (the parent allows 5 s a step).
const FILL_TIMEOUT_NS: u64 = 4_000_000_000;
/// The pattern written over the allocation.
const FILL: u32 = 0xA5A5_A5A5;

pub(crate) struct Alloc {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
}

pub(crate) struct Logical {
    device: ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
    alloc: Option<Alloc>,
}

/// Everything the workload holds; dropping it releases all of it, in order.
pub(crate) struct Held {
    pub(crate) instance: ash::Instance,
    /// The API version the instance was created for.
    pub(crate) api: u32,
    pub(crate) logical: Option<Logical>,
    /// Declared last so it is dropped last: the loader stays open while the instance exists.
    _entry: ash::Entry,
}

impl Held {
    /// Whether the buffer and its memory exist (the `alloc` step began and was not freed).
    pub(crate) fn allocated(&self) -> bool {
        self.logical.as_ref().is_some_and(|l| l.alloc.is_some())
    }

    /// Frees the allocation, if any.
    pub(crate) fn free(&mut self) {
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

    pub(crate) fn release_device(&mut self) {
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
pub(crate) fn open(loader: Option<&Path>) -> Result<(Held, String), String> {
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

pub(crate) fn create_device(held: &mut Held, c: &Chosen) -> Result<(), String> {
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
pub(crate) fn allocate(held: &mut Held, c: &Chosen, n: u64) -> Result<(), String> {
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
