#!/bin/bash
# The collection cost gate: system calls of one `gpuledger snapshot --json` per GPU process, on the
# fake NVML (testing/fake-nvml) listing N real idle processes (`sleep`s started here, so /proc has
# them). A count, not a time: it does not move with the machine's load, so CI can hold it.
#
# The budget (BUDGET, default 26) is what collection may spend on a process it only has to show:
# stat, the owner's uid, exe, cmdline, cgroup, the fd table and maps (identification), nothing
# else. The debug build's std checks each descriptor with fcntl(F_GETFD) before closing it (a
# debug assertion the release build lacks), so fcntl is left out of the count.
#
# Usage: scripts/syscall-budget.sh [N] [BINARY]   (default 200, target/debug/gpuledger)
#   The binary and target/*/libfake_nvml.so must be built (`cargo test` builds both).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
N=${1:-200}
BIN=${2:-target/debug/gpuledger}
BUDGET=${BUDGET:-26}
LIB=$(dirname "$BIN")/libfake_nvml.so
command -v strace >/dev/null || apt_need strace
for f in "$BIN" "$LIB"; do
    [ -e "$f" ] || { echo "syscall-budget: $f is missing (build it with cargo test or cargo build)" >&2; exit 1; }
done

D=$(mktemp -d)
PIDS=()
cleanup() {
    [ ${#PIDS[@]} -gt 0 ] && kill "${PIDS[@]}" 2>/dev/null || true
    rm -rf "$D"
}
trap cleanup EXIT
# Started by Python, whose subprocess closes every descriptor above 2: each process holds the same
# three, whatever the shell that runs this script left open (the fd table's walk costs one call a
# descriptor).
mapfile -t PIDS < <(python3 -c '
import subprocess, sys
for _ in range(int(sys.argv[1])):
    p = subprocess.Popen(["sleep", "100000"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(p.pid)
' "$N")
[ ${#PIDS[@]} -eq "$N" ] || { echo "syscall-budget: started ${#PIDS[@]} of $N processes" >&2; exit 1; }
{
    echo "driver|version=550.54.15"
    echo "device|index=0|name=NVIDIA H200|uuid=GPU-11111111-2222-3333-4444-555555555555|pci=00000000:18:00.0|total=150754820096|used=40000000000|free=110754820096|reserved=600000000|gpu=37|mem=12|temp=54|power_mw=215000|limit_mw=700000"
    for p in "${PIDS[@]}"; do echo "compute|dev=0|pid=$p|mem=268435456"; done
} >"$D/scenario.txt"

# Once with no GPU process, once with N: the difference is what the processes cost.
count() { # SCENARIO: system calls of one snapshot, fcntl left out
    FAKE_NVML_SCENARIO=$1 strace -f -c -o "$D/c.txt" "$BIN" --nvml-lib "$LIB" snapshot --json >/dev/null 2>"$D/err.txt" \
        || { cat "$D/err.txt" >&2; echo "syscall-budget: the snapshot failed" >&2; exit 1; }
    awk '$NF == "total" { t = $4 } $NF == "fcntl" { f = $4 } END { print t - f }' "$D/c.txt"
}
head -n 2 "$D/scenario.txt" >"$D/empty.txt"
base=$(count "$D/empty.txt")
full=$(count "$D/scenario.txt")
per=$(awk -v a="$base" -v b="$full" -v n="$N" 'BEGIN { printf "%.1f", (b - a) / n }')
echo "syscall-budget: $N GPU processes: $full system calls, $base with none: $per per process (budget $BUDGET)"
awk -v p="$per" -v b="$BUDGET" 'BEGIN { exit !(p <= b) }' || {
    echo "syscall-budget: over budget: find the new per-process read (strace -f $BIN snapshot)" >&2
    exit 1
}
