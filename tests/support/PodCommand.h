#pragma once
// PodCommand: what the kubelet DOUBLE (tests/support/KubeletDouble) runs on the host for a pod's first
// container, decided without touching the host. Pure, so its rules are tested row by row.
//
// A pod names paths as its container sees them (/workspace, /opt/warren/channel/token). No container runs
// here: each volume is a host directory, and every argument and the workingDir that names a path under a
// volumeMount is rewritten to that directory (the longest mountPath wins, as the innermost mount hides the
// outer ones). The image's command is looked up in a map the test gives (warren-agent -> the built agent);
// an absolute path not in it runs as is (rewritten too when under a mount). The environment is the
// container's plain `value` entries (rewritten the same way: HOME=/state) plus PATH.

#include "common/Result.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::test {

struct HostMount {
    std::string mountPath; // as the container sees it
    std::string hostPath;  // the volume's host directory, with the mount's subPath
};

struct PodCommand {
    std::string executable;               // a host path
    std::vector<std::string> argv;        // argv[0] is the command as the pod names it
    std::string workingDir;               // a host path; empty: the kubelet double's choice
    std::vector<std::string> environment; // NAME=value
};

// The container's volumeMounts on the host, given each volume's host directory by volume name. A mount of
// a volume with no directory is an error (the pod names a volume it does not declare).
Result<std::vector<HostMount>> hostMounts(const nlohmann::json& container,
                                          const std::map<std::string, std::string>& volumeDirs);

// `path` as the host sees it: under the longest mountPath it equals or lies below, else unchanged.
std::string onHost(const std::string& path, const std::vector<HostMount>& mounts);

// The first container's command + args on the host. `commands` maps an image's command name to a host
// binary; `hostPathVariable` is PATH for the process when the container sets none.
Result<PodCommand> podCommand(const nlohmann::json& pod, const std::vector<HostMount>& mounts,
                              const std::map<std::string, std::string>& commands,
                              const std::string& hostPathVariable);

} // namespace warren::test
