// The seccomp table, its expansion into masked equalities, the strict loader, and the compiled filter
// for real: each forbidden call is made in a forked child that has loaded the filter, and the child
// reports the errno back over a pipe.
//
// Two compiled variants are used. The built-in table proves the errno a caller sees (EPERM, ENOSYS).
// A "marked" copy of the same table, every EPERM replaced by kMarker, proves that the filter made the
// decision: no kernel path returns errno 4000, so an EPERM the kernel would have returned anyway (an
// unprivileged caller, a capability check) cannot pass for the filter's work. ENOSYS rows keep their
// errno, because libc acts on it (clone3 falls back to clone); for them an unfiltered control run shows
// that the kernel itself has the call.

#include "sandbox/policy/SeccompPolicy.h"

#include <QtTest>
#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

using warren::ErrorCode;
using warren::sandbox::expandCondition;
using warren::sandbox::expandConditions;
using warren::sandbox::SeccompArgMatch;
using warren::sandbox::SeccompCondition;
using warren::sandbox::SeccompOptions;
using warren::sandbox::SeccompPolicy;
using warren::sandbox::SeccompRule;

using Op = SeccompCondition::Op;
using Matches = std::vector<SeccompArgMatch>;

Q_DECLARE_METATYPE(SeccompCondition)
Q_DECLARE_METATYPE(Matches)

namespace warren::sandbox {
// QCOMPARE prints the two sides through toString, found by argument-dependent lookup.
char* toString(const Matches& matches) {
    QByteArray text = "[";
    for (const auto& match : matches) {
        text += QByteArray("(arg") + QByteArray::number(match.index) + " & 0x" +
                QByteArray::number(static_cast<qulonglong>(match.mask), 16) + " == 0x" +
                QByteArray::number(static_cast<qulonglong>(match.value), 16) + ")";
    }
    return qstrdup(text + "]");
}
} // namespace warren::sandbox

namespace {

constexpr int kMarker = 4000;    // an errno no kernel path returns
constexpr int kSetupFailed = -1; // the probe could not prepare its attack (reported instead of an errno)
constexpr int kLoadFailed = 97;  // the child's exit status when the filter would not load
constexpr int kMaxReports = 256;

// The kernel reads these syscalls' int arguments as 32 bits; tests pass 64-bit values to check that the
// filter reads them the same way.
constexpr std::uint64_t kHigh = std::uint64_t{1} << 32;

// Not in this libc's headers yet; since Linux 5.1 new syscalls share one number on every architecture.
constexpr long kSysOpenTreeAttr = 467;

constexpr std::uint64_t kNamespaceFlags = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
                                          CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME;
// clone()'s low byte is the exit signal, so CLONE_NEWTIME (0x80) is not a flag there.
constexpr std::uint64_t kCloneNamespaceFlags = kNamespaceFlags & ~std::uint64_t{CLONE_NEWTIME};

constexpr const char* kMissingPath = "/nonexistent/warren-seccomp-probe";

// ---- the oracle the expansion is checked against: the meaning of a condition, written plainly ----

bool conditionHolds(const SeccompCondition& condition, std::uint64_t argument) {
    const std::uint64_t masked = argument & condition.mask;
    const bool listed =
        std::find(condition.values.begin(), condition.values.end(), masked) != condition.values.end();
    switch (condition.op) {
    case Op::AnyBit:
        return masked != 0;
    case Op::Eq:
    case Op::In:
        return listed;
    case Op::NotIn:
        return !listed;
    }
    return false;
}

int matchesHit(const Matches& matches, std::uint64_t argument) {
    return static_cast<int>(std::count_if(matches.begin(), matches.end(), [&](const SeccompArgMatch& match) {
        return (argument & match.mask) == match.value;
    }));
}

// Every value under `mask`, each combined with the bits outside it all clear and all set.
std::vector<std::uint64_t> argumentsAround(std::uint64_t mask) {
    std::vector<std::uint64_t> arguments;
    std::uint64_t sub = 0;
    do {
        arguments.push_back(sub);
        arguments.push_back(sub | ~mask);
        sub = (sub - mask) & mask; // next subset of mask
    } while (sub != 0);
    return arguments;
}

// ---- running a call in a child under a filter ----

struct Reports {
    int count = 0;
    int values[kMaxReports] = {};

    void add(int value) {
        if (count < kMaxReports) {
            values[count++] = value;
        }
    }
    // A raw syscall result: 0 on success, else errno.
    void call(long result) { add(result < 0 ? errno : 0); }
};

struct ChildOutcome {
    bool exited = false;
    int exitCode = 0;
    int signal = 0;
    Reports reports;

