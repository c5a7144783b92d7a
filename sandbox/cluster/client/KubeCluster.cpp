#include "sandbox/cluster/client/KubeCluster.h"

#include "common/JsonFields.h"
#include "sandbox/cluster/client/ApiStatus.h"


#include <algorithm>
#include <poll.h>

namespace warren::kube {

using nlohmann::json;

namespace {

// The server's limitBytes counts from the first line of the tail it selected, so it would cut the tail's end,
// the part that matters: it is only the bound on what one log call may bring, above any tail kept.
constexpr std::size_t kLogFetchLimit = 1024 * 1024;

bool isReadable(int fd) {
    if (fd < 0)
        return false;
    pollfd one{fd, POLLIN, 0};
    return ::poll(&one, 1, 0) > 0 && (one.revents & POLLIN);
}

bool reached(KubeCluster::Goal goal, const PodState& state) {
    if (state.progress == PodProgress::Ended)
        return true;
    switch (goal) {
    case KubeCluster::Goal::Started:
        return state.progress == PodProgress::Running || state.progress == PodProgress::Ready;
    case KubeCluster::Goal::Ready:
        return state.progress == PodProgress::Ready;
    case KubeCluster::Goal::Ended:
        return false;
    }
    return false;
}

PodState deletedState() {
    PodState state;
    state.progress = PodProgress::Ended;
    state.reason = "Deleted";
    state.message = "the pod was deleted before it ended";
    return state;
}

} // namespace

std::string describe(ResourceKind kind, const std::string& namespaceName, const std::string& name) {
    return kindName(kind) + " " + namespaceName + "/" + name;
}

KubeCluster::KubeCluster(KubeClusterOptions options, std::unique_ptr<KubeHttp> http)
    : m_options(std::move(options)), m_http(std::move(http)) {
    m_namespace = m_options.namespaceName.empty() ? m_options.config.namespaceName : m_options.namespaceName;
    if (m_namespace.empty())
        m_namespace = "default";
}

KubeCluster::~KubeCluster() = default;

Result<std::unique_ptr<KubeCluster>> KubeCluster::connect(const KubeClusterOptions& options) {
    auto http = KubeHttp::create(options.config);
    if (!http)
        return http.error();
    return std::unique_ptr<KubeCluster>(new KubeCluster(options, std::move(*http)));
}

std::vector<std::string> KubeCluster::leftBehind() const {
    std::vector<std::string> names;
    for (const auto& object : m_created)
        names.push_back(describe(object.kind, m_namespace, object.name));
    return names;
}

Result<json> KubeCluster::call(const ApiRequest& request, const std::string& what, int interruptFd) {
    auto answer = m_http->send(request, m_options.callTimeout, interruptFd);
    if (!answer)
        return makeError(answer.error().code, what + " failed: " + answer.error().message);
    if (answer->status < 200 || answer->status > 299)
        return describeApiFailure(answer->status, answer->body, what, m_options.config.server).error;
    // Depth-capped, as every answer of the API server is read: a deeply nested one would overflow the stack
    // of the first copy or dump.
    auto document = json_fields::parseJson(answer->body);
    if (!document)
        return makeError(ErrorCode::Unavailable, what + ": the API server's answer is not JSON");
    return document;
}

Status KubeCluster::create(const ClusterObjects& objects, int interruptFd) {
    m_podName = nameOf(objects.pod);
    if (m_podName.empty())
        return makeError(ErrorCode::InvalidArgument, "the pod to create has no metadata.name");
    m_useSandbox = false;
    m_podSeen = false;
    m_stateIsPods = false;
    if (m_options.useSandboxCrd && !objects.sandbox.is_null()) {
        const ApiRequest probe = discoveryRequest(ResourceKind::Sandbox);
        auto answer = m_http->send(probe, m_options.callTimeout, interruptFd);
        if (!answer)
            return makeError(answer.error().code, "asking whether the cluster serves agents.x-k8s.io/v1beta1 "
                                                  "failed: " + answer.error().message);
        if (answer->status == 200)
            m_useSandbox = true;
        else if (answer->status != 404)
            return describeApiFailure(answer->status, answer->body, "asking whether the cluster serves "
                                                                    "agents.x-k8s.io/v1beta1",
                                      m_options.config.server)
                .error;
    }
    std::vector<const json*> order;
    for (const json* object : {&objects.secret, &objects.networkPolicy})
        if (!object->is_null())
            order.push_back(object);
    order.push_back(m_useSandbox ? &objects.sandbox : &objects.pod);
    if (m_useSandbox && nameOf(objects.sandbox) != m_podName)
        return makeError(ErrorCode::InvalidArgument, "the Sandbox and the Pod must share a name (the controller "
                                                     "names the pod after the Sandbox)");

    for (const json* object : order) {
        auto kind = kindOf(*object);
        if (!kind)
            return kind.error();
        const std::string name = nameOf(*object);
        const std::string what = "creating " + describe(*kind, m_namespace, name);
        if (const auto& meta = (*object)["metadata"]; meta.contains("namespace") && meta["namespace"] != m_namespace) {
            (void)removeAll(std::nullopt, Clock::now() + m_options.callTimeout, interruptFd);
            return makeError(ErrorCode::InvalidArgument, what + " failed: the object names namespace " +
                                                             meta["namespace"].dump() + ", the cluster client " +
                                                             m_namespace);
        }
        auto created = call(createRequest(*kind, m_namespace, *object), what, interruptFd);
        if (!created) {
            Status cleaned = removeAll(std::nullopt, Clock::now() + m_options.callTimeout, interruptFd);
            Error error = created.error();
            if (!cleaned)
                error.message += "; and removing what was created before failed: " + cleaned.error().message;
            return error;
        }
        m_created.push_back({*kind, name});
        if (*kind == ResourceKind::Pod) {
            m_podVersion = resourceVersionOf(*created);
            m_state = podState(*created);
            m_stateIsPods = true;
        } else if (*kind == ResourceKind::Sandbox) {
            m_sandboxVersion = resourceVersionOf(*created);
            m_state = sandboxState(*created);
            m_podAppearBy = Clock::now() + m_options.podAppearTimeout;
        }
    }
    return Ok{};
}

Result<std::string> KubeCluster::relist(ResourceKind kind, const std::string& name, bool& stop, const Visit& visit,
                                        int interruptFd) {
    auto list = call(listRequest(kind, m_namespace, name), "listing " + describe(kind, m_namespace, name), interruptFd);
    if (!list)
        return list.error();
    const std::string version = resourceVersionOf(*list);
    bool found = false;
    for (const auto& item : itemsOf(*list)) {
        if (nameOf(item) == name) {
            found = true;
            stop = visit(WatchEventType::Modified, item);
        }
    }
    if (!found)
        stop = visit(WatchEventType::Deleted, json());
    return version;
}

Result<KubeCluster::WatchEnd> KubeCluster::watchObject(ResourceKind kind, const std::string& name,
                                                       std::string resourceVersion, const Visit& visit,
                                                       std::optional<Clock::time_point> deadline, int interruptFd) {
    const auto until = deadline.value_or(Clock::time_point::max());
    bool stop = false;
    if (resourceVersion.empty()) {
        auto listed = relist(kind, name, stop, visit, interruptFd);
        if (!listed)
            return listed.error();
        if (stop)
            return WatchEnd::Stopped;
        resourceVersion = *listed;
    }
    const std::string what = "watching " + describe(kind, m_namespace, name);
    for (;;) {
        if (isReadable(interruptFd))
            return WatchEnd::Interrupted;
        if (Clock::now() >= until)
            return WatchEnd::TimedOut;
        auto connectTimeout = m_options.callTimeout;
        if (deadline)
            connectTimeout = std::min(connectTimeout, std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()));
        auto start = m_http->watch(watchRequest(kind, m_namespace, name, resourceVersion, m_options.watchTimeoutSeconds),
                                   connectTimeout, interruptFd);
        if (!start) {
            if (isReadable(interruptFd))
                return WatchEnd::Interrupted;
            if (Clock::now() >= until)
                return WatchEnd::TimedOut;
            return makeError(start.error().code, what + " failed: " + start.error().message);
        }
        if (!start->stream) {
            if (start->refused.status != 410)
                return describeApiFailure(start->refused.status, start->refused.body, what, m_options.config.server)
                    .error;
            ++m_counters.relists;
            auto listed = relist(kind, name, stop, visit, interruptFd);
            if (!listed)
                return listed.error();
            if (stop)
                return WatchEnd::Stopped;
            resourceVersion = *listed;
            continue;
        }
        for (bool open = true; open;) {
            auto read = start->stream->nextLine(until, interruptFd);
            if (!read)
                return makeError(read.error().code, what + ": " + read.error().message);
            switch (read->outcome) {
            case WatchStream::Outcome::Interrupted:
                return WatchEnd::Interrupted;
            case WatchStream::Outcome::TimedOut:
                return WatchEnd::TimedOut;
            case WatchStream::Outcome::Ended:
                ++m_counters.reconnects;
                open = false;
                continue;
            case WatchStream::Outcome::Line:
                break;
            }
            auto event = parseWatchEvent(read->line);
            if (!event)
                return makeError(event.error().code, what + ": " + event.error().message);
            if (event->type == WatchEventType::Bookmark) {
                ++m_counters.bookmarks;
                if (const std::string version = resourceVersionOf(event->object); !version.empty())
                    resourceVersion = version;
                continue;
            }
            if (event->type == WatchEventType::Error) {
                if (!isResourceVersionExpired(*event))
                    return makeError(ErrorCode::Unavailable,
                                     what + ": the API server reported an error: " + watchErrorMessage(*event));
                ++m_counters.relists;
                auto listed = relist(kind, name, stop, visit, interruptFd);
                if (!listed)
                    return listed.error();
                if (stop)
                    return WatchEnd::Stopped;
                resourceVersion = *listed;
                open = false;
                continue;
            }
            if (nameOf(event->object) != name)
                continue; // a server that ignores the field selector
            if (const std::string version = resourceVersionOf(event->object); !version.empty())
                resourceVersion = version;
            if (visit(event->type, event->object))
                return WatchEnd::Stopped;
        }
    }
}

