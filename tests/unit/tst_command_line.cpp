// warren-sandbox's command line: every flag becomes a key of the last profile layer, relative paths are
// resolved against the current directory and normalised, and anything wrong is a usage error that says
// which argument and why.

#include "sandbox/CommandLine.h"
#include "sandbox/policy/SandboxProfile.h"
#include "tests/support/StringLists.h"

#include <QtTest>

using warren::test::toQt;
using warren::test::toStd;
using namespace warren;
using namespace warren::sandbox;
using nlohmann::json;

namespace {

const QString kCwd = QStringLiteral("/home/user/project");

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

Result<SandboxCommandLine> parse(const QStringList& args, const QString& cwd = kCwd) {
    return parseCommandLine(toStd(args), cwd.toStdString());
}

} // namespace

class TestCommandLine : public QObject {
    Q_OBJECT

private slots:
    void defaults();
    void overrides_data();
    void overrides();
    void profileFile_data();
    void profileFile();
    void command_data();
    void command();
    void explain_data();
    void explain();
    void backendBwrapChangesNothing_data();
    void backendBwrapChangesNothing();
    void containerBackend_data();
    void containerBackend();
    void kubernetesFlags();
    void help_data();
    void help();
    void usageMentionsEveryFlag_data();
    void usageMentionsEveryFlag();
    void errors_data();
    void errors();
    void overridesResolveOverTheDefault();
    void flagMountReplacesTheDefaultEntry_data();
    void flagMountReplacesTheDefaultEntry();
};

void TestCommandLine::defaults() {
    auto line = parse({"--", "true"});
    QVERIFY2(line.ok(), line.ok() ? "" : line.error().message.c_str());
    QCOMPARE(toQt(line->command), QStringList{"true"});
    QVERIFY(!line->profileFile);
    QVERIFY(!line->explain);
    QVERIFY(!line->help);
    // The workspace is the only key a bare command line sets: everything else comes from the profiles.
    QCOMPARE(qs(line->overrides.dump()), qs(json({{"workspace", {{"source", kCwd.toStdString()}}}}).dump()));
}