    QByteArray describe() const {
        if (!exited) {
            return "child killed by signal " + QByteArray::number(signal) + " (" + strsignal(signal) + ")";
        }
        if (exitCode == kLoadFailed) {
            return "the child could not load the filter";
        }
        QByteArray text = "child exited " + QByteArray::number(exitCode) + ", reported";
        for (int i = 0; i < reports.count; ++i) {
            text += " " + QByteArray::number(reports.values[i]);
        }
        return text;
    }
};

// Forks; the child loads `filter` (none: unfiltered control run), runs `probe` and sends its reports.
// Between fork and _exit the child only makes system calls.
ChildOutcome runInChild(const std::vector<std::uint8_t>* filter, const std::function<void(Reports&)>& probe) {
    int channel[2];
    if (pipe2(channel, O_CLOEXEC) != 0) {
        qFatal("pipe2: %s", strerror(errno));
    }
    const pid_t pid = fork();
    if (pid < 0) {
        qFatal("fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(channel[0]);
        const rlimit noCore{0, 0};
        setrlimit(RLIMIT_CORE, &noCore); // a SIGSYS death would otherwise leave a core file
        if (filter != nullptr) {
            sock_fprog program{static_cast<unsigned short>(filter->size() / sizeof(sock_filter)),
                               reinterpret_cast<sock_filter*>(const_cast<std::uint8_t*>(filter->data()))};
            if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
                prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
                _exit(kLoadFailed);
            }
        }
        Reports reports;
        probe(reports);
        const char* data = reinterpret_cast<const char*>(&reports);
        std::size_t left = sizeof reports;
        while (left > 0) {
            const ssize_t written = write(channel[1], data, left);
            if (written < 0 && errno == EINTR) {
                continue;
            }
            if (written <= 0) {
                _exit(98);
            }
            data += written;
            left -= static_cast<std::size_t>(written);
        }
        _exit(0);
    }
    close(channel[1]);
    ChildOutcome outcome;
    char* into = reinterpret_cast<char*>(&outcome.reports);
    std::size_t got = 0;
    while (got < sizeof outcome.reports) {
        const ssize_t n = read(channel[0], into + got, sizeof outcome.reports - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        got += static_cast<std::size_t>(n);
    }
    close(channel[0]);
    if (got != sizeof outcome.reports) {
        outcome.reports = Reports{};
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    outcome.exited = WIFEXITED(status);
    outcome.exitCode = outcome.exited ? WEXITSTATUS(status) : 0;
    outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return outcome;
}

std::vector<std::uint8_t> compileOrDie(const SeccompPolicy& policy, bool networkDenied,
                                       std::set<std::string> skip = {}) {
    auto program = policy.compileBpf(SeccompOptions{networkDenied, std::move(skip)});
    if (!program) {
        qFatal("compileBpf: %s", program.error().message.c_str());
    }
    return std::move(program).value();
}

const SeccompPolicy& markedPolicy() {
    static const SeccompPolicy policy = [] {
        auto rules = SeccompPolicy::builtIn().rules();
        for (auto& rule : rules) {
            if (rule.action == SeccompRule::Action::Errno && rule.errnoValue != ENOSYS) {
                rule.errnoValue = kMarker;
            }
        }
        auto marked = SeccompPolicy::fromRules(std::move(rules));
        if (!marked) {
            qFatal("marking the table: %s", marked.error().message.c_str());
        }
        return std::move(marked).value();
    }();
    return policy;
}

// ---- the attacks ----

// A process of the same uid for the cross-process attacks to aim at; it blocks until the test ends.
struct Victim {
    pid_t pid = -1;
    int release = -1;
};
Victim gVictim;
long gVictimSecret = 0x5ec7e7;

int openPty() {
    return open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
}

using Attack = void (*)(Reports&);

struct DeniedProbe {
    const char* rule;
    const char* syscall;
    const char* attempt;
    int expectedErrno;
    bool networkDenied; // compile with the network policy "none"?
    Attack attack;
};

void readVictim(Reports& r) {
    long copy = 0;
    iovec local{&copy, sizeof copy};
    iovec remote{&gVictimSecret, sizeof gVictimSecret};
    r.call(process_vm_readv(gVictim.pid, &local, 1, &remote, 1, 0));
}

void writeVictim(Reports& r) {
    long value = 0;
    iovec local{&value, sizeof value};
    iovec remote{&gVictimSecret, sizeof gVictimSecret};
    r.call(process_vm_writev(gVictim.pid, &local, 1, &remote, 1, 0));
}

void stealVictimFd(Reports& r) {
    const long pidfd = syscall(SYS_pidfd_open, gVictim.pid, 0);
    if (pidfd < 0) {
        r.add(kSetupFailed);
        return;
    }
    r.call(syscall(SYS_pidfd_getfd, pidfd, 0, 0));
}

void joinVictimNamespace(Reports& r) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/uts", gVictim.pid);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        r.add(kSetupFailed);
        return;
    }
    r.call(syscall(SYS_setns, fd, CLONE_NEWUTS));
}

template <std::uint64_t Flag> void unshareFlag(Reports& r) {
    r.call(syscall(SYS_unshare, Flag));
}

// CLONE_THREAD without CLONE_SIGHAND is refused by the kernel, so no process is created even unfiltered.
template <std::uint64_t Flag> void cloneFlag(Reports& r) {
    r.call(syscall(SYS_clone, Flag | CLONE_THREAD, 0, 0, 0, 0));
}

void cloneThreeNewUser(Reports& r) {
    clone_args arguments{};
    arguments.flags = CLONE_NEWUSER;
    arguments.exit_signal = SIGCHLD;
    const long result = syscall(SYS_clone3, &arguments, sizeof arguments);
    if (result == 0) {
        _exit(0); // the new process, had the filter let it through
    }
    r.call(result);
}

template <unsigned long Request> void ioctlPty(Reports& r) {
    const int pty = openPty();
    if (pty < 0) {
        r.add(kSetupFailed);
        return;
    }
    char argument[64] = {};
    r.call(syscall(SYS_ioctl, pty, Request, argument));
}

void bpfMapCreate(Reports& r) {
    bpf_attr attributes{};
    attributes.map_type = BPF_MAP_TYPE_ARRAY;
    attributes.key_size = 4;
    attributes.value_size = 4;
    attributes.max_entries = 1;
    r.call(syscall(SYS_bpf, BPF_MAP_CREATE, &attributes, sizeof attributes));
}

void perfCounter(Reports& r) {
    perf_event_attr attributes{};
    attributes.size = sizeof attributes;
    attributes.type = PERF_TYPE_SOFTWARE;
    attributes.config = PERF_COUNT_SW_CPU_CLOCK;
    attributes.disabled = 1;
    r.call(syscall(SYS_perf_event_open, &attributes, 0, -1, -1, 0));
}

void ioUringSetup(Reports& r) {
    alignas(8) unsigned char parameters[256] = {}; // struct io_uring_params, zeroed, with room to spare
    r.call(syscall(SYS_io_uring_setup, 8, parameters));
}

void handleOfRoot(Reports& r) {
    alignas(8) unsigned char buffer[sizeof(file_handle) + 128] = {};
    auto* handle = reinterpret_cast<file_handle*>(buffer);
    handle->handle_bytes = 128;
    int mountId = 0;
    r.call(syscall(SYS_name_to_handle_at, AT_FDCWD, "/", handle, &mountId, 0));
}

void openByHandle(Reports& r) {
    alignas(8) unsigned char buffer[sizeof(file_handle) + 8] = {};
    auto* handle = reinterpret_cast<file_handle*>(buffer);
    handle->handle_bytes = 8;
    handle->handle_type = 1;
    r.call(syscall(SYS_open_by_handle_at, AT_FDCWD, handle, O_RDONLY));
}

template <long Family, long Type, long Protocol> void socketCall(Reports& r) {
    r.call(syscall(SYS_socket, Family, Type, Protocol));
}

template <long Family, long Type, long Protocol> void socketpairCall(Reports& r) {
    int pair[2];
    r.call(syscall(SYS_socketpair, Family, Type, Protocol, pair));
}

const DeniedProbe kDeniedProbes[] = {
    {"ptrace", "ptrace", "PTRACE_ATTACH to a process of the same uid", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_ptrace, PTRACE_ATTACH, gVictim.pid, 0, 0)); }},
    {"process-vm", "process_vm_readv", "read another process's memory", EPERM, true, readVictim},
    {"process-vm", "process_vm_writev", "write another process's memory", EPERM, true, writeVictim},
    {"pidfd-getfd", "pidfd_getfd", "take another process's stdin", EPERM, true, stealVictimFd},

    {"mount-api", "mount", "mount", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_mount, nullptr, kMissingPath, nullptr, 0, nullptr)); }},
    {"mount-api", "umount2", "umount2", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_umount2, kMissingPath, 0)); }},
    {"mount-api", "pivot_root", "pivot_root", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_pivot_root, kMissingPath, kMissingPath)); }},
    {"mount-api", "move_mount", "move_mount", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_move_mount, -1, "", -1, "", 0)); }},
    {"mount-api", "open_tree", "open_tree", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_open_tree, AT_FDCWD, "/", 0)); }},
    {"mount-api", "open_tree_attr", "open_tree_attr", EPERM, true,
     [](Reports& r) { r.call(syscall(kSysOpenTreeAttr, AT_FDCWD, "/", 0, nullptr, 0)); }},
    {"mount-api", "fsopen", "fsopen(tmpfs)", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_fsopen, "tmpfs", 0)); }},
    {"mount-api", "fsmount", "fsmount", EPERM, true, [](Reports& r) { r.call(syscall(SYS_fsmount, -1, 0, 0)); }},
    {"mount-api", "fsconfig", "fsconfig", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_fsconfig, -1, 0, nullptr, nullptr, 0)); }},
    {"mount-api", "fspick", "fspick", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_fspick, AT_FDCWD, kMissingPath, 0)); }},
    {"mount-api", "mount_setattr", "mount_setattr", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_mount_setattr, -1, "", 0, nullptr, 0)); }},

    {"unshare-namespaces", "unshare", "CLONE_NEWNS", EPERM, true, unshareFlag<CLONE_NEWNS>},
    {"unshare-namespaces", "unshare", "CLONE_NEWCGROUP", EPERM, true, unshareFlag<CLONE_NEWCGROUP>},
    {"unshare-namespaces", "unshare", "CLONE_NEWUTS", EPERM, true, unshareFlag<CLONE_NEWUTS>},
    {"unshare-namespaces", "unshare", "CLONE_NEWIPC", EPERM, true, unshareFlag<CLONE_NEWIPC>},
    {"unshare-namespaces", "unshare", "CLONE_NEWUSER", EPERM, true, unshareFlag<CLONE_NEWUSER>},
    {"unshare-namespaces", "unshare", "CLONE_NEWPID", EPERM, true, unshareFlag<CLONE_NEWPID>},
    {"unshare-namespaces", "unshare", "CLONE_NEWNET", EPERM, true, unshareFlag<CLONE_NEWNET>},
    {"unshare-namespaces", "unshare", "CLONE_NEWTIME", EPERM, true, unshareFlag<CLONE_NEWTIME>},
    {"unshare-namespaces", "unshare", "CLONE_NEWUSER with CLONE_FILES", EPERM, true,
     unshareFlag<CLONE_NEWUSER | CLONE_FILES>},
    {"clone-namespaces", "clone", "CLONE_NEWNS", EPERM, true, cloneFlag<CLONE_NEWNS>},
    {"clone-namespaces", "clone", "CLONE_NEWCGROUP", EPERM, true, cloneFlag<CLONE_NEWCGROUP>},
    {"clone-namespaces", "clone", "CLONE_NEWUTS", EPERM, true, cloneFlag<CLONE_NEWUTS>},
    {"clone-namespaces", "clone", "CLONE_NEWIPC", EPERM, true, cloneFlag<CLONE_NEWIPC>},
    {"clone-namespaces", "clone", "CLONE_NEWUSER", EPERM, true, cloneFlag<CLONE_NEWUSER>},
    {"clone-namespaces", "clone", "CLONE_NEWPID", EPERM, true, cloneFlag<CLONE_NEWPID>},
    {"clone-namespaces", "clone", "CLONE_NEWNET", EPERM, true, cloneFlag<CLONE_NEWNET>},
    {"clone3", "clone3", "CLONE_NEWUSER (flags in memory)", ENOSYS, true, cloneThreeNewUser},
    {"setns", "setns", "join another process's namespace", EPERM, true, joinVictimNamespace},

    {"keyrings", "keyctl", "read the session keyring", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)); }},
    {"keyrings", "add_key", "add a key", EPERM, true,
     [](Reports& r) {
         r.call(syscall(SYS_add_key, "user", "warren-seccomp-probe", "x", 1, KEY_SPEC_PROCESS_KEYRING));
     }},
    {"keyrings", "request_key", "request a key", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_request_key, "user", "warren-seccomp-probe", nullptr, 0)); }},
    {"bpf", "bpf", "BPF_MAP_CREATE", EPERM, true, bpfMapCreate},
    {"perf-events", "perf_event_open", "a software counter", EPERM, true, perfCounter},
    {"userfaultfd", "userfaultfd", "userfaultfd", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK)); }},
    {"io-uring", "io_uring_setup", "a ring of 8", EPERM, true, ioUringSetup},
    {"io-uring", "io_uring_enter", "io_uring_enter", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_io_uring_enter, -1, 0, 0, 0, nullptr, 0)); }},
    {"io-uring", "io_uring_register", "io_uring_register", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_io_uring_register, -1, 0, nullptr, 0)); }},
    {"kexec", "kexec_load", "kexec_load", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_kexec_load, 0, 0, nullptr, 0xffff0000UL)); }},
    {"kexec", "kexec_file_load", "kexec_file_load", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_kexec_file_load, -1, -1, 0, nullptr, ~0UL)); }},
    {"kernel-modules", "init_module", "an empty module", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_init_module, nullptr, 0, "")); }},
    {"kernel-modules", "finit_module", "finit_module", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_finit_module, -1, "", 0)); }},
    {"kernel-modules", "delete_module", "delete_module", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_delete_module, "warren_no_such_module", O_NONBLOCK)); }},

    {"ioctl-tiocsti", "ioctl", "TIOCSTI on a pty", EPERM, true, ioctlPty<TIOCSTI>},
    {"ioctl-tiocsti", "ioctl", "TIOCSTI with bit 32 set (CVE-2019-10063)", EPERM, true,
     ioctlPty<TIOCSTI | kHigh>},
    {"ioctl-tiocsti", "ioctl", "TIOCSTI with the high word all ones", EPERM, true,
     ioctlPty<TIOCSTI | 0xffffffff00000000UL>},
    {"ioctl-tioclinux", "ioctl", "TIOCLINUX", EPERM, true, ioctlPty<TIOCLINUX>},
    {"ioctl-tioclinux", "ioctl", "TIOCLINUX with bit 63 set", EPERM, true,
     ioctlPty<TIOCLINUX | 0x8000000000000000UL>},
    {"ioctl-tiocsetd", "ioctl", "TIOCSETD", EPERM, true, ioctlPty<TIOCSETD>},
    {"ioctl-tiocsetd", "ioctl", "TIOCSETD with bit 40 set", EPERM, true, ioctlPty<TIOCSETD | (kHigh << 8)>},

    {"personality", "personality", "READ_IMPLIES_EXEC", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_personality, READ_IMPLIES_EXEC)); }},
    {"personality", "personality", "ADDR_NO_RANDOMIZE", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_personality, ADDR_NO_RANDOMIZE)); }},
    {"personality", "personality", "MMAP_PAGE_ZERO with bit 32 set", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_personality, MMAP_PAGE_ZERO | kHigh)); }},

    {"socket-families", "socket", "AF_NETLINK", EPERM, true, socketCall<AF_NETLINK, SOCK_RAW, 0>},
    {"socket-families", "socket", "AF_PACKET", EPERM, true, socketCall<AF_PACKET, SOCK_RAW, 0>},
    {"socket-families", "socket", "AF_VSOCK", EPERM, true, socketCall<AF_VSOCK, SOCK_STREAM, 0>},
    {"socket-families", "socket", "AF_ALG", EPERM, true, socketCall<AF_ALG, SOCK_SEQPACKET, 0>},
    {"socket-families", "socket", "AF_PACKET with bit 32 set", EPERM, true,
     socketCall<long{AF_PACKET} | long{1} << 32, SOCK_RAW, 0>},
    {"socket-families", "socketpair", "AF_NETLINK", EPERM, true, socketpairCall<AF_NETLINK, SOCK_RAW, 0>},
    {"socket-inet", "socket", "AF_INET", EPERM, true, socketCall<AF_INET, SOCK_STREAM, 0>},
    {"socket-inet", "socket", "AF_INET6", EPERM, true, socketCall<AF_INET6, SOCK_DGRAM, 0>},
    {"socket-inet", "socketpair", "AF_INET", EPERM, true, socketpairCall<AF_INET, SOCK_STREAM, 0>},
    {"socket-inet-types", "socket", "AF_INET SOCK_SEQPACKET (SCTP)", EPERM, false,
     socketCall<AF_INET, SOCK_SEQPACKET, 0>},
    {"socket-inet-types", "socket", "AF_INET6 SOCK_DCCP", EPERM, false, socketCall<AF_INET6, SOCK_DCCP, 0>},
    {"socket-inet-types", "socket", "AF_INET SOCK_RAW", EPERM, false, socketCall<AF_INET, SOCK_RAW, IPPROTO_ICMP>},
    {"socket-inet-types", "socket", "AF_INET SOCK_SEQPACKET|SOCK_NONBLOCK", EPERM, false,
     socketCall<AF_INET, SOCK_SEQPACKET | SOCK_NONBLOCK, 0>},
    {"socket-inet-types", "socketpair", "AF_INET SOCK_SEQPACKET", EPERM, false,
     socketpairCall<AF_INET, SOCK_SEQPACKET, 0>},
    {"socket-inet-protocols", "socket", "AF_INET IPPROTO_SCTP", EPERM, false,
     socketCall<AF_INET, SOCK_STREAM, IPPROTO_SCTP>},
    {"socket-inet-protocols", "socket", "AF_INET6 IPPROTO_UDPLITE", EPERM, false,
     socketCall<AF_INET6, SOCK_DGRAM, IPPROTO_UDPLITE>},
    {"socket-inet-protocols", "socket", "AF_INET IPPROTO_SCTP with bit 32 set", EPERM, false,
     socketCall<AF_INET, SOCK_STREAM, long{IPPROTO_SCTP} | long{1} << 32>},
    {"socket-inet-protocols", "socketpair", "AF_INET IPPROTO_SCTP", EPERM, false,
     socketpairCall<AF_INET, SOCK_STREAM, IPPROTO_SCTP>},

    {"acct", "acct", "acct", EPERM, true, [](Reports& r) { r.call(syscall(SYS_acct, kMissingPath)); }},
    {"swap", "swapon", "swapon", EPERM, true, [](Reports& r) { r.call(syscall(SYS_swapon, kMissingPath, 0)); }},
    {"swap", "swapoff", "swapoff", EPERM, true, [](Reports& r) { r.call(syscall(SYS_swapoff, kMissingPath)); }},
    {"reboot", "reboot", "reboot (with a wrong magic number)", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_reboot, 0, 0, 0, nullptr)); }},
    {"syslog", "syslog", "read the kernel log", EPERM, true,
     [](Reports& r) {
         char buffer[256];
         r.call(syscall(SYS_syslog, 3 /* SYSLOG_ACTION_READ_ALL */, buffer, sizeof buffer));
     }},
    {"quotactl", "quotactl", "quotactl", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_quotactl, 0, nullptr, 0, nullptr)); }},
    {"quotactl", "quotactl_fd", "quotactl_fd", EPERM, true,
     [](Reports& r) { r.call(syscall(SYS_quotactl_fd, -1, 0, 0, nullptr)); }},
    {"file-handles", "name_to_handle_at", "the handle of /", EPERM, true, handleOfRoot},
    {"file-handles", "open_by_handle_at", "open a file by handle", EPERM, true, openByHandle},
    {"modify-ldt", "modify_ldt", "read the LDT", EPERM, true,
     [](Reports& r) {
         char buffer[64];
         r.call(syscall(SYS_modify_ldt, 0, buffer, sizeof buffer));
     }},
    {"uselib", "uselib", "uselib", EPERM, true, [](Reports& r) { r.call(syscall(SYS_uselib, kMissingPath)); }},
};

