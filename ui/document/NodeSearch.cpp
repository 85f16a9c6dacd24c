// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/document/NodeSearch.h"

#include "ui/document/Document.h"

#include <algorithm>
#include <unordered_set>

namespace cleave::ui {

namespace {

bool containsText(const std::string &haystack, const QString &needle)
{
    return !haystack.empty()
        && QString::fromStdString(haystack).contains(needle, Qt::CaseInsensitive);
}

} // namespace

std::vector<cleave::NodeId> findNodes(const Document &document, const QString &query)
{
    const QString needle = query.trimmed();
    const cleave::PartitionPlan *plan = document.plan();
    if (needle.isEmpty() || !plan)
        return {};
    const cleave::Graph &graph = plan->graph();
    const cleave::FunctionView &view = plan->view();

    // Boundary input names are tensor names the user sees in the docks and badges.
    std::unordered_set<std::uint32_t> tensorHits;
    for (const cleave::BoundaryTensor &t : document.boundary().tensors) {
        for (const cleave::BoundaryConsumer &c : t.consumers) {
            if (QString::fromStdString(c.inputName).compare(needle, Qt::CaseInsensitive) == 0)
                tensorHits.insert(t.tensor.node.value);
        }
    }
    const QString keyed = needle.startsWith(QLatin1Char('%')) ? needle : QLatin1Char('%') + needle;

    std::vector<cleave::NodeId> exact;
    std::vector<cleave::NodeId> others;
    for (cleave::NodeId n : view.order()) {
        const cleave::Node &node = graph.node(n);
        const QString key = QString::fromStdString(graph.key(n));
        if (key.compare(keyed, Qt::CaseInsensitive) == 0
            || key.compare(needle, Qt::CaseInsensitive) == 0) {
            exact.push_back(n);
            continue;
        }
        const bool match = tensorHits.contains(n.value) || containsText(node.op, needle)
            || containsText(node.name, needle) || containsText(node.span(), needle)
            || (node.callee.isValid() && containsText(graph.function(node.callee).name, needle))
            || key.contains(needle, Qt::CaseInsensitive);
        if (match)
            others.push_back(n);
    }
    exact.insert(exact.end(), others.begin(), others.end());
    return exact;
}

} // namespace cleave::ui