// pointer is a JSON pointer into the command-line layer ("~1" stands for "/" inside a key).
// clang-format off
void TestCommandLine::overrides_data() {
    QTest::addColumn<QStringList>("args"); // "-- true" is appended
    QTest::addColumn<QString>("cwd");
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("expected"); // JSON

    QTest::newRow("default workspace is the cwd")
        << QStringList{} << kCwd << "/workspace/source" << R"("/home/user/project")";
    QTest::newRow("default workspace from an unclean cwd")
        << QStringList{} << "/home/user/./project/" << "/workspace/source" << R"("/home/user/project")";
    QTest::newRow("absolute workspace")
        << QStringList{"--workspace", "/srv/repo"} << kCwd << "/workspace/source" << R"("/srv/repo")";
    QTest::newRow("relative workspace")
        << QStringList{"--workspace", "sub"} << kCwd << "/workspace/source" << R"("/home/user/project/sub")";
    QTest::newRow("workspace normalised")
        << QStringList{"--workspace", "../other/./x/"} << kCwd << "/workspace/source"
        << R"("/home/user/other/x")";
    QTest::newRow("workspace dot")
        << QStringList{"--workspace", "."} << kCwd << "/workspace/source" << R"("/home/user/project")";
    QTest::newRow("absolute workspace normalised")
        << QStringList{"--workspace", "/srv//repo/../repo2/"} << kCwd << "/workspace/source"
        << R"("/srv/repo2")";
    QTest::newRow("relative workspace from the root")
        << QStringList{"--workspace", "srv"} << "/" << "/workspace/source" << R"("/srv")";
    QTest::newRow("workspace in = form")
        << QStringList{"--workspace=/srv/repo"} << kCwd << "/workspace/source" << R"("/srv/repo")";
    QTest::newRow("last workspace wins")
        << QStringList{"--workspace", "/a", "--workspace", "/b"} << kCwd << "/workspace/source" << R"("/b")";

    QTest::newRow("ro absolute")
        << QStringList{"--ro", "/opt/data"} << kCwd << "/mounts/~1opt~1data"
        << R"({"type": "ro-bind", "source": "/opt/data", "target": null, "size_mb": null, "optional": null})";
    QTest::newRow("ro relative")
        << QStringList{"--ro", "data"} << kCwd << "/mounts/~1home~1user~1project~1data"
        << R"({"type": "ro-bind", "source": "/home/user/project/data", "target": null, "size_mb": null, "optional": null})";
    QTest::newRow("ro in = form")
        << QStringList{"--ro=/opt/data"} << kCwd << "/mounts/~1opt~1data"
        << R"({"type": "ro-bind", "source": "/opt/data", "target": null, "size_mb": null, "optional": null})";
    QTest::newRow("rw relative with dot-dot")
        << QStringList{"--rw", "../cache/"} << kCwd << "/mounts/~1home~1user~1cache"
        << R"({"type": "bind", "source": "/home/user/cache", "target": null, "size_mb": null, "optional": null})";
    QTest::newRow("ro and rw together") << QStringList{"--ro", "/a", "--rw", "/b"} << kCwd << "/mounts"
                                        << R"({"/a": {"type": "ro-bind", "source": "/a", "target": null, "size_mb": null, "optional": null},
                                               "/b": {"type": "bind", "source": "/b", "target": null, "size_mb": null, "optional": null}})";
    QTest::newRow("rw after ro of the same path wins")
        << QStringList{"--ro", "/a", "--rw", "/a/"} << kCwd << "/mounts"
        << R"({"/a": {"type": "bind", "source": "/a", "target": null, "size_mb": null, "optional": null}})";

    QTest::newRow("network none") << QStringList{"--network", "none"} << kCwd << "/network" << R"("none")";
    QTest::newRow("network loopback")
        << QStringList{"--network", "loopback"} << kCwd << "/network" << R"("loopback")";
    QTest::newRow("network in = form")
        << QStringList{"--network=loopback"} << kCwd << "/network" << R"("loopback")";

    QTest::newRow("memory") << QStringList{"--memory-mb", "512"} << kCwd << "/limits/memory_mb" << "512";
    QTest::newRow("pids") << QStringList{"--pids", "64"} << kCwd << "/limits/pids" << "64";
    QTest::newRow("cpu seconds")
        << QStringList{"--cpu-seconds", "30"} << kCwd << "/limits/cpu_seconds" << "30";
    QTest::newRow("timeout") << QStringList{"--timeout", "600"} << kCwd << "/limits/timeout_sec" << "600";
    QTest::newRow("zero lifts a limit") << QStringList{"--pids", "0"} << kCwd << "/limits/pids" << "0";
    QTest::newRow("limit in = form")
        << QStringList{"--memory-mb=256"} << kCwd << "/limits/memory_mb" << "256";
    QTest::newRow("largest 64-bit count")
        << QStringList{"--cpu-seconds", "18446744073709551615"} << kCwd << "/limits/cpu_seconds"
        << "18446744073709551615";
    QTest::newRow("last limit wins")
        << QStringList{"--memory-mb", "1", "--memory-mb", "2"} << kCwd << "/limits/memory_mb" << "2";
    QTest::newRow("several limits")
        << QStringList{"--memory-mb", "1", "--pids", "2", "--cpu-seconds", "3"} << kCwd << "/limits"
        << R"({"memory_mb": 1, "pids": 2, "cpu_seconds": 3})";

    QTest::newRow("env") << QStringList{"--env", "DEBUG=1"} << kCwd << "/env" << R"({"DEBUG": "1"})";
    QTest::newRow("env value with equals signs")
        << QStringList{"--env", "OPTS=a=b=c"} << kCwd << "/env/OPTS" << R"("a=b=c")";
    QTest::newRow("env empty value") << QStringList{"--env", "EMPTY="} << kCwd << "/env/EMPTY" << R"("")";
    QTest::newRow("env value with spaces")
        << QStringList{"--env", "MSG=hello world"} << kCwd << "/env/MSG" << R"("hello world")";
    QTest::newRow("env in = form") << QStringList{"--env=A=1"} << kCwd << "/env/A" << R"("1")";
    QTest::newRow("several env")
        << QStringList{"--env", "A=1", "--env", "B=2"} << kCwd << "/env" << R"({"A": "1", "B": "2"})";
}
// clang-format on

