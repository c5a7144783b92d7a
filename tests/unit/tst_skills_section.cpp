// The system prompt's skills section (SkillsSection; pure): each skill's name and description within the
// budget (2% of context_window_limit, at most 8 KiB), then names only, then a count; none without skills; and
// the section replaced or removed as the last part of a system prompt, which no other part of any family's
// prompt can be mistaken for.

#include "agent_core/prompt/SkillsSection.h"
#include "agent_core/prompt/SystemPrompt.h"

#include <QtTest>

using namespace warren;
using namespace warren::agent;

namespace {

Skill skill(const std::string& name, const std::string& description) {
    Skill out;
    out.name = name;
    out.description = description;
    return out;
}

// n skills s1..sn, each described in `bytes` bytes.
std::vector<Skill> skills(int n, std::size_t bytes) {
    std::vector<Skill> out;
    for (int i = 1; i <= n; ++i)
        out.push_back(skill("s" + std::to_string(i), std::string(bytes, 'd')));
    return out;
}

QStringList listLines(const std::string& section) {
    QStringList out;
    for (const auto& line : QString::fromStdString(section).split('\n'))
        if (line.startsWith("- "))
            out << line;
    return out;
}

} // namespace

class TestSkillsSection : public QObject {
    Q_OBJECT
private slots:
    void noSkillsNoSection() { QCOMPARE(skillsSection({}, 8192), std::string()); }

    void everySkillWithItsDescriptionWhenTheyFit() {
        const auto section = skillsSection(
            {skill("pdf", "Extract text\nand  tables from PDFs.\n"), skill("deploy", "Deploy to staging.")},
            8192);
        const QString text = QString::fromStdString(section);
        QVERIFY2(text.startsWith("# Skills\n"), qPrintable(text));
        QVERIFY2(text.contains("load the skill with the skill tool"), qPrintable(text));
        QCOMPARE(listLines(section),
                 (QStringList{"- pdf: Extract text and tables from PDFs.", "- deploy: Deploy to staging."}));
        QVERIFY(!text.endsWith('\n'));
    }

    void pastTheBudgetNamesThenACount_data() {
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("budget");
        QTest::addColumn<QStringList>("lines");
        // Each described line is "- sN: " + 100 bytes + "\n": 107 bytes; the names' line takes 54 bytes and
        // each name (and its comma).
        QTest::newRow("all described")
            << 3 << 400
            << QStringList{"- s1: " + QString(100, 'd'), "- s2: " + QString(100, 'd'),
                           "- s3: " + QString(100, 'd')};
        QTest::newRow("two described, the rest named")
            << 4 << 107 * 2 + 54 + 2 + 4
            << QStringList{"- s1: " + QString(100, 'd'), "- s2: " + QString(100, 'd'),
                           "- Also these, their descriptions left out for room: s3, s4."};
        QTest::newRow("one described, one named, the rest counted")
            << 4 << 107 + 54 + 2
            << QStringList{
                   "- s1: " + QString(100, 'd'), "- Also these, their descriptions left out for room: s2.",
                   "- And 2 more skills not listed for room: the skill tool's answer to a name that is not "
                   "there lists every name."};
        QTest::newRow("no room: counted")
            << 1 << 0
            << QStringList{"- And 1 more skill not listed for room: the skill tool's "
                           "answer to a name that is not there lists every name."};
    }

    void pastTheBudgetNamesThenACount() {
        QFETCH(int, count);
        QFETCH(int, budget);
        QFETCH(QStringList, lines);
        QCOMPARE(listLines(skillsSection(skills(count, 100), std::size_t(budget))), lines);
    }

    void theListStaysWithinItsBudget() {
        const auto many = skills(200, 1024);
        const std::string empty = skillsSection({skill("x", "y")}, 0);
        const std::size_t fixed = empty.size() - empty.substr(empty.find("\n- ")).size();
        for (const std::size_t budget : {std::size_t(640), std::size_t(2560), kMaxSkillsListBytes}) {
            const auto section = skillsSection(many, budget);
            const auto count = section.substr(section.rfind("\n- And "));
            QVERIFY2(section.size() - fixed - count.size() <= budget, qPrintable(QString::number(budget)));
        }
    }

    void budgetIsTwoPercentOfTheContextAtMost8KiB_data() {
        QTest::addColumn<quint64>("contextWindowLimit");
        QTest::addColumn<quint64>("budget");
        QTest::newRow("the default 32000 tokens") << quint64(32000) << quint64(2560);
        QTest::newRow("memory-optimized's 8000") << quint64(8000) << quint64(640);
        QTest::newRow("the least, 1000") << quint64(1000) << quint64(80);
        QTest::newRow("a million: the cap") << quint64(1000000) << quint64(8192);
    }

    void budgetIsTwoPercentOfTheContextAtMost8KiB() {
        QFETCH(quint64, contextWindowLimit);
        QFETCH(quint64, budget);
        QCOMPARE(quint64(skillsListBudget(contextWindowLimit)), budget);
    }

    void sectionIsAddedReplacedAndRemoved() {
        const std::string base = "You are an agent.\n\n# This run\n- Tools: shell.";
        const auto first = skillsSection({skill("pdf", "PDFs.")}, 8192);
        const auto second = skillsSection({skill("pdf", "PDFs."), skill("csv", "CSVs.")}, 8192);
        const auto with = withSkillsSection(base, first);
        QCOMPARE(with, base + "\n\n" + first);
        QCOMPARE(withSkillsSection(with, second), base + "\n\n" + second);
        QCOMPARE(withSkillsSection(with, ""), base);
        QCOMPARE(withSkillsSection(base, ""), base);
    }

    // The section is found by its heading: no family's prompt may have it, or an update would cut it.
    void noSystemPromptHasTheSectionsHeading_data() {
        QTest::addColumn<QString>("provider");
        QTest::addColumn<QString>("model");
        QTest::newRow("openai") << "openai"
                                << "gpt-5";
        QTest::newRow("anthropic") << "anthropic"
                                   << "claude-sonnet-4";
        QTest::newRow("other") << "ollama"
                               << "qwen3";
    }

    void noSystemPromptHasTheSectionsHeading() {
        QFETCH(QString, provider);
        QFETCH(QString, model);
        const RunFacts facts{std::nullopt, std::nullopt, provider.toStdString(), model.toStdString()};
        const auto prompt = renderSystemPrompt(AgentConfig{}, facts, allToolNames());
        QCOMPARE(withSkillsSection(prompt.text, ""), prompt.text);
        QVERIFY(prompt.text.find("\n" + std::string(kSkillsHeading) + "\n") == std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestSkillsSection)
#include "tst_skills_section.moc"
