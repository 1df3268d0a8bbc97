#!/usr/bin/env bash
# Compile gates for the platform code that cannot run here (no Windows, no Mac):
# - the WDDM source (PDH/DXGI seam) must type-check for Windows MSVC, tests and examples included;
# - the IOKit source must pass clippy for Apple silicon.
# Checking needs no Windows SDK or Xcode: `cargo check`/`clippy` stop before linking.
# Idempotent; installs the rustup targets when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need_target() {
    if ! rustup target list --installed | grep -qx "$1"; then
        echo "check-platforms: adding rustup target $1"
        rustup target add "$1"
    fi
}
need_target x86_64-pc-windows-msvc
need_target aarch64-apple-darwin

echo "check-platforms: cargo check (x86_64-pc-windows-msvc)"
cargo check -p gpuledger-sources --all-targets --target x86_64-pc-windows-msvc
echo "check-platforms: cargo clippy -D warnings (x86_64-pc-windows-msvc)"
cargo clippy -p gpuledger-sources --all-targets --target x86_64-pc-windows-msvc -- -D warnings
echo "check-platforms: cargo clippy -D warnings (aarch64-apple-darwin)"
cargo clippy -p gpuledger-sources --target aarch64-apple-darwin -- -D warnings
echo "check-platforms: ok"
