#!/usr/bin/env bash
# Installs the packages in packaging/debian-packages.txt (Debian 12+, Ubuntu 22.04+): the Debian packages
# always; with --test-tools DIR, also the list's npm packages (npm:NAME@VERSION), into DIR/node_modules, for
# the tests that drive the real CLIs.
#   packaging/install-deps.sh [--test-tools DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tools_dir=
if [ "${1:-}" = --test-tools ]; then
    tools_dir=${2:?--test-tools needs a directory}
fi
list=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e 's/[[:space:]]*$//' "$here/debian-packages.txt")
mapfile -t packages < <(grep -v '^npm:' <<<"$list")
mapfile -t npm_packages < <(grep '^npm:' <<<"$list" | sed 's/^npm://')

sudo=
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
    sudo=sudo
fi
apt_install() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "install-deps: all $# Debian packages asked for are installed"
        return
    fi
    echo "install-deps: installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

if [ -z "$tools_dir" ]; then
    apt_install "${packages[@]}"
    exit 0
fi

# The npm packages: each at its pinned version, or installed as a user's `npm install -g` would (Claude Code's
# install script links its platform package's executable into bin/, offline).
command -v npm >/dev/null || apt_install npm
wanted=()
for spec in "${npm_packages[@]}"; do
    name=${spec%@*} version=${spec##*@}
    installed=$(node -p "require('$tools_dir/node_modules/$name/package.json').version" 2>/dev/null || true)
    [ "$installed" = "$version" ] || wanted+=("$spec")
done
if [ ${#wanted[@]} -eq 0 ]; then
    echo "install-deps: all ${#npm_packages[@]} npm packages are installed in $tools_dir"
    exit 0
fi
echo "install-deps: installing ${wanted[*]} into $tools_dir"
mkdir -p "$tools_dir"
npm install --prefix "$tools_dir" --no-audit --no-fund --loglevel=error "${wanted[@]}"
