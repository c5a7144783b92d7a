#pragma once
// The claim of a warm container: what the control plane sends the waiter of a container it started before
// any task (`warren-agent await-claim SOCKET`, sandbox/container/WarmPool) to make it a task's sandbox. The
// waiter listens on a Unix socket in a directory of its own that the host binds into the container; the
// host connects, sends one claim with the task's stdin, stdout and stderr attached (SCM_RIGHTS), and reads
// until the connection closes: the waiter's exec of the claim's command closes it (close-on-exec) without a
// word, and a failure is one line, "error: WHY". One definition for both sides.

#include "common/Result.h"
#include "common/UniqueFd.h"

#include <array>
#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace warren {

struct WarmClaim {
    std::vector<std::string> argv;          // argv[0] an absolute path in the container
    std::map<std::string, std::string> env; // set over the container's own (the image's, the engine's)
    std::string cwd;                        // absolute
    friend bool operator==(const WarmClaim&, const WarmClaim&) = default;
};

// A claim's bytes are at most this (the agent's command and its environment are a few KiB).
inline constexpr std::size_t kMaxWarmClaimBytes = 256 * 1024;

// Pure: one JSON line, and back. Decoding refuses what is not exactly a claim (unknown fields, a relative
// path, a NUL or '=' in a name, a NUL anywhere).
std::string encodeWarmClaim(const WarmClaim& claim);
Result<WarmClaim> decodeWarmClaim(std::string_view line);

// The host's side: sends the claim with stdio (-1: /dev/null) on a connected socket, then waits until the
// waiter closes it (its exec) or says why it could not, at most `timeout`.
Status sendWarmClaim(int socket, const WarmClaim& claim, const std::array<int, 3>& stdio,
                     std::chrono::milliseconds timeout);
// The waiter's side: one claim from an accepted connection, with the three descriptors it carried.
struct ReceivedClaim {
    WarmClaim claim;
    std::array<UniqueFd, 3> stdio;
};
Result<ReceivedClaim> receiveWarmClaim(int socket);

} // namespace warren
