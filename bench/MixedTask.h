#pragma once
// A finished task of mixed events, written through the Store as a run leaves it: the kinds cycle as an
// agent's step does (the step, the model's reply with its tokens, a shell call with coloured output, its
// result, a file change with its diff), ten events a step; the last event ends the task. The window's
// benchmarks open it.

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace warren::bench {

std::string timestampOf(std::uint64_t seq); // a ts that grows with seq
// One event of a mixed task of total events.
nlohmann::json mixedEvent(std::uint64_t seq, std::uint64_t total);
// Writes the task (its id returned) into dataDir's warren.db before any control plane opens it; exits the
// program with a message when the store refuses.
std::string writeMixedTask(const std::filesystem::path& dataDir, const std::filesystem::path& workspace,
                           std::uint64_t total);

} // namespace warren::bench
