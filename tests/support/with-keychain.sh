#!/bin/sh
# Runs COMMAND in a private D-Bus session whose Secret Service is a gnome-keyring unlocked with a throwaway
# password, its keyrings in a temporary home removed afterwards: the keychain test talks to a real keychain
# and leaves the user's own untouched. Without dbus-run-session or gnome-keyring-daemon, COMMAND runs with
# WARREN_NO_KEYRING saying what is missing (the test skips with that reason).
#   tests/support/with-keychain.sh COMMAND [ARG...]
set -eu
for tool in dbus-run-session gnome-keyring-daemon; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        WARREN_NO_KEYRING="$tool is not installed (Debian: apt install dbus-daemon gnome-keyring)" exec "$@"
    fi
done
home=$(mktemp -d "${TMPDIR:-/tmp}/warren-keyring.XXXXXX")
trap 'rm -rf "$home"' EXIT
mkdir -m 700 "$home/run"
export HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" XDG_CACHE_HOME="$home/cache" \
    XDG_RUNTIME_DIR="$home/run" WARREN_KEYRING_HOME="$home"
status=0
# The daemon forks into the background, answers on the session bus and ends with it.
dbus-run-session -- sh -c 'printf warren-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null &&
    exec "$@"' sh "$@" || status=$?
exit "$status"