// Calls the filter must let through, with what the kernel says about them unchanged.
struct AllowedProbe {
    const char* name;
    bool networkDenied;
    Attack call;
};

void forkWithClone(Reports& r) {
    const long child = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
    if (child == 0) {
        _exit(0);
    }
    if (child > 0) {
        waitpid(static_cast<pid_t>(child), nullptr, 0);
    }
    r.call(child);
}

void spawnTrue(Reports& r) {
    if (access("/bin/true", X_OK) != 0) {
        r.add(kSetupFailed);
        return;
    }
    pid_t child = 0;
    char name[] = "true";
    char* arguments[] = {name, nullptr};
    const int error = posix_spawn(&child, "/bin/true", nullptr, nullptr, arguments, environ);
    int status = -1;
    if (error == 0) {
        waitpid(child, &status, 0);
    }
    r.add(error);
    r.add(status);
}

void startThread(Reports& r) {
    pthread_t thread;
    const int error = pthread_create(
        &thread, nullptr, [](void*) -> void* { return nullptr; }, nullptr);
    if (error == 0) {
        pthread_join(thread, nullptr);
    }
    r.add(error);
}

void fionreadOnPipe(Reports& r) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) {
        r.add(kSetupFailed);
        return;
    }
    int available = -1;
    r.call(ioctl(ends[0], FIONREAD, &available));
    r.add(available);
}

