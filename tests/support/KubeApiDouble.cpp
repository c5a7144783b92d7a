// KubeApiDouble: a double of a Kubernetes API server (see the header): objects in memory, the API's wire.
#include "tests/support/KubeApiDouble.h"

#include "server/http/HttpServer.h"

#include <QDateTime>
#include <QDir>
#include <QMutex>
#include <QThread>
#include <QTimer>
#include <QWaitCondition>
#include <map>
#include <tuple>
#include <vector>

namespace warren::test {

using nlohmann::json;

namespace {

struct ResourceType {
    std::string prefix;     // "/api/v1"
    std::string resource;   // "pods"
    std::string kind;       // "Pod"
    std::string apiVersion; // "v1"
    std::string singular;
    std::vector<std::string> shortNames;
};

const std::vector<ResourceType>& resourceTypes() {
    static const std::vector<ResourceType> types = {
        {"/api/v1", "pods", "Pod", "v1", "pod", {"po"}},
        {"/api/v1", "secrets", "Secret", "v1", "secret", {}},
        {"/apis/networking.k8s.io/v1", "networkpolicies", "NetworkPolicy", "networking.k8s.io/v1", "networkpolicy",
         {"netpol"}},
        {"/apis/agents.x-k8s.io/v1beta1", "sandboxes", "Sandbox", "agents.x-k8s.io/v1beta1", "sandbox", {}},
    };
    return types;
}

const ResourceType* typeOf(const std::string& resource) {
    for (const auto& type : resourceTypes())
        if (type.resource == resource)
            return &type;
    return nullptr;
}

http::HttpResponse answer(unsigned status, const json& body) {
    http::HttpResponse response;
    response.status = status;
    response.body = QByteArray::fromStdString(body.dump());
    response.withHeader("Content-Type", "application/json");
    return response;
}

json statusObject(int code, const std::string& reason, const std::string& message, json details = nullptr) {
    json status = {{"kind", "Status"},       {"apiVersion", "v1"}, {"metadata", json::object()},
                   {"status", "Failure"},    {"message", message}, {"reason", reason},
                   {"code", code}};
    if (!details.is_null())
        status["details"] = std::move(details);
    return status;
}

const json& at(const json& object, std::initializer_list<const char*> path) {
    static const json null;
    const json* here = &object;
    for (const char* key : path) {
        if (!here->is_object() || !here->contains(key))
            return null;
        here = &(*here)[key];
    }
    return *here;
}

// The causes of a 422: the required fields the object lacks.
json missingFields(const ResourceType& type, const json& object) {
    json causes = json::array();
    const auto require = [&](bool present, const std::string& field) {
        if (!present)
            causes.push_back({{"reason", "FieldValueRequired"}, {"message", "Required value"}, {"field", field}});
    };
    require(at(object, {"metadata", "name"}).is_string() && !at(object, {"metadata", "name"}).get<std::string>().empty(),
            "metadata.name");
    const auto containers = [&](const json& spec, const std::string& where) {
        const json& list = at(spec, {"containers"});
        require(list.is_array() && !list.empty(), where + ".containers");
        if (list.is_array()) {
            for (std::size_t i = 0; i < list.size(); ++i) {
                require(at(list[i], {"name"}).is_string(), where + ".containers[" + std::to_string(i) + "].name");
                require(at(list[i], {"image"}).is_string(), where + ".containers[" + std::to_string(i) + "].image");
            }
        }
    };
    if (type.kind == "Pod")
        containers(at(object, {"spec"}), "spec");
    else if (type.kind == "Sandbox")
        containers(at(object, {"spec", "podTemplate", "spec"}), "spec.podTemplate.spec");
    else if (type.kind == "NetworkPolicy")
        require(at(object, {"spec", "podSelector"}).is_object(), "spec.podSelector");
    return causes;
}

std::string nameFromSelector(const QString& selector) {
    // "metadata.name=NAME" or "metadata.name==NAME"; other selectors are not served by the double.
    QString rest = selector;
    if (!rest.startsWith("metadata.name="))
        return {};
    rest.remove(0, 14);
    if (rest.startsWith('='))
        rest.remove(0, 1);
    return rest.toStdString();
}

// "a=b,c==d" as the pairs it requires; nullopt for what the double does not serve (!=, in, notin, exists).
std::optional<std::map<std::string, std::string>> labelsFromSelector(const QString& selector) {
    std::map<std::string, std::string> required;
    for (const QString& term : selector.split(',', Qt::SkipEmptyParts)) {
        const qsizetype equals = term.indexOf('=');
        if (equals <= 0 || term.contains("!=") || term.contains(' '))
            return std::nullopt;
        const QString value = term.mid(term.mid(equals).startsWith("==") ? equals + 2 : equals + 1);
        if (value.contains('='))
            return std::nullopt;
        required[term.left(equals).toStdString()] = value.toStdString();
    }
    return required;
}

bool carries(const json& object, const std::map<std::string, std::string>& labels) {
    const json& present = at(object, {"metadata", "labels"});
    for (const auto& [key, value] : labels)
        if (!present.is_object() || !present.contains(key) || present[key] != value)
            return false;
    return true;
}

// The log as the API server cuts it: the last tailLines lines, then at most limitBytes of those.
std::string logTail(std::string text, const http::HttpRequest& request) {
    bool given = false;
    const int tailLines = request.query.value("tailLines").toInt(&given);
    if (given && tailLines >= 0) {
        std::size_t start = text.size();
        int lines = 0;
        // A last line without its newline counts as a line.
        std::size_t end = !text.empty() && text.back() == '\n' ? text.size() - 1 : text.size();
        while (lines < tailLines && end > 0) {
            const std::size_t newline = text.rfind('\n', end - 1);
            start = newline == std::string::npos ? 0 : newline + 1;
            ++lines;
            if (newline == std::string::npos)
                break;
            end = newline;
        }
        text.erase(0, tailLines == 0 ? text.size() : start);
    }
    const qlonglong limitBytes = request.query.value("limitBytes").toLongLong(&given);
    if (given && limitBytes > 0 && static_cast<std::size_t>(limitBytes) < text.size())
        text.resize(static_cast<std::size_t>(limitBytes));
    return text;
}

} // namespace

struct WatchState {
    std::string resource;
    std::string ns;
    std::string name; // empty: every object of the namespace
    bool bookmarks = false;
    QByteArray pending;
    bool closing = false;
    http::EventStream stream;
};

class KubeApiDoubleCore {
public:
    using Key = std::tuple<std::string, std::string, std::string>; // resource, namespace, name

