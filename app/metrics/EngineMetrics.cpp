#include "app/metrics/EngineMetrics.h"

namespace warren::control {

namespace {

// A sandbox starts in tens of milliseconds (bubblewrap) to tens of seconds (a pod pulling its image).
const std::vector<double> kStartBounds{0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120};
// A batch commits in about a millisecond; seconds mean a database that is slow or being reconnected to.
const std::vector<double> kLagBounds{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60};

const char* errorKind(ErrorCode code) {
    switch (code) {
    case ErrorCode::Unavailable:
        return "unavailable";
    case ErrorCode::InvalidArgument:
    case ErrorCode::NotFound:
        return "refused";
    default:
        return "failed";
    }
}

} // namespace

EngineMetrics::EngineMetrics()
    : m_sandboxStarts(
          "warrend_sandbox_starts_total",
          "Sandboxes launched for a task's agent, by backend and result (started: the agent spoke; "
          "failed: the launch failed or the sandbox ended before its agent spoke).",
          {"backend", "result"}),
      m_sandboxStartSeconds("warrend_sandbox_start_seconds",
                            "Seconds from a sandbox's launch to its agent's first line, by backend and start "
                            "(warm: a container started before its task; cold: started for it).",
                            {"backend", "start"}, kStartBounds),
      m_eventsStored("warrend_events_stored_total", "Task events committed to the database.", {}),
      m_eventCommitLag("warrend_event_commit_lag_seconds",
                       "Seconds from an event's hand-over to the event writer to its commit.", {},
                       kLagBounds),
      m_modelCalls(
          "warrend_model_calls_total",
          "Model calls made through the control plane's proxies (the agent's llm.chat, a CLI agent's "
          "model proxy), by provider kind and result (answered, failed).",
          {"provider", "result"}),
      m_modelTokens("warrend_model_tokens_total",
                    "Model tokens of the answered calls, by provider kind and direction (input, output).",
                    {"provider", "direction"}),
      m_quotaRefusals("warrend_quota_refusals_total",
                      "Requests refused with 429 quota_exceeded, by the limit that refused and its level.",
                      {"quota", "level"}),
      m_databaseErrors(
          "warrend_database_errors_total",
          "Database statements and connections that failed, by kind (unavailable: not reachable; "
          "refused: for their content; failed: anything else).",
          {"kind"}),
      m_webhookDeliveries(
          "warrend_webhook_deliveries_total",
          "Webhook deliveries ended, by result (delivered, failed: every attempt failed, refused: "
          "an address inside, dropped: the hook's queue was full).",
          {"result"}),
      m_webhookRetries("warrend_webhook_retries_total",
                       "Webhook delivery attempts that failed and are retried.", {}),
      m_taskLeaseChanges("warrend_task_lease_changes_total",
                         "Task leases that changed hands between replicas (adopted: this replica took over a "
                         "task whose replica stopped; lost: another took over one of this replica's).",
                         {"change"}) {
    m_eventsStored.declare({});
    m_eventCommitLag.declare({});
    for (const char* kind : {"unavailable", "refused", "failed"})
        m_databaseErrors.declare({kind});
    for (const char* result : {"delivered", "failed", "refused", "dropped"})
        m_webhookDeliveries.declare({result});
    m_webhookRetries.declare({});
    for (const char* change : {"adopted", "lost"})
        m_taskLeaseChanges.declare({change});
}

void EngineMetrics::sandboxStarted(const std::string& backend, double seconds, bool warm) {
    m_sandboxStarts.add({backend, "started"});
    m_sandboxStartSeconds.observe({backend, warm ? "warm" : "cold"}, seconds);
}

void EngineMetrics::sandboxFailed(const std::string& backend) {
    m_sandboxStarts.add({backend, "failed"});
}

void EngineMetrics::eventsCommitted(const std::vector<double>& lagSeconds) {
    if (lagSeconds.empty())
        return;
    m_eventsStored.add({}, double(lagSeconds.size()));
    m_eventCommitLag.observe({}, lagSeconds);
}

void EngineMetrics::modelCall(const std::string& provider, bool answered, std::uint64_t inputTokens,
                              std::uint64_t outputTokens) {
    m_modelCalls.add({provider, answered ? "answered" : "failed"});
    if (!answered)
        return;
    m_modelTokens.add({provider, "input"}, double(inputTokens));
    m_modelTokens.add({provider, "output"}, double(outputTokens));
}

void EngineMetrics::quotaRefused(const std::string& quota, const std::string& level) {
    m_quotaRefusals.add({quota, level});
}

void EngineMetrics::databaseError(ErrorCode code) {
    m_databaseErrors.add({errorKind(code)});
}

void EngineMetrics::webhookDelivery(const std::string& result) {
    m_webhookDeliveries.add({result});
}

void EngineMetrics::webhookRetry() {
    m_webhookRetries.add({});
}

void EngineMetrics::taskLease(const std::string& change) {
    m_taskLeaseChanges.add({change});
}

std::vector<Metric> EngineMetrics::snapshot() const {
    return {m_sandboxStarts.snapshot(),  m_sandboxStartSeconds.snapshot(), m_eventsStored.snapshot(),
            m_eventCommitLag.snapshot(), m_modelCalls.snapshot(),          m_modelTokens.snapshot(),
            m_quotaRefusals.snapshot(),  m_databaseErrors.snapshot(),      m_webhookDeliveries.snapshot(),
            m_webhookRetries.snapshot(), m_taskLeaseChanges.snapshot()};
}

} // namespace warren::control
