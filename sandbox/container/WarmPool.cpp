#include "sandbox/container/WarmPool.h"

#include "common/UniqueFd.h"
#include "common/WarmClaim.h"
#include "sandbox/container/WarmSlots.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace warren::sandbox {
namespace {

using Clock = std::chrono::steady_clock;

std::string replaced(std::string word, const std::string& from, const std::string& to) {
    if (from.empty())
        return word;
    for (std::size_t at = word.find(from); at != std::string::npos; at = word.find(from, at + to.size()))
        word.replace(at, from.size(), to);
    return word;
}

bool ended(const ContainerProcess& process) {
    pollfd fd{process.pidfd(), POLLIN, 0};
    return ::poll(&fd, 1, 0) != 0;
}

// The waiter listens once it has started; until then its socket is missing or refuses.
Result<UniqueFd> connectWaiter(const WarmContainer& container, Clock::time_point deadline) {
    const std::string path = container.scratch.dataDir + "/" + kWarmClaimName + "/" + kClaimSocketName;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof(address.sun_path))
        return makeError(ErrorCode::InvalidArgument, "the warm container's socket path is too long: " + path);
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    while (true) {
        UniqueFd socket(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        if (!socket.valid())
            return makeError(ErrorCode::System, std::string("cannot make a socket: ") + std::strerror(errno));
        if (::connect(socket.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0)
            return socket;
        if (errno != ENOENT && errno != ECONNREFUSED && errno != EINTR)
            return makeError(ErrorCode::System, "cannot reach the warm container's waiter: " +
                                                    std::string(std::strerror(errno)));
        if (!container.process || ended(*container.process))
            return makeError(ErrorCode::Unavailable, "the warm container ended before its claim");
        if (Clock::now() >= deadline)
            return makeError(ErrorCode::Unavailable, "the warm container's waiter did not listen within " +
                                                         std::to_string(kWarmClaimTimeout.count()) + " s");
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

// A new container of the plan's shape, its waiter starting.
Result<std::unique_ptr<WarmContainer>> startWarmContainer(const WarmPlan& plan) {
    auto scratch = makeContainerScratch();
    if (!scratch)
        return scratch.error();
    auto container = std::make_unique<WarmContainer>();
    container->scratch = *scratch;
    ContainerOptions options = plan.options;
    options.warm->slotsDir = scratch->dataDir + "/" + kWarmSlotsName;
    options.warm->claimDir = scratch->dataDir + "/" + kWarmClaimName;
    auto prepared = prepareContainer(plan.profile, options, scratch->dataDir, scratch->containerName);
    if (!prepared)
        return prepared.error();
    if (warmShapeKey(*prepared, *scratch) != plan.key) // the workspace's owner changed since, say
        return makeError(ErrorCode::Unavailable,
                         "the shape of the task's container changed since its launch");
    if (auto made = makeWarmDirectories(scratch->dataDir, prepared->command); !made)
        return made.error();
    // The seccomp profile only: the rest of a task's files are the task's, bound at its claim.
    if (auto written = writeContainerFiles(prepared->request.seccompProfilePath, prepared->seccomp.json, {},
                                           prepared->profile, prepared->protection, std::nullopt);
        !written)
        return written.error();
    UniqueFd devnull(::open("/dev/null", O_RDWR | O_CLOEXEC));
    if (!devnull.valid())
        return makeError(ErrorCode::System, std::string("cannot open /dev/null: ") + std::strerror(errno));
    std::vector<std::string> argv = prepared->command.argv;
    argv.front() = containerEnginePath(options.engine, options.enginePath);
    std::vector<std::string> remove{argv.front(), "rm", "--force", scratch->containerName};
    auto process = ContainerProcess::spawn(std::move(argv), scratch->containerName, {std::move(remove)},
                                           false, LaunchOptions{devnull.get(), devnull.get(), devnull.get()},
                                           plan.launcherDeathSignal);
    if (!process)
        return process.error();
    container->process.emplace(std::move(*process));
    return container;
}

} // namespace

bool warmStartsPossible(ContainerEngine engine, bool rootlessEngine) {
    return engine == ContainerEngine::Podman && !rootlessEngine && ::getuid() == 0;
}

std::string warmShapeKey(const PreparedContainer& shape, const ContainerScratch& scratch) {
    std::string key;
    for (const auto& word : shape.command.argv)
        key += replaced(replaced(word, scratch.dataDir, "{scratch}"), scratch.containerName, "{name}") + '\n';
    return key + shape.seccomp.json;
}

WarmContainer::~WarmContainer() {
    process.reset(); // stops and removes the container first
    removeContainerScratch(scratch);
}

WarmPool& WarmPool::instance() {
    static WarmPool pool;
    return pool;
}

WarmPool::~WarmPool() {
    clear();
}

std::unique_ptr<WarmContainer> WarmPool::take(const std::string& key) {
    std::vector<std::unique_ptr<WarmContainer>> gone; // removed outside the lock
    std::unique_ptr<WarmContainer> taken;
    {
        std::lock_guard lock(m_mutex);
        const auto shape = m_shapes.find(key);
        if (shape == m_shapes.end())
            return nullptr;
        shape->second.lastUsed = ++m_clock;
        auto& ready = shape->second.ready;
        while (!ready.empty() && !taken) {
            auto candidate = std::move(ready.front());
            ready.erase(ready.begin());
            if (candidate->process && !ended(*candidate->process))
                taken = std::move(candidate);
            else
                gone.push_back(std::move(candidate));
        }
    }
    return taken;
}

Status WarmPool::refill(const WarmPlan& plan) {
    std::vector<std::unique_ptr<WarmContainer>> evicted;
    std::size_t missing = 0;
    {
        std::lock_guard lock(m_mutex);
        Shape& shape = m_shapes[plan.key];
        shape.lastUsed = ++m_clock;
        const std::size_t keep = static_cast<std::size_t>(std::max(plan.keep, 0));
        missing = shape.ready.size() < keep ? keep - shape.ready.size() : 0;
        while (m_shapes.size() > kMaxWarmShapes) {
            auto oldest =
                std::min_element(m_shapes.begin(), m_shapes.end(), [](const auto& a, const auto& b) {
                    return a.second.lastUsed < b.second.lastUsed;
                });
            for (auto& container : oldest->second.ready)
                evicted.push_back(std::move(container));
            m_shapes.erase(oldest);
        }
    }
    evicted.clear();
    for (std::size_t i = 0; i < missing; ++i) {
        auto started = startWarmContainer(plan);
        if (!started)
            return started.error();
        std::lock_guard lock(m_mutex);
        m_shapes[plan.key].ready.push_back(std::move(*started));
    }
    return Ok{};
}

void WarmPool::clear() {
    std::map<std::string, Shape> shapes;
    {
        std::lock_guard lock(m_mutex);
        shapes.swap(m_shapes);
    }
}

std::size_t WarmPool::size(const std::string& key) {
    std::lock_guard lock(m_mutex);
    const auto shape = m_shapes.find(key);
    return shape == m_shapes.end() ? 0 : shape->second.ready.size();
}

Status claimWarmContainer(WarmContainer& container, const WarmPlan& plan, const PreparedContainer& cold,
                          const std::array<int, 3>& stdio) {
    const auto deadline = Clock::now() + kWarmClaimTimeout;
    const auto& view = cold.command.workspaceView;
    if (auto written = writeContainerFiles(cold.request.seccompProfilePath, cold.seccomp.json,
                                           cold.command.files, cold.profile, cold.protection, view);
        !written)
        return written;
    if (!view) // the engine makes the mount points of a cold start's protected paths; here the host does
        if (auto made = createPlaceholders(cold.profile.workspaceSource, cold.protection); !made)
            return made;
    if (auto filled =
            fillWarmSlots(container.scratch.dataDir, plan.shape.command, cold.profile.workspaceDest);
        !filled)
        return filled;
    auto socket = connectWaiter(container, deadline);
    if (!socket)
        return socket.error();
    const WarmClaim claim{cold.request.command, plan.shape.command.env, cold.profile.workspaceDest};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return sendWarmClaim(socket->get(), claim, stdio, std::max(left, std::chrono::milliseconds(1)));
}

} // namespace warren::sandbox