const AllowedProbe kAllowedProbes[] = {
    {"unshare(CLONE_FILES)", true,
     [](Reports& r) {
         r.call(syscall(SYS_unshare, CLONE_FILES));
     }},
    {"unshare(CLONE_FS|CLONE_SYSVSEM)", true,
     [](Reports& r) {
         r.call(syscall(SYS_unshare, CLONE_FS | CLONE_SYSVSEM));
     }},
    {"clone(SIGCHLD), a plain fork", true, forkWithClone},
    {"libc fork", true,
     [](Reports& r) {
         const pid_t child = fork();
         if (child == 0) {
             _exit(0);
         }
         if (child > 0) {
             waitpid(child, nullptr, 0);
         }
         r.call(child);
     }},
    {"libc posix_spawn (clone3 refused, falls back to clone)", true, spawnTrue},
    {"libc pthread_create (clone3 refused, falls back to clone)", true, startThread},
    {"socket AF_UNIX SOCK_STREAM|SOCK_CLOEXEC", true, socketCall<AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0>},
    {"socket AF_UNIX SOCK_SEQPACKET", true, socketCall<AF_UNIX, SOCK_SEQPACKET, 0>},
    {"socket AF_UNIX SOCK_DGRAM PF_UNIX", true, socketCall<AF_UNIX, SOCK_DGRAM, PF_UNIX>},
    {"socketpair AF_UNIX", true, socketpairCall<AF_UNIX, SOCK_STREAM, 0>},
    {"socket AF_UNIX with bit 32 set (the kernel reads AF_UNIX)", true,
     socketCall<long{AF_UNIX} | long{1} << 32, SOCK_STREAM, 0>},
    {"network allowed: socket AF_INET TCP, nonblocking", false,
     socketCall<AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP>},
    {"network allowed: socket AF_INET6 UDP", false, socketCall<AF_INET6, SOCK_DGRAM, 0>},
    {"network allowed: socket AF_INET MPTCP", false, socketCall<AF_INET, SOCK_STREAM, IPPROTO_MPTCP>},
    {"network allowed: socket AF_INET ping", false, socketCall<AF_INET, SOCK_DGRAM, IPPROTO_ICMP>},
    {"network allowed: socket AF_INET6 ping", false, socketCall<AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6>},
    {"personality(0xffffffff), the query", true,
     [](Reports& r) {
         r.call(syscall(SYS_personality, 0xffffffffL));
     }},
    {"personality(PER_LINUX)", true,
     [](Reports& r) {
         r.call(syscall(SYS_personality, PER_LINUX));
     }},
    {"ioctl FIONREAD on a pipe", true, fionreadOnPipe},
    {"ioctl TIOCGWINSZ on a pty", true, ioctlPty<TIOCGWINSZ>},
    {"ioctl FIONREAD with bit 32 set on a pty", true, ioctlPty<FIONREAD | kHigh>},
};

// A whole argument range run through the filter and compared with what the table means.
struct ArgumentSpace {
    const char* name;
    bool networkDenied;
    std::vector<std::uint64_t> values;
    long (*call)(std::uint64_t value);
    bool (*denied)(std::uint64_t value);
};

bool isInet(std::uint64_t family) {
    const auto low = family & 0xffffffff;
    return low == AF_INET || low == AF_INET6;
}

std::vector<std::uint64_t> familyValues() {
    std::vector<std::uint64_t> values;
    for (std::uint64_t family = 0; family <= AF_MAX + 2; ++family) {
        values.push_back(family);
    }
    for (const std::uint64_t odd :
         {kHigh | AF_UNIX, kHigh | AF_INET, 0xffffffff00000000 | AF_PACKET, std::uint64_t{0x80000000},
          std::uint64_t{0xffffffff}, std::uint64_t{0x10001}}) {
        values.push_back(odd);
    }
    return values;
}

std::vector<std::uint64_t> singleBits(std::initializer_list<std::uint64_t> extra) {
    std::vector<std::uint64_t> values;
    for (unsigned bit = 0; bit < 32; ++bit) {
        values.push_back(std::uint64_t{1} << bit);
    }
    values.insert(values.end(), extra);
    return values;
}

std::vector<std::uint64_t> typeValues() {
    std::vector<std::uint64_t> values; // family in the high half of the value, type in the low
    for (const std::uint64_t family : std::initializer_list<std::uint64_t>{AF_UNIX, AF_INET, AF_INET6}) {
        for (std::uint64_t type = 0; type < 16; ++type) {
            values.push_back(family << 32 | type);
        }
        values.push_back(family << 32 | std::uint64_t{SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC});
        values.push_back(family << 32 | std::uint64_t{SOCK_SEQPACKET | SOCK_CLOEXEC});
    }
    return values;
}

std::vector<std::uint64_t> protocolValues() {
    std::vector<std::uint64_t> values; // family in the high half, protocol in the low
    for (const std::uint64_t family : std::initializer_list<std::uint64_t>{AF_UNIX, AF_INET, AF_INET6}) {
        for (const std::uint64_t protocol : std::initializer_list<std::uint64_t>{
                 0, 1, 2, IPPROTO_TCP, IPPROTO_UDP, 33 /* DCCP */, 41, IPPROTO_ICMPV6, IPPROTO_SCTP,
                 IPPROTO_UDPLITE, 255, 256 /* SMC */, IPPROTO_MPTCP, 0x80000006, 0xffffffff}) {
            values.push_back(family << 32 | protocol);
        }
    }
    return values;
}

bool inList(std::uint64_t value, std::initializer_list<std::uint64_t> list) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

const std::vector<ArgumentSpace>& argumentSpaces() {
    static const std::vector<ArgumentSpace> spaces = {
        {"socket families, network none", true, familyValues(),
         [](std::uint64_t v) { return syscall(SYS_socket, v, SOCK_DGRAM, 0); },
         [](std::uint64_t v) {
             return (v & 0xffffffff) != AF_UNIX;
         }},
        {"socket families, network allowed", false, familyValues(),
         [](std::uint64_t v) { return syscall(SYS_socket, v, SOCK_DGRAM, 0); },
         [](std::uint64_t v) {
             return (v & 0xffffffff) != AF_UNIX && !isInet(v);
         }},
        {"socket types per family, network allowed", false, typeValues(),
         [](std::uint64_t v) { return syscall(SYS_socket, v >> 32, v & 0xffffffff, 0); },
         [](std::uint64_t v) {
             return isInet(v >> 32) && !inList(v & 0xf, {SOCK_STREAM, SOCK_DGRAM});
         }},
        {"socket protocols per family, network allowed", false, protocolValues(),
         [](std::uint64_t v) {
             const long type = (v & 0xffffffff) == IPPROTO_UDP || (v & 0xffffffff) == IPPROTO_UDPLITE
                                   ? SOCK_DGRAM
                                   : SOCK_STREAM;
             return syscall(SYS_socket, v >> 32, type, v & 0xffffffff);
         },
         [](std::uint64_t v) {
             return isInet(v >> 32) && !inList(v & 0xffffffff, {0, IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP,
                                                                IPPROTO_ICMPV6, IPPROTO_MPTCP});
         }},
        // With CLONE_THREAD and no CLONE_SIGHAND the kernel refuses every one of these, so nothing is
        // created.
        {"clone flag bits", true, singleBits({kHigh, kHigh << 28 /* CLONE_NEWUSER in the high word */}),
         [](std::uint64_t v) { return syscall(SYS_clone, v | CLONE_THREAD, 0, 0, 0, 0); },
         [](std::uint64_t v) {
             return (v & kCloneNamespaceFlags) != 0;
         }},
        {"unshare flag bits", true, singleBits({kHigh, kHigh << 28}),
         [](std::uint64_t v) { return syscall(SYS_unshare, v); },
         [](std::uint64_t v) {
             return (v & kNamespaceFlags) != 0;
         }},
        {"personality values", true,
         singleBits({0, 0xffffffff, 0xfffffffe, 0x7fffffff, kHigh, kHigh | 0xffffffff, 0xffffffff00000000,
                     kHigh | PER_LINUX32}),
         [](std::uint64_t v) { return syscall(SYS_personality, v); },
         [](std::uint64_t v) {
             return !inList(v & 0xffffffff, {0, 0xffffffff});
         }},
        {"ioctl requests on a pty",
         true,
         {TIOCSTI, TIOCSTI | kHigh, TIOCSTI | 0xffffffff00000000, TIOCSTI | 0x80000000, TIOCSTI + 1,
          TIOCSTI - 1, TIOCLINUX, TIOCLINUX | kHigh << 31, TIOCLINUX - 1 /* FIONREAD */, TIOCSETD,
          TIOCSETD | kHigh << 8, TIOCSETD + 1 /* TIOCGETD */, FIONREAD | kHigh, TIOCGWINSZ},
         [](std::uint64_t v) {
             static char argument[64];
             std::memset(argument, 0, sizeof argument);
             const int pty = openPty();
             return pty < 0 ? -1L : syscall(SYS_ioctl, pty, v, argument);
         },
         [](std::uint64_t v) {
             return inList(v & 0xffffffff, {TIOCSTI, TIOCLINUX, TIOCSETD});
         }},
    };
    return spaces;
}

} // namespace

