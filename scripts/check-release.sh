#!/usr/bin/env bash
# Checks what scripts/release.sh built, the way a user would get it: each artefact unpacked outside
# the repository, run with --version, selftest and a snapshot of the sample, on its own platform:
#   Linux x86_64  natively; its highest required glibc symbol version <= the stated baseline
#   Linux aarch64 under qemu-user with Debian's aarch64 C library (no aarch64 machine needed)
#   Windows       under wine (say "no GPU" in words)
#   .deb          dpkg -i, files where Debian expects them, `man gpuledger` renders, dpkg -r
# usage: scripts/check-release.sh dist/VERSION      (as root for the .deb part; apt installs
#        qemu-user-static, libc6-arm64-cross, wine and man-db when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
DIST="$(cd "${1:?usage: scripts/check-release.sh dist/VERSION}" && pwd)"
GLIBC_BASELINE=2.17
SAMPLE="$ROOT/examples/sample-snapshot.json"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$SAMPLE" "$work/sample.json"
fail=0
ok() { echo "check-release: ok: $*"; }
bad() { echo "check-release: FAILED: $*" >&2; fail=1; }

. "$ROOT/scripts/common.sh"

# run LABEL CMD...: --version, selftest and the sample snapshot through a runner prefix.
run_all() {
    local label="$1"
    shift
    local v
    v="$(cd "$work" && "$@" --version 2>&1)" || { bad "$label --version: $v"; return; }
    case "$v" in "gpuledger "*"(commit "*) ok "$label --version: $v" ;; *) bad "$label --version: $v" ;; esac
    local st
    st="$(cd "$work" && "$@" selftest 2>&1)" || { bad "$label selftest: $st"; return; }
    grep -q "selftest" <<<"$st" && ok "$label selftest" || bad "$label selftest: $st"
    local snap
    snap="$(cd "$work" && "$@" snapshot --replay sample.json 2>&1)" || { bad "$label snapshot: $snap"; return; }
    grep -q "llama-server" <<<"$snap" && ok "$label snapshot --replay sample" || bad "$label snapshot: $snap"
    local live
    live="$(cd "$work" && "$@" snapshot 2>&1)" || { bad "$label live snapshot: $live"; return; }
    grep -qi "no GPU" <<<"$live" && ok "$label live snapshot says: $(grep -i -m1 'no GPU' <<<"$live")" \
        || bad "$label live snapshot does not say 'no GPU': $live"
}

highest_glibc() {
    objdump -T "$1" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -Vu | tail -n1
}

shopt -s nullglob
for tgz in "$DIST"/gpuledger-*-x86_64-linux-gnu.tar.gz; do
    tar -xzf "$tgz" -C "$work"
    bin="$(echo "$work"/gpuledger-*-x86_64-linux-gnu/gpuledger)"
    need="$(highest_glibc "$bin")"
    if [ "$(printf '%s\n%s\n' "$need" "$GLIBC_BASELINE" | sort -V | tail -n1)" = "$GLIBC_BASELINE" ]; then
        ok "x86_64 needs glibc $need (baseline $GLIBC_BASELINE)"
    else
        bad "x86_64 needs glibc $need, above the baseline $GLIBC_BASELINE"
    fi
    run_all "linux-x86_64" "$bin"
done

for tgz in "$DIST"/gpuledger-*-aarch64-linux-gnu.tar.gz; do
    apt_need qemu-user-static libc6-arm64-cross
    tar -xzf "$tgz" -C "$work"
    bin="$(echo "$work"/gpuledger-*-aarch64-linux-gnu/gpuledger)"
    need="$(highest_glibc "$bin")"
    if [ "$(printf '%s\n%s\n' "$need" "$GLIBC_BASELINE" | sort -V | tail -n1)" = "$GLIBC_BASELINE" ]; then
        ok "aarch64 needs glibc $need (baseline $GLIBC_BASELINE)"
    else
        bad "aarch64 needs glibc $need, above the baseline $GLIBC_BASELINE"
    fi
    run_all "linux-aarch64 (qemu)" qemu-aarch64-static -L /usr/aarch64-linux-gnu "$bin"
done

for zip in "$DIST"/gpuledger-*-x86_64-windows.zip; do
    bash "$ROOT/.ci/setup-wine.sh" >/dev/null
    export WINEPREFIX="${WINEPREFIX:-$ROOT/target/wineprefix}" WINEDEBUG=-all
    unzip -q -o "$zip" -d "$work"
    exe="$(echo "$work"/gpuledger-*-x86_64-windows/gpuledger.exe)"
    run_all "windows (wine)" wine "$exe"
    # The live view for a few rounds in wine's console inside tmux: the device cards must show.
    # (wine's console passes some escape sequences through, so only the content is judged.)
    if command -v tmux >/dev/null 2>&1; then
        tmux -L release new-session -d -x 120 -y 40 -c "$work" "wine '$exe' --replay sample.json"
        sleep 8
        screen="$(tmux -L release capture-pane -p)"
        tmux -L release send-keys q
        sleep 1
        tmux -L release kill-server 2>/dev/null || true
        grep -q "GPU0" <<<"$screen" && grep -q "llama-server" <<<"$screen" \
            && ok "windows (wine) live view shows the device cards and processes in tmux" \
            || bad "windows (wine) live view: $screen"
    fi
    wineserver -k >/dev/null 2>&1 || true
done

for deb in "$DIST"/gpuledger_*_amd64.deb; do
    apt_need man-db
    dpkg -i "$deb" >/dev/null
    for f in /usr/bin/gpuledger /usr/share/man/man1/gpuledger.1.gz \
        /usr/share/man/man1/gpuledger-snapshot.1.gz \
        /usr/share/bash-completion/completions/gpuledger \
        /usr/share/zsh/vendor-completions/_gpuledger \
        /usr/share/fish/vendor_completions.d/gpuledger.fish \
        /usr/lib/systemd/system/gpuledger-serve.service /usr/share/doc/gpuledger/copyright; do
        [ -e "$f" ] && ok "deb installed $f" || bad "deb did not install $f"
    done
    MANWIDTH=80 man gpuledger 2>/dev/null | grep -q "GPU memory" && ok "man gpuledger renders" \
        || bad "man gpuledger does not render"
    run_all "deb /usr/bin/gpuledger" /usr/bin/gpuledger
    dpkg -r gpuledger >/dev/null
    [ ! -e /usr/bin/gpuledger ] && [ ! -e /usr/share/man/man1/gpuledger.1.gz ] \
        && ok "dpkg -r removed the files" || bad "dpkg -r left files behind"
done

(cd "$DIST" && sha256sum --quiet -c SHA256SUMS) && ok "SHA256SUMS" || bad "SHA256SUMS"
[ "$fail" = 0 ] && echo "check-release: all checks passed" || exit 1