Result<std::string> KubeCluster::podLog(const std::string& container, int tailLines, std::size_t keepBytes,
                                        int interruptFd) {
    const std::string what = "reading the log of " + describe(ResourceKind::Pod, m_namespace, m_podName);
    auto answer = m_http->send(podLogRequest(m_namespace, m_podName, container, tailLines,
                                             std::max(keepBytes, kLogFetchLimit)),
                               m_options.callTimeout, interruptFd);
    if (!answer)
        return makeError(answer.error().code, what + " failed: " + answer.error().message);
    if (answer->status != 200)
        return describeApiFailure(answer->status, answer->body, what, m_options.config.server).error;
    std::string text = std::move(answer->body);
    if (text.size() > keepBytes) {
        text.erase(0, text.size() - keepBytes);
        if (const auto newline = text.find('\n'); newline != std::string::npos && newline + 1 < text.size())
            text.erase(0, newline + 1); // from a whole line, which also keeps UTF-8 whole
    }
    return text;
}

// The kinds this client creates, the Sandbox first where it may (deleting it deletes its pod).
std::vector<ResourceKind> KubeCluster::labelledKinds() const {
    std::vector<ResourceKind> kinds;
    if (m_options.useSandboxCrd)
        kinds.push_back(ResourceKind::Sandbox);
    kinds.insert(kinds.end(), {ResourceKind::Pod, ResourceKind::NetworkPolicy, ResourceKind::Secret});
    return kinds;
}