class TestSeccompPolicy : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();

    void builtInTable_data();
    void builtInTable();
    void builtInRowsAreAllAttacked();
    void alternativesAreTheExpansion();

    void expandCondition_data();
    void expandCondition();
    void expandNotInCount_data();
    void expandNotInCount();
    void expansionExhaustive_data();
    void expansionExhaustive();
    void expandConditionsCrossProduct();

    void fromJsonReads_data();
    void fromJsonReads();
    void fromJsonRejects_data();
    void fromJsonRejects();
    void fromRulesRejectsErrnoOutOfRange();

    void compileRejectsUnknownSkip();
    void compiledFilterFitsTheKernel();

    void deniedCall_data();
    void deniedCall();
    void allowedCall_data();
    void allowedCall();
    void argumentSpace_data();
    void argumentSpace();
    void foreignArchitectureIsKilled_data();
    void foreignArchitectureIsKilled();
    void killActionKillsTheProcess();
    void skipRemovesOnlyThatRow();
    void networkRuleFollowsTheOption();
};

void TestSeccompPolicy::initTestCase() {
    int release[2];
    QVERIFY(pipe2(release, O_CLOEXEC) == 0);
    const pid_t pid = fork();
    QVERIFY(pid >= 0);
    if (pid == 0) {
        close(release[1]);
        char byte;
        while (read(release[0], &byte, 1) < 0 && errno == EINTR) {
        }
        _exit(0);
    }
    close(release[0]);
    gVictim = {pid, release[1]};
}

void TestSeccompPolicy::cleanupTestCase() {
    close(gVictim.release);
    kill(gVictim.pid, SIGKILL); // it may be stopped, had a broken filter let a probe attach to it
    waitpid(gVictim.pid, nullptr, 0);
}

// ---- the table ----

void TestSeccompPolicy::builtInTable_data() {
    QTest::addColumn<int>("row");
    const auto& rules = SeccompPolicy::builtIn().rules();
    for (int i = 0; i < static_cast<int>(rules.size()); ++i) {
        QTest::newRow(rules[static_cast<std::size_t>(i)].id.c_str()) << i;
    }
}

void TestSeccompPolicy::builtInTable() {
    QFETCH(int, row);
    const auto& rules = SeccompPolicy::builtIn().rules();
    const SeccompRule& rule = rules[static_cast<std::size_t>(row)];

    QVERIFY2(rule.reason.size() >= 60, "the reason should say why the rule exists, not just name it");
    QVERIFY(!rule.syscalls.empty());
    const auto sameId = std::count_if(rules.begin(), rules.end(),
                                      [&](const SeccompRule& other) { return other.id == rule.id; });
    QCOMPARE(static_cast<int>(sameId), 1);
    // Every argument the table inspects is an int to the kernel, which ignores the upper half: a wider mask
    // would let a value with high bits set through (CVE-2019-10063).
    for (const auto& condition : rule.conditions) {
        QVERIFY2(condition.mask <= 0xffffffff, "conditions compare the 32 bits the kernel reads");
    }
    QCOMPARE(rule.errnoValue, rule.id == "clone3" ? ENOSYS : EPERM);
}

// Every (row, syscall) pair of the table is attacked for real below, by the syscall number from the
// libc headers: that also proves libseccomp resolved each name to the number the kernel uses.
void TestSeccompPolicy::builtInRowsAreAllAttacked() {
    for (const auto& rule : SeccompPolicy::builtIn().rules()) {
        for (const auto& name : rule.syscalls) {
            const bool attacked = std::any_of(
                std::begin(kDeniedProbes), std::end(kDeniedProbes),
                [&](const DeniedProbe& probe) { return rule.id == probe.rule && name == probe.syscall; });
            QVERIFY2(attacked,
                     qPrintable(QString("no attack on %1 for rule \"%2\"")
                                    .arg(QString::fromStdString(name), QString::fromStdString(rule.id))));
        }
    }
    for (const auto& probe : kDeniedProbes) {
        QVERIFY2(SeccompPolicy::builtIn().hasRule(probe.rule), probe.rule);
    }
}

void TestSeccompPolicy::alternativesAreTheExpansion() {
    for (const auto& rule : SeccompPolicy::builtIn().rules()) {
        QCOMPARE(rule.alternatives, expandConditions(rule.conditions));
        QVERIFY(!rule.alternatives.empty());
    }
}

// ---- expansion ----

