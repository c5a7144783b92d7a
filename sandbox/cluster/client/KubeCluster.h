#pragma once
// One sandbox on a cluster, through its API: create the objects KubeManifest rendered (the Secret, the
// NetworkPolicy, then the Pod, or the agent-sandbox Sandbox where the cluster serves that CRD), watch the
// pod from the create's resourceVersion until it runs, is ready, is stuck or ends, and delete everything
// created, checking each is gone (404). Blocking; one thread uses it at a time, except interruptFd.
//
// The watch is kept whole across what a cluster does to watches: a BOOKMARK advances the resourceVersion,
// a connection the server closes (its timeoutSeconds, a restart, a load balancer) is reopened from the last
// version seen, and an ERROR 410 (the version was compacted away) is answered by listing the object again
// and watching from the list's version. No change of phase is missed: the list returns the current state.

#include "common/Result.h"
#include "sandbox/cluster/client/KubeConfig.h"
#include "sandbox/cluster/client/KubeHttp.h"
#include "sandbox/cluster/client/KubeRequests.h"
#include "sandbox/cluster/client/WatchEvents.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::kube {

struct KubeClusterOptions {
    KubeConfig config;
    std::string namespaceName; // empty: the kubeconfig's
    std::chrono::milliseconds callTimeout{30000};
    int watchTimeoutSeconds = 300; // asked of the server; the client reopens the watch after it
    bool useSandboxCrd = true;     // create the Sandbox rather than the Pod when the cluster serves the CRD
    // How long after a Sandbox's creation its controller may take to make the pod before waitFor gives up
    // (Stuck): a controller that is not running, or refuses the Sandbox, must not hold a launcher for ever.
    std::chrono::milliseconds podAppearTimeout{std::chrono::minutes(3)};
};

// What to create. Null members are not created. The pod is required; the sandbox is used instead of it
// when the cluster serves agents.x-k8s.io/v1beta1 (its controller then makes the pod, of the same name).
struct ClusterObjects {
    nlohmann::json pod;
    nlohmann::json sandbox;
    nlohmann::json secret;
    nlohmann::json networkPolicy;
};

// How the watch went, for logs and for the tests that make the server misbehave.
struct WatchCounters {
    int reconnects = 0; // watches reopened after the server closed one
    int relists = 0;    // lists after a 410
    int bookmarks = 0;
};

class KubeCluster {
public:
    using Clock = std::chrono::steady_clock;

    static Result<std::unique_ptr<KubeCluster>> connect(const KubeClusterOptions& options);
    ~KubeCluster();
    KubeCluster(const KubeCluster&) = delete;
    KubeCluster& operator=(const KubeCluster&) = delete;

    // Creates the objects in order; on a failure, deletes what it had created and returns the failure.
    Status create(const ClusterObjects& objects, int interruptFd = -1);

    enum class Goal { Started, Ready, Ended }; // Started: running or ready
    enum class Stop { Reached, Stuck, Interrupted, TimedOut };
    struct WaitResult {
        Stop stop = Stop::Reached;
        PodState state; // the last state seen
    };
    // Watches until the goal is reached or passed (Ended passes every goal), the pod is stuck (for Started
    // and Ready), the deadline passes or interruptFd becomes readable. With a Sandbox, Ready is its Ready
    // condition; Started and Ended are its pod's, which the controller may not have made yet: until the pod
    // is seen, its absence is not its end, and once podAppearTimeout has passed since the Sandbox's creation
    // without it the wait stops as Stuck (reason "NoPod").
    Result<WaitResult> waitFor(Goal goal, std::optional<Clock::time_point> deadline, int interruptFd = -1);

    // Deletes what create() made, the pod (or sandbox) first. gracePeriodSeconds 0 kills the containers at
    // once. Returns once a GET of each answers 404, or an error naming what is left behind.
    Status removeAll(std::optional<int> gracePeriodSeconds, Clock::time_point deadline, int interruptFd = -1);

