#!/usr/bin/env bash
# Checks the deploy/ files with the tools that read them (deploy/README.md, "Checks"):
#   units     systemd-analyze verify on every unit of deploy/systemd/ (the table's, the backup's,
#             the kiosk's, the floor service's), templates instantiated as @T1
#   security  systemd-analyze security --offline=true: every service's exposure score; the
#             table service, the floor service and the backup must stay at or under
#             MAX_EXPOSURE (2.0)
#   users     systemd-sysusers --dry-run on the accounts file
#   nginx     nginx -t on the proxy config, with a throwaway self-signed certificate
#   udev      udevadm verify on the shoe's rule (systemd 254 or later)
# `deploy/check.sh` runs them all; `deploy/check.sh nginx udev` only those. A missing tool
# prints SKIPPED with the reason (and the Debian package to install) and does not fail.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
MAX_EXPOSURE=${MAX_EXPOSURE:-2.0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

skip() { echo "SKIPPED $1: $2"; }

# The units as they would be installed, but running this checkout's dealer-assist when the
# table PC's /opt/dealer-assist is not here (verify checks that every command exists).
instances() {
    mkdir -p "$tmp/units"
    for unit in deploy/systemd/*; do
        name=$(basename "$unit")
        sed "s|/opt/dealer-assist|$repo|g" "$unit" > "$tmp/units/${name/@./@T1.}"
    done
}

check_units() {
    command -v systemd-analyze >/dev/null || { skip units "no systemd-analyze (apt-get install systemd)"; return; }
    instances
    local kiosk=
    if ! command -v cage >/dev/null; then  # verify needs the command of every unit to exist
        rm "$tmp"/units/dealer-assist-kiosk@T1.service
        kiosk="SKIPPED units: dealer-assist-kiosk@.service not verified: no cage (apt-get install cage)"
    fi
    # verify exits 0 on an unknown key or a bad value and only says so: any word is a failure
    out=$(systemd-analyze verify --man=no "$tmp"/units/* 2>&1) || true
    [ -z "$out" ] || { echo "$out"; echo "FAIL units"; return 1; }
    echo "OK units: systemd-analyze verify $(cd "$tmp/units" && echo *)"
    [ -z "$kiosk" ] || echo "$kiosk"
}

check_security() {
    command -v systemd-analyze >/dev/null || { skip security "no systemd-analyze (apt-get install systemd)"; return; }
    instances
    local threshold=${MAX_EXPOSURE/./}
    for unit in "$tmp"/units/*.service; do
        name=$(basename "$unit")
        score=$(systemd-analyze security --offline=true "$unit" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
        case $name in
            dealer-assist-kiosk@*) echo "exposure $name: $score (a browser on the monitor: not held to $MAX_EXPOSURE)";;
            *) systemd-analyze security --offline=true --threshold="$threshold" "$unit" >/dev/null \
                   || { echo "FAIL security: $name exposure $score is over $MAX_EXPOSURE"; return 1; }
               echo "exposure $name: $score (at most $MAX_EXPOSURE)";;
        esac
    done
}

check_users() {
    command -v systemd-sysusers >/dev/null || { skip users "no systemd-sysusers (apt-get install systemd)"; return; }
    mkdir -p "$tmp/root/etc/sysusers.d"
    cp deploy/sysusers.d/dealer-assist.conf "$tmp/root/etc/sysusers.d/"
    out=$(systemd-sysusers --dry-run --root="$tmp/root" 2>&1)
    echo "$out"
    ! grep -qi -e fail -e ignoring -e invalid <<<"$out" || { echo "FAIL users"; return 1; }
    echo "OK users: systemd-sysusers --dry-run deploy/sysusers.d/dealer-assist.conf"
}

check_nginx() {
    command -v nginx >/dev/null || { skip nginx "no nginx (apt-get install nginx-light)"; return; }
    command -v openssl >/dev/null || { skip nginx "no openssl to make a throwaway certificate"; return; }
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=table.test \
        -keyout "$tmp/table.key" -out "$tmp/table.crt" 2>/dev/null
    sed "s|/etc/dealer-assist/tls/|$tmp/|g" deploy/nginx/dealer-assist.conf > "$tmp/dealer-assist.conf"
    printf 'error_log stderr;\npid %s/nginx.pid;\nevents {}\nhttp {\n    include %s/dealer-assist.conf;\n}\n' \
        "$tmp" "$tmp" > "$tmp/nginx.conf"
    nginx -t -q -p "$tmp" -c "$tmp/nginx.conf" -g "daemon off;"
    echo "OK nginx: nginx -t deploy/nginx/dealer-assist.conf"
}

check_udev() {
    command -v udevadm >/dev/null || { skip udev "no udevadm (apt-get install udev)"; return; }
    udevadm verify --help >/dev/null 2>&1 || { skip udev "udevadm $(udevadm --version) has no verify (systemd 254 or later)"; return; }
    udevadm verify deploy/udev/99-card-shoe.rules
    echo "OK udev: udevadm verify deploy/udev/99-card-shoe.rules"
}

for check in "${@:-units security users nginx udev}"; do
    for one in $check; do
        "check_$one"
    done
done
