// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/view/CanvasToolTips.h"

#include "core/layout/LayoutGraph.h"
#include "ui/support/OpCategory.h"

#include <QCoreApplication>
#include <QStringList>

namespace cleave::ui {

namespace {

QString escaped(const std::string &text)
{
    return QString::fromStdString(text).toHtmlEscaped();
}

// The name a tensor goes by: its producer's key, with the output index of a multi-output node.
QString tensorName(const Graph &graph, TensorRef tensor)
{
    const Node &producer = graph.node(tensor.node);
    if (producer.kind == NodeKind::Constant && !producer.metaRef().empty())
        return QString::fromStdString(producer.metaRef());
    if (tensor.output < producer.outputNames().size()
        && !producer.outputNames()[tensor.output].empty())
        return QString::fromStdString(producer.outputNames()[tensor.output]);
    QString name = QString::fromStdString(graph.key(tensor.node));
    if (producer.outputCount() > 1)
        name += QStringLiteral(":%1").arg(tensor.output);
    return name;
}

QString section(const QString &title, const QStringList &lines)
{
    return QStringLiteral("<br><b>%1</b><br>%2").arg(title, lines.join(QStringLiteral("<br>")));
}

} // namespace

QString typeDescription(const Type &type)
{
    QString text;
    if (type.isTensor())
        text = QStringLiteral("%1 · %2").arg(QString::fromStdString(shapeText(type)),
                                             QString::fromStdString(type.dtype));
    else
        text = QString::fromStdString(type.toShortString());
    if (text.isEmpty())
        return QStringLiteral("type unknown");
    if (auto bytes = type.byteSize())
        text += QStringLiteral(" · %1").arg(badgeBytes(*bytes));
    return text;
}

QString nodeToolTip(const Graph &graph, NodeId node)
{
    const Node &n = graph.node(node);
    const NodeLabel label = nodeLabel(graph, node);
    QString text
        = QStringLiteral("<b>%1</b> · %2").arg(escaped(graph.key(node)), escaped(label.title));
    QStringList inputs;
    QStringList weights;
    for (const TensorRef &input : n.inputs) {
        if (!input.node.isValid())
            continue;
        const QString line = QStringLiteral("%1 · %2").arg(
            tensorName(graph, input).toHtmlEscaped(),
            typeDescription(graph.tensorType(input)).toHtmlEscaped());
        // Constants are the weights Netron lists; everything else is data flowing in.
        (graph.node(input.node).kind == NodeKind::Constant ? weights : inputs).append(line);
    }
    if (!inputs.isEmpty())
        text
            += section(QCoreApplication::translate("cleave::ui::CanvasToolTips", "Inputs"), inputs);
    if (!weights.isEmpty())
        text += section(
            QCoreApplication::translate("cleave::ui::CanvasToolTips", "Weights and constants"),
            weights);
    QStringList outputs;
    for (std::size_t i = 0; i < n.outputCount(); ++i)
        outputs.append(typeDescription(n.outputType(i)).toHtmlEscaped());
    if (!outputs.isEmpty())
        text += section(outputs.size() == 1
                            ? QCoreApplication::translate("cleave::ui::CanvasToolTips", "Output")
                            : QCoreApplication::translate("cleave::ui::CanvasToolTips", "Outputs"),
                        outputs);
    // One fact per line: a long weight line must not wrap its bytes onto the next.
    return QStringLiteral("<p style=\"white-space:nowrap\">%1</p>").arg(text);
}

QString edgeToolTip(const Graph &graph, TensorRef tensor, NodeId consumer)
{
    const Type &type = graph.tensorType(tensor);
    return QStringLiteral("<b>%1</b> → %2<br>%3%4")
        .arg(tensorName(graph, tensor).toHtmlEscaped(), escaped(graph.key(consumer)),
             type.isTensor() ? QStringLiteral("shape ") : QString(),
             typeDescription(type).toHtmlEscaped());
}

} // namespace cleave::ui
