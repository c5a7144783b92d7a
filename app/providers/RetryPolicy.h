#pragma once
// When a failed model call is tried again, and after how long. Pure: the HTTP call asks, a test checks.

#include <QByteArray>
#include <QDateTime>

#include <chrono>
#include <optional>

namespace warren::control {

struct RetryPolicy {
    int maxRetries = 4;
    std::chrono::milliseconds baseDelay{500};
    std::chrono::milliseconds maxDelay{30000};

    // 429 (rate limited), 500, 502, 503, 504 and Anthropic's 529 (overloaded) are worth another try; any
    // other status will answer the same way again.
    static bool isRetryableStatus(int status);

    // The delay before retry number attempt (1 for the first retry): what the server asked for through
    // Retry-After (seconds or an HTTP-date, relative to now) or retry-after-ms, else baseDelay * 2^(attempt-1);
    // either way at most maxDelay, so a server asking for an hour makes the call fail instead of hanging.
    std::chrono::milliseconds delay(int attempt, const QByteArray& retryAfter, const QByteArray& retryAfterMs,
                                    const QDateTime& now) const;
};

// Retry-After as a delay: "120" or "Wed, 21 Oct 2015 07:28:00 GMT". nullopt when absent or unreadable;
// a date in the past is zero.
std::optional<std::chrono::milliseconds> parseRetryAfter(const QByteArray& value, const QDateTime& now);

} // namespace warren::control