    QThread thread;
    QObject context; // lives on thread: the server's and the timers' owner
    std::unique_ptr<http::HttpServer> server;
    KubeApiDouble::Options options;
    QString url;

    // Touched only on thread.
    std::uint64_t version = 1;
    std::uint64_t compactedBelow = 0;
    std::uint64_t uids = 0;
    std::map<Key, json> objects;
    std::vector<std::pair<std::string, json>> createdObjects; // every create by a request: (resource, object)
    struct Event {
        std::uint64_t version;
        std::string resource, ns, name, type;
        json object;
    };
    std::vector<Event> history;
    std::vector<std::shared_ptr<WatchState>> watches;
    KubeApiDouble::PodObserver podObserver;
    KubeApiDouble::PodLogSource podLogSource;

    // Shared with the test's thread.
    mutable QMutex mutex;
    mutable QWaitCondition watchOpened;
    int watchCount = 0;
    QStringList requestLog;

    template <typename F>
    void run(F&& f) {
        if (QThread::currentThread() == &thread)
            f();
        else
            QMetaObject::invokeMethod(&context, std::forward<F>(f), Qt::BlockingQueuedConnection);
    }

    std::string nextVersion() { return std::to_string(++version); }

    static QByteArray line(const std::string& type, const json& object) {
        return QByteArray::fromStdString(json{{"type", type}, {"object", object}}.dump() + "\n");
    }

    void emitEvent(const std::string& type, const std::string& resource, const std::string& ns, const json& object) {
        const std::string name = object["metadata"].value("name", std::string());
        history.push_back({version, resource, ns, name, type, object});
        for (const auto& watch : watches) {
            if (watch->closing || watch->resource != resource || watch->ns != ns ||
                (!watch->name.empty() && watch->name != name))
                continue;
            watch->pending += line(type, object);
            watch->stream.wake();
        }
    }