void TestCommandLine::overrides() {
    QFETCH(QStringList, args);
    QFETCH(QString, cwd);
    QFETCH(QString, pointer);
    QFETCH(QString, expected);

    auto line = parse(args + QStringList{"--", "true"}, cwd);
    QVERIFY2(line.ok(), line.ok() ? "" : line.error().message.c_str());
    const json::json_pointer at(pointer.toStdString());
    QVERIFY2(line->overrides.contains(at),
             qPrintable(pointer + " missing from " + qs(line->overrides.dump())));
    QCOMPARE(qs(line->overrides.at(at).dump()), qs(json::parse(expected.toStdString()).dump()));
    QCOMPARE(toQt(line->command), QStringList{"true"});
}

// clang-format off
void TestCommandLine::profileFile_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");

    QTest::newRow("absolute")
        << QStringList{"--profile", "/etc/warren/strict.json"} << "/etc/warren/strict.json";
    QTest::newRow("relative to the cwd")
        << QStringList{"--profile", "profiles/strict.json"} << "/home/user/project/profiles/strict.json";
    QTest::newRow("= form") << QStringList{"--profile=/p.json"} << "/p.json";
    QTest::newRow("last one wins")
        << QStringList{"--profile", "/a.json", "--profile", "/b.json"} << "/b.json";
}
// clang-format on

void TestCommandLine::profileFile() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);

    auto line = parse(args + QStringList{"--", "true"});
    QVERIFY2(line.ok(), line.ok() ? "" : line.error().message.c_str());
    QVERIFY(line->profileFile);
    QCOMPARE(qs(*line->profileFile), expected);
    // The file is read by the caller; it is not a key of the command-line layer.
    QVERIFY(!line->overrides.contains("profile"));
}

// clang-format off
void TestCommandLine::command_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("command");
    QTest::addColumn<bool>("limitsSet"); // did an option before the command reach the layer?

    QTest::newRow("after a double dash")
        << QStringList{"--", "ls", "-la"} << QStringList{"ls", "-la"} << false;
    QTest::newRow("first non-option starts the command")
        << QStringList{"--pids", "5", "echo", "hi"} << QStringList{"echo", "hi"} << true;
    QTest::newRow("options after the command belong to it")
        << QStringList{"make", "--pids", "5", "--help"} << QStringList{"make", "--pids", "5", "--help"}
        << false;
    QTest::newRow("double dash after the command belongs to it")
        << QStringList{"git", "log", "--", "file"} << QStringList{"git", "log", "--", "file"} << false;
    QTest::newRow("second double dash belongs to the command")
        << QStringList{"--", "--", "x"} << QStringList{"--", "x"} << false;
    QTest::newRow("dash-led command after a double dash")
        << QStringList{"--", "--version"} << QStringList{"--version"} << false;
    QTest::newRow("option then double dash")
        << QStringList{"--memory-mb", "5", "--", "sh", "-c", "echo $HOME"}
        << QStringList{"sh", "-c", "echo $HOME"} << true;
    QTest::newRow("empty argument kept")
        << QStringList{"--", "printf", "%s", ""} << QStringList{"printf", "%s", ""} << false;
    QTest::newRow("absolute program path")
        << QStringList{"/usr/bin/env"} << QStringList{"/usr/bin/env"} << false;
}
// clang-format on

void TestCommandLine::command() {
    QFETCH(QStringList, args);
    QFETCH(QStringList, command);
    QFETCH(bool, limitsSet);

    auto line = parse(args);
    QVERIFY2(line.ok(), line.ok() ? "" : line.error().message.c_str());
    QCOMPARE(toQt(line->command), command);
    QCOMPARE(line->overrides.contains("limits"), limitsSet);
    QVERIFY(!line->help);
}

