// The prefix "Always allow commands like this" offers (CommandPrefix.h): a shell command's program and
// subcommand, none for a command a rule could never match, and a tool call's through its shell command.

#include "app/timeline/CommandPrefix.h"

#include <QtTest>

using nlohmann::json;

Q_DECLARE_METATYPE(std::string)

class TestCommandPrefix : public QObject {
    Q_OBJECT

private slots:
    void commandPrefix_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("prefix"); // empty: none offered
        QTest::newRow("program and subcommand") << "git status -s"
                                                << "git status";
        QTest::newRow("program and option") << "ls -la"
                                            << "ls";
        QTest::newRow("program alone") << "make"
                                       << "make";
        QTest::newRow("script argument is not a subcommand") << "python3 run.py --fast"
                                                             << "python3";
        QTest::newRow("npm script") << "npm run build:prod"
                                    << "npm run";
        QTest::newRow("relative program") << "./gradlew build"
                                          << "./gradlew build";
        QTest::newRow("regex characters") << "g++ -o a a.c"
                                          << "g++";
        QTest::newRow("leading spaces") << "  cargo   test"
                                        << "cargo test";
        QTest::newRow("chained") << "git status; curl x"
                                 << "";
        QTest::newRow("piped") << "npm test | tee log"
                               << "";
        QTest::newRow("substituted") << "echo $(id)"
                                     << "";
        QTest::newRow("two lines") << "make\nrm -rf ~"
                                   << "";
        QTest::newRow("quoted program") << "'git' status"
                                        << "";
        QTest::newRow("variable program") << "$EDITOR file"
                                          << "";
        QTest::newRow("assignment first") << "CC=clang make"
                                          << "";
        QTest::newRow("glob program") << "./*.sh"
                                      << "";
        QTest::newRow("option first") << "-rf x"
                                      << "";
        QTest::newRow("empty") << ""
                               << "";
        QTest::newRow("blank") << "   "
                               << "";
    }

    void commandPrefix() {
        QFETCH(QString, command);
        QFETCH(QString, prefix);
        const auto got = warren::control::commandPrefix(command.toStdString());
        QCOMPARE(QString::fromStdString(got.value_or("")), prefix);
        if (got) // a prefix is its own prefix: what Settings checks before it keeps one
            QCOMPARE(warren::control::commandPrefix(*got), got);
    }

    void callCommandPrefix_data() {
        QTest::addColumn<std::string>("tool");
        QTest::addColumn<std::string>("arguments");
        QTest::addColumn<QString>("prefix"); // empty: none offered
        QTest::newRow("shell") << std::string("shell") << std::string(R"({"command":"git status -s"})")
                               << "git status";
        QTest::newRow("shell without a command")
            << std::string("shell") << std::string(R"({"cmd":"ls"})") << "";
        QTest::newRow("command not a string")
            << std::string("shell") << std::string(R"({"command":5})") << "";
        QTest::newRow("arguments not an object") << std::string("shell") << std::string("[]") << "";
        QTest::newRow("another tool")
            << std::string("write_file") << std::string(R"({"command":"ls"})") << "";
    }

    void callCommandPrefix() {
        QFETCH(std::string, tool);
        QFETCH(std::string, arguments);
        QFETCH(QString, prefix);
        const auto got = warren::control::callCommandPrefix(tool, json::parse(arguments));
        QCOMPARE(QString::fromStdString(got.value_or("")), prefix);
    }
};

QTEST_APPLESS_MAIN(TestCommandPrefix)
#include "tst_command_prefix.moc"
