#include "server/api/ServeOptions.h"

#include "agent_core/net/ControlConnection.h"
#include "app/tasks/TaskRetention.h"
#include "app/tasks/TaskSpec.h"
#include "sandbox/pod/KubeManifest.h"

#include <charconv>

namespace warren::server {

namespace {

Status refuse(const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, message);
}

Result<std::uint64_t> number(const std::string& flag, const std::string& text, std::uint64_t min,
                             std::uint64_t max) {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < min || value > max)
        return makeError(ErrorCode::InvalidArgument, flag + " " + text + ": expected a whole number from " +
                                                         std::to_string(min) + " to " + std::to_string(max));
    return value;
}

// HOST:PORT, [IPV6]:PORT.
Status readListen(const std::string& text, ServeOptions& options) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0)
        return refuse("--listen " + text + ": expected HOST:PORT, e.g. 127.0.0.1:8420");
    std::string host = text.substr(0, colon);
    if (host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    auto port = number("--listen's port", text.substr(colon + 1), 0, 65535);
    if (!port)
        return port.error();
    options.host = host;
    options.port = static_cast<std::uint16_t>(*port);
    return Ok{};
}

// --agent-address and --agent-advertise: checked as the agent checks its --connect (one parser); a pod is
// told a port, so only the listening address may ask for any free one.
Status readAgentAddress(const std::string& flag, const std::string& text, std::string& into) {
    auto address = agent::parseTcpAddress(text, flag == "--agent-address");
    if (!address)
        return refuse(flag + " " + address.error().message);
    into = text;
    return Ok{};
}

bool isWildcard(const std::string& hostPort) {
    const std::string host = agent::parseTcpAddress(hostPort, true)->host;
    return host == "0.0.0.0" || host == "::" || host.empty();
}

// KIND=PATH: an absolute path, so what runs does not depend on the directory warrend started in.
Status readAgentCli(const std::string& value, std::map<protocol::AgentKind, std::string>& clis) {
    const auto eq = value.find('=');
    auto kind = protocol::parseAgentKind(value.substr(0, eq));
    if (eq == std::string::npos || !kind || !protocol::isCliAgent(*kind) || value.size() == eq + 1 || value[eq + 1] != '/')
        return makeError(ErrorCode::InvalidArgument, "--agent-cli " + value +
                                                         ": expected claude-code=PATH or codex=PATH, PATH the "
                                                         "CLI's executable as an absolute path");
    clis[*kind] = value.substr(eq + 1);
    return Ok{};
}

} // namespace