    // The tail of the pod's container's log (stdout and stderr as the runtime kept them): its last tailLines
    // lines, of which the last keepBytes bytes are kept, from the start of a line. Ask once the container has
    // ended and before removeAll(): the log goes with the pod.
    Result<std::string> podLog(const std::string& container, int tailLines, std::size_t keepBytes,
                               int interruptFd = -1);

    // Deletes at once (grace 0) every object of the kinds this client creates that carries all the labels in
    // the namespace, and checks each is gone: what a launcher killed before its clean-up left (its pod may
    // still run). Returns what it removed ("Pod ns/name"). Call it before create(), which it does not know
    // of; the labels must not be empty (that would select every object).
    Result<std::vector<std::string>> removeLabelled(const std::map<std::string, std::string>& labels,
                                                    Clock::time_point deadline, int interruptFd = -1);

    // Takes as this client's own (as if create() had made them) the objects of those kinds carrying all the
    // labels, when their one pod runs: what a launcher that died (kill -9) left, whose pod a later launch
    // follows rather than replaces. False, taking nothing, when there is no such pod, more than one, or it
    // has ended or not started: then removeLabelled and create, as for any launch.
    Result<bool> rejoinLabelled(const std::map<std::string, std::string>& labels, int interruptFd = -1);

    // Forgets what was created or rejoined, deleting nothing: another launch follows it from now on.
    void release() { m_created.clear(); }

    bool usesSandboxCrd() const { return m_useSandbox; }
    const std::string& namespaceName() const { return m_namespace; }
    const std::string& podName() const { return m_podName; }
    const WatchCounters& counters() const { return m_counters; }
    // What was created and not yet removed, for messages: "Pod ns/name".
    std::vector<std::string> leftBehind() const;

private:
    struct Created {
        ResourceKind kind;
        std::string name;
    };
    // Called for each object the watch or a list sees; true stops the watch.
    using Visit = std::function<bool(WatchEventType type, const nlohmann::json& object)>;
    enum class WatchEnd { Stopped, Interrupted, TimedOut };
    Result<WatchEnd> watchObject(ResourceKind kind, const std::string& name, std::string resourceVersion,
                                 const Visit& visit, std::optional<Clock::time_point> deadline, int interruptFd);
    // LIST narrowed to the name: visits the object (or a DELETED of nothing when there is none) and returns
    // the list's resourceVersion.
    Result<std::string> relist(ResourceKind kind, const std::string& name, bool& stop, const Visit& visit,
                               int interruptFd);
    std::vector<ResourceKind> labelledKinds() const;
    // The items of the kind carrying all the labels; nullopt for a Sandbox where the CRD is not served.
    Result<std::optional<nlohmann::json>>
    listLabelled(ResourceKind kind, const std::map<std::string, std::string>& labels, int interruptFd);
    Result<nlohmann::json> call(const ApiRequest& request, const std::string& what, int interruptFd);
    Status removeOne(const Created& object, std::optional<int> gracePeriodSeconds, Clock::time_point deadline,
                     int interruptFd);

    KubeCluster(KubeClusterOptions options, std::unique_ptr<KubeHttp> http);

    KubeClusterOptions m_options;
    std::unique_ptr<KubeHttp> m_http;
    std::string m_namespace;
    std::string m_podName;
    bool m_useSandbox = false;
    std::string m_podVersion;     // the last resourceVersion seen of the pod: from its create, then its watch
    std::string m_sandboxVersion; // the same of the Sandbox
    PodState m_state;             // the last state seen
    bool m_stateIsPods = false;   // m_state is the pod's (else the Sandbox's, with the CRD)
    bool m_podSeen = false;       // with the CRD: the controller's pod has been seen at least once
    Clock::time_point m_podAppearBy; // with the CRD: when waiting for the controller's pod gives up
    std::vector<Created> m_created;
    WatchCounters m_counters;
};

std::string describe(ResourceKind kind, const std::string& namespaceName, const std::string& name);

} // namespace warren::kube
