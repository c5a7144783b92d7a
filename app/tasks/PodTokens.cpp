#include "app/tasks/PodTokens.h"

#include "common/FileText.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <algorithm>
#include <charconv>

namespace warren::control {

namespace {

constexpr const char* kFileName = "pod-tokens";

bool isDigest(std::string_view text) {
    return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

} // namespace

std::string podTokenDigest(std::string_view token) {
    return QCryptographicHash::hash(QByteArray(token.data(), static_cast<qsizetype>(token.size())),
                                    QCryptographicHash::Sha256)
        .toHex()
        .toStdString();
}

std::vector<PodToken> parsePodTokens(std::string_view text) {
    std::vector<PodToken> tokens;
    while (!text.empty()) {
        const std::size_t end = std::min(text.find('\n'), text.size());
        const std::string_view line = text.substr(0, end);
        text.remove_prefix(std::min(end + 1, text.size()));
        const std::size_t space = line.find(' ');
        if (space == std::string_view::npos || !isDigest(line.substr(0, space)))
            continue;
        const std::string_view expiry = line.substr(space + 1);
        std::int64_t expiresAtMs = 0;
        const auto [last, error] = std::from_chars(expiry.data(), expiry.data() + expiry.size(), expiresAtMs);
        if (error != std::errc() || last != expiry.data() + expiry.size() || expiry.empty())
            continue;
        tokens.push_back({std::string(line.substr(0, space)), expiresAtMs});
    }
    return tokens;
}

std::string formatPodTokens(const std::vector<PodToken>& tokens) {
    std::string text;
    for (const PodToken& token : tokens)
        text += token.sha256 + " " + std::to_string(token.expiresAtMs) + "\n";
    return text;
}

std::vector<PodToken> keptPodTokens(std::vector<PodToken> tokens, const PodToken& added, std::int64_t nowMs) {
    std::erase_if(tokens,
                  [&](const PodToken& token) { return token.expiresAtMs <= nowMs || token == added; });
    tokens.push_back(added);
    if (tokens.size() > kMaxPodTokens)
        tokens.erase(tokens.begin(), tokens.end() - static_cast<std::ptrdiff_t>(kMaxPodTokens));
    return tokens;
}

std::vector<PodToken> readPodTokens(const DataDir& data, const std::string& taskId) {
    auto text = readFileText(data.taskFile(taskId, kFileName));
    return text ? parsePodTokens(*text) : std::vector<PodToken>{};
}

Status keepPodTokens(const DataDir& data, const std::string& taskId, const std::vector<PodToken>& tokens) {
    return data.keepTaskFile(taskId, kFileName, formatPodTokens(tokens));
}

void forgetPodTokens(const DataDir& data, const std::string& taskId) {
    data.forgetTaskFile(taskId, kFileName);
}

} // namespace warren::control
