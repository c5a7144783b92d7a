#include "app/providers/ScriptedProvider.h"

#include <QFile>
#include <QTimer>
#include <algorithm>

namespace warren::control {

namespace {

// A few pieces, split after spaces, so a scripted reply streams like a real one does.
QStringList streamPieces(const QString& text) {
    constexpr qsizetype kPieces = 3;
    QStringList pieces;
    qsizetype start = 0;
    for (qsizetype i = 1; i < kPieces && start < text.size(); ++i) {
        const qsizetype wanted = text.size() * i / kPieces;
        const qsizetype space = text.indexOf(QLatin1Char(' '), std::max(wanted, start));
        if (space < 0)
            break;
        pieces.append(text.mid(start, space + 1 - start));
        start = space + 1;
    }
    if (start < text.size())
        pieces.append(text.mid(start));
    return pieces;
}

// Asynchronous like a real call: the caller connects its slots after chat() returns. With a pace, the
// reply's pieces come that long apart, as evenly as they divide it, and the call finishes with the last.
class ScriptedCall : public ChatCall {
public:
    ScriptedCall(Result<protocol::LlmChatResult> reply, std::chrono::milliseconds pace, QObject* parent)
        : ChatCall(parent), m_reply(std::move(reply)) {
        if (m_reply)
            m_pieces = streamPieces(QString::fromStdString(m_reply->content));
        m_step.setSingleShot(true);
        m_step.setInterval(pace / (m_pieces.size() + 1));
        connect(&m_step, &QTimer::timeout, this, &ScriptedCall::serveNext);
        m_step.start();
    }

    void abort() override {
        m_aborted = true;
        m_step.stop();
        finish(makeError(ErrorCode::System, "aborted"));
    }

private:
    void serveNext() {
        if (m_aborted)
            return;
        if (m_next < m_pieces.size()) {
            emit delta(m_pieces[m_next++]);
            if (!m_aborted) // the receiver may abort the call on a piece
                m_step.start();
            return;
        }
        finish(std::move(m_reply));
    }

    Result<protocol::LlmChatResult> m_reply;
    QStringList m_pieces;
    qsizetype m_next = 0;
    QTimer m_step;
    bool m_aborted = false;
};

} // namespace

Result<std::unique_ptr<ScriptedProvider>> ScriptedProvider::load(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        return makeError(ErrorCode::NotFound, "cannot read the model script " + path + ": " +
                                                  file.errorString().toStdString());
    const QByteArray text = file.readAll();
    auto script = protocol::parseScript(std::string_view(text.constData(), std::size_t(text.size())), path);
    if (!script)
        return script.error();
    return std::make_unique<ScriptedProvider>(std::move(script).value());
}

ScriptedProvider::ScriptedProvider(protocol::Script script) : m_script(std::move(script)) {}

Result<protocol::LlmChatResult> ScriptedProvider::replyTo(const protocol::LlmChatParams& params) const {
    const auto served = static_cast<std::size_t>(
        std::count_if(params.messages.begin(), params.messages.end(),
                      [](const protocol::ChatMessage& message) { return message.role == "assistant"; }));
    const auto* turns = m_script.turnsOf(params.agent);
    if (!turns)
        return makeError(ErrorCode::InvalidArgument, "the model script " + m_script.origin + " has no turns for " +
                                                         *params.agent + ": add them under \"agents\"");
    if (served >= turns->size())
        return makeError(ErrorCode::InvalidArgument,
                         "the model script " + m_script.origin + " has " + std::to_string(turns->size()) +
                             " turns" + (params.agent ? " for " + *params.agent : std::string()) +
                             " and the agent asked for turn " + std::to_string(served + 1) +
                             ": add turns to the script (the last one usually calls finish)");
    const protocol::ScriptTurn& turn = (*turns)[served];
    protocol::LlmChatResult result;
    result.content = turn.content;
    result.toolCalls = turn.toolCalls;
    result.tokenUsage = turn.usage.value_or(protocol::TokenUsage{});
    result.finishReason = turn.toolCalls.empty() ? "stop" : "tool_calls";
    return result;
}

ChatCall* ScriptedProvider::chat(const protocol::LlmChatParams& params, QObject* parent) {
    return new ScriptedCall(replyTo(params), m_script.pace, parent);
}

std::string ScriptedProvider::describe() const {
    return "scripted model from " + m_script.origin;
}

} // namespace warren::control
