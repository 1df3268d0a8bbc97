#!/bin/bash
# What a crafted deep model costs (issue 40): a 7,000-layer MoE GGUF (scripts/deep_model.py, the
# real gguf writer, sparse file), `gpuledger estimate` on it with --fit replayed for a nearly full
# GPU, then `gpuledger snapshot` while a process started as `llama-server -m deep.gguf` holds that
# GPU (fake NVML, testing/fake-nvml): the snapshot runs the replay on its collection path, bounded
# by its time budget. Release builds; wall times, best of RUNS, printed with the load average
# (a shared machine inflates them), not asserted.
#
# Usage: scripts/deep-model-cost.sh [LAYERS]   (default 7000)
#   NOBUILD=1   use the release binaries already built.   RUNS=3   runs per measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
LAYERS=${1:-7000}
RUNS=${RUNS:-3}
[ -n "${NOBUILD:-}" ] || cargo build --release --quiet -p gpuledger -p fake-nvml
BIN=$PWD/target/release/gpuledger
LIB=$PWD/target/release/libfake_nvml.so
PY=${GGUF_PYTHON:-target/llama-venv/bin/python}
"$PY" -c 'import gguf' 2>/dev/null || { echo "deep-model-cost: $PY has no gguf module (GGUF_PYTHON=...)" >&2; exit 1; }
D=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
"$PY" scripts/deep_model.py "$D/deep.gguf" "$LAYERS"

# best NAME CMD...: the shortest wall time of RUNS runs, in seconds.
best() {
    local name=$1 b= t s e; shift
    for _ in $(seq "$RUNS"); do
        s=$(date +%s.%N); "$@" >"$D/out.txt" 2>&1 || true; e=$(date +%s.%N)
        t=$(echo "$e - $s" | bc)
        if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
    done
    printf '%-44s %6.3f s   (load %s)\n' "$name" "$b" "$(cut -d' ' -f1-3 /proc/loadavg)"
}
best "estimate, $LAYERS layers, --fit for 20 GiB" \
    "$BIN" estimate "$D/deep.gguf" -c 512 --free 20GiB --backend cuda
grep -q "fit replayed" "$D/out.txt" || { echo "deep-model-cost: the fit was not replayed:"; cat "$D/out.txt"; exit 1; }

# A process named llama-server that loads the model (it only pauses; /proc shows its argv) and
# maps a library named libggml-cuda.so, so collection takes its backend to be CUDA as for a real
# build, and replays --fit for it.
printf 'int ggml_backend_cuda_marker(void){return 1;}\n' >"$D/cuda.c"
gcc -shared -fPIC -o "$D/libggml-cuda.so" "$D/cuda.c"
printf '#include <unistd.h>\nint ggml_backend_cuda_marker(void);\nint main(void){ggml_backend_cuda_marker();for(;;)pause();}\n' >"$D/pause.c"
gcc -O1 -o "$D/llama-server" "$D/pause.c" -L"$D" -lggml-cuda -Wl,-rpath,"$D"
"$D/llama-server" -m "$D/deep.gguf" -c 512 --port 18080 >/dev/null 2>&1 &
PID=$!
cat >"$D/scenario.txt" <<SC
driver|version=550.54.15
device|index=0|name=NVIDIA GeForce RTX 4090|uuid=GPU-5ba1f2e8-3c41-4d6a-9a52-7f0e8e1c2b10|pci=00000000:01:00.0|total=25757220864|used=24696061952|free=1061158912|reserved=333447168|gpu=64|mem=41|temp=67|power_mw=312000|limit_mw=450000
compute|dev=0|pid=$PID|mem=24000000000
SC
export FAKE_NVML_SCENARIO=$D/scenario.txt
best "snapshot, a llama-server on that model" \
    "$BIN" --nvml-lib "$LIB" --no-probe snapshot
grep -q "llama-server" "$D/out.txt" || { echo "deep-model-cost: the server is not listed:"; cat "$D/out.txt"; exit 1; }
grep -q "layers on the GPU" "$D/out.txt" && grep -o "([0-9]*/$LAYERS layers on the GPU)" "$D/out.txt" || true
best "snapshot --json, same" "$BIN" --nvml-lib "$LIB" --no-probe snapshot --json
