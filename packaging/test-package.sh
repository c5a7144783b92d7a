#!/usr/bin/env bash
# The packages, tested as a user gets them: build them from an existing build tree, check them with lintian,
# compile the AppArmor profile, then install them into a clean Debian 12 container where apt fetches their
# dependencies, run `warren doctor` and the headless demo there, purge them, and check that nothing of
# Warren is left on the container's file system. .ci/run runs it as a phase after the test suite.
#   packaging/test-package.sh [BUILD_DIR]          (default: build, configured and built already)
#
# The container image is Debian 12 made here with debootstrap from the Debian mirror apt already uses, and
# imported into podman as localhost/warren-debian12:1; it is kept, so later runs on this machine skip that
# step (delete the image to make it again). Without podman or debootstrap the install test is skipped, saying
# so; the package, lintian and profile checks still run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(dirname "$here")
build_dir=$(realpath "${1:-$source_dir/build}")
image=localhost/warren-debian12:1
export CONTAINERS_CONF=${CONTAINERS_CONF:-$here/containers.conf}

step() { printf '\n== %s\n' "$*"; }

step "package (cmake --build $build_dir --target package)"
rm -f "$build_dir"/warren*_*.deb
cmake --build "$build_dir" --target package >"$build_dir/package.log" 2>&1 || { cat "$build_dir/package.log"; exit 1; }
debs=("$build_dir"/warren_*_amd64.deb "$build_dir"/warrend_*_amd64.deb)
for deb in "${debs[@]}"; do
    [ -f "$deb" ] || { echo "test-package: $deb was not made" >&2; exit 1; }
    printf '%s: %s bytes\n' "$(basename "$deb")" "$(stat -c %s "$deb")"
    dpkg-deb --field "$deb" Package Version Depends Recommends | sed 's/^/  /'
done

step "lintian"
# Errors fail; warnings and notes are printed for whoever wants to improve the packages.
lintian --fail-on error --display-level '>=warning' "${debs[@]}"
echo "lintian: no errors"

step "AppArmor profile"
"$here/check-apparmor-profile.sh" "$here/apparmor/warren"

if ! command -v podman >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
    echo "test-package: SKIPPED the install test: it needs podman and debootstrap (packaging/install-deps.sh)"
    exit 0
fi

step "Debian 12 image ($image)"
if podman image exists "$image"; then
    echo "$image exists"
else
    mirror=$("$here/debian-mirror.sh")
    rootfs=$(mktemp -d)
    trap 'rm -rf "$rootfs"' EXIT
    debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$build_dir/debootstrap.log" 2>&1 ||
        { tail -n 20 "$build_dir/debootstrap.log"; exit 1; }
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar --numeric-owner -C "$rootfs" -c . | podman import --quiet --change 'CMD ["/bin/bash"]' - "$image" >/dev/null
    rm -rf "$rootfs"
    echo "made $image from $mirror"
fi

step "install, doctor, demo, purge in a clean container"
# What bubblewrap needs inside a podman container: unmask=/proc/* and no seccomp profile of podman's. Podman
# covers parts of the container's /proc (kcore, keys, timer_list, ...), and the kernel refuses a fresh /proc
# in a user namespace where the existing one is partly covered ("Can't mount proc on /newroot/proc:
# Operation not permitted"); podman's default seccomp profile refuses sethostname without CAP_SYS_ADMIN,
# which bwrap calls in the UTS namespace it made ("Can't set hostname"). Warren's own seccomp filter still
# applies inside the sandbox. No added capability, not --privileged: bwrap gets its capabilities inside the
# user namespace it creates.
podman run --rm --network host --security-opt 'unmask=/proc/*' --security-opt seccomp=unconfined \
    -v "$build_dir:/packages:ro" -e DEBIAN_FRONTEND=noninteractive "$image" bash -euo pipefail -c '
    debs=$(ls /packages/warren_*_amd64.deb /packages/warrend_*_amd64.deb)
    apt-get update -qq
    # apt resolves the packages dependencies from the registry; recommended ones (podman, a keyring,
    # PostgreSQL) are left out to keep this short.
    apt-get install -y -qq --no-install-recommends $debs >/tmp/install.log 2>&1 || { cat /tmp/install.log; exit 1; }
    dpkg -L warren warrend >/tmp/files
    echo "installed: $(grep -c "" /tmp/files) paths"
    for path in /usr/bin/warren /usr/bin/warren-sandbox /usr/lib/warren/warren-agent /usr/bin/warrend \
                /usr/share/applications/warren.desktop /usr/share/metainfo/io.github.warren.Warren.metainfo.xml \
                /usr/share/icons/hicolor/scalable/apps/warren.svg /usr/share/man/man1/warren.1.gz \
                /usr/share/warren/apparmor/warren /lib/systemd/system/warrend.service /etc/warrend/warrend.conf; do
        [ -e "$path" ] || { echo "missing after install: $path"; exit 1; }
    done
    useradd --create-home demo
    echo "== warren doctor (as a user)"
    su demo -c "cd && warren doctor --data-dir /tmp/doctor" || { echo "warren doctor failed"; exit 1; }
    echo "== the headless demo (as a user)"
    su demo -c "cd \$(mktemp -d) && env -u DISPLAY -u WAYLAND_DISPLAY warren --data-dir \$PWD/data" >/tmp/demo.log 2>&1 ||
        { cat /tmp/demo.log; exit 1; }
    tail -n 5 /tmp/demo.log
    warrend --help >/dev/null
    userdel --remove demo
    rm -rf /tmp/doctor /tmp/tmp.*
    apt-get purge -y -qq warrend warren >/tmp/purge.log 2>&1 || { cat /tmp/purge.log; exit 1; }
    left=$(while read -r path; do [ -d "$path" ] || [ ! -e "$path" ] || echo "$path"; done </tmp/files)
    left+=$(find / -xdev \( -path /proc -o -path /sys -o -path /packages \) -prune -o -iname "*warren*" -print)
    if [ -n "$left" ]; then echo "left behind after purge:"; echo "$left"; exit 1; fi
    echo "purged: nothing of Warren is left"
'
