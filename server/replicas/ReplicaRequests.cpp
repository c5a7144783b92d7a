#include "server/replicas/ReplicaRequests.h"

#include "server/accounts/AccountStore.h"

#include <QPointer>
#include <algorithm>
#include <charconv>

namespace warren::server {

ReplicaRequests::ReplicaRequests(accounts::AccountStore& accounts, Serve serve,
                                 std::function<std::vector<std::string>()> mine, QObject* parent)
    : QObject(parent), m_accounts(accounts), m_serve(std::move(serve)), m_mine(std::move(mine)) {
    m_poll.setInterval(kPollEvery);
    connect(&m_poll, &QTimer::timeout, this, [this] {
        serveOpen();
        std::vector<std::int64_t> asked;
        for (const auto& [id, ask] : m_asked)
            asked.push_back(id);
        for (const auto id : asked)
            collect(id);
        if (auto forgotten = m_accounts.forgetTaskRequests(kForgetAfter); !forgotten)
            emit problem(QString::fromStdString(forgotten.error().message));
    });
    m_poll.start();
}

void ReplicaRequests::ask(const std::string& taskId, const ReplicaRequest& request,
                          std::function<void(Result<ReplicaAnswer>)> done) {
    auto id = m_accounts.addTaskRequest(taskId, request.toJson().dump());
    if (!id)
        return done(id.error());
    auto* deadline = new QTimer(this);
    deadline->setSingleShot(true);
    connect(deadline, &QTimer::timeout, this, [this, id = *id] {
        if (auto asked = take(id))
            asked->done(makeError(ErrorCode::Unavailable, "the warrend running task " + asked->taskId +
                                                              " did not answer within " +
                                                              std::to_string(kAnswerWithin.count()) + " s; try again"));
    });
    m_asked[*id] = {taskId, std::move(done), deadline};
    deadline->start(kAnswerWithin);
}

void ReplicaRequests::requestWaiting(const std::string& taskId) {
    const auto mine = m_mine();
    if (std::find(mine.begin(), mine.end(), taskId) != mine.end())
        serveOpen();
}

void ReplicaRequests::requestAnswered(const std::string& requestId) {
    std::int64_t id = 0;
    const auto [end, error] = std::from_chars(requestId.data(), requestId.data() + requestId.size(), id);
    if (error == std::errc() && end == requestId.data() + requestId.size() && m_asked.contains(id))
        collect(id);
}

void ReplicaRequests::serveOpen() {
    const auto mine = m_mine();
    if (mine.empty())
        return;
    auto open = m_accounts.openTaskRequests(mine);
    if (!open)
        return emit problem(QString::fromStdString(open.error().message));
    for (const auto& row : *open) {
        if (!m_serving.insert(row.id).second)
            continue;
        // The runner may answer later (a question its agent has yet to ask), when this may be gone.
        const auto answer = [self = QPointer(this), id = row.id](const ReplicaAnswer& given) {
            if (ReplicaRequests* alive = self.data())
                alive->answer(id, given);
        };
        auto request = ReplicaRequest::fromJson(nlohmann::json::parse(row.request, nullptr, false));
        if (!request) {
            answer({false, request.error().message});
            continue;
        }
        m_serve(row.taskId, *request, answer);
    }
}

void ReplicaRequests::answer(std::int64_t id, const ReplicaAnswer& given) {
    m_serving.erase(id);
    if (auto stored = m_accounts.answerTaskRequest(id, given.toJson().dump()); !stored)
        emit problem(QString::fromStdString(stored.error().message));
}

void ReplicaRequests::collect(std::int64_t id) {
    auto answer = m_accounts.takeTaskRequestAnswer(id);
    if (!answer || !*answer)
        return; // not answered yet, or the database did not answer: the next notification or poll
    auto asked = take(id);
    if (!asked)
        return;
    auto parsed = ReplicaAnswer::fromJson(nlohmann::json::parse(**answer, nullptr, false));
    asked->done(parsed ? Result<ReplicaAnswer>(*parsed) : Result<ReplicaAnswer>(parsed.error()));
}

std::optional<ReplicaRequests::Asked> ReplicaRequests::take(std::int64_t id) {
    const auto found = m_asked.find(id);
    if (found == m_asked.end())
        return std::nullopt;
    Asked asked = std::move(found->second);
    m_asked.erase(found);
    asked.deadline->deleteLater();
    return asked;
}

} // namespace warren::server
