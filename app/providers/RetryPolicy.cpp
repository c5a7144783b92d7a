#include "app/providers/RetryPolicy.h"

#include <algorithm>

namespace warren::control {

using std::chrono::milliseconds;

bool RetryPolicy::isRetryableStatus(int status) {
    switch (status) {
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
    case 529:
        return true;
    default:
        return false;
    }
}

std::optional<milliseconds> parseRetryAfter(const QByteArray& value, const QDateTime& now) {
    const QByteArray trimmed = value.trimmed();
    if (trimmed.isEmpty())
        return std::nullopt;
    bool isNumber = false;
    const qlonglong seconds = trimmed.toLongLong(&isNumber);
    if (isNumber)
        return seconds < 0 ? std::nullopt : std::optional(milliseconds(seconds * 1000));
    // HTTP-date (RFC 9110: IMF-fixdate, always "GMT"); Qt's RFC 2822 reader wants a numeric zone.
    QString date = QString::fromLatin1(trimmed);
    if (date.endsWith(QLatin1String(" GMT")))
        date = date.left(date.size() - 4) + QLatin1String(" +0000");
    const QDateTime when = QDateTime::fromString(date, Qt::RFC2822Date);
    if (!when.isValid())
        return std::nullopt;
    return milliseconds(std::max<qint64>(0, now.msecsTo(when)));
}

milliseconds RetryPolicy::delay(int attempt, const QByteArray& retryAfter, const QByteArray& retryAfterMs,
                                const QDateTime& now) const {
    bool isNumber = false;
    const qlonglong asked = retryAfterMs.trimmed().toLongLong(&isNumber);
    if (isNumber && asked >= 0)
        return std::min(milliseconds(asked), maxDelay);
    if (const auto fromHeader = parseRetryAfter(retryAfter, now))
        return std::min(*fromHeader, maxDelay);
    // Doubling from baseDelay; the shift is bounded so a large attempt count cannot overflow.
    const int shift = std::clamp(attempt - 1, 0, 30);
    const milliseconds backoff = baseDelay * (qint64{1} << shift);
    return std::min(backoff, maxDelay);
}

} // namespace warren::control