    void store(const std::string& resource, const std::string& ns, json object, const std::string& type) {
        object["metadata"]["resourceVersion"] = nextVersion();
        const std::string name = object["metadata"]["name"].get<std::string>();
        objects[{resource, ns, name}] = object;
        emitEvent(type, resource, ns, object);
        if (resource == "pods" && type == "ADDED")
            tellPodObserver(type, object);
    }

    void tellPodObserver(const std::string& type, const json& pod) {
        if (podObserver) {
            const auto observer = podObserver; // it may replace itself
            observer(type, pod);
        }
    }

    void remove(const std::string& resource, const std::string& ns, const std::string& name) {
        auto found = objects.find({resource, ns, name});
        if (found == objects.end())
            return;
        json object = found->second;
        objects.erase(found);
        object["metadata"]["resourceVersion"] = nextVersion();
        emitEvent("DELETED", resource, ns, object);
        if (resource == "pods")
            tellPodObserver("DELETED", object);
    }

    // The agent-sandbox controller's part: the Sandbox's pod, of its name, from its podTemplate, owned by it.
    // False when there is no such Sandbox or the pod exists.
    bool makeSandboxPod(const std::string& ns, const std::string& name) {
        auto sandbox = objects.find({"sandboxes", ns, name});
        if (sandbox == objects.end() || objects.count({"pods", ns, name}))
            return false;
        const json& object = sandbox->second;
        const json& templateMeta = at(object, {"spec", "podTemplate", "metadata"});
        json metadata = {{"name", name},
                         {"namespace", ns},
                         {"labels", templateMeta.is_object() && templateMeta.contains("labels")
                                        ? templateMeta["labels"]
                                        : json::object()},
                         {"uid", "00000000-0000-4000-8000-" +
                                     QString::number(++uids).rightJustified(12, '0').toStdString()},
                         {"ownerReferences", json::array({{{"apiVersion", "agents.x-k8s.io/v1beta1"},
                                                           {"kind", "Sandbox"},
                                                           {"name", name},
                                                           {"uid", object["metadata"]["uid"]},
                                                           {"controller", true}}})}};
        if (templateMeta.is_object() && templateMeta.contains("annotations"))
            metadata["annotations"] = templateMeta["annotations"];
        json pod = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", metadata},
                    {"spec", at(object, {"spec", "podTemplate", "spec"})},
                    {"status", {{"phase", "Pending"}}}};
        store("pods", ns, pod, "ADDED");
        return true;
    }

    // The agent-sandbox controller's part, played at once: the pod's readiness as the Sandbox's condition.
    void mirrorIntoSandbox(const std::string& ns, const json& pod) {
        auto sandbox = objects.find({"sandboxes", ns, pod["metadata"]["name"].get<std::string>()});
        if (sandbox == objects.end())
            return;
        json object = sandbox->second;
        bool ready = false;
        for (const auto& condition : at(pod, {"status", "conditions"}))
            if (condition.value("type", "") == "Ready" && condition.value("status", "") == "True")
                ready = true;
        object["status"]["conditions"] = json::array(
            {{{"type", "Ready"},
              {"status", ready ? "True" : "False"},
              {"reason", ready ? "DependenciesReady" : "DependenciesNotReady"},
              {"message", ready ? "Pod is Ready" : "Pod is not ready: " + at(pod, {"status", "phase"}).get<std::string>()},
              {"lastTransitionTime", QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()}}});
        store("sandboxes", ns, object, "MODIFIED");
    }

    void setPodStatus(const std::string& ns, const std::string& name, const std::string& uid, json status) {
        auto found = objects.find({"pods", ns, name});
        if (found == objects.end() || (!uid.empty() && at(found->second, {"metadata", "uid"}) != uid))
            return;
        json pod = found->second;
        pod["status"] = std::move(status);
        store("pods", ns, pod, "MODIFIED");
        mirrorIntoSandbox(ns, pod);
    }

    bool authorized(const http::HttpRequest& request) const {
        if (options.token.isEmpty())
            return true;
        const auto header = request.header("Authorization");
        return header && *header == "Bearer " + options.token.toUtf8();
    }

    void record(const http::HttpRequest& request) {
        QString line = QString::fromUtf8(request.method) + " " + request.path;
        QStringList query;
        for (auto it = request.query.begin(); it != request.query.end(); ++it)
            query << it.key() + "=" + it.value();
        query.sort();
        if (!query.isEmpty())
            line += "?" + query.join('&');
        QMutexLocker lock(&mutex);
        requestLog << line;
    }

