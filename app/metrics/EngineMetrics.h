#pragma once
// What the control plane counts as it works, in one place (ControlEngine owns it; GET /metrics renders its
// snapshot with the server's own gauges): each metric's name, help and labels are defined here once, and the
// places where the thing happens call one method each. Thread-safe (MetricFamilies): the runners and the
// server's requests on the event loop, the event writer on its own thread.
//
// Where each is counted:
//   sandbox starts and their latency  TaskRunner: from the sandbox's launch to the agent's first line
//   events stored and commit lag      EventWriter: rows committed, each from its append to its commit
//   model calls and tokens            TaskRunner: the tool proxy's llm.chat and the model proxy's calls
//   quota refusals                    server/api: each 429 quota_exceeded, by the limit that refused
//   database errors                   the store's connections (the engine's, the writer's, warrend's
//   accounts) webhook deliveries and retries    server/webhooks: WebhookDispatcher

#include "app/metrics/MetricFamilies.h"
#include "common/Result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace warren::control {

class EngineMetrics {
public:
    EngineMetrics();

    // backend: sandbox::backendName's. seconds: from the launch to the agent's first line. warm: a warm
    // container was claimed (sandbox/container/WarmPool.h).
    void sandboxStarted(const std::string& backend, double seconds, bool warm = false);
    // The sandbox could not be started, or ended before its agent said anything.
    void sandboxFailed(const std::string& backend);
    // Rows the event writer committed in one transaction, each with its seconds from append to commit.
    void eventsCommitted(const std::vector<double>& lagSeconds);
    // provider: providerKindName's ("openai", "anthropic", "scripted"). answered: the provider answered (a
    // failure is counted, with no tokens).
    void modelCall(const std::string& provider, bool answered, std::uint64_t inputTokens,
                   std::uint64_t outputTokens);
    // quota: the limit's key ("max_concurrent", "tokens_per_month"); level: "tenant" or "user".
    void quotaRefused(const std::string& quota, const std::string& level);
    // A statement or connection that failed: kind "unavailable" (the database cannot be reached), "refused"
    // (its content: a duplicate key, a missing row), "failed" (anything else).
    void databaseError(ErrorCode code);
    // A webhook delivery ended: "delivered" (a 2xx), "failed" (every attempt failed), "refused" (its address
    // is inside and not the operator's to reach), "dropped" (its hook's queue was full). And a failed attempt
    // that will be retried.
    void webhookDelivery(const std::string& result);
    void webhookRetry();
    // A task's lease changed hands (warrend's replicas, DESIGN §15): "adopted" (this replica took over a task
    // whose replica stopped), "lost" (another took over one of this replica's, which had stopped renewing).
    void taskLease(const std::string& change);

    std::vector<Metric> snapshot() const;

    // The families, for tests that look at one series.
    const CounterFamily& sandboxStarts() const { return m_sandboxStarts; }
    const HistogramFamily& sandboxStartSeconds() const { return m_sandboxStartSeconds; }
    const CounterFamily& eventsStored() const { return m_eventsStored; }
    const HistogramFamily& eventCommitLag() const { return m_eventCommitLag; }
    const CounterFamily& modelCalls() const { return m_modelCalls; }
    const CounterFamily& modelTokens() const { return m_modelTokens; }
    const CounterFamily& quotaRefusals() const { return m_quotaRefusals; }
    const CounterFamily& databaseErrors() const { return m_databaseErrors; }
    const CounterFamily& webhookDeliveries() const { return m_webhookDeliveries; }
    const CounterFamily& webhookRetries() const { return m_webhookRetries; }
    const CounterFamily& taskLeaseChanges() const { return m_taskLeaseChanges; }

private:
    CounterFamily m_sandboxStarts;
    HistogramFamily m_sandboxStartSeconds;
    CounterFamily m_eventsStored;
    HistogramFamily m_eventCommitLag;
    CounterFamily m_modelCalls;
    CounterFamily m_modelTokens;
    CounterFamily m_quotaRefusals;
    CounterFamily m_databaseErrors;
    CounterFamily m_webhookDeliveries;
    CounterFamily m_webhookRetries;
    CounterFamily m_taskLeaseChanges;
};

} // namespace warren::control
