#!/bin/sh
# Pictures of an approval card of each kind (a shell command, an edit with its diff, a network question) at
# 1360x820 and 800x600, taken from a real X server (Xvfb) with the system's fonts and style, for a person to
# look at. Needs xvfb and imagemagick (import) and a build.
#   tests/gui/approval-shots.sh [BUILD_DIR] [OUT_DIR]
set -eu
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=${1:-$source_dir/build}
out_dir=${2:-/tmp/approval-shots}
mkdir -p "$out_dir"
export WARREN_AGENT="$build_dir/agent_core/tool/warren-agent"
for size in 1360x820 800x600; do
    for kind in shell edit network; do
        out="$out_dir/approval-$kind-$size.png"
        xvfb-run -a -s "-screen 0 ${size}x24" sh -c '
            scratch=$(mktemp -d)
            mkfifo "$scratch/in"
            "$1" "$2" "$3" <"$scratch/in" >"$scratch/out" &
            shots=$!
            exec 3>"$scratch/in" # its stdin stays open until the picture is taken
            until grep -q ready "$scratch/out"; do
                kill -0 "$shots" 2>/dev/null || { echo "gui-approval-shots $2 ended early" >&2; exit 1; }
                sleep 0.2
            done
            import -window root "$4"
            exec 3>&-
            wait "$shots"
            rm -rf "$scratch"' sh "$build_dir/tests/gui/gui-approval-shots" "$kind" "$size" "$out"
        echo "$out"
    done
done
