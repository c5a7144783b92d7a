#pragma once
// The tokens a cluster task's pods hold (in their Secrets, for their agents' hellos), kept as SHA-256 digests
// in tasks/<id>/pod-tokens while a pod of the task may run. warrend's replicas share the data directory, so
// the replica that takes a task over from one that died knows the task's pod when its agent reconnects with
// the dead replica's token, which no other replica can verify (each signs with its own secret). A digest
// grants nothing to whoever reads the file, and is accepted only for the agent of a task a replica expects.
// A launch that follows a pod left running (SandboxRequest::rejoin) adds its own token's digest to those
// there (it may make a new pod instead); a launch that makes its pod afresh replaces them; the run's end
// removes the file.

#include "app/tasks/DataDir.h"
#include "common/Result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warren::control {

struct PodToken {
    std::string sha256; // lowercase hex
    std::int64_t expiresAtMs = 0;
    friend bool operator==(const PodToken&, const PodToken&) = default;
};

inline constexpr std::size_t kMaxPodTokens =
    8; // the newest kept: a pod older than that many launches is gone

std::string podTokenDigest(std::string_view token); // lowercase hex SHA-256

// Pure. Lines "<64 hex> <expiry, Unix ms>"; another line is skipped.
std::vector<PodToken> parsePodTokens(std::string_view text);
std::string formatPodTokens(const std::vector<PodToken>& tokens);
// Pure: those of tokens not expired at nowMs, then added, the newest kMaxPodTokens of them.
std::vector<PodToken> keptPodTokens(std::vector<PodToken> tokens, const PodToken& added, std::int64_t nowMs);

std::vector<PodToken> readPodTokens(const DataDir& data, const std::string& taskId); // none when unreadable
Status keepPodTokens(const DataDir& data, const std::string& taskId, const std::vector<PodToken>& tokens);
void forgetPodTokens(const DataDir& data, const std::string& taskId);

} // namespace warren::control
