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

# apt_install_no_start PKG...: install Debian packages whose services must not start (the tests
# start their own instances): the lists refreshed only when apt does not know the first package
# yet (a fresh machine), and a policy-rc.d that refuses service starts for the install's length.
apt_install_no_start() {
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        apt-get update -qq
    fi
    local policy=/usr/sbin/policy-rc.d created=0
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod +x "$policy"
        created=1
    fi
    local rc=0
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null || rc=$?
    [ "$created" = 1 ] && rm -f "$policy"
    return "$rc"
}