Result<std::optional<json>> KubeCluster::listLabelled(ResourceKind kind,
                                                      const std::map<std::string, std::string>& labels,
                                                      int interruptFd) {
    if (labels.empty())
        return makeError(ErrorCode::InvalidArgument, "selecting by label needs at least one label");
    const std::string what =
        "listing the " + resourceName(kind) + " in namespace " + m_namespace + " labelled as this sandbox's";
    auto answer =
        m_http->send(labelledListRequest(kind, m_namespace, labels), m_options.callTimeout, interruptFd);
    if (!answer)
        return makeError(answer.error().code, what + " failed: " + answer.error().message);
    if (answer->status == 404 && kind == ResourceKind::Sandbox)
        return std::optional<json>(); // the CRD is not installed: there are none
    if (answer->status != 200)
        return describeApiFailure(answer->status, answer->body, what, m_options.config.server).error;
    auto parsed = json_fields::parseJson(answer->body);
    const json list = parsed ? std::move(*parsed) : json();
    if (!list.is_object() || !list.contains("items") || !list["items"].is_array())
        return makeError(ErrorCode::Unavailable, what + ": the API server's answer is not a list");
    return std::optional<json>(list["items"]);
}

Result<std::vector<std::string>> KubeCluster::removeLabelled(const std::map<std::string, std::string>& labels,
                                                             Clock::time_point deadline, int interruptFd) {
    std::vector<std::string> removed;
    for (const ResourceKind kind : labelledKinds()) {
        auto items = listLabelled(kind, labels, interruptFd);
        if (!items)
            return items.error();
        for (const auto& item : items->value_or(json::array())) {
            const std::string name = nameOf(item);
            if (name.empty())
                continue;
            if (Status gone = removeOne({kind, name}, 0, deadline, interruptFd); !gone)
                return gone.error();
            removed.push_back(describe(kind, m_namespace, name));
        }
    }
    return removed;
}

