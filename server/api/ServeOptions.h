#pragma once
// `warrend serve`'s command line (DESIGN.md §8, docs/SERVER.md), read into options. Pure.
//
//   warrend serve --listen HOST:PORT --database URL --data-dir DIR [--tls-cert FILE --tls-key FILE]
//                 [--backend bwrap|podman] [--image IMAGE] [--max-tasks N] [--idle-sleep-sec N] [--lease-sec
//                 N]
//                 [--retention-days N] [--warm-containers N]
//                 [--provider SPEC] [--model M]
//                 [--max-upload-mb N] [--provider-key-secret FILE] [--max-connections-per-client N]
//                 [--allow-internal DEST[,DEST...]] [--resolve HOST:PORT:ADDR]... [--egress-ca FILE]
//                 [--agent-address HOST:PORT [--agent-advertise HOST:PORT] [--agent-service HOST:PORT]
//                  [--agent-peer PEER]
//                  [--runtime-class NAME]]

#include "agent_core/protocol/AgentKind.h"
#include "app/egress/InsideDestinations.h"
#include "common/Result.h"
#include "sandbox/Backend.h"
#include "sandbox/cluster/ControlPlanePeer.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warren::server {

struct ServeOptions {
    std::string host;
    std::uint16_t port = 0; // 0: any free port (printed when listening)
    std::string databaseUrl;
    std::string dataDir;
    std::string tlsCertificate, tlsKey; // both or neither
    sandbox::Backend backend = sandbox::Backend::Bwrap;
    std::string image;        // containers: the agent's image; empty: the default
    std::size_t maxTasks = 4; // agents running at once on this host, whoever they belong to
    // A task whose agent has only waited for its user's answer this long gives up its sandbox and sleeps
    // until the answer comes (RunnerEnvironment::idleSleep); 0: never.
    unsigned idleSleepSec = 300;
    // How many days a finished task keeps its workspace copy, checkpoints, snapshots and artifacts
    // (TaskRetention.h); its record and events stay. 0: kept for ever, unless a quota's retention_days binds.
    std::uint64_t retentionDays = 0;
    // Warm podman containers kept per shape of task for the next tasks of it (RunnerEnvironment::
    // warmSandboxes; rootful podman run by root only); 0: none.
    unsigned warmContainers = 1;
    // How long a replica's lease of a task lasts without renewal (server/replicas/TaskLeases): how long a
    // task whose replica died waits before another takes it over. Renewed every third of it.
    unsigned leaseSec = 15;
    std::string provider;     // the provider of tasks that name none ("openai", ...); empty: they must
    std::string model;
    std::uint64_t maxUploadBytes = 512ull << 20;
    // Connections one client (an IPv4 address, an IPv6 /64) may hold at once; 0: no limit, for a server
    // behind a reverse proxy, where every client has the proxy's address.
    unsigned maxConnectionsPerClient = 64;
    // The operator's 32-byte file that seals the provider keys users store; empty: users cannot store any,
    // and tasks use the server-wide keys only.
    std::string providerKeySecret;
    // The operator's file holding the token GET /metrics asks for (Authorization: Bearer); empty: no metrics.
    std::string metricsTokenFile;
    // Where the agents of cluster tasks (--backend kubernetes) connect: HOST:PORT to listen on (port 0: any
    // free one), and HOST:PORT the pods are told (a Service's name, say) when that differs. Both empty: no
    // listener, and a cluster task is refused.
    std::string agentAddress;
    std::string agentAdvertise;
    // HOST:PORT reaching every replica's listener (their Service), where a pod's agent also connects again
    // once its connection is lost (its replica died): the replica that took its task over rejoins the pod.
    std::string agentService;
    // Who the sandbox pods' NetworkPolicy lets them reach: warrend's pods (NAMESPACE/KEY=VALUE,...) or its
    // address block; its port is the one the agents' listener binds. Required with --backend kubernetes.
    std::optional<sandbox::ControlPlanePeer> agentPeer;
    // --agent-cli KIND=PATH (repeatable): the operator's install of a CLI agent (claude-code, codex) that
    // users' tasks may run ("agent" in POST /v1/tasks); a kind not named is looked up on warrend's PATH.
    std::map<protocol::AgentKind, std::string> agentClis;
    std::string runtimeClass; // the sandbox pods' runtime class (e.g. gvisor); empty: the cluster's default
    // The destinations inside warrend's host and networks (loopback, private, link-local, metadata) that a
    // task may reach: through its network allow-list, or as a provider endpoint its user names. Empty: none;
    // only the operator's own --provider and the hosted services' fixed URLs are reached wherever they are.
    std::vector<control::InsideDestination> allowInternal;
    control::InsideAccess insideAccess() const { return {true, allowInternal}; }
    // The operator's, for every task's egress (users name neither): --resolve HOST:PORT:ADDR, a name reached
    // at that address (inside only where --allow-internal lets it), and --egress-ca FILE, certificates trusted
    // besides the system's when the proxy connects on for a secret's host (a site's own CA, a test's server).
    std::vector<control::PinnedAddress> resolve;
    std::string egressCa;
};

// args: what follows "serve". An error names the flag and says what it expects.
Result<ServeOptions> parseServeOptions(const std::vector<std::string>& args);

} // namespace warren::server
