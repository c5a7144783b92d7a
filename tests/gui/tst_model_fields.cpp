// Settings' model form: which field a person has to fill first (ui/windows/ModelFields), row by row.
#include "ui/windows/ModelFields.h"

#include <QtTest>

using warren::ui::firstToFill;
using warren::ui::ModelField;
using warren::ui::ModelFormState;

Q_DECLARE_METATYPE(ModelField)
Q_DECLARE_METATYPE(ModelFormState)

namespace {

ModelFormState openAiWithModel() {
    ModelFormState state;
    state.providerChosen = true;
    state.modelGiven = true;
    state.needsKey = true;
    return state;
}

} // namespace

class TestModelFields : public QObject {
    Q_OBJECT
private slots:
    void firstToFill_data() {
        QTest::addColumn<ModelFormState>("state");
        QTest::addColumn<ModelField>("field");
        QTest::newRow("nothing chosen: the provider") << ModelFormState{} << ModelField::Provider;
        ModelFormState compatible;
        compatible.providerChosen = true;
        compatible.takesUrl = true;
        compatible.needsKey = true;
        compatible.keyStored = false;
        QTest::newRow("a compatible server without its address: the address")
            << compatible << ModelField::BaseUrl;
        compatible.urlGiven = true;
        QTest::newRow("the address given: the model") << compatible << ModelField::Model;
        compatible.modelGiven = true;
        QTest::newRow("the model given, no key stored: the key") << compatible << ModelField::Key;
        compatible.keyTyped = true;
        QTest::newRow("the key typed: complete") << compatible << ModelField::None;
        ModelFormState named = openAiWithModel();
        QTest::newRow("a named provider's address is not asked for") << named << ModelField::None;
        named.keyStored = true;
        QTest::newRow("a key stored: complete") << named << ModelField::None;
        named.keyStored = false;
        QTest::newRow("no key stored: the key") << named << ModelField::Key;
        ModelFormState local;
        local.providerChosen = true;
        local.modelGiven = true;
        local.keyStored = false;
        QTest::newRow("a local server needs no key") << local << ModelField::None;
        local.modelGiven = false;
        QTest::newRow("a local server without a model: the model") << local << ModelField::Model;
    }
    void firstToFill() {
        QFETCH(ModelFormState, state);
        QFETCH(ModelField, field);
        QCOMPARE(::firstToFill(state), field);
    }
};

QTEST_MAIN(TestModelFields)
#include "tst_model_fields.moc"
