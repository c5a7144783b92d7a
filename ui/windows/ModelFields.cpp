#include "ui/windows/ModelFields.h"

namespace warren::ui {

ModelField firstToFill(const ModelFormState& state) {
    if (!state.providerChosen)
        return ModelField::Provider;
    if (state.takesUrl && !state.urlGiven)
        return ModelField::BaseUrl;
    if (!state.modelGiven)
        return ModelField::Model;
    if (state.needsKey && !state.keyTyped && state.keyStored == false)
        return ModelField::Key;
    return ModelField::None;
}

} // namespace warren::ui
