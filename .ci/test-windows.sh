#!/usr/bin/env bash
# Runs gpuledger-actions' tests for x86_64-pc-windows-gnu under wine: the Windows kill path
# (OpenProcess, GetProcessTimes, WM_CLOSE to top-level windows, TerminateProcess,
# WaitForSingleObject) against real child processes. Needs .ci/setup-wine.sh first (it is run here
# too; it is idempotent). Prints cargo's normal test summary lines.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
bash .ci/setup-wine.sh
export WINEPREFIX="${WINEPREFIX:-$ROOT/target/wineprefix}"
export WINEDEBUG="${WINEDEBUG:--all}"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
# No X display here: wine's null graphics driver still lets test windows exist and get WM_CLOSE.
wine reg add 'HKCU\Software\Wine\Drivers' /v Graphics /d null /f >/dev/null 2>&1 || true
set +e
cargo test -p gpuledger-actions --target x86_64-pc-windows-gnu "$@" 2>&1 \
    | grep -v -e 'it looks like wine32 is missing' -e 'multiarch needs to be enabled' \
        -e 'dpkg --add-architecture' -e 'apt-get install wine32'
status=${PIPESTATUS[0]}
set -e
# Let the wineserver of this prefix go (it lingers a few seconds after the last client).
wineserver -k >/dev/null 2>&1 || true
exit "$status"
