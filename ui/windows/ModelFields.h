#pragma once
// Settings' model form, as what a person still has to fill in: which field comes first. "Set up a
// model…" puts the focus there, and Test connection names it instead of sending a half-filled form to the
// model (whose answer would speak of command-line flags). Pure.

#include <optional>

namespace warren::ui {

enum class ModelField { None, Provider, BaseUrl, Model, Key };

struct ModelFormState {
    bool providerChosen = false; // a model, not "None: the scripted demo"
    bool takesUrl = false;       // a compatible server's form: the address is the user's to give
    bool urlGiven = false;
    bool modelGiven = false;
    bool needsKey = false;
    bool keyTyped = false;
    std::optional<bool> keyStored; // nullopt: not known (yet)
};

// The first field still empty, top to bottom; None when the form is complete (a key not known to be
// missing counts as there: the test says if it is not).
ModelField firstToFill(const ModelFormState& state);

} // namespace warren::ui
