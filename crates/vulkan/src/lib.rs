//! The Vulkan known workload `gpuledger verify` runs where there is no CUDA: AMD and Intel GPUs
//! (RADV, ANV, AMDVLK), NVIDIA's Vulkan driver, and Mesa's lavapipe (a CPU device, the one this
//! project can run for real in CI). The loader (`libvulkan.so.1`, `vulkan-1.dll`,
//! `libvulkan.dylib`) is opened at run time through `ash`'s `loaded` feature, so nothing Vulkan is
//! needed to build gpuledger and a machine without it gets a sentence, not a failure to start.
//!
//! - [`workload`]: the child's sequence (idle → logical device → N bytes of DEVICE_LOCAL memory
//!   allocated, bound to a buffer and filled → freed → exit), in the step protocol the CUDA child
//!   speaks ([`gpuledger_cuda::step`]);
//! - `device`: which physical device, memory type and queue family, and what the device is;
//! - `held`: the Vulkan objects the workload holds, and their release in order.

mod device;
mod held;
pub mod workload;

/// A driver call that failed, in words: `vkCreateDevice: ERROR_OUT_OF_DEVICE_MEMORY`.
pub(crate) fn call(name: &str) -> impl Fn(ash::vk::Result) -> String + '_ {
    move |e| format!("{name}: {e}")
}
