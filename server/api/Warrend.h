#pragma once
// warrend serve: the control plane's engine (app/engine/ControlEngine) over PostgreSQL, with the accounts,
// the uploads and the HTTP API in front of it, for many users.
// Crash-only: opening it marks the tasks a dead server left running as interrupted and resumes them (and
// those it left queued, but for those waiting for a concurrency slot) from their checkpoints, each keeping
// the reservation it held. With --agent-address, one AgentListener on TCP takes the connections of its cluster
// tasks' agents (docs/DEPLOY.md).

#include "common/Result.h"
#include "server/api/ServeOptions.h"
#include "server/http/HttpServer.h"

#include <QObject>
#include <chrono>
#include <memory>

namespace warren::control {
class AgentListener;
class ControlEngine;
class RetentionSweep;
struct ProviderConfig;
struct TaskRecord;
class TaskTokens;
class SecretStore;
} // namespace warren::control
namespace warren::accounts {
class AccountStore;
}

namespace warren::server {

class DiskWork;
class EventStreams;
class Quotas;
class ReplicaRequests;
class TaskLeases;
class TaskNotifications;
class TaskWebhooks;
class WaitingTasks;
class WebhookDispatcher;
struct ServerParts;

class Warrend : public QObject {
    Q_OBJECT
public:
    static constexpr std::chrono::seconds kOfferSlotsEvery{30}; // besides every end of a run
    // Tasks claimed for removal per sweep (hourly), so that a sweep's work on the event loop stays short.
    static constexpr std::size_t kRetentionBatch = 500;
    // The workers for requests' disk and process work (DiskWork), and how many of them one user may hold:
    // disk-bound work, so more than the cores; half each, so one user never holds them all.
    static constexpr std::size_t kDiskWorkers = 4;
    static constexpr std::size_t kDiskWorkersPerUser = 2;
    static Result<std::unique_ptr<Warrend>> open(const ServeOptions& options);
    ~Warrend() override;

    quint16 port() const { return m_port; }
    // tcp:HOST:PORT the cluster's pods are told to connect to; empty without --agent-address.
    const std::string& agentAddress() const { return m_agentAddress; }

signals:
    // For the operator's log: events could not be stored (what failed; warrend keeps them and retries), and
    // the like (the database's notifications lost, an agent refused).
    void storeProblem(const QString& message);

private:
    Warrend() = default;
    Status openControl(const ServeOptions& options);
    Status listenForAgents(const ServeOptions& options, control::TaskTokens& tokens);
    Status listen(const ServeOptions& options);
    void resumeLeftOver();
    void runEnded(const std::string& taskId);
    void offerSlots(); // to the tasks waiting for one (WaitingTasks)
    // Finished tasks past their retention period (the owner's quota, serve --retention-days): their parts
    // removed on DiskWork, each under its task's lock, then their records marked. At start, then hourly.
    void sweepRetention();
    std::uint64_t retentionDays(const control::TaskRecord& task);
    Result<std::string> providerKeyFor(const control::TaskRecord& task,
                                       const control::ProviderConfig& provider);

    std::unique_ptr<accounts::AccountStore> m_accounts;
    std::unique_ptr<TaskLeases> m_leases; // the engine's claims: outlives it
    std::unique_ptr<control::SecretStore> m_secrets; // the server-wide keys
    std::string m_providerKeySecret;                 // seals the users' own keys; empty: they store none
    std::string m_metricsToken;                      // GET /metrics asks for it; empty: no metrics
    std::unique_ptr<control::ControlEngine> m_engine;
    std::unique_ptr<EventStreams> m_streams;
    std::unique_ptr<ReplicaRequests> m_requests;
    std::unique_ptr<TaskNotifications> m_notifications; // wakes m_streams and m_requests: goes first
    std::unique_ptr<Quotas> m_quotas;
    std::unique_ptr<WaitingTasks> m_waiting;
    std::unique_ptr<WebhookDispatcher> m_webhookDispatcher;
    std::unique_ptr<TaskWebhooks> m_webhooks;
    std::unique_ptr<ServerParts> m_parts;
    std::unique_ptr<DiskWork> m_work; // after m_parts: gone (its workers done) before what its jobs use
    std::unique_ptr<control::RetentionSweep> m_retention;
    std::uint64_t m_retentionDays = 0; // serve --retention-days
    std::unique_ptr<http::HttpServer> m_http;
    quint16 m_port = 0;
    std::unique_ptr<control::AgentListener> m_agents; // --agent-address
    std::string m_agentAddress;
};

} // namespace warren::server
