#!/usr/bin/env bash
# Runs gpuledger-sources' tests for x86_64-pc-windows-gnu under wine: every pure WDDM / IOKit /
# /dev/dxg test on the Windows ABI, plus the live WDDM seam test (wddm::os::tests), which under
# wine must turn the missing GPU counters and DXGI adapters into named reasons (wine has neither).
# Then the Windows binary itself: `gpuledger.exe verify` must run its sequence up to saying, in
# words, that nothing can be verified (no nvcuda.dll, no Vulkan device) and exit 3.
# Needs .ci/setup-wine.sh (run here; it is idempotent). Prints cargo's normal test summary lines.
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
if [ "$status" -eq 0 ]; then
    cargo build --quiet -p gpuledger --target x86_64-pc-windows-gnu \
        --features gpuledger-history/bundled-sqlite
    set +e
    out=$(timeout 120 wine target/x86_64-pc-windows-gnu/debug/gpuledger.exe verify 2>&1)
    code=$?
    set -e
    if [ "$code" -eq 3 ] && grep -q "nothing can be verified on this machine" <<<"$out" \
        && grep -q "nvcuda.dll" <<<"$out"; then
        echo "test-platforms-wine: gpuledger.exe verify under wine: exit 3, says why (ok)"
    else
        echo "test-platforms-wine: gpuledger.exe verify under wine: exit $code, expected 3 and the reasons:"
        echo "$out"
        status=1
    fi
    # `gpuledger ui` on Windows: it starts the server and names the address (--no-open: a
    # browser started through wine's `start` would be the host's, if any); the page answers.
    ui_out=$(mktemp)
    timeout 120 wine target/x86_64-pc-windows-gnu/debug/gpuledger.exe \
        --replay examples/sample-snapshot.json ui --no-open >"$ui_out" 2>/dev/null &
    ui_pid=$!
    url=""
    # Up to the whole 120 s: wine's first start of a process can take most of a minute on a
    # loaded 2-core machine (one CI run saw no address within 50 s; the rerun took 10 s).
    for _ in $(seq 1 230); do
        url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$ui_out" | head -n 1 || true)
        [ -n "$url" ] && break
        sleep 0.5
    done
    if [ -n "$url" ] && python3 -c "import sys, urllib.request as u; b = u.urlopen(sys.argv[1], timeout=10).read(); sys.exit(0 if b'/app.js' in b else 1)" "$url"; then
        echo "test-platforms-wine: gpuledger.exe ui under wine: serves the page at $url (ok)"
    else
        echo "test-platforms-wine: gpuledger.exe ui under wine: no page (said: $(cat "$ui_out"))"
        status=1
    fi
    kill "$ui_pid" 2>/dev/null || true
    wait "$ui_pid" 2>/dev/null || true
    rm -f "$ui_out"
fi
wineserver -k >/dev/null 2>&1 || true
exit "$status"
