#!/usr/bin/env bash
# Runs gpuledger-sources' tests for x86_64-pc-windows-gnu under wine: every pure WDDM / IOKit /
# /dev/dxg test on the Windows ABI, plus the live WDDM seam test (wddm::os::tests), which under
# wine must turn the missing GPU counters and DXGI adapters into named reasons (wine has neither). Needs .ci/setup-wine.sh (run here; it is
# idempotent). Prints cargo's normal test summary lines.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
bash .ci/setup-wine.sh
export WINEPREFIX="${WINEPREFIX:-$ROOT/target/wineprefix}"
export WINEDEBUG="${WINEDEBUG:--all}"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
set +e
cargo test -p gpuledger-sources --target x86_64-pc-windows-gnu "$@" 2>&1 \
    | grep -v -e 'it looks like wine32 is missing' -e 'multiarch needs to be enabled' \
        -e 'dpkg --add-architecture' -e 'apt-get install wine32'
status=${PIPESTATUS[0]}
set -e
wineserver -k >/dev/null 2>&1 || true
exit "$status"
