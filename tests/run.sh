#!/usr/bin/env bash
# Builds Warren with warnings as errors and runs the whole test suite. Run as root, it runs the tests that
# launch sandboxes (CTest label "sandbox") a second time as an unprivileged user (warren-ci), because the
# sandbox must hold for both. Each phase prints how long it took.
#   tests/run.sh [CMAKE_ARG...]        e.g. BUILD_DIR=build-asan tests/run.sh -DWITH_ASAN=ON
#   UNPRIVILEGED_PASS=0 tests/run.sh   without the second pass
#   TEST_JOBS=N tests/run.sh           N tests at a time (default: the number of cores + 1)
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(realpath -m "${BUILD_DIR:-$source_dir/build}")
test_user=warren-ci
source "$source_dir/tests/phase.sh"
trap print_phases EXIT

phase "configure $(basename "$build_dir")" \
    cmake -S "$source_dir" -B "$build_dir" -G Ninja -DWARNINGS_AS_ERRORS=ON -DWITH_TESTS=ON "$@"
phase "build $(basename "$build_dir")" cmake --build "$build_dir"

# The container backend's tests run in a small local image, made from this host's files (without podman
# they skip, saying why).
export CONTAINERS_CONF="$source_dir/packaging/containers.conf"
if command -v podman >/dev/null 2>&1; then
    phase "test image" "$source_dir/packaging/make-test-image.sh"
fi

# Claude Code and Codex, pinned in the package list, for the tests that run them in the sandbox, and the MCP
# reference servers for the tests that start them (without them those tests skip, naming the variable).
tools_dir=${TEST_TOOLS_DIR:-$build_dir/test-tools}
phase "test tools (npm)" "$source_dir/packaging/install-deps.sh" --test-tools "$tools_dir"
# Codex's own executable, as Warren mounts it (its npm launcher needs Node.js, which a sandbox lacks).
codex=$(find "$tools_dir/node_modules/@openai" -path '*/vendor/*/bin/codex' -type f | head -n 1)
export WARREN_TEST_CLAUDE="$tools_dir/node_modules/.bin/claude" WARREN_TEST_CODEX="$codex"
export WARREN_TEST_MCP_EVERYTHING="$tools_dir/node_modules/.bin/mcp-server-everything"
export WARREN_TEST_MCP_FILESYSTEM="$tools_dir/node_modules/.bin/mcp-server-filesystem"

# Most tests wait on processes, sandboxes and sockets more than they compute: a few run side by side (each
# test's containers, servers and directories are its own). TEST_JOBS=1 runs them one at a time.
jobs=${TEST_JOBS:-$(($(nproc) + 1))}
phase "tests as $(id -un)" ctest --test-dir "$build_dir" --output-on-failure --parallel "$jobs"

[ "$(id -u)" = 0 ] && [ "${UNPRIVILEGED_PASS:-1}" != 0 ] || exit 0

id "$test_user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$test_user"
test_home=$(getent passwd "$test_user" | cut -d: -f6)

# The user needs to reach the build and source trees (e.g. under /root): grant it traversal of each
# ancestor directory, for this run only.
granted=() granted_recursive=()
revoke() {
    for dir in "${granted[@]}"; do setfacl -x "u:$test_user" "$dir" 2>/dev/null || true; done
    for dir in "${granted_recursive[@]}"; do setfacl -R -b "$dir" 2>/dev/null || true; done
}
trap 'revoke; print_phases' EXIT
for tree in "$build_dir" "$source_dir"; do
    dir=$tree
    while [ "$dir" != / ]; do
        if ! runuser -u "$test_user" -- test -x "$dir"; then
            setfacl -m "u:$test_user:x" "$dir"
            granted+=("$dir")
        fi
        dir=$(dirname "$dir")
    done
done

# ctest writes its logs under Testing/ in the build tree.
mkdir -p "$build_dir/Testing"
setfacl -R -m "u:$test_user:rwX" -m "d:u:$test_user:rwX" "$build_dir/Testing"
granted_recursive=("$build_dir/Testing")

# A setuid-root copy of the probe, which only root can make, for the "setuid gains nothing" test.
probe=$(find "$build_dir/tests/support" -maxdepth 1 -name sandbox-probe -type f | head -n 1)
setuid_probe="$build_dir/tests/support/sandbox-probe-setuid"
install -o root -g root -m 4755 "$probe" "$setuid_probe"

phase "sandbox tests as the unprivileged user $test_user" \
    runuser -u "$test_user" -- env HOME="$test_home" USER="$test_user" LOGNAME="$test_user" \
    WARREN_PROBE_SETUID="$setuid_probe" TMPDIR=/tmp WARREN_TEST_CLAUDE="$WARREN_TEST_CLAUDE" \
    WARREN_TEST_CODEX="$WARREN_TEST_CODEX" WARREN_TEST_MCP_EVERYTHING="$WARREN_TEST_MCP_EVERYTHING" \
    WARREN_TEST_MCP_FILESYSTEM="$WARREN_TEST_MCP_FILESYSTEM" \
    ctest --test-dir "$build_dir" --output-on-failure --parallel "$jobs" -L sandbox