Result<bool> KubeCluster::rejoinLabelled(const std::map<std::string, std::string>& labels, int interruptFd) {
    std::vector<Created> found;
    std::vector<json> pods;
    std::vector<std::string> sandboxes;
    for (const ResourceKind kind : labelledKinds()) {
        auto items = listLabelled(kind, labels, interruptFd);
        if (!items)
            return items.error();
        for (const auto& item : items->value_or(json::array())) {
            if (const std::string name = nameOf(item); !name.empty()) {
                found.push_back({kind, name});
                if (kind == ResourceKind::Pod)
                    pods.push_back(item);
                if (kind == ResourceKind::Sandbox)
                    sandboxes.push_back(name);
            }
        }
    }
    // One pod, running (and at most one Sandbox, its own): anything else (none, two, one that has ended or
    // never started) is made afresh.
    if (pods.size() != 1)
        return false;
    const PodState state = podState(pods.front());
    if (state.progress != PodProgress::Running && state.progress != PodProgress::Ready)
        return false;
    const std::string pod = nameOf(pods.front());
    if (sandboxes.size() > 1 || (sandboxes.size() == 1 && sandboxes.front() != pod))
        return false;
    const bool sandbox = !sandboxes.empty();
    // As create() leaves them: the Sandbox or else the Pod last, so that removeAll deletes it first; a
    // Sandbox's pod goes with it.
    m_created.clear();
    for (const ResourceKind kind : {ResourceKind::Secret, ResourceKind::NetworkPolicy,
                                    sandbox ? ResourceKind::Sandbox : ResourceKind::Pod})
        for (const Created& object : found)
            if (object.kind == kind)
                m_created.push_back(object);
    m_podName = pod;
    m_useSandbox = sandbox;
    m_state = state;
    m_stateIsPods = true;
    m_podSeen = true;
    m_podVersion.clear(); // the watch lists the pod again first
    m_sandboxVersion.clear();
    return true;
}

Result<KubeCluster::WaitResult> KubeCluster::waitFor(Goal goal, std::optional<Clock::time_point> deadline,
                                                     int interruptFd) {
    if (m_created.empty())
        return makeError(ErrorCode::InvalidArgument, "nothing was created to wait for");
    WaitResult result;
    const auto settled = [&](const PodState& state) {
        if (reached(goal, state))
            return true;
        return goal != Goal::Ended && state.progress == PodProgress::Stuck;
    };
    // A Sandbox's state answers only for readiness (which implies the pod's start); the rest is the pod's.
    const bool stateAnswers = m_stateIsPods || (goal != Goal::Ended && reached(goal, m_state));
    if (stateAnswers && settled(m_state)) {
        result.stop = m_state.progress == PodProgress::Stuck && !reached(goal, m_state) ? Stop::Stuck : Stop::Reached;
        result.state = m_state;
        return result;
    }
    // With the Sandbox CRD, readiness is the Sandbox's Ready condition; whether the command started and how
    // it ended are its pod's: a command that ends before its pod is ever ready never makes the Sandbox ready.
    const bool watchSandbox = m_useSandbox && goal == Goal::Ready;
    const bool awaitPod = m_useSandbox && !watchSandbox; // the controller's pod, maybe not there yet
    const ResourceKind kind = watchSandbox ? ResourceKind::Sandbox : ResourceKind::Pod;
    std::string& version = watchSandbox ? m_sandboxVersion : m_podVersion;
    const Visit visit = [&](WatchEventType type, const json& object) {
        if (type == WatchEventType::Deleted) {
            if (awaitPod && !m_podSeen)
                return false; // a list that found no pod yet: the controller has not made it
            m_state = deletedState();
            m_stateIsPods = !watchSandbox;
            return true;
        }
        version = resourceVersionOf(object);
        if (watchSandbox) {
            m_state = sandboxState(object);
            m_stateIsPods = false;
            return settled(m_state);
        }
        const bool first = awaitPod && !m_podSeen;
        m_podSeen = true;
        m_state = podState(object);
        m_stateIsPods = true;
        return first || settled(m_state); // first: the watch goes on without the pod's deadline
    };
    for (;;) {
        const bool appearing = awaitPod && !m_podSeen;
        std::optional<Clock::time_point> until = deadline;
        if (appearing && (!until || m_podAppearBy < *until))
            until = m_podAppearBy;
        auto end = watchObject(kind, m_podName, version, visit, until, interruptFd);
        if (!end)
            return end.error();
        if (*end == WatchEnd::Stopped && appearing && !settled(m_state))
            continue; // the pod appeared: follow it to the goal
        result.state = m_state;
        switch (*end) {
        case WatchEnd::Stopped:
            result.stop = reached(goal, m_state) ? Stop::Reached : Stop::Stuck;
            break;
        case WatchEnd::Interrupted:
            result.stop = Stop::Interrupted;
            break;
        case WatchEnd::TimedOut:
            result.stop = Stop::TimedOut;
            if (appearing && !m_podSeen && (!deadline || m_podAppearBy < *deadline)) {
                const auto ms = m_options.podAppearTimeout.count();
                const std::string waited =
                    ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
                result.stop = Stop::Stuck;
                result.state = PodState{};
                result.state.progress = PodProgress::Stuck;
                result.state.reason = "NoPod";
                result.state.message = "agent-sandbox's controller made no pod for " +
                                       describe(ResourceKind::Sandbox, m_namespace, m_podName) + " within " + waited;
                m_state = result.state;
                m_stateIsPods = true;
            }
            break;
        }
        return result;
    }
}

