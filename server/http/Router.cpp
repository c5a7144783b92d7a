#include "server/http/Router.h"

#include "server/http/UrlDecoding.h"

#include <algorithm>

namespace warren::http {

namespace {

bool isCapture(const QString& segment) {
    return segment.size() > 2 && segment.startsWith('{') && segment.endsWith('}');
}

std::optional<QHash<QString, QString>> matchPattern(const QStringList& pattern, const QStringList& segments) {
    if (pattern.size() != segments.size())
        return std::nullopt;
    QHash<QString, QString> parameters;
    for (qsizetype i = 0; i < pattern.size(); ++i) {
        if (isCapture(pattern[i])) {
            if (segments[i].isEmpty())
                return std::nullopt;
            parameters.insert(pattern[i].mid(1, pattern[i].size() - 2), segments[i]);
        } else if (pattern[i] != segments[i]) {
            return std::nullopt;
        }
    }
    return parameters;
}

bool answers(const Route& route, QByteArrayView method) {
    return route.method == method || (method == "HEAD" && route.method == "GET");
}

} // namespace

void Router::add(QByteArray method, const QString& pattern, Handler handler, RouteOptions options) {
    m_routes.push_back(Route{std::move(method), pattern.mid(1).split('/'), options, std::move(handler)});
}

Router::Result Router::match(QByteArrayView method, QByteArrayView rawPath) const {
    const auto segments = decodePathSegments(rawPath);
    if (!segments)
        return MalformedPath{};
    QList<QByteArray> allowed;
    for (const Route& route : m_routes) {
        auto parameters = matchPattern(route.pattern, *segments);
        if (!parameters)
            continue;
        if (answers(route, method))
            return RouteMatch{&route, std::move(*parameters)};
        allowed.append(route.method);
        if (route.method == "GET")
            allowed.append("HEAD");
    }
    if (allowed.isEmpty())
        return NoSuchPath{};
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    return MethodNotAllowed{allowed.join(", ")};
}

} // namespace warren::http
