// The terminal's approval question: the call as the window's card shows it (a command whole, a patch as its
// diff, line by line), cut at kQuestionBodyLines lines, and nothing of the agent's text the terminal would
// act on (escape sequences, C1 controls, bidi overrides), whether it comes in the arguments or the reason.

#include "app/cli/ApprovalQuestion.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace warren::control;
using nlohmann::json;

class TestApprovalQuestion : public QObject {
    Q_OBJECT

private slots:
    void aCommandIsShownWholeWithItsAnswers() {
        const std::string asked = approvalQuestion("shell", json{{"command", "make test"}}.dump(),
                                                   "safe-mode asks", std::string("make test"));
        QVERIFY2(asked.find("shell wants to run: $ make test\n") != std::string::npos, asked.c_str());
        QVERIFY2(asked.find("\n    make test\n") != std::string::npos, asked.c_str());
        QVERIFY(asked.find("  why: safe-mode asks\n") != std::string::npos);
        QVERIFY(asked.ends_with(
            "[a]lways for this task / [c]ommands starting with \"make test\", from now on: "));
    }

    // Codex's file changes are asked as apply_patch: each line of the change on a line of its own, not the
    // arguments' JSON with its "\n" escapes on one line.
    void aPatchIsShownLineByLine() {
        const std::string patch =
            "*** Begin Patch\n*** Add File: notes.txt\n+first\n+second\n*** End Patch\n";
        const std::string asked =
            approvalQuestion("apply_patch", json{{"input", patch}}.dump(), "", std::nullopt);
        QVERIFY2(asked.find("\n    +first\n") != std::string::npos, asked.c_str());
        QVERIFY2(asked.find("\n    +second\n") != std::string::npos, asked.c_str());
        QVERIFY2(asked.find("\\n") == std::string::npos, asked.c_str());
        QVERIFY(asked.find("why:") == std::string::npos); // no reason given: no line for it
        QVERIFY(asked.ends_with("[a]lways for this task: "));
    }

    void aLongBodyIsCut() {
        std::string command;
        for (int i = 0; i < 100; ++i)
            command += "echo " + std::to_string(i) + "\n";
        const std::string asked =
            approvalQuestion("shell", json{{"command", command}}.dump(), "", std::nullopt);
        QVERIFY(asked.find("    echo 59\n") != std::string::npos);
        QVERIFY(asked.find("    echo 60\n") == std::string::npos);
        QVERIFY2(asked.find("40 more lines") != std::string::npos, asked.c_str());
    }

    // The agent's words cannot clear the screen, move the cursor or reorder what the user reads.
    void theAgentsTextCannotDriveTheTerminal() {
        const std::string hostile = "rm -rf ~ \x1b[2J\x1b[1A\xc2\x9b"
                                    "31m\xe2\x80\xae"
                                    "desrever";
        const std::string asked = approvalQuestion("shell", json{{"command", hostile}}.dump(),
                                                   "ok\x1b]0;title\x07 \xc2\x9b"
                                                   "2J",
                                                   std::nullopt);
        for (const std::string forbidden : {"\x1b", "\xc2\x9b", "\xe2\x80\xae", "\x07"})
            QVERIFY2(asked.find(forbidden) == std::string::npos, asked.c_str());
        QVERIFY(asked.find("rm -rf ~") != std::string::npos);
    }

    void argumentsThatAreNotJsonAreShownAsText() {
        const std::string asked = approvalQuestion("mystery", "not json\x1b[2J", "", std::nullopt);
        QVERIFY(asked.find("mystery wants to run:") != std::string::npos);
        QVERIFY(asked.find("\x1b") == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestApprovalQuestion)
#include "tst_approval_question.moc"
