#include "app/proxy/TaskToken.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QDateTime>
#include <QMessageAuthenticationCode>
#include <QRandomGenerator>
#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

namespace warren::control {

using nlohmann::json;

namespace {

constexpr std::size_t kSecretBytes = 32;
constexpr std::size_t kNonceBytes = 16;
constexpr std::size_t kMacBytes = 32; // SHA-256
// Far above any token issue() makes; a longer string is refused before it is decoded or hashed.
constexpr std::size_t kMaxTokenBytes = 4096;

constexpr auto kBase64Url = QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals;

std::string randomBytes(std::size_t count) {
    std::string bytes(count, '\0');
    for (std::size_t i = 0; i < count; i += sizeof(quint32)) {
        const quint32 word = QRandomGenerator::system()->generate();
        std::memcpy(bytes.data() + i, &word, std::min(sizeof(word), count - i));
    }
    return bytes;
}

std::string toBase64Url(const QByteArray& bytes) {
    return bytes.toBase64(kBase64Url).toStdString();
}

bool isBase64UrlText(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
               c == '_';
    });
}

std::optional<QByteArray> fromBase64Url(std::string_view text) {
    if (!isBase64UrlText(text))
        return std::nullopt;
    auto decoded =
        QByteArray::fromBase64Encoding(QByteArray(text.data(), static_cast<qsizetype>(text.size())),
                                       kBase64Url | QByteArray::AbortOnBase64DecodingErrors);
    // Only the one canonical spelling is accepted: the spare low bits of the last character are
    // ignored by the decoder, so a token whose text differs could otherwise verify as the same token.
    if (!decoded || toBase64Url(*decoded) != text)
        return std::nullopt;
    return *decoded;
}

QByteArray macOf(const std::string& secret, std::string_view payload) {
    return QMessageAuthenticationCode::hash(
        QByteArray(payload.data(), static_cast<qsizetype>(payload.size())), QByteArray::fromStdString(secret),
        QCryptographicHash::Sha256);
}

// Every byte is compared whatever the first difference, so the time taken says nothing about where a
// forged MAC goes wrong.
bool equalInConstantTime(const QByteArray& a, const QByteArray& b) {
    if (a.size() != b.size())
        return false;
    unsigned char difference = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        difference |= static_cast<unsigned char>(a[i] ^ b[i]);
    return difference == 0;
}

Error refused(std::string reason) {
    return makeError(ErrorCode::InvalidArgument, "task token refused: " + std::move(reason));
}

Result<TokenClaims> claimsFromJson(const QByteArray& text) {
    const json document = json::parse(text.begin(), text.end(), nullptr, false);
    if (!document.is_object())
        return refused("malformed");
    const auto task = document.find("task");
    const auto scopes = document.find("scopes");
    const auto expires = document.find("exp");
    const auto nonce = document.find("nonce");
    if (task == document.end() || !task->is_string() || scopes == document.end() || !scopes->is_array() ||
        expires == document.end() || !expires->is_number_integer() || nonce == document.end() ||
        !nonce->is_string())
        return refused("malformed");
    TokenClaims claims;
    claims.taskId = task->get<std::string>();
    claims.expiresAtMs = expires->get<std::int64_t>();
    claims.nonce = nonce->get<std::string>();
    for (const auto& scope : *scopes) {
        if (!scope.is_string())
            return refused("malformed");
        claims.scopes.push_back(scope.get<std::string>());
    }
    return claims;
}

} // namespace

TaskTokens::TaskTokens() : m_secret(randomBytes(kSecretBytes)) {}

TaskTokens::TaskTokens(std::string secret) : m_secret(std::move(secret)) {}

std::string TaskTokens::issue(const std::string& taskId, std::vector<std::string> scopes,
                              std::chrono::milliseconds lifetime) {
    const std::string nonce = toBase64Url(QByteArray::fromStdString(randomBytes(kNonceBytes)));
    m_issuedNonces[taskId].push_back(nonce);
    const json claims = {{"task", taskId},
                         {"scopes", std::move(scopes)},
                         {"exp", QDateTime::currentMSecsSinceEpoch() + lifetime.count()},
                         {"nonce", nonce}};
    // Task ids are ours (ASCII); replace keeps dump() from throwing should one ever not be UTF-8.
    const std::string payload =
        toBase64Url(QByteArray::fromStdString(claims.dump(-1, ' ', false, json::error_handler_t::replace)));
    return payload + "." + toBase64Url(macOf(m_secret, payload));
}

Result<TokenClaims> TaskTokens::decode(const std::string& token) const {
    if (token.size() > kMaxTokenBytes)
        return refused("malformed");
    const std::size_t dot = token.find('.');
    if (dot == std::string::npos || token.find('.', dot + 1) != std::string::npos)
        return refused("malformed");
    const std::string_view payload = std::string_view(token).substr(0, dot);
    const auto payloadBytes = fromBase64Url(payload);
    const auto mac = fromBase64Url(std::string_view(token).substr(dot + 1));
    if (!payloadBytes || !mac || mac->size() != static_cast<qsizetype>(kMacBytes))
        return refused("malformed");
    // The MAC is checked before the payload is parsed: nothing an attacker wrote is interpreted.
    if (!equalInConstantTime(*mac, macOf(m_secret, payload)))
        return refused("bad signature");
    return claimsFromJson(*payloadBytes);
}

Result<TokenClaims> TaskTokens::verify(const std::string& token, const std::string& requiredScope,
                                       std::int64_t nowMs) const {
    auto claims = decode(token);
    if (!claims)
        return claims;
    if (m_revokedNonces.count(claims->nonce) != 0)
        return refused("revoked");
    if (nowMs >= claims->expiresAtMs)
        return refused("expired");
    if (std::find(claims->scopes.begin(), claims->scopes.end(), requiredScope) == claims->scopes.end())
        return refused("no scope " + requiredScope);
    return claims;
}

void TaskTokens::revoke(const std::string& token) {
    // Only a token this instance signed names a nonce worth remembering.
    if (const auto claims = decode(token))
        m_revokedNonces.insert(claims->nonce);
}

void TaskTokens::revokeTask(const std::string& taskId) {
    // Only this instance's tokens verify, and it remembers each one's nonce by task.
    if (auto issued = m_issuedNonces.find(taskId); issued != m_issuedNonces.end()) {
        m_revokedNonces.insert(issued->second.begin(), issued->second.end());
        m_issuedNonces.erase(issued);
    }
}

} // namespace warren::control