    http::Handler guarded(std::function<void(const http::HttpRequest&, http::HttpReply)> handler) {
        return [this, handler](const http::HttpRequest& request, http::HttpReply reply) {
            record(request);
            if (!authorized(request)) {
                reply.send(answer(401, statusObject(401, "Unauthorized", "Unauthorized")));
                return;
            }
            handler(request, std::move(reply));
        };
    }

    json discoveryOf(const std::string& groupVersion) const {
        json resources = json::array();
        for (const auto& type : resourceTypes()) {
            if (type.apiVersion != groupVersion)
                continue;
            resources.push_back({{"name", type.resource},
                                 {"singularName", type.singular},
                                 {"namespaced", true},
                                 {"kind", type.kind},
                                 {"verbs", {"create", "delete", "get", "list", "watch"}},
                                 {"shortNames", type.shortNames}});
        }
        return {{"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", groupVersion},
                {"resources", resources}};
    }

    json groupList() const {
        json groups = json::array();
        const auto group = [](const std::string& name, const std::string& groupVersionName) {
            const json gv = {{"groupVersion", name + "/" + groupVersionName}, {"version", groupVersionName}};
            return json{{"name", name}, {"versions", json::array({gv})}, {"preferredVersion", gv}};
        };
        groups.push_back(group("networking.k8s.io", "v1"));
        if (options.serveSandboxCrd)
            groups.push_back(group("agents.x-k8s.io", "v1beta1"));
        return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
    }

    void create(const ResourceType& type, const http::HttpRequest& request, const http::HttpReply& reply) {
        const std::string ns = request.pathParameters.value("ns").toStdString();
        json object = json::parse(request.body.toStdString(), nullptr, false);
        if (!object.is_object()) {
            reply.send(answer(400, statusObject(400, "BadRequest", "the body is not a JSON object")));
            return;
        }
        if (object.value("kind", "") != type.kind || object.value("apiVersion", "") != type.apiVersion) {
            reply.send(answer(400, statusObject(400, "BadRequest",
                                                "the API version in the data (" + object.value("apiVersion", "") +
                                                    ") does not match the expected API version (" +
                                                    type.apiVersion + ")")));
            return;
        }
        const std::string name = at(object, {"metadata", "name"}).is_string()
                                     ? at(object, {"metadata", "name"}).get<std::string>()
                                     : std::string();
        if (json causes = missingFields(type, object); !causes.empty()) {
            std::string message = type.kind + " \"" + name + "\" is invalid: ";
            for (std::size_t i = 0; i < causes.size(); ++i)
                message += (i ? ", " : "") + causes[i]["field"].get<std::string>() + ": Required value";
            reply.send(answer(422, statusObject(422, "Invalid", message,
                                                {{"name", name}, {"kind", type.kind}, {"causes", causes}})));
            return;
        }
        if (const json& given = at(object, {"metadata", "namespace"}); given.is_string() && given != ns) {
            reply.send(answer(400, statusObject(400, "BadRequest",
                                                "the namespace of the provided object does not match the "
                                                "namespace sent on the request")));
            return;
        }
        if (objects.count({type.resource, ns, name})) {
            reply.send(answer(409, statusObject(409, "AlreadyExists",
                                                type.resource + " \"" + name + "\" already exists",
                                                {{"name", name}, {"kind", type.resource}})));
            return;
        }
        object["metadata"]["namespace"] = ns;
        object["metadata"]["uid"] = "00000000-0000-4000-8000-" + QString::number(++uids).rightJustified(12, '0').toStdString();
        object["metadata"]["creationTimestamp"] = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
        if (type.kind == "Pod")
            object["status"] = {{"phase", "Pending"}};
        store(type.resource, ns, object, "ADDED");
        const json created = objects[{type.resource, ns, name}];
        createdObjects.push_back({type.resource, created});
        if (type.kind == "Sandbox" && options.sandboxControllerMakesPods)
            makeSandboxPod(ns, name);
        reply.send(answer(201, created));
    }

