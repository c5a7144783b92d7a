#include "sandbox/bwrap/BwrapSandbox.h"

#include "sandbox/PlaceholderRecord.h"
#include "sandbox/Preflight.h"
#include "sandbox/bwrap/SandboxSetup.h"

#include <sstream>
#include <unistd.h>

namespace warren::sandbox {
namespace {

// What the host lacks, after bwrap failed: the preflight's failed checks with their fixes.
std::string failedChecks() {
    const PreflightReport report = runPreflight();
    if (report.ok())
        return "The host passes every preflight check; bwrap's message above says what failed.";
    return "Preflight:\n" + report.describe();
}

class BwrapSandbox : public RunningSandbox {
public:
    BwrapSandbox(PreparedSandbox prepared, PlaceholderRecord placeholders, SandboxProcess process)
        : m_prepared(std::move(prepared)), m_placeholders(std::move(placeholders)), m_process(std::move(process)) {}
    ~BwrapSandbox() override {
        m_process.reset(); // kills and reaps a sandbox still running; then its mount points are free
        m_placeholders.clear();
    }

    Backend backend() const override { return Backend::Bwrap; }
    const SandboxProfile& profile() const override { return m_prepared.profile; }
    const ProtectionPlan& protection() const override { return m_prepared.protection; }
    std::string commandLine() const override { return m_prepared.command.commandLine(); }
    int pidfd() const override { return m_process->pidfd(); }
    int statusFd() const override { return m_process->statusFd(); }
    void readStatus() override { m_process->readStatus(); }
    std::optional<SandboxExit> wait(std::optional<std::chrono::milliseconds> timeout,
                                    int interruptFd) override {
        return m_process->wait(timeout, interruptFd);
    }
    std::optional<SandboxExit> exitStatus() override { return m_process->wait(std::chrono::milliseconds(0)); }
    void terminate() override { m_process->terminate(); }
    void kill() override { m_process->kill(); }
    std::string setupFailureReport() const override { return failedChecks(); }

private:
    PreparedSandbox m_prepared;
    PlaceholderRecord m_placeholders;
    std::optional<SandboxProcess> m_process;
};

class BwrapLaunch : public SandboxLaunch {
public:
    BwrapLaunch(PreparedSandbox prepared, LaunchOptions stdio)
        : m_prepared(std::move(prepared)), m_stdio(stdio) {}

    std::string explain() const override;
    // bwrap maps the sandbox's user to the invoking one.
    std::optional<HostOwner> hostOwner() const override { return HostOwner{::getuid(), ::getgid()}; }
    Result<std::unique_ptr<RunningSandbox>> start() override {
        // Recorded before bwrap makes any mount point in the workspace: a launcher killed from here on leaves
        // a record for the sweep.
        auto placeholders = PlaceholderRecord::write(Backend::Bwrap, m_prepared.profile.workspaceSource,
                                                     m_prepared.protection);
        if (!placeholders)
            return placeholders.error();
        auto process = SandboxProcess::start(m_prepared.command, m_prepared.limits,
                                             std::move(m_prepared.cgroup), m_stdio);
        if (!process) { // bwrap may have made mount points before it failed
            placeholders->clear();
            return makeError(process.error().code, process.error().message + "\n" + failedChecks());
        }
        return std::unique_ptr<RunningSandbox>(
            new BwrapSandbox(std::move(m_prepared), std::move(*placeholders), std::move(*process)));
    }

private:
    PreparedSandbox m_prepared;
    LaunchOptions m_stdio;
};

std::string BwrapLaunch::explain() const {
    std::ostringstream out;
    out << "# Resolved profile\n" << m_prepared.profile.toJson().dump(2) << "\n\n# Limits\n";
    for (const auto& note : m_prepared.limits.notes)
        out << "- " << note << "\n";
    out << "\n# Protected paths in " << m_prepared.profile.workspaceSource << "\n";
    for (const auto& entry : m_prepared.protection.entries)
        out << "- " << entry.relative << ": " << protectionKindName(entry.kind) << "\n";
    out << "\n# Descriptors passed to bwrap\n- " << BwrapCommand::kStatusFd << ": bwrap status (JSON)\n";
    for (const auto& data : m_prepared.command.dataFds)
        out << "- " << data.fd << ": " << data.purpose << " (" << data.bytes.size() << " bytes)\n";
    out << "\n# Command line\n" << m_prepared.command.commandLine() << "\n";
    return out.str();
}

} // namespace

Result<std::unique_ptr<SandboxLaunch>> prepareBwrapLaunch(SandboxRequest request) {
    SetupOptions options;
    options.hostEnv = std::move(request.hostEnv);
    options.createCgroup = !request.explainOnly;
    if (!request.explainOnly) // what killed launchers left; their sandboxes died with them
        sweepPlaceholderRecords({Backend::Bwrap});
    options.commandIsInit = request.commandIsInit;
    auto prepared = prepareSandbox(std::move(request.profile), request.command, options);
    if (!prepared)
        return prepared.error();
    return std::unique_ptr<SandboxLaunch>(new BwrapLaunch(std::move(*prepared), request.stdio));
}

} // namespace warren::sandbox
