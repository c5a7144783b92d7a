#pragma once
// Warm containers: podman containers started before their task, so that a task's sandbox is there when it is
// asked for (issue 37; agent-sandbox's SandboxWarmPool and OpenHands' deferred start do the same). A warm
// container holds no task's data and no credential: its binds are empty slots, it has no environment of a
// task's, and it runs only the waiter (`warren-agent await-claim`), as the task's sandbox would run it: same
// image, user, seccomp profile, limits and namespaces. A task whose container would look the same (its
// shape) claims one: the host mounts the task's sources into the slots (WarmSlots), then hands the waiter
// the task's command, environment and stdio (common/WarmClaim), and the waiter execs the agent.
//
// The pool learns its shapes: a launch of a shape with `keep` > 0 starts up to `keep` containers of it after
// it (the first task of a shape starts cold), for at most kMaxWarmShapes shapes, the least recently used
// going first. Only for a rootful podman run by root (the slots are mounts of the host's); elsewhere every
// launch is cold. The containers are this process's (the owner label): it removes them when it ends, their
// janitors when it is killed, and the sweep of a later process removes what is left.

#include "common/Result.h"
#include "sandbox/container/ContainerLauncher.h"

#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace warren::sandbox {

inline constexpr std::size_t kMaxWarmShapes = 4;
// How long a claimed container may take to be ready for its claim (one still starting, or a busy host).
inline constexpr std::chrono::seconds kWarmClaimTimeout{10};
// The label on a warm container (besides the owner and kContainerLabel); it carries no task's.
inline constexpr const char* kWarmLabel = "warren.warm";

// Whether this process can keep warm containers of the engine: podman, rootful, run by root.
bool warmStartsPossible(ContainerEngine engine, bool rootlessEngine);

// What a task's launch knows of its warm side: the shape it would claim, and how to start more of it.
struct WarmPlan {
    std::string key;          // warmShapeKey() of `shape`
    PreparedContainer shape;  // in the task's own scratch directory: the claim's slot sources are the task's
    SandboxProfile profile;   // to prepare more containers of the shape
    ContainerOptions options; // the same, with the warm slots and claim directories left to each container
    int keep = 0;
    int launcherDeathSignal = 0;
};
// Pure: what makes two warm containers interchangeable: their argv with the scratch directory and the name
// made generic, and their seccomp profile (network none and loopback differ only there).
std::string warmShapeKey(const PreparedContainer& shape, const ContainerScratch& scratch);

struct WarmContainer {
    ContainerScratch scratch;
    std::optional<ContainerProcess> process;
    ~WarmContainer(); // removes the container, then its scratch directory
    WarmContainer() = default;
    WarmContainer(WarmContainer&&) = default;
};

class WarmPool {
public:
    static WarmPool& instance();
    ~WarmPool();

    // A container of the shape, out of the pool (one that already ended is dropped); nullptr when none.
    std::unique_ptr<WarmContainer> take(const std::string& key);
    // Starts containers of the plan's shape until `keep` are in the pool (or starting). An error says why
    // the last could not start; the pool keeps what did.
    Status refill(const WarmPlan& plan);
    // Removes every container of the pool.
    void clear();
    std::size_t size(const std::string& key);

private:
    WarmPool() = default;
    struct Shape {
        std::vector<std::unique_ptr<WarmContainer>> ready;
        std::uint64_t lastUsed = 0;
    };
    std::mutex m_mutex;
    std::map<std::string, Shape> m_shapes;
    std::uint64_t m_clock = 0;
};

// Makes a warm container the task's: its slots filled from the plan's shape, then the claim (the task's
// command and environment, with stdio) sent to its waiter. The task's own files (cold.command's) are written
// into its scratch first, as for a cold start. On an error the container is the caller's to drop.
Status claimWarmContainer(WarmContainer& container, const WarmPlan& plan, const PreparedContainer& cold,
                          const std::array<int, 3>& stdio);

} // namespace warren::sandbox
