#pragma once
// Which handler answers a request: method + pattern ("/v1/tasks/{id}/events/stream") → handler, with the
// {name} segments captured. Pure: the server asks it, and tests ask it directly.

#include "server/http/HttpReply.h"
#include "server/http/HttpRequest.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QStringList>
#include <functional>
#include <variant>
#include <vector>

namespace warren::http {

// A handler answers through the reply, now or from a later event-loop turn, or opens an event stream.
using Handler = std::function<void(const HttpRequest&, HttpReply)>;

struct RouteOptions {
    qint64 maxBodyBytes = 1 << 20; // a larger body answers 413 before it is read whole
    bool bodyToFile = false;       // stream the body to a file in the server's upload directory
};

struct Route {
    QByteArray method;
    QStringList pattern; // the pattern's segments; "{name}" captures one non-empty segment
    RouteOptions options;
    Handler handler;
};

struct RouteMatch {
    const Route* route = nullptr;
    QHash<QString, QString> parameters;
};
struct NoSuchPath {};
struct MethodNotAllowed {
    QByteArray allow; // the Allow header: the methods the path has, "GET, HEAD, POST"
};
struct MalformedPath {}; // not "/..." or not UTF-8 once decoded

class Router {
public:
    // pattern starts with "/"; a GET route also answers HEAD.
    void add(QByteArray method, const QString& pattern, Handler handler, RouteOptions options = {});

    using Result = std::variant<RouteMatch, NoSuchPath, MethodNotAllowed, MalformedPath>;
    Result match(QByteArrayView method, QByteArrayView rawPath) const;

private:
    std::vector<Route> m_routes;
};

} // namespace warren::http
