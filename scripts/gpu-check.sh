#!/usr/bin/env bash
# For a machine with a real GPU: collect everything needed to check gpuledger's numbers there, with
# a prebuilt binary (nothing is built on that machine), into one folder, in under 4 minutes.
#
#   scripts/gpu-check.sh [PATH/TO/gpuledger] [OUT_DIR]
#
# Runs, each with its own time limit, and keeps stdout, stderr and the exit status of each:
#   gpuledger verify --save        the known workload and the verdict per source (512 MiB)
#   gpuledger verify --path vulkan the same through the Vulkan loader (NVIDIA's, AMD's, Intel's
#                                  Vulkan driver), saved as verify-vulkan.json
#   gpuledger probe --save --json  what a context and pinned host memory cost in VRAM here
#   gpuledger snapshot --json      one collection round
#   gpuledger selftest --json      what each source can and cannot see
#   nvidia-smi -q -x               the vendor's own full report (when installed)
# plus uname, /etc/os-release and the binary's version. Commit the folder under fixtures/real/ and
# add a test that replays its verify.json (`gpuledger --replay FILE verify`), as the tests in
# crates/cli/tests/cli/verify.rs replay fixtures/verify/. No such folder exists yet: no machine with
# a real GPU has run this.
set -uo pipefail
BIN="${1:-${GPULEDGER:-gpuledger}}"
OUT="${2:-gpu-check-$(hostname 2>/dev/null || echo host)-$(date -u +%Y%m%dT%H%M%SZ)}"
SIZE="${GPULEDGER_VERIFY_SIZE:-512MiB}"
command -v "$BIN" >/dev/null 2>&1 || [ -x "$BIN" ] || { echo "gpu-check: no gpuledger binary at $BIN" >&2; exit 1; }
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"

# run NAME LIMIT_S CMD...: stdout to NAME.out, stderr to NAME.err, status into the summary.
run() {
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    timeout --kill-after=5 "$limit" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
    local rc=$?
    local note=""
    [ "$rc" = 124 ] || [ "$rc" = 137 ] && note=" (timed out after ${limit}s)"
    printf '%-10s exit %3s in %3ss%s: %s\n' "$name" "$rc" "$((SECONDS - t0))" "$note" "$*" | tee -a "$SUMMARY"
}

{
    echo "date: $(date -u +%FT%TZ)"
    echo "uname: $(uname -a)"
    [ -r /etc/os-release ] && grep -E '^(PRETTY_NAME|VERSION_ID)=' /etc/os-release
    echo "gpuledger: $("$BIN" --version 2>&1)"
} >>"$SUMMARY"

# Order matters: verify and probe allocate; snapshot and selftest only read.
run verify 30 "$BIN" verify --size "$SIZE" --yes --save "$OUT/verify.json"
run verify-vulkan 20 "$BIN" verify --path vulkan --size "$SIZE" --yes --save "$OUT/verify-vulkan.json"
run probe 90 "$BIN" probe --json --save --probe-file "$OUT/probe.json"
run snapshot 20 "$BIN" snapshot --json
run selftest 20 "$BIN" selftest --json
if command -v nvidia-smi >/dev/null 2>&1; then
    run nvidia-smi 20 nvidia-smi -q -x
else
    echo "nvidia-smi  not installed" | tee -a "$SUMMARY"
fi
echo "gpu-check: results in $OUT (summary: $SUMMARY)"
