#pragma once
// The kube backend of SandboxLaunch (`--backend kube`, a name users type): the Pod that KubeManifest makes
// for a cluster, played on this host by `podman kube play` (a real engine), so that the sandbox's tests,
// escapes included, run against the same Pod. Where podman ignores a field a cluster honours, the launcher
// applies what podman does honour:
// - seccomp: the per-container annotation, with the profile root in the launch's private directory;
// - the network: `--network none` (a cluster applies the NetworkPolicy);
// - memory-backed emptyDirs: podman makes a named volume of each, shared by name between pods and on disk,
//   so each gets a name of its pod's and is created beforehand as a tmpfs volume (podman 4.3 refuses a
//   size for one: what is written there counts against the memory limit instead);
// - the pids limit and the swap limit, which a Pod cannot say: written into the pod's cgroup before the
//   command starts;
// - the wall clock (activeDeadlineSeconds): the launcher's deadline, as with docker.
// The command gets no stdin: podman kube play does not attach one (stdout and stderr are attached).
//
// A pod, its volumes and its files are removed when the sandbox ends; a launcher killed before that leaves
// them labelled with its owner, and the next launch removes those whose owner is gone.

#include "common/Result.h"
#include "sandbox/SandboxLaunch.h"

#include <memory>

namespace warren::sandbox {

Result<std::unique_ptr<SandboxLaunch>> preparePodmanPodLaunch(SandboxRequest request);

} // namespace warren::sandbox
