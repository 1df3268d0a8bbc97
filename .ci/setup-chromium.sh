#!/usr/bin/env bash
# Installs Debian's headless-capable Chromium and its WebDriver (chromedriver) for the browser
# view's end-to-end test (crates/cli/tests/cli/web_page.rs). Idempotent; runs as root on a fresh
# Debian 12. Fonts come from setup-fonts.sh (DejaVu), so screenshots have real glyphs.
set -euo pipefail

# axe-core (accessibility rules), pinned, run by the same test inside this Chromium. Kept in the
# user's cache, never committed; the test reads node_modules/axe-core/axe.min.js from there.
AXE_VERSION=4.11.0
AXE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/gpuledger/axe-core"
install_axe() {
    if ! grep -qs "\"version\": \"$AXE_VERSION\"" "$AXE_DIR/node_modules/axe-core/package.json"; then
        if ! command -v npm >/dev/null 2>&1; then
            apt-get install -y -qq --no-install-recommends npm >/dev/null
        fi
        mkdir -p "$AXE_DIR"
        (cd "$AXE_DIR" && npm install --no-audit --no-fund --silent "axe-core@$AXE_VERSION")
    fi
    echo "setup-chromium: axe-core $AXE_VERSION in $AXE_DIR"
}

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    echo "setup-chromium: $(chromium --version 2>/dev/null | head -n1); $(chromedriver --version | head -n1)"
    install_axe
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
# Refresh the lists only when apt does not know the package yet (fresh machine).
if ! apt-cache policy chromium-driver 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    apt-get update -qq
fi
apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
echo "setup-chromium: $(chromium --version 2>/dev/null | head -n1); $(chromedriver --version | head -n1)"
install_axe