// clang-format off
void TestCommandLine::explain_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<bool>("explain");

    QTest::newRow("not asked") << QStringList{"--", "true"} << false;
    QTest::newRow("before the double dash") << QStringList{"--explain", "--", "true"} << true;
    QTest::newRow("between options")
        << QStringList{"--pids", "1", "--explain", "--memory-mb", "2", "true"} << true;
    QTest::newRow("after the double dash it is the command's")
        << QStringList{"--", "tool", "--explain"} << false;
}
// clang-format on

void TestCommandLine::explain() {
    QFETCH(QStringList, args);
    QFETCH(bool, explain);

    auto line = parse(args);
    QVERIFY2(line.ok(), line.ok() ? "" : line.error().message.c_str());
    QCOMPARE(line->explain, explain);
    QVERIFY(!line->command.empty());
}

// clang-format off
void TestCommandLine::backendBwrapChangesNothing_data() {
    QTest::addColumn<QStringList>("args");

    QTest::newRow("separate value") << QStringList{"--backend", "bwrap"};
    QTest::newRow("= form") << QStringList{"--backend=bwrap"};
}
// clang-format on

void TestCommandLine::backendBwrapChangesNothing() {
    QFETCH(QStringList, args);

    auto with = parse(args + QStringList{"--pids", "3", "--", "true"});
    auto without = parse({"--pids", "3", "--", "true"});
    QVERIFY2(with.ok(), with.ok() ? "" : with.error().message.c_str());
    QVERIFY(without.ok());
    QCOMPARE(qs(with->overrides.dump()), qs(without->overrides.dump()));
    QCOMPARE(toQt(with->command), QStringList{"true"});
}

// clang-format off
void TestCommandLine::containerBackend_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("image"); // empty: no --image given

    QTest::newRow("default is bwrap") << QStringList{"--", "true"} << "bwrap" << "";
    QTest::newRow("docker") << QStringList{"--backend", "docker", "--", "true"} << "docker" << "";
    QTest::newRow("podman in = form with an image")
        << QStringList{"--backend=podman", "--image", "alpine:3", "--", "true"} << "podman" << "alpine:3";
    QTest::newRow("image before the backend")
        << QStringList{"--image=debian:bookworm-slim", "--backend", "docker", "--", "true"} << "docker"
        << "debian:bookworm-slim";
    QTest::newRow("last backend wins")
        << QStringList{"--backend", "docker", "--backend", "podman", "--", "true"} << "podman" << "";
    QTest::newRow("kubernetes with an image")
        << QStringList{"--backend", "kubernetes", "--image", "alpine:3", "--", "true"} << "kubernetes" << "alpine:3";
}
// clang-format on

// The backend is not part of the profile: the same profile layer serves every backend.
void TestCommandLine::containerBackend() {
    QFETCH(QStringList, args);
    QFETCH(QString, backend);
    QFETCH(QString, image);

    auto line = parse(args);
    QVERIFY2(line.ok(), line.ok() ? "" : line.error().message.c_str());
    QCOMPARE(qs(backendName(line->backend)), backend);
    QCOMPARE(line->image.has_value(), !image.isEmpty());
    if (line->image)
        QCOMPARE(qs(*line->image), image);
    auto plain = parse({"--", "true"});
    QVERIFY(plain.ok());
    QCOMPARE(qs(line->overrides.dump()), qs(plain->overrides.dump()));
}

// --kubeconfig is made absolute against the working directory; neither flag is part of the profile.
void TestCommandLine::kubernetesFlags() {
    auto line = parse({"--backend", "kubernetes", "--kubeconfig", "conf/cluster.yaml", "--namespace=sandboxes",
                       "--runtime-class", "gvisor", "--", "true"});
    QVERIFY2(line.ok(), line.ok() ? "" : line.error().message.c_str());
    QCOMPARE(line->backend, Backend::Kubernetes);
    QCOMPARE(qs(line->kubeconfig.value_or("")), kCwd + "/conf/cluster.yaml");
    QCOMPARE(qs(line->kubeNamespace.value_or("")), QString("sandboxes"));
    QCOMPARE(qs(line->runtimeClass.value_or("")), QString("gvisor"));
    auto plain = parse({"--backend", "kubernetes", "--", "true"});
    QVERIFY(plain.ok());
    QVERIFY(!plain->kubeconfig && !plain->kubeNamespace && !plain->runtimeClass);
    QCOMPARE(qs(line->overrides.dump()), qs(plain->overrides.dump()));
}

