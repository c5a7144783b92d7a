#!/usr/bin/env bash
# Compiles Warren's AppArmor profile without loading it (apparmor_parser -Q -K), so a syntax or rule error
# fails here and not on a user's machine. The profile's `userns` rule needs AppArmor 4: where this host's
# apparmor_parser is older (Debian 12 has 3.0), Debian 13's parser is fetched once with apt-get download
# into a cache and run with its own C library, without installing anything.
#   packaging/check-apparmor-profile.sh [PROFILE]      (default: packaging/apparmor/warren)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
profile=${1:-$here/apparmor/warren}

parser=()
if command -v apparmor_parser >/dev/null 2>&1 && [ -e /etc/apparmor.d/abi/4.0 ]; then
    parser=(apparmor_parser)
else
    cache=${XDG_CACHE_HOME:-$HOME/.cache}/warren/apparmor-4
    root=$cache/root
    if [ ! -x "$root/usr/sbin/apparmor_parser" ]; then
        echo "check-apparmor-profile: this host's AppArmor is older than 4.0; fetching Debian 13's apparmor_parser"
        # Debian 13's package lists, from the mirror this host's apt already uses, in a state of their own.
        mirror=$("$here/debian-mirror.sh")
        rm -rf "$cache" && mkdir -p "$cache/lists/partial" "$cache/debs" "$root"
        echo "deb $mirror trixie main" >"$cache/sources.list"
        apt_options=(-o "Dir::Etc::SourceList=$cache/sources.list" -o Dir::Etc::SourceParts=/dev/null
                     -o "Dir::State::Lists=$cache/lists" -o "Dir::Cache=$cache/apt" -o APT::Sandbox::User=root)
        apt-get "${apt_options[@]}" update -qq
        (cd "$cache/debs" && apt-get "${apt_options[@]}" download -qq apparmor libc6)
        for deb in "$cache"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
        rm -rf "$cache/lists" "$cache/apt" "$cache/debs"
    fi
    lib=$root/usr/lib/x86_64-linux-gnu
    parser=("$lib/ld-linux-x86-64.so.2" --library-path "$lib" "$root/usr/sbin/apparmor_parser"
            --base "$root/etc/apparmor.d" --config-file /dev/null
            --features-file "$root/usr/share/apparmor-features/features")
fi

"${parser[@]}" --version | head -n 1
# -Q: compile only, never load; -K: no cache. The kernel's lack of AppArmor is not an error here.
"${parser[@]}" -Q -K "$profile" 2> >(grep -v '^Cache read/write disabled' >&2)
echo "check-apparmor-profile: $profile compiles"
