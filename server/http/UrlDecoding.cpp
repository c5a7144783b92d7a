#include "server/http/UrlDecoding.h"

#include <QStringDecoder>

namespace warren::http {

namespace {

std::optional<QString> strictUtf8(const QByteArray& bytes) {
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    QString text = decoder.decode(bytes);
    if (decoder.hasError())
        return std::nullopt;
    return text;
}

} // namespace

std::optional<QStringList> decodePathSegments(QByteArrayView rawPath) {
    if (!rawPath.startsWith('/'))
        return std::nullopt;
    QStringList segments;
    for (const QByteArray& raw : rawPath.sliced(1).toByteArray().split('/')) {
        auto segment = strictUtf8(QByteArray::fromPercentEncoding(raw));
        if (!segment)
            return std::nullopt;
        segments.append(*segment);
    }
    return segments;
}

QString decodeQueryComponent(QByteArrayView raw) {
    QByteArray spaced = raw.toByteArray();
    spaced.replace('+', ' ');
    return QString::fromUtf8(QByteArray::fromPercentEncoding(spaced));
}

} // namespace warren::http