Status KubeCluster::removeOne(const Created& object, std::optional<int> gracePeriodSeconds, Clock::time_point deadline,
                              int interruptFd) {
    const std::string name = describe(object.kind, m_namespace, object.name);
    // The Sandbox in the foreground: it stays until its pod is gone, so its 404 means all of it is.
    const Propagation propagation =
        object.kind == ResourceKind::Sandbox ? Propagation::Foreground : Propagation::Background;
    auto deleted = m_http->send(deleteRequest(object.kind, m_namespace, object.name, propagation, gracePeriodSeconds),
                                m_options.callTimeout, interruptFd);
    if (!deleted)
        return makeError(deleted.error().code, "deleting " + name + " failed: " + deleted.error().message);
    if (deleted->status == 404)
        return Ok{};
    if (deleted->status < 200 || deleted->status > 299)
        return describeApiFailure(deleted->status, deleted->body, "deleting " + name, m_options.config.server).error;
    for (;;) {
        auto got = m_http->send(getRequest(object.kind, m_namespace, object.name), m_options.callTimeout, interruptFd);
        if (!got)
            return makeError(got.error().code, "checking that " + name + " is gone failed: " + got.error().message);
        if (got->status == 404)
            return Ok{};
        if (got->status != 200)
            return describeApiFailure(got->status, got->body, "checking that " + name + " is gone",
                                      m_options.config.server)
                .error;
        // Still there (terminating, or waiting for its dependents): wait for its DELETED, then GET again.
        auto parsed = json_fields::parseJson(got->body);
        const json current = parsed ? std::move(*parsed) : json();
        const Visit gone = [](WatchEventType type, const json&) { return type == WatchEventType::Deleted; };
        auto end = watchObject(object.kind, object.name, resourceVersionOf(current), gone, deadline, interruptFd);
        if (!end)
            return end.error();
        if (*end == WatchEnd::Interrupted)
            return makeError(ErrorCode::Unavailable, "interrupted while waiting for " + name + " to go");
        if (*end == WatchEnd::TimedOut)
            return makeError(ErrorCode::Unavailable, name + " is still there after its deletion; delete it with "
                                                            "kubectl delete " + resourceName(object.kind) + " -n " +
                                                            m_namespace + " " + object.name);
    }
}

Status KubeCluster::removeAll(std::optional<int> gracePeriodSeconds, Clock::time_point deadline, int interruptFd) {
    std::string failures;
    std::vector<Created> left;
    // The pod (or sandbox) first: it uses the Secret, and the NetworkPolicy guards it while it runs.
    for (auto object = m_created.rbegin(); object != m_created.rend(); ++object) {
        Status removed = removeOne(*object, gracePeriodSeconds, deadline, interruptFd);
        if (!removed) {
            failures += (failures.empty() ? "" : "; ") + removed.error().message;
            left.insert(left.begin(), *object);
        }
    }
    m_created = std::move(left);
    if (!failures.empty())
        return makeError(ErrorCode::Unavailable, failures);
    return Ok{};
}

} // namespace warren::kube