void TestSeccompPolicy::expandCondition_data() {
    QTest::addColumn<SeccompCondition>("condition");
    QTest::addColumn<Matches>("expected");

    QTest::newRow("any_bit: one match per bit") << SeccompCondition{0, Op::AnyBit, 0b1010'0001, {}}
                                                << Matches{{0, 0x1, 0x1}, {0, 0x20, 0x20}, {0, 0x80, 0x80}};
    QTest::newRow("any_bit: bit 63") << SeccompCondition{2, Op::AnyBit, 1ULL << 63, {}}
                                     << Matches{{2, 1ULL << 63, 1ULL << 63}};
    QTest::newRow("eq: one masked equality")
        << SeccompCondition{1, Op::Eq, 0xffffffff, {0x5412}} << Matches{{1, 0xffffffff, 0x5412}};
    QTest::newRow("in: one match per value, ascending")
        << SeccompCondition{0, Op::In, 0xff, {10, 2}} << Matches{{0, 0xff, 2}, {0, 0xff, 10}};
    QTest::newRow("not_in: one bit, value 0 listed")
        << SeccompCondition{0, Op::NotIn, 0b1, {0}} << Matches{{0, 1, 1}};
    QTest::newRow("not_in: one bit, both values listed")
        << SeccompCondition{0, Op::NotIn, 0b1, {0, 1}} << Matches{};
    QTest::newRow("not_in: two bits, 1 listed")
        << SeccompCondition{3, Op::NotIn, 0b11, {1}} << Matches{{3, 0b11, 0b00}, {3, 0b10, 0b10}};
    QTest::newRow("not_in: two bits, 0 and 3 listed")
        << SeccompCondition{0, Op::NotIn, 0b11, {0, 3}} << Matches{{0, 0b11, 0b01}, {0, 0b11, 0b10}};
    QTest::newRow("not_in: sparse mask walks only its own bits")
        << SeccompCondition{0, Op::NotIn, 0b1001, {0b1000}} << Matches{{0, 0b1000, 0}, {0, 0b1001, 0b1001}};
    QTest::newRow("not_in: every value listed")
        << SeccompCondition{0, Op::NotIn, 0b11, {0, 1, 2, 3}} << Matches{};
    QTest::newRow("not_in: SOCK_STREAM and SOCK_DGRAM in the low 4 bits")
        << SeccompCondition{1, Op::NotIn, 0xf, {1, 2}}
        << Matches{{1, 0b1111, 0b0000}, {1, 0b1111, 0b0011}, {1, 0b1100, 0b0100}, {1, 0b1000, 0b1000}};
}

void TestSeccompPolicy::expandCondition() {
    QFETCH(SeccompCondition, condition);
    QFETCH(Matches, expected);
    QCOMPARE(::expandCondition(condition), expected);
}

void TestSeccompPolicy::expandNotInCount_data() {
    QTest::addColumn<SeccompCondition>("condition");
    QTest::addColumn<int>("count");
    // 0 and 0xffffffff part at the top bit; below it each side has 31 branches off its path.
    QTest::newRow("personality: PER_LINUX and the query")
        << SeccompCondition{0, Op::NotIn, 0xffffffff, {0, 0xffffffff}} << 62;
    // 28 zero bits above bit 3, then the paths of 1, 2 and 10 branch off 6 more times.
    QTest::newRow("socket families: AF_UNIX, AF_INET, AF_INET6")
        << SeccompCondition{0, Op::NotIn, 0xffffffff, {AF_UNIX, AF_INET, AF_INET6}} << 34;
    QTest::newRow("one value of 64 bits") << SeccompCondition{0, Op::NotIn, ~0ULL, {42}} << 64;
}

void TestSeccompPolicy::expandNotInCount() {
    QFETCH(SeccompCondition, condition);
    QFETCH(int, count);
    const auto matches = ::expandCondition(condition);
    QCOMPARE(static_cast<int>(matches.size()), count);
    // Spot checks against the oracle at the edges of the listed values.
    for (const auto listed : condition.values) {
        for (const std::uint64_t argument :
             {listed, listed + 1, listed - 1, listed ^ 0x80000000, listed | kHigh}) {
            QCOMPARE(matchesHit(matches, argument) > 0, conditionHolds(condition, argument));
        }
    }
}

// For every mask of up to four bits (dense and spread out) and every set of values under it: the
// expansion holds exactly where the condition holds, for every argument, whatever the bits outside the
// mask. Not-in matches are disjoint and at most (bits in mask) x (values) of them.
void TestSeccompPolicy::expansionExhaustive_data() {
    QTest::addColumn<quint64>("mask");
    for (quint64 mask = 1; mask < 16; ++mask) {
        QTest::addRow("mask 0x%llx", mask) << mask;
    }
    for (const quint64 mask : {0x8001ULL, 0x80000100ULL, 0x8000000000000001ULL, 0x0102040000000000ULL}) {
        QTest::addRow("mask 0x%llx", mask) << mask;
    }
}

void TestSeccompPolicy::expansionExhaustive() {
    QFETCH(quint64, mask);
    const auto arguments = argumentsAround(mask);
    std::vector<std::uint64_t> underMask; // every value the masked argument can take
    for (std::uint64_t sub = 0;;) {
        underMask.push_back(sub);
        sub = (sub - mask) & mask;
        if (sub == 0) {
            break;
        }
    }
    const int bits = std::popcount(mask);
    const auto check = [&](const SeccompCondition& condition) -> bool {
        const auto matches = ::expandCondition(condition);
        for (const auto& match : matches) {
            if (match.index != condition.index || (match.value & ~match.mask) != 0 ||
                (match.mask & ~condition.mask) != 0) {
                qWarning() << "malformed match for mask" << Qt::hex << mask;
                return false;
            }
        }
        if (condition.op == Op::NotIn &&
            static_cast<int>(matches.size()) > bits * static_cast<int>(condition.values.size())) {
            qWarning() << "too many matches:" << matches.size();
            return false;
        }
        for (const auto argument : arguments) {
            const int hits = matchesHit(matches, argument);
            if ((hits > 0) != conditionHolds(condition, argument) ||
                (condition.op == Op::NotIn && hits > 1)) {
                qWarning() << "mask" << Qt::hex << mask << "argument" << argument << "hits" << hits;
                return false;
            }
        }
        return true;
    };

    QVERIFY(check(SeccompCondition{4, Op::AnyBit, mask, {}}));
    for (const auto value : underMask) {
        QVERIFY(check(SeccompCondition{4, Op::Eq, mask, {value}}));
    }
    const std::uint64_t subsets = std::uint64_t{1} << underMask.size();
    for (std::uint64_t subset = 1; subset < subsets; ++subset) {
        SeccompCondition condition{4, Op::In, mask, {}};
        for (std::size_t i = 0; i < underMask.size(); ++i) {
            if ((subset >> i) & 1) {
                condition.values.push_back(underMask[i]);
            }
        }
        QVERIFY(check(condition));
        condition.op = Op::NotIn;
        QVERIFY(check(condition));
    }
}

void TestSeccompPolicy::expandConditionsCrossProduct() {
    QCOMPARE(expandConditions({}), std::vector<Matches>{Matches{}});

    const SeccompCondition family{0, Op::In, 0xffffffff, {AF_INET, AF_INET6}};
    const SeccompCondition type{1, Op::NotIn, 0xf, {SOCK_STREAM, SOCK_DGRAM}};
    const auto alternatives = expandConditions({family, type});
    QCOMPARE(alternatives.size(), std::size_t{2 * 4});
    QCOMPARE(alternatives.front(), (Matches{{0, 0xffffffff, AF_INET}, {1, 0xf, 0}}));
    QCOMPARE(alternatives.back(), (Matches{{0, 0xffffffff, AF_INET6}, {1, 0b1000, 0b1000}}));
    for (const std::uint64_t f :
         std::initializer_list<std::uint64_t>{0, AF_UNIX, AF_INET, AF_INET6, 0x100000002}) {
        for (std::uint64_t t = 0; t < 32; ++t) {
            const bool holds = conditionHolds(family, f) && conditionHolds(type, t);
            const bool hit =
                std::any_of(alternatives.begin(), alternatives.end(), [&](const Matches& conjunction) {
                    return std::all_of(conjunction.begin(), conjunction.end(), [&](const SeccompArgMatch& m) {
                        return ((m.index == 0 ? f : t) & m.mask) == m.value;
                    });
                });
            QCOMPARE(hit, holds);
        }
    }
}

// ---- the loader ----

void TestSeccompPolicy::fromJsonReads_data() {
    QTest::addColumn<QByteArray>("args");
    QTest::addColumn<SeccompCondition>("expected");

    QTest::newRow("names joined by |")
        << QByteArray(R"({"index": 0, "op": "any_bit", "mask": "CLONE_NEWNS|CLONE_NEWUSER"})")
        << SeccompCondition{0, Op::AnyBit, CLONE_NEWNS | CLONE_NEWUSER, {}};
    QTest::newRow("spaces around |, hex and names mixed")
        << QByteArray(R"({"index": 1, "op": "eq", "mask": "0xffff0000 | 0xffff", "value": " TIOCSTI "})")
        << SeccompCondition{1, Op::Eq, 0xffffffff, {TIOCSTI}};
    QTest::newRow("JSON numbers and decimal strings")
        << QByteArray(R"({"index": 5, "op": "in", "mask": 255, "values": [0, "17", "0x3a"]})")
        << SeccompCondition{5, Op::In, 255, {0, 17, 58}};
    QTest::newRow("not_in with names")
        << QByteArray(R"({"index": 0, "op": "not_in", "mask": "0xffffffff", "values": ["AF_UNIX"]})")
        << SeccompCondition{0, Op::NotIn, 0xffffffff, {AF_UNIX}};
    QTest::newRow("the full 64 bits")
        << QByteArray(
               R"({"index": 2, "op": "eq", "mask": "0xffffffffffffffff", "value": 18446744073709551615})")
        << SeccompCondition{2, Op::Eq, ~0ULL, {~0ULL}};
}

void TestSeccompPolicy::fromJsonReads() {
    QFETCH(QByteArray, args);
    QFETCH(SeccompCondition, expected);
    const QByteArray table =
        R"({"rules": [{"id": "r", "syscalls": ["ioctl"], "action": "errno", "errno": "EACCES",
                               "when": "network-denied", "args": [)" +
        args + R"(], "reason": "because"}]})";
    const auto policy = SeccompPolicy::fromJson(table.toStdString());
    QVERIFY2(policy.ok(), policy.ok() ? "" : policy.error().message.c_str());
    const SeccompRule& rule = policy->rules().front();
    QCOMPARE(rule.conditions.size(), std::size_t{1});
    QVERIFY(rule.conditions.front() == expected);
    QCOMPARE(rule.errnoValue, EACCES);
    QVERIFY(rule.when == SeccompRule::When::NetworkDenied);
    QCOMPARE(rule.alternatives, expandConditions({expected}));
}

void TestSeccompPolicy::fromJsonRejects_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");

    using nlohmann::json;
    const json valid = {{"id", "r"},
                        {"syscalls", json::array({"ptrace"})},
                        {"action", "errno"},
                        {"errno", "EPERM"},
                        {"reason", "why"}};
    const auto table = [](const json& rows) {
        return QByteArray::fromStdString(json{{"rules", rows}}.dump());
    };
    const auto with = [&](const char* key, const json& value) {
        json row = valid;
        row[key] = value;
        return table(json::array({row}));
    };
    const auto without = [&](const char* key) {
        json row = valid;
        row.erase(key);
        return table(json::array({row}));
    };
    const auto args = [&](const char* conditions) {
        return with("args", json::parse(conditions));
    };

    QTest::newRow("not JSON") << QByteArray("{\"rules\": [") << "not valid JSON";
    QTest::newRow("not an object") << QByteArray("[]") << "expected an object {\"rules\": [...]}";
    QTest::newRow("unknown top-level key")
        << QByteArray(R"({"rules": [], "rulez": []})") << "unknown top-level key \"rulez\"";
    QTest::newRow("duplicate key") << QByteArray(R"({"rules": [{"id": "r", "id": "s", "syscalls": ["ptrace"],
                                       "action": "errno", "errno": "EPERM", "reason": "x"}]})")
                                   << "key \"id\" appears twice";
    QTest::newRow("row not an object") << table(json::array({42})) << "rule #1: must be an object";
    QTest::newRow("unknown rule key")
        << with("sycalls", json::array()) << "rule \"r\": unknown key \"sycalls\"";
    QTest::newRow("missing id") << without("id") << "rule #1: \"id\" is required";
    QTest::newRow("id with capitals")
        << with("id", "Ptrace") << "rule \"Ptrace\": the id must be non-empty and use only a-z";
    QTest::newRow("duplicate id") << table(json::array({valid, valid}))
                                  << "rule \"r\": the id is used by an earlier rule";
    QTest::newRow("unknown syscall") << with("syscalls", json::array({"ptrace", "no_such_call"}))
                                     << "rule \"r\": \"no_such_call\" is not a system call on x86_64";
    QTest::newRow("i386-only syscall")
        << with("syscalls", json::array({"socketcall"})) << "\"socketcall\" is not a system call on x86_64";
    QTest::newRow("syscall twice") << with("syscalls", json::array({"bpf", "bpf"}))
                                   << "syscall \"bpf\" is listed twice";
    QTest::newRow("no syscalls") << with("syscalls", json::array()) << "rule \"r\": \"syscalls\" is empty";
    QTest::newRow("syscall not a string")
        << with("syscalls", json::array({101})) << "\"syscalls\" must hold names";
    QTest::newRow("unknown errno") << with("errno", "EWHATEVER") << "rule \"r\": unknown errno \"EWHATEVER\"";
    QTest::newRow("errno as a number") << with("errno", 1) << "action \"errno\" needs \"errno\", a name";
    QTest::newRow("errno missing") << without("errno") << "action \"errno\" needs \"errno\"";
    QTest::newRow("kill with errno") << with("action", "kill") << "action \"kill\" takes no \"errno\"";
    QTest::newRow("unknown action") << with("action", "deny") << "\"action\" must be \"errno\" or \"kill\"";
    QTest::newRow("unknown when") << with("when", "sometimes")
                                  << "\"when\" must be \"always\" or \"network-denied\"";
    QTest::newRow("missing reason") << without("reason") << "rule \"r\": \"reason\" is required";
    QTest::newRow("blank reason") << with("reason", "   ") << "rule \"r\": \"reason\" is empty";
    QTest::newRow("args not an array")
        << with("args", {{"index", 0}}) << "\"args\" must be a non-empty array";
    QTest::newRow("args empty") << with("args", json::array()) << "\"args\" must be a non-empty array";
    QTest::newRow("condition not an object") << args("[1]") << "each entry of \"args\" must be an object";
    QTest::newRow("condition unknown key")
        << args(R"([{"index": 0, "op": "eq", "mask": 1, "value": 1, "maks": 1}])")
        << "condition has unknown key \"maks\"";
    QTest::newRow("index out of range") << args(R"([{"index": 6, "op": "eq", "mask": 1, "value": 1}])")
                                        << "\"index\", the argument position 0-5";
    QTest::newRow("index missing") << args(R"([{"op": "eq", "mask": 1, "value": 1}])")
                                   << "condition needs \"index\"";
    QTest::newRow("unknown op") << args(R"([{"index": 0, "op": "ne", "mask": 1, "value": 1}])")
                                << "\"op\" must be \"any_bit\", \"eq\", \"in\" or \"not_in\"";
    QTest::newRow("mask missing") << args(R"([{"index": 0, "op": "eq", "value": 1}])")
                                  << "\"mask\" is required";
    QTest::newRow("mask zero") << args(R"([{"index": 0, "op": "any_bit", "mask": 0}])") << "the mask is 0";
    QTest::newRow("unknown constant")
        << args(R"([{"index": 0, "op": "any_bit", "mask": "CLONE_NEWNS|CLONE_NEWFOO"}])")
        << "unknown constant \"CLONE_NEWFOO\"";
    QTest::newRow("empty term") << args(R"([{"index": 0, "op": "any_bit", "mask": "CLONE_NEWNS||1"}])")
                                << "empty term";
    QTest::newRow("bad hex") << args(R"([{"index": 0, "op": "eq", "mask": "0xZZ", "value": 0}])")
                             << "\"0xZZ\" is not a 64-bit number";
    QTest::newRow("number too large")
        << args(R"([{"index": 0, "op": "eq", "mask": "0x1ffffffffffffffff", "value": 0}])")
        << "is not a 64-bit number";
    QTest::newRow("negative number") << args(R"([{"index": 0, "op": "eq", "mask": 255, "value": -1}])")
                                     << "expected a non-negative integer";
    QTest::newRow("fraction") << args(R"([{"index": 0, "op": "eq", "mask": 255, "value": 1.5}])")
                              << "expected a non-negative integer";
    QTest::newRow("value outside the mask")
        << args(R"([{"index": 1, "op": "eq", "mask": "0xff", "value": "0x100"}])")
        << "condition on argument 1: value 0x100 has bits outside the mask 0xff";
    QTest::newRow("eq with values") << args(R"([{"index": 0, "op": "eq", "mask": 255, "values": [1]}])")
                                    << "\"eq\" takes one \"value\"";
    QTest::newRow("any_bit with a value")
        << args(R"([{"index": 0, "op": "any_bit", "mask": 255, "value": 1}])")
        << "\"any_bit\" takes only \"mask\"";
    QTest::newRow("in without values")
        << args(R"([{"index": 0, "op": "in", "mask": 255}])") << "\"in\" takes a \"values\" array";
    QTest::newRow("not_in with empty values")
        << args(R"([{"index": 0, "op": "not_in", "mask": 255, "values": []}])")
        << "the list of values is empty";
    QTest::newRow("value listed twice")
        << args(R"([{"index": 0, "op": "in", "mask": 255, "values": [1, "0x1"]}])")
        << "value 0x1 is listed twice";
    QTest::newRow("two conditions on one argument")
        << args(
               R"([{"index": 0, "op": "eq", "mask": 255, "value": 1}, {"index": 0, "op": "eq", "mask": 65280, "value": 256}])")
        << "two conditions on argument 0";
}

