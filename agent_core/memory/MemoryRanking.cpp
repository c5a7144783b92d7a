#include "agent_core/memory/MemoryRanking.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace warren::agent {

namespace {

constexpr double kK1 = 1.2;
constexpr double kB = 0.75;

char lowerAscii(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string lowered(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), lowerAscii);
    return out;
}

bool isWordByte(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool byName(const MemoryEntry& a, const MemoryEntry& b) {
    return std::tie(a.ns, a.key) < std::tie(b.ns, b.key);
}

std::vector<MemoryEntry> substringMatches(std::vector<MemoryEntry> entries, std::string_view query,
                                          std::size_t limit) {
    const std::string needle = lowered(query);
    std::vector<MemoryEntry> hits;
    for (auto& entry : entries) {
        if (lowered(entry.key).find(needle) != std::string::npos ||
            lowered(entry.value).find(needle) != std::string::npos)
            hits.push_back(std::move(entry));
    }
    std::sort(hits.begin(), hits.end(), byName);
    if (hits.size() > limit)
        hits.resize(limit);
    return hits;
}

std::vector<MemoryEntry> bm25Matches(std::vector<MemoryEntry> entries, std::string_view query,
                                     std::size_t limit) {
    const auto queryWordList = memoryWords(query);
    const std::set<std::string> queryWords(queryWordList.begin(), queryWordList.end());
    if (queryWords.empty() || entries.empty())
        return {};

    // Term frequencies of the query's words only: other words matter just through the length.
    std::vector<std::map<std::string, std::size_t>> frequencies(entries.size());
    std::vector<std::size_t> lengths(entries.size());
    std::map<std::string, std::size_t> documentFrequency;
    std::size_t totalLength = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        for (const auto* text : {&entries[i].key, &entries[i].value}) {
            for (auto& word : memoryWords(*text)) {
                ++lengths[i];
                if (queryWords.count(word))
                    ++frequencies[i][word];
            }
        }
        totalLength += lengths[i];
        for (const auto& [word, count] : frequencies[i])
            ++documentFrequency[word];
    }
    const auto count = static_cast<double>(entries.size());
    const double averageLength = totalLength ? static_cast<double>(totalLength) / count : 1.0;

    std::vector<std::pair<double, std::size_t>> scored;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (frequencies[i].empty())
            continue;
        double score = 0;
        for (const auto& [word, frequency] : frequencies[i]) {
            const auto withWord = static_cast<double>(documentFrequency[word]);
            const double idf = std::log(1.0 + (count - withWord + 0.5) / (withWord + 0.5));
            const auto tf = static_cast<double>(frequency);
            score += idf * tf * (kK1 + 1) /
                     (tf + kK1 * (1 - kB + kB * static_cast<double>(lengths[i]) / averageLength));
        }
        scored.emplace_back(score, i);
    }
    std::sort(scored.begin(), scored.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first)
            return a.first > b.first;
        return byName(entries[a.second], entries[b.second]);
    });
    std::vector<MemoryEntry> hits;
    for (std::size_t i = 0; i < scored.size() && hits.size() < limit; ++i)
        hits.push_back(std::move(entries[scored[i].second]));
    return hits;
}

} // namespace

std::vector<std::string> memoryWords(std::string_view text) {
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && !isWordByte(text[i]))
            ++i;
        const std::size_t start = i;
        while (i < text.size() && isWordByte(text[i]))
            ++i;
        if (i > start)
            words.push_back(lowered(text.substr(start, i - start)));
    }
    return words;
}

std::vector<MemoryEntry> rankMemory(std::vector<MemoryEntry> entries, std::string_view query,
                                    std::size_t limit, bool ranked) {
    if (limit == 0)
        return {};
    return ranked ? bm25Matches(std::move(entries), query, limit)
                  : substringMatches(std::move(entries), query, limit);
}

} // namespace warren::agent
