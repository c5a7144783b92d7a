#include "sandbox/pod/KubeManifest.h"

#include "sandbox/container/ContainerSpec.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace warren::sandbox {
namespace {

using nlohmann::json;

Error usage(const std::string& message) { return makeError(ErrorCode::InvalidArgument, message); }

bool isLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool isAlnum(char c) { return isLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

std::string mebibytes(std::uint64_t value) { return std::to_string(value) + "Mi"; }

// Volumes and their mounts, named in order ("bind-0", "tmpfs-1", ...). On one host each name starts with the
// pod's: podman makes a named volume of an emptyDir, which every pod naming it would share.
class PodVolumes {
public:
    explicit PodVolumes(std::string prefix) : m_prefix(std::move(prefix)) {}
    std::string add(const std::string& kind, json source) {
        const std::string name = m_prefix + kind + "-" + std::to_string(m_volumes.size());
        source["name"] = name;
        m_volumes.push_back(std::move(source));
        return name;
    }
    void mount(const std::string& volume, const std::string& path, bool readOnly, const std::string& subPath = {}) {
        json mount{{"name", volume}, {"mountPath", path}, {"readOnly", readOnly}};
        if (!subPath.empty())
            mount["subPath"] = subPath;
        m_mounts.push_back(std::move(mount));
    }
    const json& volumes() const { return m_volumes; }
    const json& mounts() const { return m_mounts; }

private:
    std::string m_prefix;
    json m_volumes = json::array();
    json m_mounts = json::array();
};

json hostPathVolume(const std::string& path, const char* type) {
    return {{"hostPath", {{"path", path}, {"type", type}}}};
}

// A volume's name says what it holds ("bind-0", "etc-1", ...).
const char* volumeKind(ContainerMount::Purpose purpose) {
    switch (purpose) {
    case ContainerMount::Purpose::ProfileMount:
        return "bind";
    case ContainerMount::Purpose::SystemFile:
        return "etc";
    case ContainerMount::Purpose::Workspace:
        return "workspace";
    case ContainerMount::Purpose::ProtectedPath:
        return "protected";
    case ContainerMount::Purpose::Placeholder:
        return "placeholder";
    }
    return "volume";
}

// The hostPath's type, which the kubelet checks before it mounts; none for a protected path, which may be a
// file or a directory. On one host, a hostPath of the protected path itself: podman 4.3 ignores subPath on a
// hostPath volume (it would mount the whole workspace there).
const char* hostPathType(const ContainerMount& mount) {
    if (mount.purpose == ContainerMount::Purpose::ProtectedPath)
        return "";
    if (mount.purpose == ContainerMount::Purpose::ProfileMount || mount.purpose == ContainerMount::Purpose::Workspace)
        return mount.directory ? "Directory" : "File";
    return "File";
}

json memoryVolume(std::uint64_t sizeMb) {
    return {{"emptyDir", {{"medium", "Memory"}, {"sizeLimit", mebibytes(sizeMb)}}}};
}

// The ContainerSpec's mounts as volumes and their mounts, in its order.
PodVolumes podVolumes(const std::vector<ContainerMount>& mounts, std::string prefix) {
    PodVolumes volumes(std::move(prefix));
    std::string workspace; // the workspace's volume
    for (const auto& mount : mounts) {
        switch (mount.kind) {
        case ContainerMount::Kind::HostPath: {
            const std::string volume =
                volumes.add(volumeKind(mount.purpose), hostPathVolume(mount.source, hostPathType(mount)));
            volumes.mount(volume, mount.dest, mount.readOnly);
            if (mount.purpose == ContainerMount::Purpose::Workspace)
                workspace = volume;
            break;
        }
        case ContainerMount::Kind::Memory:
            volumes.mount(volumes.add("tmpfs", memoryVolume(mount.sizeMb)), mount.dest, false);
            break;
        case ContainerMount::Kind::EmptyDirectory:
            volumes.mount(volumes.add("placeholder", json{{"emptyDir", {{"sizeLimit", "4Ki"}}}}), mount.dest, true);
            break;
        case ContainerMount::Kind::UploadedWorkspace:
            workspace = volumes.add("workspace", json{{"emptyDir", json::object()}});
            volumes.mount(workspace, mount.dest, mount.readOnly);
            break;
        case ContainerMount::Kind::WorkspacePath:
            volumes.mount(workspace, mount.dest, mount.readOnly, mount.relative);
            break;
        }
    }
    return volumes;
}

// No ingress; egress to the control plane (its pods, or its address block) on its port and to the
// cluster's DNS, or, without a peer, to nothing at all.
json networkPolicy(const KubeRequest& request, const json& metadata, const ControlPlanePeer* peer) {
    json egress = json::array();
    if (peer) {
        json controlPlane = peer->ipBlock.empty() ? json{{"podSelector", {{"matchLabels", peer->podLabels}}}}
                                                  : json{{"ipBlock", {{"cidr", peer->ipBlock}}}};
        if (peer->ipBlock.empty() && !peer->namespaceName.empty())
            controlPlane["namespaceSelector"] = {
                {"matchLabels", {{"kubernetes.io/metadata.name", peer->namespaceName}}}};
        // The control plane's address is a Service name: the cluster's DNS is the one other peer.
        const json dns{{"namespaceSelector", {{"matchLabels", {{"kubernetes.io/metadata.name", "kube-system"}}}}},
                       {"podSelector", {{"matchLabels", {{"k8s-app", "kube-dns"}}}}}};
        egress = {{{"to", {controlPlane}}, {"ports", {{{"protocol", "TCP"}, {"port", peer->port}}}}},
                  {{"to", {dns}},
                   {"ports", {{{"protocol", "UDP"}, {"port", 53}}, {{"protocol", "TCP"}, {"port", 53}}}}}};
    }
    return {{"apiVersion", "networking.k8s.io/v1"},
            {"kind", "NetworkPolicy"},
            {"metadata", metadata},
            {"spec",
             {{"podSelector", {{"matchLabels", {{kKubePodLabel, request.name}}}}},
              {"policyTypes", {"Ingress", "Egress"}},
              {"ingress", json::array()},
              {"egress", egress}}}};
}

Status checkRequest(const SandboxProfile& profile, const KubeRequest& request) {
    if (request.command.empty())
        return usage("no command to run in the pod");
    if (request.image.empty())
        return usage("no container image given (the default is " + std::string(kDefaultContainerImage) + ")");
    if (request.seccompProfile.empty())
        return usage("no seccomp profile: the pod never runs without one");
    if (!isDnsLabel(request.name) || request.name.rfind("warren-", 0) != 0)
        return usage("pod name \"" + request.name + "\" must start with \"warren-\" and be at most 63 lowercase "
                     "letters, digits and '-'");
    if (!request.namespaceName.empty() && !isDnsLabel(request.namespaceName))
        return usage("namespace \"" + request.namespaceName + "\" is not a DNS-1123 label");
    if (!request.runtimeClass.empty() && !isDnsLabel(request.runtimeClass))
        return usage("runtime class \"" + request.runtimeClass + "\" is not a DNS-1123 label");
    if (!isDnsLabel(profile.hostname))
        return usage("hostname \"" + profile.hostname + "\" is not a DNS-1123 label, which a pod's hostname must "
                     "be");
    if (request.user.uid == 0)
        return usage("the pod would run as root, which it never does");
    for (const auto& [name, value] : request.labels)
        if (!isLabelValue(value))
            return usage("label " + name + "=" + value + ": a label value is at most 63 letters, digits, '-', "
                         "'_' and '.', starting and ending with a letter or digit");
    if (request.hostDataDir.empty() != request.workspaceHostPath.empty())
        return usage("a pod on one host needs both its data directory and the workspace's host path");
    if (!request.taskToken.empty() && (request.tokenDir.empty() || request.tokenDir.front() != '/'))
        return usage("the task token's Secret needs the absolute directory the pod reads it from");
    if (request.controlPlane && (request.controlPlane->port <= 0 || request.controlPlane->port > 65535 ||
                                 request.controlPlane->podLabels.empty() == request.controlPlane->ipBlock.empty()))
        return usage("the control plane peer needs either its pods' labels or an address block, and a port from 1 "
                     "to 65535");
    return Ok{};
}

} // namespace

bool isDnsLabel(const std::string& name) {
    return !name.empty() && name.size() <= 63 && isLowerAlnum(name.front()) && isLowerAlnum(name.back()) &&
           std::all_of(name.begin(), name.end(), [](char c) { return isLowerAlnum(c) || c == '-'; });
}

bool isLabelValue(const std::string& value) {
    return value.empty() ||
           (value.size() <= 63 && isAlnum(value.front()) && isAlnum(value.back()) &&
            std::all_of(value.begin(), value.end(),
                        [](char c) { return isAlnum(c) || c == '-' || c == '_' || c == '.'; }));
}

std::string contentHash(const std::string& bytes) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char byte : bytes) {
        const auto c = static_cast<unsigned char>(byte);
        hash ^= c;
        hash *= 0x100000001b3ULL;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return hex;
}

