#include "server/api/MetricsApi.h"

#include "app/metrics/EngineMetrics.h"
#include "app/metrics/MetricsText.h"
#include "app/store/Store.h"
#include "app/tasks/TaskManager.h"
#include "common/FileText.h"
#include "sandbox/ProcStat.h"
#include "server/api/EventStreams.h"
#include "server/api/HttpErrors.h"
#include "server/api/ServerParts.h"
#include "server/http/Router.h"

#include <QDir>
#include <QFile>
#include <algorithm>
#include <openssl/crypto.h>
#include <unistd.h>

namespace warren::server {

namespace {

using control::Metric;

bool tokenMatches(const QByteArray& header, const std::string& token) {
    const QByteArray expected = "Bearer " + QByteArray::fromStdString(token);
    return header.size() == expected.size() && CRYPTO_memcmp(header.constData(), expected.constData(), std::size_t(header.size())) == 0;
}

// This process, as /proc tells it: resident bytes, CPU seconds, open descriptors, start (seconds since the epoch).
std::vector<Metric> processMetrics() {
    std::vector<Metric> metrics;
    const long page = ::sysconf(_SC_PAGESIZE);
    const long ticks = ::sysconf(_SC_CLK_TCK);
    QFile statm("/proc/self/statm");
    if (statm.open(QIODevice::ReadOnly)) {
        const QList<QByteArray> fields = statm.readAll().split(' ');
        if (fields.size() > 1)
            metrics.push_back({"process_resident_memory_bytes", "Resident memory size in bytes.", "gauge",
                               {{{}, double(fields[1].toLongLong()) * double(page)}}});
    }
    QFile uptime("/proc/uptime");
    if (uptime.open(QIODevice::ReadOnly) && ticks > 0) {
        const pid_t self = ::getpid();
        const auto utime = sandbox::procStatField(self, 14), stime = sandbox::procStatField(self, 15),
                   started = sandbox::procStatField(self, 22);
        if (utime && stime)
            metrics.push_back({"process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                               "counter", {{{}, double(std::stoull(*utime) + std::stoull(*stime)) / double(ticks)}}});
        const double upSeconds = uptime.readAll().split(' ').value(0).toDouble();
        if (started && upSeconds > 0) {
            const double bootTime = double(::time(nullptr)) - upSeconds;
            metrics.push_back({"process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
                               "gauge", {{{}, bootTime + double(std::stoull(*started)) / double(ticks)}}});
        }
    }
    metrics.push_back({"process_open_fds", "Number of open file descriptors.", "gauge",
                       {{{}, double(QDir("/proc/self/fd").entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System).size())}}});
    return metrics;
}

} // namespace

Result<std::string> readMetricsToken(const std::string& path) {
    const auto refuse = [&](const std::string& why) {
        return makeError(ErrorCode::InvalidArgument, "--metrics-token-file " + path + ": " + why);
    };
    auto file = openPrivateFile(path);
    if (!file)
        return refuse(file.error().message);
    std::string token(kMaxMetricsTokenBytes + 1, '\0');
    const ssize_t got = ::read(file->fd.get(), token.data(), token.size());
    token.resize(got > 0 ? std::size_t(got) : 0);
    if (token.ends_with('\n'))
        token.pop_back();
    if (token.size() < kMinMetricsTokenBytes || token.size() > kMaxMetricsTokenBytes ||
        !std::all_of(token.begin(), token.end(), [](unsigned char c) { return c > 0x20 && c < 0x7f; }))
        return refuse("it must hold one token of " + std::to_string(kMinMetricsTokenBytes) + " to " +
                      std::to_string(kMaxMetricsTokenBytes) + " visible characters, e.g. `openssl rand -hex 32`");
    return token;
}

void addMetricsRoutes(http::Router& router, ServerParts& parts, std::string token) {
    router.add("GET", "/metrics", [&parts, token](const http::HttpRequest& request, http::HttpReply reply) {
        if (token.empty())
            return reply.send(http::HttpResponse::error(
                404, "not_found", "metrics are off: start warrend with --metrics-token-file FILE to turn them on"));
        if (!tokenMatches(request.header("authorization").value_or(QByteArray()), token))
            return reply.send(http::HttpResponse::error(401, "unauthorized",
                                                        "GET /metrics needs the operator's metrics token "
                                                        "(Authorization: Bearer TOKEN)")
                                  .withHeader("WWW-Authenticate", "Bearer"));
        auto counts = parts.store.taskCountsByStatus();
        if (!counts)
            return reply.send(errorResponse(counts.error()));
        Metric tasks{"warrend_tasks", "Tasks in this server's store, by status.", "gauge", {}};
        for (const auto& [status, count] : *counts)
            tasks.samples.push_back({{{"status", control::taskStatusName(status)}}, double(count)});
        std::vector<Metric> metrics{
            {"warrend_build_info", "The warrend version, as a label.", "gauge", {{{{"version", WARREN_VERSION}}, 1}}},
            std::move(tasks),
            {"warrend_max_tasks", "Agents this server runs at once (serve --max-tasks).", "gauge",
             {{{}, double(parts.options.maxTasks)}}},
            {"warrend_event_streams", "Event streams (GET /v1/tasks/{id}/events?follow) open now.", "gauge",
             {{{}, double(parts.streams.openCount())}}},
            {"warrend_task_leases", "Tasks queued or running on this replica, each leased to it (serve --lease-sec).",
             "gauge", {{{}, double(parts.manager.claimedHere().size())}}},
        };
        for (auto& metric : parts.metrics.snapshot())
            metrics.push_back(std::move(metric));
        for (auto& metric : processMetrics())
            metrics.push_back(std::move(metric));
        http::HttpResponse response;
        response.status = 200;
        response.body = QByteArray::fromStdString(control::exposition(metrics));
        response.withHeader("Content-Type", control::kMetricsContentType);
        reply.send(std::move(response));
    });
}

} // namespace warren::server
