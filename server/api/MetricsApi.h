#pragma once
// GET /metrics (docs/SERVER.md, "Metrics"): what a Prometheus server scrapes of warrend, in the text format
// (app/metrics/MetricsText): its tasks by status (counted by the store), the agents it may run at once, the event
// streams open, what the engine counted as it worked (EngineMetrics: sandbox starts, events stored, model calls,
// quota refusals, database errors, webhook deliveries), and the process (resident memory, CPU seconds, open
// descriptors, start time). Only with the operator's token (`serve --metrics-token-file FILE`, sent as
// `Authorization: Bearer TOKEN`, compared in constant time): the numbers are the whole server's, never one
// user's. Without the flag the route says how to turn it on.

#include "common/Result.h"

#include <string>

namespace warren::http {
class Router;
}

namespace warren::server {

struct ServerParts;

inline constexpr std::size_t kMinMetricsTokenBytes = 16;
inline constexpr std::size_t kMaxMetricsTokenBytes = 4096;

// The token in path: a regular file only its owner may read or write (chmod 600), holding kMinMetricsTokenBytes
// to kMaxMetricsTokenBytes visible ASCII characters (a final line break dropped).
Result<std::string> readMetricsToken(const std::string& path);

// token: the operator's, read from its file; empty: metrics are off.
void addMetricsRoutes(http::Router& router, ServerParts& parts, std::string token);

} // namespace warren::server
