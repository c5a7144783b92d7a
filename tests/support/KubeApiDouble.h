#pragma once
// KubeApiDouble: a DOUBLE of a Kubernetes API server, for tests only. It is not a cluster and runs nothing:
// it keeps objects in memory and speaks the API's wire (paths, JSON, Status errors, resourceVersions, watch
// streams) closely enough that the cluster client (sandbox/cluster/client) and the real kubectl work against it
// (tst_kube_api_double checks the latter). No cluster can run on the machines the tests run on; this is the
// one stand-in the Kubernetes backend's tests use, and it is called a double wherever it appears.
//
// What it does, as the API server does: create (201; 409 AlreadyExists on a taken name; 422 Invalid with
// the causes when a required field is missing), get, list (with the list's resourceVersion; a fieldSelector
// on metadata.name, a labelSelector of equalities "a=b,c=d"), a pod's log (plain text, tailLines and
// limitBytes; the text from setPodLogSource), delete
// (DeleteOptions; the object goes at once, through a DELETED event), watch from a resourceVersion (the
// changes since, then live; BOOKMARK events when asked; ERROR 410 Expired when the version is older than
// the compaction point; the stream ends after timeoutSeconds), bearer-token authentication (401), and the
// discovery documents kubectl reads (/api, /api/v1, /apis, the groups, /version), over plain HTTP or TLS.
//
// What it does in place of the rest of a cluster: no scheduler, kubelet or controller runs. A test moves a
// pod through its phases (podPending, podRunning, podEnded); for a Sandbox it plays agent-sandbox's
// controller at once: creating the Sandbox makes its Pod of the same name (or, told so, only when the test
// calls makeSandboxPod), the pod's readiness is mirrored into the Sandbox's Ready condition, and deleting
// the Sandbox deletes the Pod. Deletion has no grace period.
//
// The server runs on its own thread (warren_http's HttpServer in that thread's event loop), so a test may
// block in the client while it answers; every method here may be called from the test's thread.
//
// Another double can learn of pods (setPodObserver): the kubelet double (tests/support/KubeletDouble) runs
// each created pod's command and reports its phases back through podRunning and podEnded.

#include <QString>
#include <QStringList>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::test {

class KubeApiDoubleCore;

class KubeApiDouble {
public:
    struct Options {
        QString certificate;   // PEM files: serve TLS with them; empty: plain HTTP
        QString key;
        QString token;         // the bearer token every request must carry; empty: none needed
        bool serveSandboxCrd = true; // whether agents.x-k8s.io/v1beta1 is served (the CRD "installed")
        // Whether the controller's play makes a Sandbox's pod as the Sandbox is created; false: a controller
        // that makes none until the test calls makeSandboxPod (one that is slow, or not running).
        bool sandboxControllerMakesPods = true;
    };

    static std::unique_ptr<KubeApiDouble> start(const Options& options, QString* error);
    ~KubeApiDouble();
    KubeApiDouble(const KubeApiDouble&) = delete;
    KubeApiDouble& operator=(const KubeApiDouble&) = delete;

    QString url() const; // "https://127.0.0.1:PORT" or "http://..."

    // Test controls: a pod's phase, as a kubelet would report it (each one MODIFIED event). A pod that does
    // not exist is left alone. With a uid, so is a pod of that name with another uid: a kubelet reports on
    // the pod it runs, and that one may have been deleted and another created under its name meanwhile.
    void podPending(const std::string& ns, const std::string& name, const std::string& reason,
                    const std::string& message = {}, const std::string& uid = {});
    void podUnschedulable(const std::string& ns, const std::string& name, const std::string& message);
    void podRunning(const std::string& ns, const std::string& name, bool ready, const std::string& uid = {});
    void podEnded(const std::string& ns, const std::string& name, bool succeeded, int exitCode,
                  const std::string& reason, const std::string& uid = {});

    // Called with "ADDED" and the pod as stored (its uid, namespace and spec) after a Pod is created, by a
    // request or by the Sandbox controller's play, and with "DELETED" and its last state after one is
    // deleted. It runs on the double's server thread, inside the request that made the change: the
    // double's own methods may be called from it (they run inline there), but it must not wait for another
    // thread that calls the double, which would wait for this one. Hand work to a thread of your own.
    // Replaced or cleared (an empty function) from another thread, it returns once no call of the previous
    // one is running: after that the previous one is not called again.
    using PodObserver = std::function<void(const std::string& type, const nlohmann::json& pod)>;
    void setPodObserver(PodObserver observer);
    // What GET .../pods/NAME/log answers for a pod that exists: the text its container wrote so far, or
    // nullopt while no container has run (400 "is waiting to start", as the API server answers). Without a
    // source every pod is waiting. Called on the server thread, as the observer is; the same rules hold.
    using PodLogSource = std::function<std::optional<std::string>(const std::string& ns, const std::string& name)>;
    void setPodLogSource(PodLogSource source);
    // The controller's late play, with sandboxControllerMakesPods false: makes the Sandbox's pod now (an
    // ADDED event, the pod observer told). False when there is no such Sandbox or its pod exists.
    bool makeSandboxPod(const std::string& ns, const std::string& name);
    // Creates, changes or deletes an unrelated object (a ConfigMap-like Secret "other"): the cluster's
    // resourceVersion moves without the watched object changing.
    void touchOther(const std::string& ns);
    // Sends a BOOKMARK with the current resourceVersion to every watch that asked for bookmarks.
    void bookmark();
    // Everything before the current resourceVersion is compacted: a watch from an older one gets 410.
    void compact();
    // Ends every open watch stream, as a restarting API server or a load balancer would.
    void dropWatches();

    // Observations.
    std::optional<nlohmann::json> object(const std::string& resource, const std::string& ns,
                                         const std::string& name) const;
    std::size_t objectCount(const std::string& ns) const; // every object of the namespace
    // Every object of the resource created in the namespace by a request, as the create answered it, in order,
    // deleted ones included: what a test inspects after the sandbox that made them has ended.
    std::vector<nlohmann::json> created(const std::string& resource, const std::string& ns) const;
    // The names of a resource's objects in the namespace ("pods"), sorted: how a test finds a generated name.
    std::vector<std::string> names(const std::string& resource, const std::string& ns) const;
    std::string resourceVersion() const; // the cluster's current one
    QStringList requests() const;        // "GET /api/v1/namespaces/ns/pods?watch=1&...", in order
    // Waits until `count` watch streams have been opened since the start (a safety-net deadline).
    bool waitForWatches(int count, std::chrono::milliseconds deadline) const;
    int watchesOpened() const;

private:
    KubeApiDouble();
    std::unique_ptr<KubeApiDoubleCore> m_core;
};

} // namespace warren::test