    void get(const ResourceType& type, const http::HttpRequest& request, const http::HttpReply& reply) {
        const std::string ns = request.pathParameters.value("ns").toStdString();
        const std::string name = request.pathParameters.value("name").toStdString();
        auto found = objects.find({type.resource, ns, name});
        if (found == objects.end()) {
            reply.send(answer(404, statusObject(404, "NotFound", type.resource + " \"" + name + "\" not found",
                                                {{"name", name}, {"kind", type.resource}})));
            return;
        }
        reply.send(answer(200, found->second));
    }

    void destroy(const ResourceType& type, const http::HttpRequest& request, const http::HttpReply& reply) {
        const std::string ns = request.pathParameters.value("ns").toStdString();
        const std::string name = request.pathParameters.value("name").toStdString();
        if (!request.body.isEmpty()) {
            const json deleteOptions = json::parse(request.body.toStdString(), nullptr, false);
            const std::string policy =
                deleteOptions.is_object() ? deleteOptions.value("propagationPolicy", "Background") : "";
            if (!deleteOptions.is_object() || (policy != "Background" && policy != "Foreground" && policy != "Orphan")) {
                reply.send(answer(400, statusObject(400, "BadRequest", "the body is not DeleteOptions")));
                return;
            }
        }
        auto found = objects.find({type.resource, ns, name});
        if (found == objects.end()) {
            reply.send(answer(404, statusObject(404, "NotFound", type.resource + " \"" + name + "\" not found",
                                                {{"name", name}, {"kind", type.resource}})));
            return;
        }
        const json last = found->second;
        if (type.kind == "Sandbox")
            remove("pods", ns, name); // its dependent, first: as Foreground propagation does
        remove(type.resource, ns, name);
        reply.send(answer(200, last));
    }

    void podLog(const http::HttpRequest& request, const http::HttpReply& reply) {
        const std::string ns = request.pathParameters.value("ns").toStdString();
        const std::string name = request.pathParameters.value("name").toStdString();
        auto found = objects.find({"pods", ns, name});
        if (found == objects.end()) {
            reply.send(answer(404, statusObject(404, "NotFound", "pods \"" + name + "\" not found",
                                                {{"name", name}, {"kind", "pods"}})));
            return;
        }
        const json& containers = at(found->second, {"spec", "containers"});
        std::string container = request.query.value("container").toStdString();
        if (container.empty() && containers.is_array() && containers.size() == 1)
            container = containers[0].value("name", "");
        bool known = false;
        for (const auto& each : containers)
            known |= each.value("name", "") == container;
        if (!known) {
            reply.send(answer(400, statusObject(400, "BadRequest",
                                                "container " + container + " is not valid for pod " + name)));
            return;
        }
        std::optional<std::string> text;
        if (podLogSource) {
            const auto source = podLogSource;
            text = source(ns, name);
        }
        if (!text) {
            reply.send(answer(400, statusObject(400, "BadRequest",
                                                "container \"" + container + "\" in pod \"" + name +
                                                    "\" is waiting to start: ContainerCreating")));
            return;
        }
        http::HttpResponse response;
        response.status = 200;
        response.body = QByteArray::fromStdString(logTail(std::move(*text), request));
        response.withHeader("Content-Type", "text/plain");
        reply.send(std::move(response));
    }

    void listOrWatch(const ResourceType& type, const http::HttpRequest& request, const http::HttpReply& reply) {
        const std::string ns = request.pathParameters.value("ns").toStdString();
        const std::string name = nameFromSelector(request.query.value("fieldSelector"));
        const QString watchParameter = request.query.value("watch");
        if (watchParameter == "1" || watchParameter == "true") {
            watch(type, ns, name, request, reply);
            return;
        }
        const auto labels = labelsFromSelector(request.query.value("labelSelector"));
        if (!labels) {
            reply.send(answer(400, statusObject(400, "BadRequest",
                                                "the API double serves labelSelectors of equalities only: " +
                                                    request.query.value("labelSelector").toStdString())));
            return;
        }
        json items = json::array();
        for (const auto& [key, object] : objects) {
            if (std::get<0>(key) == type.resource && std::get<1>(key) == ns &&
                (name.empty() || std::get<2>(key) == name) && carries(object, *labels))
                items.push_back(object);
        }
        reply.send(answer(200, {{"kind", type.kind + "List"},
                                {"apiVersion", type.apiVersion},
                                {"metadata", {{"resourceVersion", std::to_string(version)}}},
                                {"items", items}}));
    }

