#pragma once
// The one translator from a resolved SandboxProfile (after a server's quota clamp) to Kubernetes objects: a
// v1 Pod, the same pod spec as an agent-sandbox Sandbox (agents.x-k8s.io/v1beta1), the task token as a
// Secret, and a NetworkPolicy that lets the pod reach only the control plane. The counterpart of BwrapCommand
// and DockerCommand, pure apart from the HostLookup it is given: tests inspect every field without a cluster.
//
// Choices (docs/SECURITY.md, "Kubernetes backends", says why):
// - no privilege and no way to gain any: non-root (ContainerUser, never uid 0), every capability dropped, no
//   privilege escalation, not privileged, a read-only root filesystem, no service-account token, no service
//   links, no host namespaces;
// - seccomp: the same table as the BPF filter, rendered as an OCI profile (DockerSeccomp) that the node
//   holds under its kubelet seccomp root as `localhostProfile`; named by its content's hash, so a changed
//   table never runs with an old file. Also as the per-container annotation, which podman honours;
// - the runtime class (gVisor) by setting; the memory limit as the container's limit and request; the wall
//   clock as activeDeadlineSeconds; rlimits and the pids limit have no field in a Pod (listed as not enforced
//   by the Pod: a node's podPidsLimit, podman's --pids-limit, the launcher's deadline);
// - where the files come from: on one host (podman kube play) the workspace and the profile's binds are
//   hostPath volumes; on a cluster no node has them, so the workspace is an emptyDir that the agent fills
//   from the upload, and any other bind of the profile is an error;
// - the task token only in its Secret, a read-only volume of mode 0440 owned by the pod's fsGroup: never in
//   the pod spec, the environment or the command line.

#include "common/Result.h"
#include "sandbox/bwrap/BwrapCommand.h"
#include "sandbox/cluster/ControlPlanePeer.h"
#include "sandbox/container/ContainerUser.h"
#include "sandbox/container/DockerCommand.h"
#include "sandbox/policy/ProtectedPaths.h"
#include "sandbox/policy/SandboxProfile.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::sandbox {

// The label every object Warren makes carries (with the value "warren"), and the one naming its pod alone
// (the NetworkPolicy selects by it).
inline constexpr const char* kKubeManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kKubePodLabel = "warren.sandbox/pod";
inline constexpr const char* kKubeContainerName = "sandbox";

struct KubeRequest {
    std::string name;          // DNS-1123 label, "warren-...": the Pod's and the Sandbox's; the others derive
    std::string namespaceName; // empty: none written (podman kube play; kubectl's current namespace)
    std::string image = kDefaultContainerImage;
    std::vector<std::string> command;
    std::map<std::string, std::string> labels;  // more labels (e.g. warren.task, warren.tenant)
    std::map<std::string, std::string> hostEnv; // source of env_passthrough values
    std::string runtimeClass;                   // e.g. "gvisor"; empty: the cluster's default runtime
    std::string seccompProfile;                 // localhost profile name under the kubelet's seccomp root
    ContainerUser user;                         // chooseContainerUser(); never uid 0
    ProtectionPlan protection;                  // planProtection() of the workspace (one host only)
    // One host: the directory of the pod's generated files (passwd, group, placeholder), and the workspace's
    // host path (the workspace itself, or its idmapped view). Both empty: a cluster.
    std::string hostDataDir;
    std::string workspaceHostPath;
    // The task token: a Secret, mounted read-only as the file "token" in tokenDir (what the agent's
    // --token-file reads), readable by the pod's group alone. Empty: neither.
    std::string taskToken;
    std::string tokenDir;
    // Set: the NetworkPolicy lets the pod reach it (and the cluster's DNS). Unset on a cluster: the
    // NetworkPolicy lets the pod reach nothing. Unset on one host: none (podman runs it with --network none).
    std::optional<ControlPlanePeer> controlPlane;
};

struct KubeManifests {
    nlohmann::json pod;
    nlohmann::json sandbox;       // agents.x-k8s.io/v1beta1 Sandbox with the pod's spec
    nlohmann::json secret;        // null without a token
    nlohmann::json networkPolicy; // null on one host without a control plane peer
    std::vector<DockerDataFile> files; // one host: what the launcher writes before playing the pod
    std::vector<std::string> notEnforced; // profile settings a Pod cannot say
    std::vector<std::string> notes;       // settings enforced in another way than under bwrap
};

Result<KubeManifests> buildKubeManifests(const SandboxProfile& profile, const KubeRequest& request,
                                         const HostLookup& lookup = lookupHostPath);

// 16 hex digits of the bytes' FNV-1a hash: a name that changes with the content (not a defence against
// forgery).
std::string contentHash(const std::string& bytes);
// The localhost seccomp profile's name for an OCI seccomp profile: "warren-seccomp-<contentHash>.json", so a
// changed table never runs with an old file (a node's seccomp root is writable by root alone). One file name,
// no directory: podman reads the annotation's name as a file directly under its profile root.
std::string kubeSeccompProfileName(const std::string& seccompJson);

// Documents as YAML for kubectl and podman (JSON is YAML): each pretty-printed, "---" between them; null
// documents are left out.
std::string kubeYaml(const std::vector<nlohmann::json>& documents);

// A DNS-1123 label: at most 63 of [a-z0-9-], starting and ending with a letter or digit.
bool isDnsLabel(const std::string& name);
// A label value: at most 63 of [A-Za-z0-9-_.], starting and ending with a letter or digit, or empty.
bool isLabelValue(const std::string& value);

} // namespace warren::sandbox
