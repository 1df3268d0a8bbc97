#!/usr/bin/env bash
# Regenerates examples/sample-snapshot.json: a SAMPLE made with the fake NVML library
# (testing/fake-nvml) and a recorded /proc tree, not a real machine.
# Run from the repository root: bash examples/make-sample.sh
set -euo pipefail
cargo build -q -p fake-nvml -p gpuledger
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/proc/sys/kernel" "$t/etc" "$t/sys/class/drm"
echo "sample-host" > "$t/proc/sys/kernel/hostname"
echo "6.8.0-45-generic" > "$t/proc/sys/kernel/osrelease"
printf 'cpu  1 2 3\nbtime 1795900000\n' > "$t/proc/stat"
printf 'root:x:0:0::/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\nbob:x:1001:1001::/home/bob:/bin/bash\n' > "$t/etc/passwd"
add() { # pid comm uid start args...
  local pid=$1 comm=$2 uid=$3 start=$4; shift 4
  mkdir -p "$t/proc/$pid/fd"
  echo "$pid ($comm) S 1 $pid $pid 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 $start 1000000 200 18446744073709551615" > "$t/proc/$pid/stat"
  printf 'Name:\t%s\nUid:\t%s\t%s\t%s\t%s\n' "$comm" "$uid" "$uid" "$uid" "$uid" > "$t/proc/$pid/status"
  printf '%s\0' "$@" > "$t/proc/$pid/cmdline"
  ln -s "$1" "$t/proc/$pid/exe"
}
# The model the server has loaded: its GGUF header, written by the real gguf writer from Qwen3-8B's
# published configuration (examples/sample_model.py; sparse, no weights), mapped like a loaded model.
py=target/llama-venv/bin/python
[ -x "$py" ] || { echo "make-sample: needs the gguf writer: run .ci/setup-llama.sh first" >&2; exit 1; }
mkdir -p "$t/models"
"$py" examples/sample_model.py "$t/models/Qwen3-8B-Q4_K_M.gguf"
add 4242 llama-server 1000 500000 /opt/llama/llama-server -m "$t/models/Qwen3-8B-Q4_K_M.gguf" -c 32768 -ngl 99 --api-key sk-example --port 8080
printf '%s\n' \
  "7f3a00000000-7f3b2c000000 r--s 00000000 fd:01 131 $t/models/Qwen3-8B-Q4_K_M.gguf" \
  "7f3c00000000-7f3c08000000 r-xp 00000000 fd:01 132 /opt/llama/lib/libggml-cuda.so" > "$t/proc/4242/maps"
add 5151 python3 1001 600000 python3 train.py --config lora.yaml
add 6001 ollama 0 700000 /usr/local/bin/ollama serve
add 1200 Xorg 0 1000 /usr/lib/xorg/Xorg :0 -nolisten tcp
add 1320 gnome-shell 1000 1200 /usr/bin/gnome-shell
add 2210 firefox 1000 90000 /usr/lib/firefox/firefox
cat > "$t/scenario.txt" <<'SC'
driver|version=550.54.15
device|index=0|name=NVIDIA GeForce RTX 4090|uuid=GPU-5ba1f2e8-3c41-4d6a-9a52-7f0e8e1c2b10|pci=00000000:01:00.0|total=25757220864|used=13815250944|free=11941969920|reserved=333447168|gpu=64|mem=41|temp=67|power_mw=312000|limit_mw=450000|gfx_mhz=2520|sm_mhz=2520|mem_mhz=10501|pcie_gen=4|pcie_width=16|pcie_max_gen=4|pcie_max_width=16
device|index=1|name=NVIDIA RTX A4000|uuid=GPU-0c7d9e31-6a2b-4f58-b0e4-2d9a1c3f7e65|pci=00000000:41:00.0|total=17171480576|used=6651117568|free=10520363008|reserved=260046848|gpu=12|mem=5|temp=48|power_mw=61000|limit_mw=140000|gfx_mhz=1560|sm_mhz=1560|mem_mhz=7001|pcie_gen=4|pcie_width=16|pcie_max_gen=4|pcie_max_width=16
compute|dev=0|pid=4242|mem=10200547328
compute|dev=1|pid=5151|mem=6106906624
compute|dev=0|pid=6001|mem=NA
graphics|dev=0|pid=1200|mem=412090368
graphics|dev=0|pid=1320|mem=301989888
graphics|dev=0|pid=2210|mem=524288000
util|dev=0|pid=4242|sm=71|mem=38|enc=0|dec=0|ts=10
util|dev=1|pid=5151|sm=12|mem=4|enc=0|dec=0|ts=10
util|dev=0|pid=2210|sm=2|mem=1|enc=0|dec=6|ts=10
SC
FAKE_NVML_SCENARIO="$t/scenario.txt" ./target/debug/gpuledger --nvml-lib target/debug/libfake_nvml.so \
  --proc-root "$t/proc" --sys-root "$t/sys" snapshot --json > "$t/snap.json"
python3 - "$t/snap.json" examples/sample-snapshot.json "$t" <<'PY'
import json, sys
# The temporary folder's model path reads as the server's own /models path.
s = json.loads(open(sys.argv[1]).read().replace(sys.argv[3] + "/models/", "/models/"))
s["taken_at"] = "2026-11-29T09:00:00Z"
s["notes"].insert(0, "SAMPLE: made with gpuledger's fake NVML library (testing/fake-nvml) and a recorded /proc tree; not a real machine")
for src in s["sources"]:
    src["detail"] = src["detail"].replace(sys.argv[3], "/recorded")
    src["detail"] = src["detail"].replace("target/debug/libfake_nvml.so", "libnvidia-ml.so.1 (fake)")
json.dump(s, open(sys.argv[2], "w"), indent=2)
open(sys.argv[2], "a").write("\n")
PY
echo "wrote examples/sample-snapshot.json"