    void watch(const ResourceType& type, const std::string& ns, const std::string& name,
               const http::HttpRequest& request, const http::HttpReply& reply) {
        auto state = std::make_shared<WatchState>();
        state->resource = type.resource;
        state->ns = ns;
        state->name = name;
        state->bookmarks = request.query.value("allowWatchBookmarks") == "true";
        const QString from = request.query.value("resourceVersion");
        bool numeric = false;
        const std::uint64_t since = from.toULongLong(&numeric);
        if (!from.isEmpty() && from != "0" && !numeric) {
            reply.send(answer(400, statusObject(400, "BadRequest", "invalid resource version: " + from.toStdString())));
            return;
        }
        if (numeric && since != 0 && since < compactedBelow) {
            // As the API server does: 200, then one ERROR event with a 410 Status, then the end.
            state->pending = line("ERROR", statusObject(410, "Expired",
                                                        "too old resource version: " + std::to_string(since) + " (" +
                                                            std::to_string(compactedBelow) + ")"));
            state->closing = true;
        } else if (!numeric || since == 0) {
            for (const auto& [key, object] : objects) {
                if (std::get<0>(key) == type.resource && std::get<1>(key) == ns && (name.empty() || std::get<2>(key) == name))
                    state->pending += line("ADDED", object);
            }
        } else {
            for (const auto& event : history) {
                if (event.version > since && event.resource == type.resource && event.ns == ns &&
                    (name.empty() || event.name == name))
                    state->pending += line(event.type, event.object);
            }
        }
        std::weak_ptr<WatchState> weak = state;
        state->stream = reply.startStream(
            "application/json",
            [state]() -> std::optional<QByteArray> {
                if (!state->pending.isEmpty()) {
                    QByteArray out;
                    std::swap(out, state->pending);
                    return out;
                }
                if (state->closing)
                    return std::nullopt;
                return QByteArray();
            },
            [this, weak] {
                auto gone = weak.lock();
                std::erase_if(watches, [&](const auto& w) { return w == gone; });
            });
        if (!state->closing)
            watches.push_back(state);
        if (const int seconds = request.query.value("timeoutSeconds").toInt(); seconds > 0) {
            QTimer::singleShot(std::chrono::seconds(seconds), &context, [weak] {
                if (auto open = weak.lock()) {
                    open->closing = true;
                    open->stream.wake();
                }
            });
        }
        QMutexLocker lock(&mutex);
        ++watchCount;
        watchOpened.wakeAll();
    }

