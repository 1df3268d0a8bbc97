#!/bin/bash
# Idle CPU and memory of the live view, measured on the real binary in tmux against the fake NVML.
#  1. `gpuledger -d 1` for 60 s: CPU = (utime+stime) delta from /proc/PID/stat over wall time.
#  2. `gpuledger -d 0.1` for 60 s = 600 rounds, the same number of history points per series as
#     ten minutes at 1 s (every series is at its cap by then): VmRSS sampled along the way.
# Usage: scripts/tui-perf.sh [seconds]   (default 60)
set -euo pipefail
SECS=${1:-60}
cd "$(dirname "$0")/.."
cargo build --release --quiet -p gpuledger -p fake-nvml
BIN=$PWD/target/release/gpuledger
LIB=$PWD/target/release/libfake_nvml.so
D=$(mktemp -d)
T="tmux -S $D/tmux1.sock"
trap 'tmux -S $D/tmux1.sock kill-server 2>/dev/null || true; tmux -S $D/tmux2.sock kill-server 2>/dev/null || true; rm -rf "$D"' EXIT

# A recorded /proc with the scenario's processes (same shape as crates/cli/tests/cli/support).
mkdir -p "$D/proc/sys/kernel" "$D/etc"
printf 'cpu  1 2 3\nbtime 1795900000\n' >"$D/proc/stat"
echo gpu-box >"$D/proc/sys/kernel/hostname"
printf 'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n' >"$D/etc/passwd"
for spec in 4242:llama-server:1000 5151:python3:1000 6001:ollama:0 1200:Xorg:0; do
    IFS=: read -r pid comm uid <<<"$spec"
    mkdir -p "$D/proc/$pid"
    echo "$pid ($comm) S 1 $pid $pid 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 500000 1000000 200 18446744073709551615" >"$D/proc/$pid/stat"
    printf 'Name:\t%s\nUid:\t%s\t%s\t%s\t%s\n' "$comm" "$uid" "$uid" "$uid" "$uid" >"$D/proc/$pid/status"
    printf '/usr/bin/%s\0--serve\0' "$comm" >"$D/proc/$pid/cmdline"
done
cat >"$D/scenario.txt" <<'SC'
driver|version=550.54.15
device|index=0|name=NVIDIA H200|uuid=GPU-11111111-2222-3333-4444-555555555555|pci=00000000:18:00.0|total=150754820096|used=40000000000|free=110754820096|reserved=600000000|gpu=37|mem=12|temp=54|power_mw=215000|limit_mw=700000|gfx_mhz=1980|sm_mhz=1980|mem_mhz=3201|pcie_gen=5|pcie_width=16|pcie_max_gen=5|pcie_max_width=16
device|index=1|name=NVIDIA GeForce RTX 4090|uuid=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee|pci=00000000:65:00.0|total=25757220864|used=9000000000|free=16757220864|reserved=300000000|gpu=3|mem=1|temp=38|power_mw=21000|limit_mw=450000|gfx_mhz=210|sm_mhz=210|mem_mhz=405|pcie_gen=4|pcie_width=16|pcie_max_gen=4|pcie_max_width=16
compute|dev=0|pid=4242|mem=17179869184
compute|dev=1|pid=4242|mem=4294967296
compute|dev=0|pid=5151|mem=8589934592
graphics|dev=0|pid=5151|mem=9663676416
compute|dev=0|pid=6001|mem=NA
graphics|dev=1|pid=1200|mem=536870912
util|dev=0|pid=4242|sm=81|mem=40|enc=0|dec=0|ts=100
SC

start() { # interval socket
    T="tmux -S $D/$2"
    $T new-session -d -s gl -x 120 -y 40 \
        "FAKE_NVML_SCENARIO=$D/scenario.txt exec $BIN --nvml-lib $LIB --proc-root $D/proc -d $1"
    sleep 3
    PID=$($T list-panes -t gl -F '#{pane_pid}')
    grep -q gpuledger "/proc/$PID/cmdline" || { echo "no gpuledger at pid $PID"; exit 1; }
    $T capture-pane -p -t gl | grep -q llama-server || { echo "view did not come up"; $T capture-pane -p -t gl; exit 1; }
}
ticks() { awk '{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
HZ=$(getconf CLK_TCK)

start 1 tmux1.sock
t0=$(ticks "$PID"); w0=$(date +%s.%N)
sleep "$SECS"
t1=$(ticks "$PID"); w1=$(date +%s.%N)
echo "idle CPU at -d 1 over ${SECS} s: $(awk -v a="$t0" -v b="$t1" -v w0="$w0" -v w1="$w1" -v hz="$HZ" 'BEGIN { printf "%.3f %% of one core (%d ticks of 1/%d s in %.1f s)", (b-a)/hz/(w1-w0)*100, b-a, hz, w1-w0 }')"
echo "RSS at -d 1 after ${SECS} s: $(rss_kb "$PID") KiB"

$T kill-server
start 0.1 tmux2.sock
for s in 10 20 30 40 50 60; do
    sleep 10
    echo "RSS at -d 0.1 after $s s ($((s * 10)) rounds): $(rss_kb "$PID") KiB"
done
$T send-keys -t gl q
