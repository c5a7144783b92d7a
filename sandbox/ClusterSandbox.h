#pragma once
// The kubernetes backend of SandboxLaunch: the Pod that KubeManifest renders for a cluster (no host path in
// it: the workspace is an emptyDir), sent to a cluster's API through kube::KubeCluster (DESIGN §10).
// - prepare: the manifests and the kubeconfig (--explain prints the objects and asks the cluster nothing);
// - start: a watcher thread creates the Secret (with a task token), the NetworkPolicy and the Pod (a failure
//   is SetupFailed with the API server's answer), then follows the pod from the create's resourceVersion: until it runs (a pod stuck on its way, such as ImagePullBackOff or
//   Unschedulable, is SetupFailed with the cluster's reason), then until it ends (the container's exit code
//   and reason: OOMKilled, DeadlineExceeded as TimedOut); pidfd() is an eventfd the watcher makes readable;
// - terminate deletes the pod with a grace period (its command gets SIGTERM); kill deletes it at once;
//   whatever ends the sandbox, every object created is deleted and checked gone (404) before pidfd() is
//   readable, and the destructor retries what could not be deleted.
// The pod has no stdin, stdout or stderr here: the command's output is not streamed (an agent talks over its
// channel instead). A launcher killed with kill -9 cannot delete its pod: the cluster keeps it until it ends
// (activeDeadlineSeconds, when the profile has a timeout), and its Secret until someone deletes it.

#include "common/Result.h"
#include "sandbox/SandboxLaunch.h"

#include <memory>

namespace warren::sandbox {

Result<std::unique_ptr<SandboxLaunch>> prepareClusterLaunch(SandboxRequest request);

} // namespace warren::sandbox
