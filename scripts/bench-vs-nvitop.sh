#!/bin/bash
# One-shot cost side by side: `gpuledger snapshot --json` (release) against `nvitop -1`, both on the
# fake NVML (testing/fake-nvml) serving a scenario whose processes are real (`sleep`s started here,
# so /proc has them), spread over 2 devices. The two programs alternate, 5 runs each, whole
# process wall time, median; then the syscalls per GPU process from `strace -c -f`; then 2,000
# processes of which one is a GPU process. Load averages are printed with the figures: on a shared
# machine the ratio (measured in one alternating run) is the figure to trust, not the milliseconds.
#
# Usage: scripts/bench-vs-nvitop.sh [SCALES...]   (default 50 500 2000)
#   BEFORE=path/to/old/gpuledger  also measures an older binary the same way (before/after).
#   RUNS=5                         runs per program and scale.
#   NOBUILD=1                      use the release binaries already built (another cargo job can
#                                  hold the build lock for minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
if [ $# -gt 0 ]; then SCALES=("$@"); else SCALES=(50 500 2000); fi
RUNS=${RUNS:-5}

command -v strace >/dev/null || apt_need strace
[ -n "${NOBUILD:-}" ] || cargo build --release --quiet -p gpuledger -p fake-nvml
BIN=$PWD/target/release/gpuledger
LIB=$PWD/target/release/libfake_nvml.so
# nvitop loads libnvidia-ml.so.1 by name: a folder where that name is the fake.
LIBDIR=$PWD/target/bench-nvml
mkdir -p "$LIBDIR"
ln -sf "$LIB" "$LIBDIR/libnvidia-ml.so.1"
VENV=$PWD/target/nvitop-venv
if [ ! -x "$VENV/bin/nvitop" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet 'nvitop==1.7.2'
fi
NVITOP=$VENV/bin/nvitop

D=$(mktemp -d)
PIDS=()
cleanup() {
    [ ${#PIDS[@]} -gt 0 ] && kill "${PIDS[@]}" 2>/dev/null || true
    rm -rf "$D"
}
trap cleanup EXIT

spawn() { # N: start N idle processes, their pids in PIDS
    local i
    for ((i = 0; i < $1; i++)); do
        sleep 100000 </dev/null >/dev/null 2>&1 &
        PIDS+=($!)
    done
}
stop_all() {
    [ ${#PIDS[@]} -gt 0 ] && kill "${PIDS[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    PIDS=()
}
scenario() { # N: the first N of PIDS are GPU processes, alternating over 2 devices
    {
        echo "driver|version=550.54.15"
        echo "device|index=0|name=NVIDIA H200|uuid=GPU-11111111-2222-3333-4444-555555555555|pci=00000000:18:00.0|total=150754820096|used=40000000000|free=110754820096|reserved=600000000|gpu=37|mem=12|temp=54|power_mw=215000|limit_mw=700000"
        echo "device|index=1|name=NVIDIA H200|uuid=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee|pci=00000000:65:00.0|total=150754820096|used=9000000000|free=141754820096|reserved=300000000|gpu=3|mem=1|temp=38|power_mw=91000|limit_mw=700000"
        local i
        for ((i = 0; i < $1; i++)); do
            echo "compute|dev=$((i % 2))|pid=${PIDS[$i]}|mem=$((256 << 20))"
        done
    } >"$D/scenario.txt"
    export FAKE_NVML_SCENARIO=$D/scenario.txt
}
ms() { # command...: wall milliseconds of one run, output discarded
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
median() { tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
gl() { "$1" --nvml-lib "$LIB" snapshot --json; }
nv() { LD_LIBRARY_PATH=$LIBDIR "$NVITOP" -1; }
must() { # WHAT COMMAND...: one run, output discarded; a failure stops the script, naming WHAT
    local what=$1
    shift
    "$@" >/dev/null || { echo "bench-vs-nvitop: $what failed (its errors are above)" >&2; exit 1; }
}
must_quiet() { # WHAT COMMAND...: like must, and a traceback or ERROR/CRITICAL line on stderr also
    # stops the script: the program took an error path (e.g. an NVML function the fake lacks)
    # that a real driver would not make it take, so its timings would not be comparable.
    local what=$1 rc=0
    shift
    "$@" >/dev/null 2>"$D/stderr.txt" || rc=$?
    cat "$D/stderr.txt" >&2
    [ "$rc" -eq 0 ] || { echo "bench-vs-nvitop: $what failed (its errors are above)" >&2; exit 1; }
    if grep -qE 'Traceback|ERROR|CRITICAL' "$D/stderr.txt"; then
        echo "bench-vs-nvitop: $what reported errors (above): the figures would not be comparable" >&2
        exit 1
    fi
}
syscalls() { # binary N: syscalls of one snapshot per GPU process
    strace -f -c -o "$D/strace.txt" "$1" --nvml-lib "$LIB" snapshot --json >/dev/null 2>&1 || true
    awk -v n="$2" '$NF == "total" { printf "%d syscalls, %.1f per GPU process", $4, $4 / n }' "$D/strace.txt"
}

echo "gpuledger $(git rev-parse --short HEAD) vs nvitop $("$NVITOP" --version | awk '{print $2}'), $RUNS runs each, median wall ms"
for n in "${SCALES[@]}"; do
    spawn "$n"
    scenario "$n"
    # One checked run of each before timing: it warms the page cache, and a program that fails
    # stops the script here (the timed runs below ignore the exit status), as does nvitop logging
    # an error.
    must "gpuledger ($BIN)" gl "$BIN"
    must_quiet "nvitop" nv
    [ -z "${BEFORE:-}" ] || must "BEFORE ($BEFORE)" gl "$BEFORE"
    a=() b=() c=()
    for ((r = 0; r < RUNS; r++)); do
        a+=("$(ms gl "$BIN")")
        b+=("$(ms nv)")
        [ -n "${BEFORE:-}" ] && c+=("$(ms gl "$BEFORE")")
    done
    ga=$(echo "${a[*]}" | median)
    nb=$(echo "${b[*]}" | median)
    line="$n GPU processes: gpuledger ${ga} ms, nvitop ${nb} ms, ratio $(awk -v g="$ga" -v n="$nb" 'BEGIN { printf "%.1fx", n / (g > 0 ? g : 1) }')"
    if [ -n "${BEFORE:-}" ]; then
        gc=$(echo "${c[*]}" | median)
        line="$line; before: ${gc} ms ($(awk -v g="$gc" -v n="$nb" 'BEGIN { printf "%.1fx", n / (g > 0 ? g : 1) }'))"
    fi
    echo "$line  [runs gpuledger ${a[*]} | nvitop ${b[*]}] load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "  syscalls: $(syscalls "$BIN" "$n")${BEFORE:+; before: $(syscalls "$BEFORE" "$n")}"
    stop_all
done

spawn 2000
scenario 1
must "gpuledger ($BIN)" gl "$BIN"
[ -z "${BEFORE:-}" ] || must "BEFORE ($BEFORE)" gl "$BEFORE"
a=() c=()
for ((r = 0; r < RUNS; r++)); do
    a+=("$(ms gl "$BIN")")
    [ -n "${BEFORE:-}" ] && c+=("$(ms gl "$BEFORE")")
done
echo "2000 processes, 1 on the GPU: gpuledger $(echo "${a[*]}" | median) ms${BEFORE:+, before $(echo "${c[*]}" | median) ms}  [runs ${a[*]}] load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  syscalls: $(syscalls "$BIN" 1)${BEFORE:+; before: $(syscalls "$BEFORE" 1)}"
stop_all
