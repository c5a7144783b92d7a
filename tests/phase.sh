# Sourced by tests/run.sh and .ci/run: `phase NAME COMMAND...` runs COMMAND and prints how long it took,
# so that every run shows where its time goes; the summary at exit lists them all.
phase_summary=()

phase() {
    local name=$1
    shift
    local start=$SECONDS
    echo "== phase: $name"
    "$@"
    local took=$((SECONDS - start))
    phase_summary+=("$(printf '%6d s  %s' "$took" "$name")")
    echo "== phase: $name took ${took} s"
}

print_phases() {
    [ ${#phase_summary[@]} -gt 0 ] || return 0
    echo "== phases"
    printf '%s\n' "${phase_summary[@]}"
}
