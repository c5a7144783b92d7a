#!/bin/sh
# Builds the small container image Warren's container tests run in, from this host's own files, and imports
# it into podman (or docker) under a fixed tag. No registry is needed. Idempotent: does nothing when the image
# already exists (pass --force to rebuild).
#
#   packaging/make-test-image.sh [--engine podman|docker] [--tag TAG] [--force]
#
# The image holds /bin/sh, bash (Claude Code runs its commands with it), the coreutils and a few other tools the tests use, the shared libraries they need,
# and nothing else: no package manager, no setuid programs (curl for the egress proxy tests). The tag goes up
# whenever the list of tools or libraries changes. Tests copy their own static probes into the
# workspace. Podman reads CONTAINERS_CONF as usual (see packaging/containers.conf).
set -eu

engine=podman
tag=localhost/warren-test:3
force=no
while [ $# -gt 0 ]; do
    case "$1" in
        --engine) engine=$2; shift 2 ;;
        --tag) tag=$2; shift 2 ;;
        --force) force=yes; shift ;;
        *) echo "usage: $0 [--engine podman|docker] [--tag TAG] [--force]" >&2; exit 2 ;;
    esac
done

if ! command -v "$engine" >/dev/null 2>&1; then
    echo "$0: $engine is not installed" >&2
    exit 1
fi
if [ "$force" = no ] && "$engine" image inspect "$tag" >/dev/null 2>&1; then
    echo "$tag already exists"
    exit 0
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT INT TERM

tools="sh dash bash ls cat echo id sleep true false env mkdir rm cp mv touch ln chmod stat head tail wc grep sed
       printf test readlink dd kill ps uname tr sort cut basename dirname find yes seq timeout curl"
mkdir -p "$root/usr/bin" "$root/usr/lib" "$root/etc" "$root/tmp" "$root/proc" "$root/dev" "$root/sys" \
         "$root/workspace" "$root/home/agent" "$root/root"
chmod 1777 "$root/tmp"
ln -s usr/bin "$root/bin"
ln -s usr/bin "$root/sbin"
ln -s usr/lib "$root/lib"

copy_with_libs() {
    program=$1
    cp -L "$program" "$root/usr/bin/$(basename "$program")"
    # Every library the dynamic loader would load, at the path the binary asks for it.
    ldd "$program" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }' | while read -r lib; do
        mkdir -p "$root$(dirname "$lib")"
        [ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
    done
}

for tool in $tools; do
    # The program file, not the shell builtin `command -v` would name for echo, true, test...
    path=
    for dir in /usr/bin /bin /usr/sbin /sbin; do
        if [ -x "$dir/$tool" ]; then path=$dir/$tool; break; fi
    done
    if [ -n "$path" ]; then
        copy_with_libs "$path"
    else
        echo "note: $tool is not on this host, the image goes without it" >&2
    fi
done
# The C library's parts a native program from elsewhere links (Claude Code's executable: libm, libdl,
# libpthread, librt), beside libc, where the host's libc is.
libdir=$(dirname "$(ldd /bin/sh | awk '/libc\.so/ { print $3 }')")
for lib in libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1; do
    if [ -e "$libdir/$lib" ]; then
        mkdir -p "$root$libdir"
        [ -e "$root$libdir/$lib" ] || cp -L "$libdir/$lib" "$root$libdir/$lib"
    fi
done
# The dynamic loader at its canonical path (/lib64 on x86_64), whatever ldd printed it as.
for loader in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1; do
    if [ -e "$loader" ]; then
        mkdir -p "$root$(dirname "$loader")"
        [ -e "$root$loader" ] || cp -L "$loader" "$root$loader"
    fi
done

printf 'root:x:0:0:root:/root:/bin/sh\nagent:x:1000:1000::/home/agent:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nagent:x:1000:\n' >"$root/etc/group"
: >"$root/etc/hosts"

# Fixed owner, order and times, so the same host files give the same layer.
tarball="$root.tar"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$root" -cf "$tarball" .
trap 'rm -rf "$root" "$tarball"' EXIT INT TERM
"$engine" image rm --force "$tag" >/dev/null 2>&1 || true
"$engine" import --change 'ENV PATH=/usr/bin' --change 'CMD ["/bin/sh"]' "$tarball" "$tag" >/dev/null
echo "imported $tag"
