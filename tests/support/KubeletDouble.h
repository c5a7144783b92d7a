#pragma once
// KubeletDouble: a DOUBLE of a kubelet, for tests only, beside the API server double (KubeApiDouble). It is
// not a node and contains nothing: it learns of each Pod the API double creates (its pod observer; a request's
// or its play of agent-sandbox's controller, for a Sandbox) and runs
// the pod's first container's command as a plain host process, so that a test of warrend on the kubernetes
// backend can have the real agent connect back. No cluster can run on the machines the tests run on.
//
// What it does for each pod, on a thread of its own, as a kubelet would:
//   - a host directory for each volume: emptyDir a new empty one, secret the Secret's keys as files (items,
//     modes: SecretVolume), hostPath the path itself; any other kind, a missing Secret or a missing
//     hostPath is a mount failure, reported as the kubelet does: the pod stays Pending (ContainerCreating)
//     with the failure as the message;
//   - the command + args with every path under a volumeMount rewritten to its host directory (PodCommand),
//     in its own process group, stdout and stderr into a log, which the API double serves as the pod's log
//     (GET .../pods/NAME/log, through its setPodLogSource) once the process has started; the image's command names are mapped to host
//     binaries by the test; an unknown one ends the pod Failed, exit 128, StartError (as containerd does);
//   - Running and ready once the process is started; Succeeded or Failed with the exit code (128+signal
//     when killed) and Completed or Error when it ends; activeDeadlineSeconds (from when the double saw the
//     pod) ends it Failed with DeadlineExceeded;
//   - when the pod is deleted: SIGTERM to the process group, SIGKILL after min(terminationGracePeriodSeconds,
//     maxGrace), the volumes' directories removed (hostPaths are left), no phase reported for it.
//
// What it does not do: isolate anything. The process runs as this test's user with the host's filesystem,
// network and limits; securityContext, resources, readOnly mounts, images, probes, restarts, init and
// further containers are not looked at. A process that leaves its process group escapes the kills.
//
// Threads: the observer runs on the API double's server thread and only hands the pod to its own thread;
// those threads call the API double (for Secrets and to report phases) while holding none of this double's
// locks, so the two cannot wait on each other. Every method here may be called from the test's thread.
// Destroy it before the KubeApiDouble: the destructor detaches from it, kills what still runs and joins.

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace warren::test {

class KubeApiDouble;
class KubeletDoubleCore;

class KubeletDouble {
public:
    struct Options {
        std::string scratch; // an existing directory: each pod's volumes and log go under it
        std::map<std::string, std::string> commands; // an image's command name -> a host binary
        std::chrono::seconds maxGrace{5}; // the longest SIGTERM-to-SIGKILL wait, whatever the pod asks
    };

    KubeletDouble(KubeApiDouble& api, Options options);
    ~KubeletDouble();
    KubeletDouble(const KubeletDouble&) = delete;
    KubeletDouble& operator=(const KubeletDouble&) = delete;

    // How far the double has taken a pod. A stage passed counts as reached: a pod that could not start is
    // Ended without having been Started.
    enum class Stage {
        Started, // its process runs and the pod was reported Running
        Ended,   // its process has ended and the end was reported (unless the pod was deleted), or it failed
        Removed, // the pod was deleted, its process ended and its volumes' directories are removed
    };
    // Waits until the newest pod of that name reaches the stage; false when the safety-net deadline passes.
    bool waitFor(const std::string& ns, const std::string& name, Stage stage,
                 std::chrono::milliseconds deadline) const;

    // Observations of the newest pod of that name.
    int podsRun() const; // pods whose process was started, since the start
    bool processAlive(const std::string& ns, const std::string& name) const;
    std::optional<int> exitCode(const std::string& ns, const std::string& name) const; // 128+signal if killed
    // Its process killed (SIGKILL to its group), as when its node died: the pod ends Failed. False when it
    // has no process alive.
    bool killProcess(const std::string& ns, const std::string& name);
    std::string failure(const std::string& ns, const std::string& name) const; // why it could not run it
    std::string log(const std::string& ns, const std::string& name) const;     // stdout and stderr
    // A volume's host directory ("" if the pod has no such volume); gone once the pod is Removed.
    std::string volumeDir(const std::string& ns, const std::string& name, const std::string& volume) const;

private:
    std::unique_ptr<KubeletDoubleCore> m_core;
};

} // namespace warren::test