// clang-format off
void TestCommandLine::help_data() {
    QTest::addColumn<QStringList>("args");

    QTest::newRow("long") << QStringList{"--help"};
    QTest::newRow("short") << QStringList{"-h"};
    QTest::newRow("after options") << QStringList{"--memory-mb", "5", "--help"};
    QTest::newRow("needs no command") << QStringList{"--explain", "--help"};
    QTest::newRow("stops parsing before a bad option") << QStringList{"--help", "--no-such-option"};
    QTest::newRow("stops parsing before the command") << QStringList{"--help", "--", "true"};
}
// clang-format on

void TestCommandLine::help() {
    QFETCH(QStringList, args);

    auto line = parse(args);
    QVERIFY2(line.ok(), line.ok() ? "" : line.error().message.c_str());
    QVERIFY(line->help);
    QVERIFY(line->command.empty());
}

// clang-format off
void TestCommandLine::usageMentionsEveryFlag_data() {
    QTest::addColumn<QString>("flag");

    for (const char* flag : {"--profile FILE", "--workspace DIR", "--ro PATH", "--rw PATH", "--network MODE",
                             "--memory-mb N", "--pids N", "--cpu-seconds N", "--timeout SECONDS", "--backend",
                             "--image IMAGE", "--kubeconfig FILE", "--namespace NS", "--runtime-class NAME", "--env NAME=VALUE", "--explain",
                             "--help", "124", "125"})
        QTest::newRow(flag) << QString(flag);
}
// clang-format on

void TestCommandLine::usageMentionsEveryFlag() {
    QFETCH(QString, flag);
    QVERIFY2(qs(usageText()).contains(flag), qPrintable(flag));
}

