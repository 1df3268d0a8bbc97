#!/bin/sh
# Installs the Vulkan loader (libvulkan1) and Mesa's Vulkan drivers (mesa-vulkan-drivers, which
# carry lavapipe, the CPU device) for the test that runs `gpuledger verify --path vulkan` for real
# (crates/cli/tests/cli/verify_vulkan.rs). Idempotent; for a fresh Debian 12 run as root.
set -eu
ARCH="$(uname -m)"
ICD="/usr/share/vulkan/icd.d/lvp_icd.$ARCH.json"
have_loader() { ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '; }
if have_loader && [ -e "$ICD" ]; then
    echo "Vulkan loader and lavapipe present ($ICD)"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends libvulkan1 mesa-vulkan-drivers
have_loader || { echo "setup-vulkan: libvulkan.so.1 still not found" >&2; exit 1; }
[ -e "$ICD" ] || { echo "setup-vulkan: $ICD still missing" >&2; exit 1; }
echo "Vulkan loader and lavapipe installed ($ICD)"