    void routes(http::Router& router) {
        const auto json200 = [this](std::function<json()> body) {
            return guarded([body](const http::HttpRequest&, http::HttpReply reply) { reply.send(answer(200, body())); });
        };
        router.add("GET", "/version", json200([] {
                       return json{{"major", "1"},           {"minor", "32"},
                                   {"gitVersion", "v1.32.0"}, {"gitCommit", "warren-kube-api-double"},
                                   {"gitTreeState", "clean"}, {"buildDate", "2025-01-01T00:00:00Z"},
                                   {"goVersion", "go1.23"},  {"compiler", "gc"},
                                   {"platform", "linux/amd64"}};
                   }));
        router.add("GET", "/api", json200([this] {
                       return json{{"kind", "APIVersions"},
                                   {"versions", {"v1"}},
                                   {"serverAddressByClientCIDRs",
                                    {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", url.mid(url.indexOf("//") + 2).toStdString()}}}}};
                   }));
        router.add("GET", "/apis", json200([this] { return groupList(); }));
        router.add("GET", "/api/v1", json200([this] { return discoveryOf("v1"); }));
        router.add("GET", "/apis/networking.k8s.io/v1", json200([this] { return discoveryOf("networking.k8s.io/v1"); }));
        for (const auto& type : resourceTypes()) {
            if (type.kind == "Sandbox" && !options.serveSandboxCrd)
                continue;
            if (type.kind == "Sandbox")
                router.add("GET", QString::fromStdString(type.prefix),
                           json200([this] { return discoveryOf("agents.x-k8s.io/v1beta1"); }));
            const QString collection = QString::fromStdString(type.prefix + "/namespaces/{ns}/" + type.resource);
            const ResourceType* t = &type;
            router.add("GET", collection, guarded([this, t](const http::HttpRequest& r, http::HttpReply reply) {
                           listOrWatch(*t, r, reply);
                       }));
            router.add("POST", collection, guarded([this, t](const http::HttpRequest& r, http::HttpReply reply) {
                           create(*t, r, reply);
                       }));
            router.add("GET", collection + "/{name}", guarded([this, t](const http::HttpRequest& r, http::HttpReply reply) {
                           get(*t, r, reply);
                       }));
            router.add("DELETE", collection + "/{name}",
                       guarded([this, t](const http::HttpRequest& r, http::HttpReply reply) { destroy(*t, r, reply); }));
            if (type.kind == "Pod")
                router.add("GET", collection + "/{name}/log",
                           guarded([this](const http::HttpRequest& r, http::HttpReply reply) { podLog(r, reply); }));
        }
    }
};

KubeApiDouble::KubeApiDouble() : m_core(std::make_unique<KubeApiDoubleCore>()) {}

KubeApiDouble::~KubeApiDouble() {
    m_core->run([this] {
        if (m_core->server)
            m_core->server->close();
        m_core->server.reset();
        m_core->watches.clear();
    });
    m_core->thread.quit();
    m_core->thread.wait();
}

std::unique_ptr<KubeApiDouble> KubeApiDouble::start(const Options& options, QString* error) {
    std::unique_ptr<KubeApiDouble> api(new KubeApiDouble());
    KubeApiDoubleCore& core = *api->m_core;
    core.options = options;
    core.context.moveToThread(&core.thread);
    core.thread.start();
    bool started = false;
    core.run([&] {
        http::Router router;
        core.routes(router);
        core.server = std::make_unique<http::HttpServer>(std::move(router), QDir::tempPath());
        std::optional<http::TlsFiles> tls;
        if (!options.certificate.isEmpty())
            tls = http::TlsFiles{options.certificate, options.key};
        auto port = core.server->listen(QHostAddress::LocalHost, 0, tls);
        if (!port) {
            *error = QString::fromStdString(port.error().message);
            return;
        }
        core.url = QString("%1://127.0.0.1:%2").arg(tls ? "https" : "http").arg(*port);
        started = true;
    });
    if (!started)
        return nullptr;
    return api;
}

QString KubeApiDouble::url() const { return m_core->url; }

void KubeApiDouble::podPending(const std::string& ns, const std::string& name, const std::string& reason,
                               const std::string& message, const std::string& uid) {
    m_core->run([&] {
        m_core->setPodStatus(ns, name, uid,
                             {{"phase", "Pending"},
                              {"conditions", json::array({{{"type", "PodScheduled"}, {"status", "True"}}})},
                              {"containerStatuses",
                               json::array({{{"name", "sandbox"},
                                             {"ready", false},
                                             {"state", {{"waiting", {{"reason", reason}, {"message", message}}}}}}})}});
    });
}

void KubeApiDouble::podUnschedulable(const std::string& ns, const std::string& name, const std::string& message) {
    m_core->run([&] {
        m_core->setPodStatus(ns, name, {},
                             {{"phase", "Pending"},
                              {"conditions", json::array({{{"type", "PodScheduled"},
                                                           {"status", "False"},
                                                           {"reason", "Unschedulable"},
                                                           {"message", message}}})}});
    });
}

void KubeApiDouble::podRunning(const std::string& ns, const std::string& name, bool ready,
                               const std::string& uid) {
    m_core->run([&] {
        const std::string flag = ready ? "True" : "False";
        m_core->setPodStatus(ns, name, uid,
                             {{"phase", "Running"},
                              {"conditions", json::array({{{"type", "PodScheduled"}, {"status", "True"}},
                                                          {{"type", "Ready"}, {"status", flag}}})},
                              {"containerStatuses",
                               json::array({{{"name", "sandbox"},
                                             {"ready", ready},
                                             {"state", {{"running", {{"startedAt", "2025-01-01T00:00:00Z"}}}}}}})}});
    });
}

void KubeApiDouble::podEnded(const std::string& ns, const std::string& name, bool succeeded, int exitCode,
                             const std::string& reason, const std::string& uid) {
    m_core->run([&] {
        m_core->setPodStatus(
            ns, name, uid,
            {{"phase", succeeded ? "Succeeded" : "Failed"},
             {"conditions", json::array({{{"type", "Ready"}, {"status", "False"}, {"reason", "PodCompleted"}}})},
             {"containerStatuses",
              json::array({{{"name", "sandbox"},
                            {"ready", false},
                            {"state", {{"terminated", {{"exitCode", exitCode}, {"reason", reason}}}}}}})}});
    });
}

void KubeApiDouble::setPodObserver(PodObserver observer) {
    m_core->run([&] { m_core->podObserver = std::move(observer); });
}

void KubeApiDouble::setPodLogSource(PodLogSource source) {
    m_core->run([&] { m_core->podLogSource = std::move(source); });
}

bool KubeApiDouble::makeSandboxPod(const std::string& ns, const std::string& name) {
    bool made = false;
    m_core->run([&] { made = m_core->makeSandboxPod(ns, name); });
    return made;
}

void KubeApiDouble::touchOther(const std::string& ns) {
    m_core->run([&] {
        json other = {{"apiVersion", "v1"},
                      {"kind", "Secret"},
                      {"metadata", {{"name", "other"}, {"namespace", ns}}},
                      {"data", {{"n", std::to_string(m_core->version)}}}};
        const bool exists = m_core->objects.count({"secrets", ns, "other"}) > 0;
        m_core->store("secrets", ns, other, exists ? "MODIFIED" : "ADDED");
    });
}

void KubeApiDouble::bookmark() {
    m_core->run([&] {
        for (const auto& watch : m_core->watches) {
            if (!watch->bookmarks || watch->closing)
                continue;
            const ResourceType* type = typeOf(watch->resource);
            watch->pending += KubeApiDoubleCore::line(
                "BOOKMARK", {{"kind", type->kind},
                             {"apiVersion", type->apiVersion},
                             {"metadata", {{"resourceVersion", std::to_string(m_core->version)}}}});
            watch->stream.wake();
        }
    });
}

void KubeApiDouble::compact() {
    m_core->run([&] {
        m_core->compactedBelow = m_core->version;
        std::erase_if(m_core->history, [&](const auto& event) { return event.version < m_core->compactedBelow; });
    });
}

void KubeApiDouble::dropWatches() {
    m_core->run([&] {
        for (const auto& watch : m_core->watches) {
            watch->closing = true;
            watch->stream.wake();
        }
    });
}

std::optional<json> KubeApiDouble::object(const std::string& resource, const std::string& ns,
                                          const std::string& name) const {
    std::optional<json> found;
    m_core->run([&] {
        if (auto it = m_core->objects.find({resource, ns, name}); it != m_core->objects.end())
            found = it->second;
    });
    return found;
}

std::size_t KubeApiDouble::objectCount(const std::string& ns) const {
    std::size_t count = 0;
    m_core->run([&] {
        for (const auto& [key, object] : m_core->objects)
            count += std::get<1>(key) == ns ? 1u : 0u;
    });
    return count;
}

std::vector<nlohmann::json> KubeApiDouble::created(const std::string& resource, const std::string& ns) const {
    std::vector<json> found;
    m_core->run([&] {
        for (const auto& [kind, object] : m_core->createdObjects)
            if (kind == resource && object["metadata"]["namespace"] == ns)
                found.push_back(object);
    });
    return found;
}

std::vector<std::string> KubeApiDouble::names(const std::string& resource, const std::string& ns) const {
    std::vector<std::string> found;
    m_core->run([&] {
        for (const auto& [key, object] : m_core->objects)
            if (std::get<0>(key) == resource && std::get<1>(key) == ns)
                found.push_back(std::get<2>(key));
    });
    return found; // in the map's order: sorted
}

std::string KubeApiDouble::resourceVersion() const {
    std::string version;
    m_core->run([&] { version = std::to_string(m_core->version); });
    return version;
}

QStringList KubeApiDouble::requests() const {
    QMutexLocker lock(&m_core->mutex);
    return m_core->requestLog;
}

bool KubeApiDouble::waitForWatches(int count, std::chrono::milliseconds deadline) const {
    QMutexLocker lock(&m_core->mutex);
    QDeadlineTimer timer(deadline);
    while (m_core->watchCount < count) {
        if (!m_core->watchOpened.wait(&m_core->mutex, timer))
            return m_core->watchCount >= count;
    }
    return true;
}

int KubeApiDouble::watchesOpened() const {
    QMutexLocker lock(&m_core->mutex);
    return m_core->watchCount;
}

} // namespace warren::test