void TestSeccompPolicy::fromJsonRejects() {
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const auto policy = SeccompPolicy::fromJson(json.toStdString());
    QVERIFY2(!policy.ok(), "the table was accepted");
    QCOMPARE(policy.error().code, ErrorCode::InvalidArgument);
    const QString actual = QString::fromStdString(policy.error().message);
    QVERIFY2(actual.contains(message), qPrintable("message was: " + actual));
}

void TestSeccompPolicy::fromRulesRejectsErrnoOutOfRange() {
    for (const int errnoValue : {0, -1, 4096}) {
        SeccompRule rule;
        rule.id = "r";
        rule.syscalls = {"bpf"};
        rule.errnoValue = errnoValue;
        rule.reason = "why";
        const auto policy = SeccompPolicy::fromRules({rule});
        QVERIFY(!policy.ok());
        QVERIFY2(policy.error().message.find("outside 1-4095") != std::string::npos,
                 policy.error().message.c_str());
    }
}

// ---- compiling ----

void TestSeccompPolicy::compileRejectsUnknownSkip() {
    const auto program = SeccompPolicy::builtIn().compileBpf(SeccompOptions{true, {"ptrace", "ptrac"}});
    QVERIFY(!program.ok());
    QCOMPARE(program.error().code, ErrorCode::InvalidArgument);
    QVERIFY2(program.error().message.find("\"ptrac\"") != std::string::npos, program.error().message.c_str());
}

void TestSeccompPolicy::compiledFilterFitsTheKernel() {
    for (const bool networkDenied : {true, false}) {
        const auto program = compileOrDie(SeccompPolicy::builtIn(), networkDenied);
        QCOMPARE(program.size() % sizeof(sock_filter), std::size_t{0});
        QVERIFY(program.size() / sizeof(sock_filter) <= BPF_MAXINSNS);
        const auto outcome = runInChild(&program, [](Reports& r) { r.add(0); });
        QVERIFY2(outcome.exited && outcome.exitCode == 0, outcome.describe());
    }
}

// ---- the real kernel ----

void TestSeccompPolicy::deniedCall_data() {
    QTest::addColumn<int>("probe");
    for (int i = 0; i < static_cast<int>(std::size(kDeniedProbes)); ++i) {
        const auto& probe = kDeniedProbes[i];
        QTest::addRow("%s: %s %s", probe.rule, probe.syscall, probe.attempt) << i;
    }
}

