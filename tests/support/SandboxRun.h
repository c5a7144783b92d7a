#pragma once
// Test-side helpers for the integration suites: run warren-sandbox as a separate process and collect
// what it did, in a throwaway workspace that holds a copy of sandbox-probe. The binaries under test come
// from the environment (WARREN_SANDBOX, WARREN_PROBE), set by CTest.

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

namespace warren::test {

// What one run of a program did.
struct RunOutcome {
    int exitCode = -1;      // the exit status; -1 when the program did not exit normally
    bool crashed = false;   // the program itself died of a signal (warren-sandbox must never do that)
    bool hung = false;      // it outlived the harness's deadline and was killed
    qint64 pid = 0;         // the program's process id (what warren-sandbox labels its containers with)
    QByteArray out;
    QByteArray err;

    bool exited() const { return !crashed && !hung; }
    // The first line of stdout, trimmed: the probe's verdict ("ok", "errno EPERM", ...).
    QString verdict() const;
    // The probe reported a failed operation: exit status 1 and a verdict starting with "errno".
    bool probeFailed() const;
    // Exit status, verdict and both streams, for a failure message.
    QString describe() const;
};

struct RunOptions {
    QString workingDirectory;                    // empty: the test's own
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    QByteArray input;                            // written to stdin, which is then closed
    int deadlineMs = 180000;                     // a safety net against a hung run, not a timing check
};

// 128 + the signal: what warren-sandbox reports when COMMAND was killed by that signal.
constexpr int exitForSignal(int signal) { return 128 + signal; }

QString sandboxBinary(); // $WARREN_SANDBOX
QString probeBinary();   // $WARREN_PROBE
// Empty when both are set and exist, otherwise what is missing (for QFAIL in initTestCase).
QString missingBinaries();
// Empty when a trivial command runs in the sandbox as uid 1000, otherwise why not. Every suite checks this
// first: an attack "fails" trivially in a sandbox that does not start, which must not pass for a defence.
QString sandboxUnusable();

RunOutcome runProgram(const QString& program, const QStringList& arguments, const RunOptions& options = {});
// warren-sandbox ARGUMENTS.
RunOutcome runSandbox(const QStringList& arguments, const RunOptions& options = {});

// A temporary directory used as the sandbox's workspace, removed with everything in it on destruction.
class Workspace {
public:
    Workspace();

    bool isValid() const { return m_dir.isValid(); }
    QString path() const { return m_dir.path(); }
    QString hostPath(const QString& relative) const; // where a workspace-relative path is on the host

    // Copies sandbox-probe in as ./sandbox-probe (inside: /workspace/sandbox-probe).
    bool installProbe();
    bool writeFile(const QString& relative, const QByteArray& content, bool executable = false) const;
    QByteArray readFile(const QString& relative) const;
    bool exists(const QString& relative) const;
    // Every path below the workspace (relative, sorted, directories with a trailing '/'), to show that
    // a run left nothing behind.
    QStringList entries() const;

    // warren-sandbox --workspace PATH SANDBOXOPTIONS -- COMMAND...
    RunOutcome run(const QStringList& command, const QStringList& sandboxOptions = {},
                   const RunOptions& options = {}) const;
    // The probe inside the sandbox: run({"/workspace/sandbox-probe", PROBEARGUMENTS...}, ...).
    RunOutcome probe(const QStringList& probeArguments, const QStringList& sandboxOptions = {},
                     const RunOptions& options = {}) const;

private:
    QTemporaryDir m_dir;
};

// The probe's path inside the sandbox, once installed in the workspace.
inline constexpr const char* kProbeInside = "/workspace/sandbox-probe";

} // namespace warren::test
