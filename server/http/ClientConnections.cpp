#include "server/http/ClientConnections.h"

#include <limits>

namespace warren::http {

namespace {

constexpr std::int64_t never = std::numeric_limits<std::int64_t>::max();

std::int64_t after(std::int64_t start, std::int64_t span) {
    return span > 0 ? start + span : never;
}

} // namespace

bool ClientConnections::admits(const QByteArray& clientKey) const {
    return m_limits.maxPerClient == 0 || clientKey.isEmpty() || countOf(clientKey) < m_limits.maxPerClient;
}

void ClientConnections::opened(const void* connection, int socket, QByteArray clientKey, std::int64_t now) {
    Record record;
    record.socket = socket;
    record.clientKey = std::move(clientKey);
    record.openedAt = now;
    record.sequence = m_sequence++;
    record.phaseStart = now;
    record.deadline = after(now, m_limits.headMs);
    if (!record.clientKey.isEmpty())
        ++m_perClient[record.clientKey];
    m_records.insert(connection, std::move(record));
}

void ClientConnections::closed(const void* connection) {
    const auto found = m_records.constFind(connection);
    if (found == m_records.cend())
        return;
    if (!found->clientKey.isEmpty()) {
        auto count = m_perClient.find(found->clientKey);
        if (count != m_perClient.end() && --*count == 0)
            m_perClient.erase(count);
    }
    m_records.erase(found);
}

void ClientConnections::headReceived(const void* connection, bool bodyFollows, std::int64_t now) {
    auto found = m_records.find(connection);
    if (found == m_records.end())
        return;
    found->phase = bodyFollows ? Phase::Body : Phase::Answering;
    found->phaseStart = now;
    found->deadline = after(now, m_limits.bodyGraceMs);
}

void ClientConnections::bodyReceived(const void* connection, std::uint64_t bytesSoFar) {
    auto found = m_records.find(connection);
    if (found == m_records.end() || found->phase != Phase::Body || m_limits.minBodyBytesPerSecond == 0 ||
        m_limits.bodyGraceMs == 0)
        return;
    // Each byte buys 1/rate seconds past the grace: a body that keeps up the rate never reaches its deadline.
    const auto earned = static_cast<std::int64_t>(bytesSoFar * 1000 / m_limits.minBodyBytesPerSecond);
    found->deadline = found->phaseStart + m_limits.bodyGraceMs + earned;
}

void ClientConnections::answering(const void* connection) {
    auto found = m_records.find(connection);
    if (found != m_records.end())
        found->phase = Phase::Answering;
}

void ClientConnections::answered(const void* connection, std::int64_t now) {
    auto found = m_records.find(connection);
    if (found == m_records.end())
        return;
    found->phase = Phase::Head;
    found->phaseStart = now;
    found->deadline = after(now, m_limits.headMs);
}

std::vector<int> ClientConnections::expire(std::int64_t now) {
    std::vector<int> sockets;
    for (Record& record : m_records) {
        if (record.cut || record.phase == Phase::Answering || record.deadline > now)
            continue;
        record.cut = true;
        sockets.push_back(record.socket);
    }
    return sockets;
}

std::optional<std::int64_t> ClientConnections::nextDeadline() const {
    std::optional<std::int64_t> next;
    for (const Record& record : m_records) {
        if (record.cut || record.phase == Phase::Answering || record.deadline == never)
            continue;
        if (!next || record.deadline < *next)
            next = record.deadline;
    }
    return next;
}

std::optional<int> ClientConnections::makeRoomFor(const void* newcomer) {
    if (m_limits.maxConnections == 0 || count() <= m_limits.maxConnections)
        return std::nullopt;
    Record* victim = nullptr;
    unsigned victimClientCount = 0;
    for (auto it = m_records.begin(); it != m_records.end(); ++it) {
        Record& record = *it;
        if (it.key() == newcomer || record.cut || record.phase == Phase::Answering)
            continue;
        const unsigned clientCount = record.clientKey.isEmpty() ? 1 : countOf(record.clientKey);
        // The most connections first; among one client's, one waiting for a head before one sending a body
        // (someone's upload in progress); then the oldest.
        const bool better = !victim || clientCount > victimClientCount ||
                            (clientCount == victimClientCount &&
                             (record.phase < victim->phase ||
                              (record.phase == victim->phase && record.sequence < victim->sequence)));
        if (better) {
            victim = &record;
            victimClientCount = clientCount;
        }
    }
    if (!victim)
        return std::nullopt;
    victim->cut = true;
    return victim->socket;
}

} // namespace warren::http
