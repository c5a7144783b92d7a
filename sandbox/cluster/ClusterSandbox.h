#pragma once
// The kubernetes backend of SandboxLaunch: the Pod that KubeManifest renders for a cluster (no host path in
// it: the workspace is an emptyDir), sent to a cluster's API through kube::KubeCluster (DESIGN §10).
// - prepare: the manifests and the kubeconfig (--explain prints the objects and asks the cluster nothing);
// - start: a watcher thread first deletes what an earlier launcher of the same task left (a request labelled
//   warren.task: the objects carrying that label, which a launcher killed with kill -9 could not delete),
//   then creates the Secret (with a task token), the NetworkPolicy and the Pod (a failure is SetupFailed with
//   the API server's answer), then follows the pod from the create's resourceVersion: until it runs (a pod
//   stuck on its way, such as ImagePullBackOff or Unschedulable, is SetupFailed with the cluster's reason),
//   then until it ends (the container's exit code and reason: OOMKilled, DeadlineExceeded as TimedOut);
//   pidfd() is an eventfd the watcher makes readable; with SandboxRequest::rejoin, a running pod of the task
//   that a killed launcher left is followed instead (nothing deleted, nothing created), and its objects are
//   this launch's to delete at the end;
// - terminate deletes the pod with a grace period (its command gets SIGTERM); kill deletes it at once;
//   whatever ends the sandbox, every object created is deleted and checked gone (404) before pidfd() is
//   readable, and the destructor retries what could not be deleted.
// The pod has no stdin, and its output is not streamed (an agent talks over its channel instead): when its
// container has ended by itself (an exit status, 0 included), the tail of the pod's log is written to the
// stderr of SandboxRequest::stdio (the launcher's own when -1) before the pod is deleted, and that
// descriptor is closed before pidfd() is readable. A pod stopped by terminate or kill (the launcher's own
// deadline too) has no log passed on: its end was asked for. A launcher killed with kill -9 cannot delete its
// pod: the cluster keeps it until it ends (activeDeadlineSeconds, when the profile has a timeout) or the
// task's next launch removes it.

#include "common/Result.h"
#include "sandbox/SandboxLaunch.h"

#include <memory>

namespace warren::sandbox {

Result<std::unique_ptr<SandboxLaunch>> prepareClusterLaunch(SandboxRequest request);

} // namespace warren::sandbox
