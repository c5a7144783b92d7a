#include "sandbox/CommandLine.h"

#include "sandbox/policy/SandboxPaths.h"

#include <charconv>
#include <functional>
#include <map>

namespace warren::sandbox {
namespace {

using nlohmann::json;

Error usageError(const std::string& message) { return makeError(ErrorCode::InvalidArgument, message); }

std::string absolute(const std::string& path, const std::string& cwd) {
    if (!path.empty() && path[0] == '/')
        return path;
    return cwd + (cwd.size() > 1 ? "/" : "") + path;
}

Result<std::uint64_t> parseCount(const std::string& flag, const std::string& text) {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty())
        return usageError(flag + " needs a whole number, not \"" + text + "\"");
    return value;
}

} // namespace

std::string usageText() {
    return R"(Usage: warren-sandbox [OPTION]... -- COMMAND [ARG]...
Run COMMAND in a bubblewrap + seccomp sandbox (or a Docker/Podman container) with the workspace at
/workspace.

  --profile FILE        JSON profile merged over the built-in default
  --workspace DIR       directory mounted read-write at /workspace (default: current directory)
  --ro PATH             also mount host PATH read-only at the same path
  --rw PATH             also mount host PATH read-write at the same path
  --network MODE        none (default: no network at all) or loopback (only the sandbox's own lo)
  --memory-mb N         memory limit for the whole sandbox (0: none)
  --pids N              process limit for the whole sandbox (0: none)
  --cpu-seconds N       CPU time limit per process (0: none)
  --timeout SECONDS     kill the whole sandbox after SECONDS of wall-clock time (exit status 124)
  --backend NAME        bwrap (default), or docker or podman: the same profile in a container (the engine
                        on PATH, with DOCKER_HOST, contexts and CONTAINERS_CONF as they are), or kube:
                        the Pod a cluster would run, played here by podman kube play (no stdin), or
                        kubernetes: that Pod sent to a cluster's API (no stdin; its output is not
                        streamed: the last 1000 lines of the pod's log, at most 64 KiB, stdout and stderr
                        together, are printed on stderr once it has ended; the workspace is an empty
                        directory)
  --image IMAGE         the container's image (default debian:bookworm-slim); it must be present locally
                        (kubernetes: the cluster's nodes pull it)
  --kubeconfig FILE     kubernetes: the cluster and credentials (default: $KUBECONFIG, ~/.kube/config,
                        else the pod's service account)
  --namespace NS        kubernetes: the namespace of the pod (default: the kubeconfig context's)
  --runtime-class NAME  kubernetes: the pod's RuntimeClass, e.g. gvisor (default: the cluster's runtime)
  --env NAME=VALUE      set an environment variable inside
  --explain             print the resolved profile, the limits and the exact bwrap (or docker/podman)
                        command line, or the Pod and the objects sent with it; run nothing
  --help                show this help

Exit status: COMMAND's status (128+N if signal N killed it), 124 on timeout,
125 when the sandbox could not be set up (the message says why and what to do),
127 when COMMAND does not exist in the sandbox.
)";
}

Result<SandboxCommandLine> parseCommandLine(const std::vector<std::string>& args, const std::string& cwd) {
    SandboxCommandLine result;
    json& patch = result.overrides;
    patch["workspace"]["source"] = normalizePath(cwd);

    using Handler = std::function<Status(const std::string& flag, const std::string& value)>;
    auto limit = [&patch](const char* key) -> Handler {
        return [&patch, key](const std::string& flag, const std::string& value) -> Status {
            auto number = parseCount(flag, value);
            if (!number)
                return number.error();
            patch["limits"][key] = *number;
            return Ok{};
        };
    };
    auto mount = [&patch, &cwd](const char* type) -> Handler {
        return [&patch, &cwd, type](const std::string&, const std::string& value) -> Status {
            const std::string path = normalizePath(absolute(value, cwd));
            if (path == "/")
                return usageError("refusing to mount the host's whole root directory into the sandbox");
            // Replaces whatever the default mounts there: nulls drop its other keys in the merge.
            patch["mounts"][path] = {{"type", type}, {"source", path}, {"target", nullptr}, {"size_mb", nullptr},
                                     {"optional", nullptr}};
            return Ok{};
        };
    };
    const std::map<std::string, Handler> withValue = {
        {"--profile", [&result, &cwd](const std::string&, const std::string& value) -> Status {
             result.profileFile = absolute(value, cwd);
             return Ok{};
         }},
        {"--workspace", [&patch, &cwd](const std::string&, const std::string& value) -> Status {
             patch["workspace"]["source"] = normalizePath(absolute(value, cwd));
             return Ok{};
         }},
        {"--ro", mount("ro-bind")},
        {"--rw", mount("bind")},
        {"--network", [&patch](const std::string&, const std::string& value) -> Status {
             if (value != "none" && value != "loopback")
                 return usageError("--network must be none or loopback, not \"" + value + "\"");
             patch["network"] = value;
             return Ok{};
         }},
        {"--memory-mb", limit("memory_mb")},
        {"--pids", limit("pids")},
        {"--cpu-seconds", limit("cpu_seconds")},
        {"--timeout", limit("timeout_sec")},
        {"--backend", [&result](const std::string&, const std::string& value) -> Status {
             auto backend = parseBackend(value);
             if (!backend)
                 return usageError("--backend must be " + backendNames() + ", not \"" + value + "\"");
             result.backend = *backend;
             return Ok{};
         }},
        {"--image", [&result](const std::string&, const std::string& value) -> Status {
             if (value.empty())
                 return usageError("--image needs an image name, such as debian:bookworm-slim");
             result.image = value;
             return Ok{};
         }},
        {"--kubeconfig", [&result, &cwd](const std::string&, const std::string& value) -> Status {
             if (value.empty())
                 return usageError("--kubeconfig needs the path of a kubeconfig file");
             result.kubeconfig = absolute(value, cwd);
             return Ok{};
         }},
        {"--namespace", [&result](const std::string&, const std::string& value) -> Status {
             result.kubeNamespace = value;
             return Ok{};
         }},
        {"--runtime-class", [&result](const std::string&, const std::string& value) -> Status {
             result.runtimeClass = value; // the translator checks it is a RuntimeClass's name
             return Ok{};
         }},
        {"--env", [&patch](const std::string&, const std::string& value) -> Status {
             const auto eq = value.find('=');
             if (eq == std::string::npos || eq == 0)
                 return usageError("--env needs NAME=VALUE, not \"" + value + "\"");
             patch["env"][value.substr(0, eq)] = value.substr(eq + 1);
             return Ok{};
         }},
    };

    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--") {
            result.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
            break;
        }
        if (arg == "--explain") {
            result.explain = true;
            continue;
        }
        if (arg == "--help" || arg == "-h") {
            result.help = true;
            return result;
        }
        std::string flag = arg, value;
        const auto eq = arg.find('=');
        const bool inlineValue = arg.rfind("--", 0) == 0 && eq != std::string::npos;
        if (inlineValue) {
            flag = arg.substr(0, eq);
            value = arg.substr(eq + 1);
        }
        auto handler = withValue.find(flag);
        if (handler == withValue.end()) {
            if (arg.rfind("-", 0) == 0)
                return usageError("unknown option " + flag);
            // The first word that is not an option starts the command (like env(1)).
            result.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
            break;
        }
        if (!inlineValue) {
            if (i + 1 >= args.size())
                return usageError(flag + " needs a value");
            value = args[++i];
        }
        if (auto status = handler->second(flag, value); !status)
            return status.error();
    }
    if (result.image && result.backend == Backend::Bwrap)
        return usageError("--image chooses the image of --backend docker|podman|kube|kubernetes; bwrap runs on the "
                          "host's /usr");
    if ((result.kubeconfig || result.kubeNamespace || result.runtimeClass) && result.backend != Backend::Kubernetes)
        return usageError(std::string(result.kubeconfig      ? "--kubeconfig"
                                      : result.kubeNamespace ? "--namespace"
                                                             : "--runtime-class") +
                          " chooses where --backend kubernetes sends the pod; the " + backendName(result.backend) +
                          " backend runs on this host");
    if (result.command.empty())
        return usageError("no command given: warren-sandbox [OPTION]... -- COMMAND [ARG]...");
    return result;
}

} // namespace warren::sandbox
