// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Ids.h"

#include <QComboBox>

namespace cleave::ui {

class Document;

/// Picks the function of the module to partition (a Relax module's `decode`, `prefill`, …;
/// `main` by default): one entry per Document::partitionableFunctions(), named with its op
/// count. Choosing one pushes a ChooseFunction command (undoable); the canvas then shows that
/// function. availabilityChanged() says whether there is a choice at all (several functions).
class FunctionChooser : public QComboBox
{
    Q_OBJECT

public:
    explicit FunctionChooser(Document *document, QWidget *parent = nullptr);

    /// The entry of `function`, or -1.
    [[nodiscard]] int indexOfFunction(cleave::FunctionId function) const;
    /// True when the model has several functions to choose from.
    [[nodiscard]] bool hasChoice() const { return count() > 1; }

signals:
    void availabilityChanged(bool hasChoice);

private:
    void reload();
    void choose(int index);

    Document *m_document;
};

} // namespace cleave::ui