// clang-format off
void TestCommandLine::errors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("cwd");
    QTest::addColumn<QString>("message"); // a part of the error the user must see

    QTest::newRow("no arguments") << QStringList{} << kCwd << "no command given";
    QTest::newRow("only options") << QStringList{"--pids", "5", "--explain"} << kCwd << "no command given";
    QTest::newRow("nothing after the double dash")
        << QStringList{"--pids", "5", "--"} << kCwd << "no command given";

    for (const char* flag : {"--profile", "--workspace", "--ro", "--rw", "--network", "--memory-mb", "--pids",
                             "--cpu-seconds", "--timeout", "--backend", "--image", "--kubeconfig", "--namespace",
                             "--runtime-class", "--env"})
        QTest::addRow("%s without a value", flag)
            << QStringList{flag} << kCwd << QString(flag) + " needs a value";

    for (const char* number : {"abc", "-1", "1.5", "12abc", " 5", "5 ", "+5", "0x10", "1e3", "",
                               "18446744073709551616", "99999999999999999999999"})
        QTest::addRow("memory-mb \"%s\"", number)
            << QStringList{"--memory-mb", number, "--", "true"} << kCwd
            << QString("--memory-mb needs a whole number, not \"%1\"").arg(number);
    QTest::newRow("empty number in = form")
        << QStringList{"--pids=", "--", "true"} << kCwd << R"(--pids needs a whole number, not "")";
    QTest::newRow("option taken as a number")
        << QStringList{"--timeout", "--pids", "5", "--", "true"} << kCwd
        << R"(--timeout needs a whole number, not "--pids")";
    QTest::newRow("cpu seconds not a number")
        << QStringList{"--cpu-seconds", "ten", "--", "true"} << kCwd
        << R"(--cpu-seconds needs a whole number, not "ten")";

    QTest::newRow("unknown long option")
        << QStringList{"--memory", "5", "--", "true"} << kCwd << "unknown option --memory";
    QTest::newRow("unknown short option") << QStringList{"-x", "--", "true"} << kCwd << "unknown option -x";
    QTest::newRow("unknown option in = form")
        << QStringList{"--colour=always", "--", "true"} << kCwd << "unknown option --colour";
    QTest::newRow("value given to a switch")
        << QStringList{"--explain=yes", "--", "true"} << kCwd << "unknown option --explain";
    QTest::newRow("single dash") << QStringList{"-", "true"} << kCwd << "unknown option -";
    QTest::newRow("short form of a long option")
        << QStringList{"-workspace", "/x", "--", "true"} << kCwd << "unknown option -workspace";

    QTest::newRow("network host")
        << QStringList{"--network", "host", "--", "true"} << kCwd
        << R"(--network must be none or loopback, not "host")";
    QTest::newRow("network empty")
        << QStringList{"--network=", "--", "true"} << kCwd << R"(--network must be none or loopback, not "")";
    QTest::newRow("network in capitals")
        << QStringList{"--network", "None", "--", "true"} << kCwd
        << R"(--network must be none or loopback, not "None")";

    QTest::newRow("backend unknown")
        << QStringList{"--backend", "lxc", "--", "true"} << kCwd
        << R"(--backend must be bwrap, docker, podman, kube or kubernetes, not "lxc")";
    QTest::newRow("backend in capitals")
        << QStringList{"--backend=Docker", "--", "true"} << kCwd
        << R"(--backend must be bwrap, docker, podman, kube or kubernetes, not "Docker")";
    QTest::newRow("backend empty")
        << QStringList{"--backend", "", "--", "true"} << kCwd << R"(--backend must be bwrap, docker, podman, kube or kubernetes, not "")";
    QTest::newRow("image without a container backend")
        << QStringList{"--image", "debian:bookworm-slim", "--", "true"} << kCwd
        << "--image chooses the image of --backend docker|podman";
    QTest::newRow("image with backend bwrap")
        << QStringList{"--backend", "bwrap", "--image", "debian:bookworm-slim", "--", "true"} << kCwd
        << "--image chooses the image of --backend docker|podman";
    QTest::newRow("image empty")
        << QStringList{"--backend", "docker", "--image=", "--", "true"} << kCwd << "--image needs an image name";
    QTest::newRow("kubeconfig without backend kubernetes")
        << QStringList{"--kubeconfig", "/k", "--", "true"} << kCwd
        << "--kubeconfig chooses where --backend kubernetes sends the pod; the bwrap backend runs on this host";
    QTest::newRow("namespace with backend kube")
        << QStringList{"--backend", "kube", "--namespace", "ns", "--", "true"} << kCwd
        << "--namespace chooses where --backend kubernetes sends the pod; the kube backend runs on this host";
    QTest::newRow("runtime class with backend podman")
        << QStringList{"--backend", "podman", "--runtime-class", "gvisor", "--", "true"} << kCwd
        << "--runtime-class chooses where --backend kubernetes sends the pod; the podman backend runs on this host";
    QTest::newRow("kubeconfig empty")
        << QStringList{"--backend", "kubernetes", "--kubeconfig=", "--", "true"} << kCwd
        << "--kubeconfig needs the path of a kubeconfig file";

    QTest::newRow("env without equals")
        << QStringList{"--env", "DEBUG", "--", "true"} << kCwd << R"(--env needs NAME=VALUE, not "DEBUG")";
    QTest::newRow("env without a name")
        << QStringList{"--env", "=1", "--", "true"} << kCwd << R"(--env needs NAME=VALUE, not "=1")";

    const QString rootRefused = "refusing to mount the host's whole root directory";
    QTest::newRow("ro of the root") << QStringList{"--ro", "/", "--", "true"} << kCwd << rootRefused;
    QTest::newRow("rw of the root, unclean")
        << QStringList{"--rw", "/./usr/..//", "--", "true"} << kCwd << rootRefused;
    QTest::newRow("rw of the root through dot-dot")
        << QStringList{"--rw", "../../..", "--", "true"} << kCwd << rootRefused;
    QTest::newRow("ro of the root as the cwd")
        << QStringList{"--ro", ".", "--", "true"} << "/" << rootRefused;
}
// clang-format on

