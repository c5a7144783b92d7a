#include "sandbox/container/KeptPreflight.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <unistd.h>

namespace warren::sandbox {

namespace {

using Clock = std::chrono::steady_clock;

struct Kept {
    std::mutex mutex;
    std::map<std::string, std::pair<Clock::time_point, PreflightReport>> engines; // the engine's checks
    std::map<std::string, Clock::time_point> images;                              // engine key, image
    std::map<std::string, Clock::time_point> sweeps;                              // engine path
};

Kept& kept() {
    static Kept instance;
    return instance;
}

bool fresh(Clock::time_point at, Clock::time_point now) {
    return now - at < kPreflightKept;
}

std::string variable(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// What chooses the engine and the configuration it answers from: another value is another engine.
std::string engineKey(ContainerEngine engine) {
    std::string key = containerEngineName(engine) + '\n' + std::to_string(geteuid());
    for (const char* name : {"PATH", "CONTAINERS_CONF", "CONTAINER_HOST", "DOCKER_HOST", "XDG_RUNTIME_DIR"})
        key += '\n' + variable(name);
    return key;
}

} // namespace

PreflightReport keptContainerPreflight(ContainerEngine engine, const std::string& image, const SandboxLimits& limits) {
    Kept& memory = kept();
    const std::string key = engineKey(engine);
    const std::string imageKey = key + '\n' + image;
    std::optional<PreflightReport> engineChecks;
    bool imagePresent = false;
    {
        std::lock_guard lock(memory.mutex);
        const auto now = Clock::now();
        if (auto found = memory.engines.find(key); found != memory.engines.end() && fresh(found->second.first, now))
            engineChecks = found->second.second;
        if (auto found = memory.images.find(imageKey); found != memory.images.end() && fresh(found->second, now))
            imagePresent = true;
    }
    if (!engineChecks) {
        engineChecks = containerEngineChecks(engine);
        if (engineChecks->ok()) {
            std::lock_guard lock(memory.mutex);
            memory.engines[key] = {Clock::now(), *engineChecks};
        }
    }
    PreflightReport report = std::move(*engineChecks);
    if (!engineAnswered(report))
        return report;
    if (imagePresent) {
        report.checks.push_back({"image", PreflightCheck::Status::Ok,
                                 image + " was present at a launch less than " +
                                     std::to_string(kPreflightKept.count()) + " s ago",
                                 {}});
    } else {
        report.checks.push_back(containerImageCheck(engine, report.enginePath, image));
        if (report.checks.back().status == PreflightCheck::Status::Ok) {
            std::lock_guard lock(memory.mutex);
            memory.images[imageKey] = Clock::now();
        }
    }
    report.checks.push_back(containerLimitsCheck(engine, report.engine, limits));
    return report;
}

bool sweepDue(const std::string& enginePath) {
    Kept& memory = kept();
    std::lock_guard lock(memory.mutex);
    const auto now = Clock::now();
    auto& last = memory.sweeps[enginePath];
    if (last != Clock::time_point{} && fresh(last, now))
        return false;
    last = now;
    return true;
}

} // namespace warren::sandbox