Result<ServeOptions> parseServeOptions(const std::vector<std::string>& args) {
    ServeOptions options;
    bool listen = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& flag = args[i];
        if (i + 1 >= args.size())
            return makeError(ErrorCode::InvalidArgument, flag.starts_with("--")
                                                             ? flag + " needs a value"
                                                             : "unexpected argument " + flag);
        const std::string& value = args[++i];
        Status read = Ok{};
        if (flag == "--listen") {
            read = readListen(value, options);
            listen = true;
        } else if (flag == "--database") {
            options.databaseUrl = value;
        } else if (flag == "--data-dir") {
            options.dataDir = value;
        } else if (flag == "--tls-cert") {
            options.tlsCertificate = value;
        } else if (flag == "--tls-key") {
            options.tlsKey = value;
        } else if (flag == "--backend") {
            auto backend = sandbox::parseBackend(value);
            if (!backend)
                return backend.error();
            options.backend = *backend;
        } else if (flag == "--image") {
            options.image = value;
        } else if (flag == "--max-tasks") {
            auto n = number(flag, value, 1, 1024);
            if (!n)
                return n.error();
            options.maxTasks = *n;
        } else if (flag == "--idle-sleep-sec") {
            auto n = number(flag, value, 0, 7 * 24 * 3600);
            if (!n)
                return n.error();
            options.idleSleepSec = static_cast<unsigned>(*n);
        } else if (flag == "--retention-days") {
            auto n = number(flag, value, 0, control::kMaxRetentionDays);
            if (!n)
                return n.error();
            options.retentionDays = *n;
        } else if (flag == "--warm-containers") {
            auto n = number(flag, value, 0, 64);
            if (!n)
                return n.error();
            options.warmContainers = static_cast<unsigned>(*n);
        } else if (flag == "--lease-sec") {
            auto n = number(flag, value, 1, 3600);
            if (!n)
                return n.error();
            options.leaseSec = static_cast<unsigned>(*n);
        } else if (flag == "--provider") {
            options.provider = value;
        } else if (flag == "--model") {
            options.model = value;
        } else if (flag == "--max-upload-mb") {
            auto n = number(flag, value, 1, 1u << 20);
            if (!n)
                return n.error();
            options.maxUploadBytes = *n << 20;
        } else if (flag == "--max-connections-per-client") {
            auto n = number(flag, value, 0, 100000);
            if (!n)
                return n.error();
            options.maxConnectionsPerClient = static_cast<unsigned>(*n);
        } else if (flag == "--provider-key-secret") {
            if (value.empty())
                return makeError(
                    ErrorCode::InvalidArgument,
                    "--provider-key-secret needs a file: make one with `(umask 077 && openssl rand "
                    "-out FILE 32)`");
            options.providerKeySecret = value; // read and checked when warrend opens it
        } else if (flag == "--metrics-token-file") {
            if (value.empty())
                return makeError(ErrorCode::InvalidArgument,
                                 "--metrics-token-file needs a file: make one with `(umask 077 && openssl rand "
                                 "-hex 32 > FILE)`");
            options.metricsTokenFile = value; // read and checked when warrend opens it
        } else if (flag == "--resolve") {     // repeatable
            auto pinned = control::parsePinnedAddress(value);
            if (!pinned)
                return pinned.error();
            options.resolve.push_back(std::move(*pinned));
        } else if (flag == "--egress-ca") {
            options.egressCa = value;
        } else if (flag == "--allow-internal") { // repeatable: the lists add up
            auto destinations = control::parseInsideDestinations(value);
            if (!destinations)
                return destinations.error();
            options.allowInternal.insert(options.allowInternal.end(), destinations->begin(), destinations->end());
        } else if (flag == "--agent-address") {
            read = readAgentAddress(flag, value, options.agentAddress);
        } else if (flag == "--agent-advertise") {
            read = readAgentAddress(flag, value, options.agentAdvertise);
        } else if (flag == "--agent-service") {
            read = readAgentAddress(flag, value, options.agentService);
        } else if (flag == "--agent-peer") {
            auto peer = sandbox::parseControlPlanePeer(value);
            if (!peer)
                return makeError(ErrorCode::InvalidArgument, "--agent-peer " + peer.error().message);
            options.agentPeer = std::move(*peer);
        } else if (flag == "--agent-cli") {
            read = readAgentCli(value, options.agentClis);
        } else if (flag == "--runtime-class") {
            if (!sandbox::isDnsLabel(value))
                return makeError(ErrorCode::InvalidArgument, "--runtime-class " + value +
                                                                 ": a RuntimeClass's name is a DNS-1123 label "
                                                                 "(lowercase letters, digits and '-'), e.g. gvisor");
            options.runtimeClass = value;
        } else {
            return makeError(ErrorCode::InvalidArgument, "unknown option " + flag + "; see `warrend --help`");
        }
        if (!read)
            return read.error();
    }
    if (!listen)
        return makeError(ErrorCode::InvalidArgument, "--listen HOST:PORT is required");
    if (options.databaseUrl.empty())
        return makeError(ErrorCode::InvalidArgument, "--database URL is required (postgresql://...)");
    if (options.dataDir.empty())
        return makeError(ErrorCode::InvalidArgument, "--data-dir DIR is required: uploads, workspaces and "
                                                     "the agents' state go there");
    if (options.tlsCertificate.empty() != options.tlsKey.empty())
        return makeError(ErrorCode::InvalidArgument, "--tls-cert and --tls-key go together");
    if ((!options.agentAdvertise.empty() || !options.agentService.empty()) && options.agentAddress.empty())
        return makeError(ErrorCode::InvalidArgument,
                         std::string(options.agentService.empty() ? "--agent-advertise" : "--agent-service") +
                             " goes with --agent-address HOST:PORT, where warrend listens for agents");
    if ((options.agentPeer || !options.runtimeClass.empty()) && options.agentAddress.empty())
        return makeError(ErrorCode::InvalidArgument, std::string(options.agentPeer ? "--agent-peer" : "--runtime-class") +
                                                         " describes the pods of cluster tasks, whose agents connect "
                                                         "to --agent-address HOST:PORT, which is missing");
    if (options.backend == sandbox::Backend::Kubernetes && !options.agentAddress.empty() && !options.agentPeer)
        return makeError(ErrorCode::InvalidArgument,
                         "--backend kubernetes needs --agent-peer: each sandbox pod's NetworkPolicy lets it reach "
                         "warrend alone, named by its pods (--agent-peer NAMESPACE/KEY=VALUE, e.g. "
                         "warren/app.kubernetes.io/name=warrend) or, outside the cluster, its address block "
                         "(--agent-peer 10.0.3.7/32)");
    if (!options.agentAddress.empty() && options.agentAdvertise.empty() && isWildcard(options.agentAddress))
        return makeError(ErrorCode::InvalidArgument,
                         "--agent-address " + options.agentAddress +
                             " listens on every address, which no pod can connect to: name the one the pods reach "
                             "with --agent-advertise HOST:PORT (e.g. warrend's Service)");
    return options;
}

} // namespace warren::server