void TestCommandLine::errors() {
    QFETCH(QStringList, args);
    QFETCH(QString, cwd);
    QFETCH(QString, message);

    auto line = parse(args, cwd);
    QVERIFY2(!line.ok(), qPrintable("accepted: " + args.join(' ')));
    QCOMPARE(line.error().code, ErrorCode::InvalidArgument);
    QVERIFY2(qs(line.error().message).contains(message),
             qPrintable("\"" + message + "\" not in: " + qs(line.error().message)));
}

// The command-line layer is only useful if the profile reader accepts it over the default profile.
void TestCommandLine::overridesResolveOverTheDefault() {
    auto line =
        parse({"--workspace", "repo",        "--ro",  "/opt/sdk", "--rw", "../cache",      "--network",
               "loopback",    "--memory-mb", "512",   "--pids",   "64",   "--cpu-seconds", "30",
               "--timeout",   "600",         "--env", "DEBUG=1",  "--",   "make",          "test"});
    QVERIFY2(line.ok(), line.ok() ? "" : line.error().message.c_str());
    auto profile = resolveProfile({defaultProfileJson(), line->overrides});
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());

    QCOMPARE(qs(profile->workspaceSource), QString("/home/user/project/repo"));
    QCOMPARE(profile->network, NetworkPolicy::Loopback);
    QCOMPARE(profile->limits.memoryMb, 512u);
    QCOMPARE(profile->limits.pids, 64u);
    QCOMPARE(profile->limits.cpuSeconds, 30u);
    QCOMPARE(profile->limits.timeoutSec, 600u);
    QCOMPARE(qs(profile->env.at("DEBUG")), QString("1"));
    QCOMPARE(qs(profile->env.at("HOME")), QString("/home/agent")); // the default's env is kept

    auto mount = [&](const std::string& dest) -> const MountSpec* {
        for (const auto& m : profile->mounts)
            if (m.dest == dest)
                return &m;
        return nullptr;
    };
    QVERIFY(mount("/opt/sdk"));
    QCOMPARE(mount("/opt/sdk")->type, MountSpec::Type::RoBind);
    QCOMPARE(qs(mount("/opt/sdk")->source), QString("/opt/sdk"));
    QVERIFY(!mount("/opt/sdk")->optional);
    QVERIFY(mount("/home/user/cache"));
    QCOMPARE(mount("/home/user/cache")->type, MountSpec::Type::Bind);
    QVERIFY(mount("/usr")); // the default's mounts are kept
}

// --ro/--rw PATH mean "this host path, mounted like this"; the flag's entry must not inherit fields of a
// default mount at the same destination.
// clang-format off
void TestCommandLine::flagMountReplacesTheDefaultEntry_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("dest");
    QTest::addColumn<int>("type");

    QTest::newRow("rw over the /tmp tmpfs")
        << QStringList{"--rw", "/tmp"} << "/tmp" << int(MountSpec::Type::Bind);
    QTest::newRow("ro over the home tmpfs")
        << QStringList{"--ro", "/home/agent"} << "/home/agent" << int(MountSpec::Type::RoBind);
    QTest::newRow("rw over the /usr ro-bind")
        << QStringList{"--rw", "/usr"} << "/usr" << int(MountSpec::Type::Bind);
    QTest::newRow("ro over the /bin mirror")
        << QStringList{"--ro", "/bin"} << "/bin" << int(MountSpec::Type::RoBind);
}
// clang-format on

void TestCommandLine::flagMountReplacesTheDefaultEntry() {
    QFETCH(QStringList, args);
    QFETCH(QString, dest);
    QFETCH(int, type);

    auto line = parse(args + QStringList{"--", "true"});
    QVERIFY2(line.ok(), line.ok() ? "" : line.error().message.c_str());
    auto profile = resolveProfile({defaultProfileJson(), line->overrides});
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());
    const auto it = std::find_if(profile->mounts.begin(), profile->mounts.end(),
                                 [&](const MountSpec& m) { return qs(m.dest) == dest; });
    QVERIFY(it != profile->mounts.end());
    QCOMPARE(int(it->type), type);
    QCOMPARE(qs(it->source), dest);
    QCOMPARE(it->sizeMb, 0u);
}

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_command_line.moc"