std::string kubeSeccompProfileName(const std::string& seccompJson) {
    return "warren-seccomp-" + contentHash(seccompJson) + ".json";
}

std::string kubeYaml(const std::vector<json>& documents) {
    std::string yaml;
    for (const auto& document : documents) {
        if (document.is_null())
            continue;
        yaml += (yaml.empty() ? "" : "---\n") + document.dump(2) + "\n";
    }
    return yaml;
}

Result<KubeManifests> buildKubeManifests(const SandboxProfile& profile, const KubeRequest& request,
                                         const HostLookup& lookup) {
    if (auto ok = checkRequest(profile, request); !ok)
        return ok.error();
    const bool oneHost = !request.hostDataDir.empty();
    KubeManifests result;

    json labels = request.labels;
    labels[kKubeManagedByLabel] = "warren";
    labels[kKubePodLabel] = request.name;
    json metadata{{"name", request.name}, {"labels", labels}};
    if (!request.namespaceName.empty())
        metadata["namespace"] = request.namespaceName;

    // Mounts: the ContainerSpec's, as volumes and their mounts.
    ContainerSpecInput specInput;
    specInput.image = request.image;
    specInput.engineWords = "a Pod";
    specInput.dataDir = request.hostDataDir;
    specInput.workspaceHostPath = request.workspaceHostPath;
    specInput.protection = request.protection;
    specInput.hostEnv = request.hostEnv;
    specInput.uid = request.user.uid;
    specInput.gid = request.user.gid;
    auto containerSpec = buildContainerSpec(profile, specInput, lookup);
    if (!containerSpec)
        return containerSpec.error();
    PodVolumes volumes = podVolumes(containerSpec->mounts, oneHost ? request.name + "-" : "");
    result.files = std::move(containerSpec->files);
    result.notEnforced = std::move(containerSpec->notEnforced);
    result.notes = std::move(containerSpec->notes);
    result.notes.push_back("/proc and /dev are the container runtime's: a fresh /proc of the pod's pid namespace "
                           "with the kernel's sensitive entries read-only or masked, and a minimal /dev");
    const std::string& ws = profile.workspaceDest;

    // The environment: only what the profile passes.
    json env = json::array();
    for (const auto& [name, value] : containerSpec->env)
        env.push_back({{"name", name}, {"value", value}});
    // The task's token: a file of its Secret, which the agent reads (--token-file), as on one host.
    const std::string secretName = request.name + "-token";
    if (!request.taskToken.empty()) {
        constexpr int kOwnerAndGroupRead = 0440; // root:fsGroup, and the pod runs with that group
        const json source{{"secret",
                           {{"secretName", secretName},
                            {"defaultMode", kOwnerAndGroupRead},
                            {"items", {{{"key", "token"}, {"path", "token"}}}}}}};
        volumes.mount(volumes.add("token", source), request.tokenDir, true);
        json secretMetadata = metadata;
        secretMetadata["name"] = secretName;
        result.secret = {{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", secretMetadata},
                         {"type", "Opaque"},
                         {"stringData", {{"token", request.taskToken}}}};
    }

    // Privileges: none, and no way to gain any.
    const json seccomp{{"type", "Localhost"}, {"localhostProfile", request.seccompProfile}};
    json container{{"name", kKubeContainerName},
                   {"image", request.image},
                   {"imagePullPolicy", oneHost ? "Never" : "IfNotPresent"},
                   {"command", request.command},
                   {"workingDir", ws},
                   {"env", env},
                   {"volumeMounts", volumes.mounts()},
                   {"securityContext",
                    {{"runAsNonRoot", true},
                     {"runAsUser", request.user.uid},
                     {"runAsGroup", request.user.gid},
                     {"allowPrivilegeEscalation", false},
                     {"privileged", false},
                     {"readOnlyRootFilesystem", true},
                     {"capabilities", {{"drop", {"ALL"}}}},
                     {"seccompProfile", seccomp}}}};

    // Limits: memory as limit and request (no swap beyond it on a node without swap); the rest has no field.
    const SandboxLimits& limits = profile.limits;
    if (limits.memoryMb)
        container["resources"] = {{"limits", {{"memory", mebibytes(limits.memoryMb)}}},
                                  {"requests", {{"memory", mebibytes(limits.memoryMb)}}}};
    if (limits.pids)
        result.notes.push_back("limits.pids: a Pod has no field for it; a cluster's nodes set podPidsLimit, and "
                               "the one-host launcher sets the container's pids limit");
    const std::pair<std::uint64_t, const char*> rlimits[] = {{limits.cpuSeconds, "limits.cpu_seconds"},
                                                             {limits.fileSizeMb, "limits.file_size_mb"},
                                                             {limits.openFiles, "limits.open_files"},
                                                             {limits.addressSpaceMb, "limits.address_space_mb"}};
    for (const auto& [value, name] : rlimits)
        if (value)
            result.notEnforced.push_back(std::string(name) + ": a Pod sets no rlimits; the node's runtime "
                                                             "defaults apply (the memory limit still does)");

    // shareProcessNamespace: the pod's pause process is pid 1, which reaps orphans; the command is not pid 1,
    // for which the kernel drops every signal it has no handler for (a SIGTERM would do nothing).
    json spec{{"restartPolicy", "Never"},
              {"shareProcessNamespace", true},
              {"automountServiceAccountToken", false},
              {"enableServiceLinks", false},
              {"hostNetwork", false},
              {"hostPID", false},
              {"hostIPC", false},
              {"hostname", profile.hostname},
              {"securityContext",
               {{"runAsNonRoot", true},
                {"runAsUser", request.user.uid},
                {"runAsGroup", request.user.gid},
                {"seccompProfile", seccomp}}},
              {"containers", {container}},
              {"volumes", volumes.volumes()}};
    if (!request.taskToken.empty()) // the token's file is group-readable by this group alone
        spec["securityContext"]["fsGroup"] = request.user.gid;
    if (!request.runtimeClass.empty())
        spec["runtimeClassName"] = request.runtimeClass;
    if (limits.timeoutSec)
        spec["activeDeadlineSeconds"] = limits.timeoutSec;

    // podman kube play reads seccomp from this annotation only; a cluster reads the field.
    const json annotations{{std::string("container.seccomp.security.alpha.kubernetes.io/") + kKubeContainerName,
                            "localhost/" + request.seccompProfile}};
    json podMetadata = metadata;
    podMetadata["annotations"] = annotations;
    result.pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", podMetadata}, {"spec", spec}};
    result.sandbox = {
        {"apiVersion", "agents.x-k8s.io/v1beta1"},
        {"kind", "Sandbox"},
        {"metadata", metadata},
        {"spec",
         {{"podTemplate", {{"metadata", {{"labels", labels}, {"annotations", annotations}}}, {"spec", spec}}},
          {"service", false},
          {"operatingMode", "Running"}}}};

    if (request.controlPlane)
        result.networkPolicy = networkPolicy(request, metadata, &*request.controlPlane);
    else if (!oneHost) {
        result.networkPolicy = networkPolicy(request, metadata, nullptr);
        result.notes.push_back("network: no control plane to reach, so the NetworkPolicy lets nothing in or out "
                               "of the pod (where the cluster's network plugin enforces NetworkPolicies)");
    }
    if (profile.network == NetworkPolicy::Loopback)
        result.notes.push_back("network loopback: the pod's own lo; the seccomp profile allows AF_INET/AF_INET6 "
                               "sockets");
    return result;
}

} // namespace warren::sandbox
