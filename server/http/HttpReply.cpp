#include "server/http/HttpReply.h"

#include "server/http/Exchange.h"

namespace warren::http {

// Shared by the copies of one HttpReply: the last copy to go answers 500 if nobody answered.
struct ReplyToken {
    std::weak_ptr<Exchange> exchange;
    ~ReplyToken() {
        if (auto alive = exchange.lock(); alive && !alive->answered()) {
            alive->deliver(HttpResponse::error(500, "no_answer",
                                               "The server dropped this request without answering it."));
        }
    }
};

void HttpReply::send(HttpResponse response) const {
    if (auto exchange = m_token->exchange.lock())
        exchange->deliver(std::move(response));
}

EventStream HttpReply::startEvents(EventSource source, std::function<void()> onClosed) const {
    return startStream("text/event-stream", std::move(source), std::move(onClosed));
}

EventStream HttpReply::startStream(QByteArray contentType, EventSource source, std::function<void()> onClosed) const {
    if (auto exchange = m_token->exchange.lock())
        return exchange->openStream(std::move(contentType), std::move(source), std::move(onClosed));
    if (onClosed)
        onClosed();
    return {};
}

bool HttpReply::answered() const {
    auto exchange = m_token->exchange.lock();
    return !exchange || exchange->answered();
}

void EventStream::wake() const {
    if (auto state = m_state.lock())
        state->wake();
}

bool EventStream::isOpen() const {
    auto state = m_state.lock();
    return state && state->open;
}

HttpReply Exchange::makeReply() {
    auto token = std::make_shared<ReplyToken>();
    token->exchange = weak_from_this();
    return HttpReply(std::move(token));
}

} // namespace warren::http
