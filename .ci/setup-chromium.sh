#!/usr/bin/env bash
# Installs Debian's headless-capable Chromium and its WebDriver (chromedriver) for the browser
# view's end-to-end test (crates/cli/tests/cli/web_page.rs). Idempotent; runs as root on a fresh
# Debian 12. Fonts come from setup-fonts.sh (DejaVu), so screenshots have real glyphs.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    echo "setup-chromium: $(chromium --version 2>/dev/null | head -n1); $(chromedriver --version | head -n1)"
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
# Refresh the lists only when apt does not know the package yet (fresh machine).
if ! apt-cache policy chromium-driver 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    apt-get update -qq
fi
apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
echo "setup-chromium: $(chromium --version 2>/dev/null | head -n1); $(chromedriver --version | head -n1)"
