# Shared by the release scripts: `. scripts/common.sh`.

# apt_need PKG...: install the Debian packages that are not installed yet (one apt-get update,
# only when something is missing).
apt_need() {
    local missing=() p
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
