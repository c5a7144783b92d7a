// toolsForFamily: each model family is offered the file-editing tool of its own shape (apply_patch for
// OpenAI's models, edit_file for the rest) when both are enabled, and whichever one the tools setting
// enables when only one is.

#include "agent_core/prompt/FamilyTools.h"

#include <QtTest>

using namespace warren::agent;

Q_DECLARE_METATYPE(warren::agent::ModelFamily)

class TestFamilyTools : public QObject {
    Q_OBJECT

private slots:
    void offersTheFamilysEditTool_data() {
        QTest::addColumn<QStringList>("enabled");
        QTest::addColumn<ModelFamily>("family");
        QTest::addColumn<QStringList>("offered");
        const QStringList both{"shell", "edit_file", "apply_patch", "finish"};
        QTest::newRow("openai gets apply_patch") << both << ModelFamily::OpenAi
                                                 << QStringList{"shell", "apply_patch", "finish"};
        QTest::newRow("anthropic gets edit_file") << both << ModelFamily::Anthropic
                                                  << QStringList{"shell", "edit_file", "finish"};
        QTest::newRow("others get edit_file") << both << ModelFamily::Other
                                              << QStringList{"shell", "edit_file", "finish"};
        QTest::newRow("only edit_file enabled, openai") << QStringList{"edit_file", "finish"} << ModelFamily::OpenAi
                                                        << QStringList{"edit_file", "finish"};
        QTest::newRow("only apply_patch enabled, anthropic")
            << QStringList{"apply_patch", "finish"} << ModelFamily::Anthropic << QStringList{"apply_patch", "finish"};
        QTest::newRow("neither") << QStringList{"shell", "finish"} << ModelFamily::OpenAi
                                 << QStringList{"shell", "finish"};
    }

    void offersTheFamilysEditTool() {
        QFETCH(QStringList, enabled);
        QFETCH(ModelFamily, family);
        QFETCH(QStringList, offered);
        std::vector<std::string> names;
        for (const auto& name : enabled)
            names.push_back(name.toStdString());
        QStringList got;
        for (const auto& name : toolsForFamily(names, family))
            got << QString::fromStdString(name);
        QCOMPARE(got, offered);
    }
};

QTEST_APPLESS_MAIN(TestFamilyTools)
#include "tst_family_tools.moc"
