#!/usr/bin/env bash
# Idempotent: installs what running the Windows tests under wine needs, on a fresh Debian 12 as root.
# - mingw-w64 (the x86_64-pc-windows-gnu linker, and the compiler for the DLL stub below)
# - wine 8.0 (Debian's), with a dedicated prefix under target/
# - the Rust target x86_64-pc-windows-gnu
# - testing/wine/bcryptprimitives.dll: wine 8.0 lacks that DLL, which every Rust >= 1.78 Windows
#   executable imports (wine 8.0 has no such DLL); the stub is built from
#   the C file committed beside it and installed into the prefix's system32.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export WINEPREFIX="${WINEPREFIX:-$ROOT/target/wineprefix}"
export WINEDEBUG="${WINEDEBUG:--all}"

need_pkgs=()
command -v x86_64-w64-mingw32-gcc >/dev/null || need_pkgs+=(gcc-mingw-w64-x86-64)
command -v wine >/dev/null || need_pkgs+=(wine wine64)
[ -x /usr/lib/wine/wine64 ] || need_pkgs+=(wine64)
if [ ${#need_pkgs[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q gcc-mingw-w64-x86-64 wine wine64
fi

if ! rustup target list --installed | grep -qx x86_64-pc-windows-gnu; then
    rustup target add x86_64-pc-windows-gnu
fi

STUB_DIR="$ROOT/target/wine-stub"
mkdir -p "$STUB_DIR"
DLL="$STUB_DIR/bcryptprimitives.dll"
if [ ! -f "$DLL" ] || [ testing/wine/bcryptprimitives.c -nt "$DLL" ] || [ testing/wine/bcryptprimitives.def -nt "$DLL" ]; then
    x86_64-w64-mingw32-gcc -O2 -shared -o "$DLL" testing/wine/bcryptprimitives.c \
        testing/wine/bcryptprimitives.def -ladvapi32
fi

# First use of a prefix takes several seconds (wine creates it); do it here, not inside a test.
if [ ! -d "$WINEPREFIX/drive_c/windows/system32" ]; then
    # No display here: keep wine from offering to install Mono/Gecko while it creates the prefix.
    WINEDLLOVERRIDES="mscoree,mshtml=" wine cmd /c exit 0 >/dev/null 2>&1 || true
fi
if [ ! -d "$WINEPREFIX/drive_c/windows/system32" ]; then
    echo "setup-wine: wine did not create the prefix $WINEPREFIX" >&2
    exit 1
fi
cp -f "$DLL" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
echo "setup-wine: ok (prefix $WINEPREFIX, stub $DLL)"
