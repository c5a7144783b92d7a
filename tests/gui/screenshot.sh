#!/bin/sh
# Makes the README's screenshot (docs/screenshot.png): the window after the scripted demo, rendered by a
# real X server (Xvfb) with the system's fonts and style. Needs xvfb (apt install xvfb) and a build.
#   tests/gui/screenshot.sh [BUILD_DIR] [OUT.png]
set -eu
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=${1:-$source_dir/build}
out=${2:-$source_dir/docs/screenshot.png}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
# The new-task bar shows the current directory: a neutral one, not wherever this was run from.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/greeter"
cd "$scratch/greeter"
WARREN_AGENT="$build_dir/agent_core/tool/warren-agent" \
    xvfb-run -a -s "-screen 0 1600x1000x24" "$build_dir/tests/gui/gui-screenshot" "$out"