void TestSeccompPolicy::deniedCall() {
    QFETCH(int, probe);
    const DeniedProbe& denied = kDeniedProbes[probe];
    const auto attack = [&](Reports& r) {
        denied.attack(r);
    };

    const auto real = compileOrDie(SeccompPolicy::builtIn(), denied.networkDenied);
    const auto seen = runInChild(&real, attack);
    QVERIFY2(seen.exited && seen.exitCode == 0 && seen.reports.count > 0, seen.describe());
    if (seen.reports.values[0] == kSetupFailed) {
        QSKIP("the attack needs something this kernel or machine lacks (/dev/ptmx, pidfd_open, /proc)");
    }
    QCOMPARE(seen.reports.values[0], denied.expectedErrno);

    if (denied.expectedErrno == ENOSYS) {
        const auto control = runInChild(nullptr, attack);
        QVERIFY2(control.exited && control.reports.count > 0, control.describe());
        if (control.reports.values[0] == ENOSYS) {
            QSKIP("this kernel does not have the call at all, so ENOSYS does not show the filter at work");
        }
        return;
    }
    const auto marked = compileOrDie(markedPolicy(), denied.networkDenied);
    const auto decided = runInChild(&marked, attack);
    QVERIFY2(decided.exited && decided.reports.count > 0, decided.describe());
    QCOMPARE(decided.reports.values[0], kMarker);
}

void TestSeccompPolicy::allowedCall_data() {
    QTest::addColumn<int>("probe");
    for (int i = 0; i < static_cast<int>(std::size(kAllowedProbes)); ++i) {
        QTest::newRow(kAllowedProbes[i].name) << i;
    }
}

void TestSeccompPolicy::allowedCall() {
    QFETCH(int, probe);
    const AllowedProbe& allowed = kAllowedProbes[probe];
    const auto call = [&](Reports& r) {
        allowed.call(r);
    };

    const auto control = runInChild(nullptr, call);
    QVERIFY2(control.exited && control.exitCode == 0 && control.reports.count > 0, control.describe());
    if (control.reports.values[0] == kSetupFailed) {
        QSKIP("the call needs something this machine lacks (/dev/ptmx, /bin/true)");
    }
    const auto marked = compileOrDie(markedPolicy(), allowed.networkDenied);
    const auto filtered = runInChild(&marked, call);
    QVERIFY2(filtered.exited && filtered.exitCode == 0, filtered.describe());
    QCOMPARE(filtered.describe(), control.describe());
}

void TestSeccompPolicy::argumentSpace_data() {
    QTest::addColumn<int>("space");
    for (int i = 0; i < static_cast<int>(argumentSpaces().size()); ++i) {
        QTest::newRow(argumentSpaces()[static_cast<std::size_t>(i)].name) << i;
    }
}

void TestSeccompPolicy::argumentSpace() {
    QFETCH(int, space);
    const ArgumentSpace& tried = argumentSpaces()[static_cast<std::size_t>(space)];
    QVERIFY(tried.values.size() <= kMaxReports);

    const auto marked = compileOrDie(markedPolicy(), tried.networkDenied);
    const auto outcome = runInChild(&marked, [&](Reports& r) {
        for (const auto value : tried.values) {
            r.call(tried.call(value));
        }
    });
    QVERIFY2(outcome.exited && outcome.exitCode == 0, outcome.describe());
    QCOMPARE(outcome.reports.count, static_cast<int>(tried.values.size()));
    for (std::size_t i = 0; i < tried.values.size(); ++i) {
        const bool denied = outcome.reports.values[i] == kMarker;
        QVERIFY2(denied == tried.denied(tried.values[i]),
                 qPrintable(QString("value 0x%1: the filter %2 it, errno %3")
                                .arg(tried.values[i], 0, 16)
                                .arg(denied ? "denied" : "allowed")
                                .arg(outcome.reports.values[i])));
    }
}

void TestSeccompPolicy::foreignArchitectureIsKilled_data() {
    QTest::addColumn<int>("abi");
    QTest::newRow("x32: getpid with bit 30 set") << 0;
    QTest::newRow("i386: getpid through int $0x80") << 1;
}

namespace {
// Runs `call` on a second thread. A kill that ended only that thread (libseccomp's default bad-arch
// action, SCMP_ACT_KILL) would let the main thread report; only killing the process stops it.
void onSecondThread(Reports& r, void (*call)(Reports&)) {
    struct Job {
        Reports* reports;
        void (*call)(Reports&);
    } job{&r, call};
    pthread_t thread;
    if (pthread_create(
            &thread, nullptr,
            [](void* argument) -> void* {
                auto* work = static_cast<Job*>(argument);
                work->call(*work->reports);
                return nullptr;
            },
            &job) != 0) {
        r.add(kSetupFailed);
        return;
    }
    pthread_join(thread, nullptr);
    r.add(0); // the process survived
}

void foreignGetpid(int abi, Reports& r) {
    if (abi == 0) {
        r.call(syscall(0x40000000L | SYS_getpid));
        return;
    }
    long result = 20; // __NR_getpid in the i386 table
    asm volatile("int $0x80" : "+a"(result) : : "memory", "r8", "r9", "r10", "r11");
    r.add(result < 0 ? static_cast<int>(-result) : 0);
}
} // namespace

void TestSeccompPolicy::foreignArchitectureIsKilled() {
    QFETCH(int, abi);
    const Attack call = abi == 0 ? Attack{[](Reports& r) {
        foreignGetpid(0, r);
    }}
                                 : Attack{[](Reports& r) {
                                       foreignGetpid(1, r);
                                   }};
    if (abi == 1) {
        const auto control = runInChild(nullptr, call);
        if (!control.exited || (control.reports.count > 0 && control.reports.values[0] == ENOSYS)) {
            QSKIP("this kernel runs no i386 code (IA32 emulation disabled), so there is nothing to filter");
        }
    }
    const auto program = compileOrDie(SeccompPolicy::builtIn(), true);
    const auto outcome = runInChild(&program, [&](Reports& r) { onSecondThread(r, call); });
    QVERIFY2(!outcome.exited && outcome.signal == SIGSYS, outcome.describe());
}

void TestSeccompPolicy::killActionKillsTheProcess() {
    const auto policy = SeccompPolicy::fromJson(R"({"rules": [
        {"id": "getppid", "syscalls": ["getppid"], "action": "kill", "reason": "a test of the kill action"}]})");
    QVERIFY2(policy.ok(), policy.ok() ? "" : policy.error().message.c_str());
    const auto program = compileOrDie(policy.value(), true);

    const auto survives = runInChild(&program, [](Reports& r) { r.call(getpid()); });
    QVERIFY2(survives.exited && survives.exitCode == 0, survives.describe());
    const auto killed = runInChild(
        &program, [](Reports& r) { onSecondThread(r, [](Reports& reports) { reports.call(getppid()); }); });
    QVERIFY2(!killed.exited && killed.signal == SIGSYS, killed.describe());
}

void TestSeccompPolicy::skipRemovesOnlyThatRow() {
    const auto find = [](const char* rule) {
        return *std::find_if(std::begin(kDeniedProbes), std::end(kDeniedProbes),
                             [&](const DeniedProbe& probe) { return std::strcmp(probe.rule, rule) == 0; });
    };
    const auto program = compileOrDie(markedPolicy(), true, {"personality", "modify-ldt"});
    for (const char* rule : {"personality", "modify-ldt"}) {
        const auto outcome = runInChild(&program, [&](Reports& r) { find(rule).attack(r); });
        QVERIFY2(outcome.exited && outcome.reports.count == 1 && outcome.reports.values[0] != kMarker,
                 qPrintable(QString(rule) + " still filtered: " + outcome.describe()));
    }
    for (const char* rule : {"ptrace", "bpf", "ioctl-tiocsti"}) {
        const auto outcome = runInChild(&program, [&](Reports& r) { find(rule).attack(r); });
        QVERIFY2(outcome.exited && outcome.reports.count == 1 && outcome.reports.values[0] == kMarker,
                 qPrintable(QString(rule) + " no longer filtered: " + outcome.describe()));
    }
}

void TestSeccompPolicy::networkRuleFollowsTheOption() {
    const auto inet = socketCall<AF_INET, SOCK_STREAM, 0>;
    const auto denied = compileOrDie(SeccompPolicy::builtIn(), true);
    const auto refused = runInChild(&denied, [&](Reports& r) { inet(r); });
    QVERIFY2(refused.exited && refused.reports.count == 1, refused.describe());
    QCOMPARE(refused.reports.values[0], EPERM);

    const auto allowed = compileOrDie(SeccompPolicy::builtIn(), false);
    const auto opened = runInChild(&allowed, [&](Reports& r) { inet(r); });
    const auto control = runInChild(nullptr, [&](Reports& r) { inet(r); });
    QVERIFY2(opened.exited && opened.reports.count == 1, opened.describe());
    QCOMPARE(opened.reports.values[0], control.reports.values[0]);
    QVERIFY(opened.reports.values[0] != EPERM);
}

QTEST_APPLESS_MAIN(TestSeccompPolicy)
#include "tst_seccomp_policy.moc"
