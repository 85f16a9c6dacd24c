// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// The document, its undo commands (snapshot → do → undo → compare → redo → compare), the
// models (under QAbstractItemModelTester) and node search, without the window.
#include "TestSupport.h"
#include "core/partition/PlanFile.h"
#include "ui/commands/AssignNodesToPartition.h"
#include "ui/commands/CutAcrossEdges.h"
#include "ui/commands/IsolateSelection.h"
#include "ui/commands/MergePartitions.h"
#include "ui/commands/NewPartitionFromSelection.h"
#include "ui/commands/RemoveCut.h"
#include "ui/commands/RenamePartition.h"
#include "ui/commands/SetPartitionTarget.h"
#include "ui/document/Document.h"
#include "ui/document/NodeSearch.h"
#include "ui/models/BoundaryTensorModel.h"
#include "ui/models/DiagnosticListModel.h"
#include "ui/models/NodePropertiesModel.h"
#include "ui/models/PartitionListModel.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <functional>
#include <memory>

using namespace cleave::ui;
using cleave::NodeId;
using cleave::PartitionId;

namespace {

const QString resnet = QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay"));

// Everything an edit can change, as comparable text: the plan file, the boundary and the codes
// of the diagnostics.
QString snapshot(const Document &doc)
{
    QStringList parts { QString::fromStdString(cleave::planToJson(*doc.plan()).dump()) };
    parts.append(QString::number(doc.boundary().tensors.size()));
    for (const cleave::Diagnostic &d : doc.diagnostics())
        parts.append(QString::fromStdString(d.code));
    return parts.join(QLatin1Char('|'));
}

std::vector<NodeId> nodes(const Document &doc, std::initializer_list<const char *> keys)
{
    return cleave::test::nodes(*doc.graph(), keys);
}

bool hasCode(const Document &doc, const char *code)
{
    for (const cleave::Diagnostic &d : doc.diagnostics()) {
        if (d.code == code)
            return true;
    }
    return false;
}

} // namespace

class TestCommands : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cutAcrossEdges();
    void newPartitionFromSelection();
    void assignNodesToPartition();
    void isolateSelection();
    void mergePartitionsAndRemoveCut();
    void renameAndTarget();
    void refusedEditIsDropped();
    void partitionModelEditsAreUndoable();
    void boundaryAndDiagnosticModels();
    void propertiesModel();
    void search();

private:
    // Pushes `command` and checks the round trip; returns the snapshot after the edit.
    QString roundTrip(QUndoCommand *command);

    std::unique_ptr<Document> m_doc;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> m_testers;
    std::unique_ptr<PartitionListModel> m_partitions;
    std::unique_ptr<BoundaryTensorModel> m_boundary;
    std::unique_ptr<DiagnosticListModel> m_diagnostics;
    std::unique_ptr<NodePropertiesModel> m_properties;
};

void TestCommands::init()
{
    m_testers.clear();
    m_partitions.reset();
    m_boundary.reset();
    m_diagnostics.reset();
    m_properties.reset();
    m_doc = std::make_unique<Document>();
    // Every dock model watches every edit of every test.
    m_partitions = std::make_unique<PartitionListModel>(m_doc.get());
    m_boundary = std::make_unique<BoundaryTensorModel>(m_doc.get());
    m_diagnostics = std::make_unique<DiagnosticListModel>(m_doc.get());
    m_properties = std::make_unique<NodePropertiesModel>(m_doc.get());
    for (QAbstractItemModel *model : std::initializer_list<QAbstractItemModel *> {
             m_partitions.get(), m_boundary.get(), m_diagnostics.get(), m_properties.get() })
        m_testers.push_back(std::make_unique<QAbstractItemModelTester>(
            model, QAbstractItemModelTester::FailureReportingMode::QtTest));
    QVERIFY(m_doc->open(resnet));
    QCOMPARE(m_doc->plan()->partitionCount(), std::size_t(1));
    QVERIFY(!m_doc->isModified());
}

QString TestCommands::roundTrip(QUndoCommand *command)
{
    QUndoStack *stack = m_doc->undoStack();
    const int depth = stack->index();
    const QString before = snapshot(*m_doc);
    QSignalSpy changed(m_doc.get(), &Document::planChanged);
    stack->push(command);
    [&] { QCOMPARE(stack->index(), depth + 1); }();
    const QString after = snapshot(*m_doc);
    [&] { QVERIFY(after != before); }();
    stack->undo();
    [&] { QCOMPARE(snapshot(*m_doc), before); }();
    stack->redo();
    [&] { QCOMPARE(snapshot(*m_doc), after); }();
    [&] { QCOMPARE(changed.count(), 3); }();
    [&] { QVERIFY(m_doc->isModified()); }();
    return after;
}

void TestCommands::cutAcrossEdges()
{
    // The line crosses only %13 → %14 (after the first residual add's relu): %14 and everything
    // after it moves on, so the skip edge %13 → %21 is cut as well (implied).
    const std::vector<NodeId> ends = nodes(*m_doc, { "%13", "%14" });
    const cleave::EdgeRef edge = m_doc->plan()->edgeBetween(ends[0], ends[1]);
    QSignalSpy implied(m_doc.get(), &Document::edgesImplied);
    roundTrip(new CutAcrossEdges(m_doc.get(), { edge }));
    QCOMPARE(implied.count(), 1);
    const auto impliedEdges = implied.at(0).at(0).value<std::vector<cleave::EdgeRef>>();
    QCOMPARE(impliedEdges.size(), std::size_t(1));
    QCOMPARE(impliedEdges[0].consumer, nodes(*m_doc, { "%21" })[0]);

    QCOMPARE(m_doc->plan()->partitionCount(), std::size_t(2));
    QCOMPARE(m_doc->boundary().tensors.size(), std::size_t(1));
    QCOMPARE(m_doc->boundary().tensors[0].tensor.node, ends[0]);
    QVERIFY(hasCode(*m_doc, "partition.implied_edge"));
    QCOMPARE(m_doc->errorCount(), 0);
    QCOMPARE(m_partitions->rowCount(), 2);
    QCOMPARE(m_doc->undoStack()->undoText(), QStringLiteral("Cut 1 edge"));
}

void TestCommands::newPartitionFromSelection()
{
    roundTrip(new NewPartitionFromSelection(m_doc.get(), nodes(*m_doc, { "%5", "%6", "%7" })));
    const cleave::PartitionPlan &plan = *m_doc->plan();
    const NodeId n5 = nodes(*m_doc, { "%5" })[0];
    QCOMPARE(plan.nodeCount(plan.partitionOf(n5)), std::size_t(3));
    // The new partition and what is left of the single one (not emptied, so not removed).
    QCOMPARE(plan.partitionCount(), std::size_t(2));
}

void TestCommands::assignNodesToPartition()
{
    m_doc->undoStack()->push(new CutAcrossEdges(
        m_doc.get(),
        { m_doc->plan()->edgeBetween(nodes(*m_doc, { "%12" })[0], nodes(*m_doc, { "%13" })[0]) }));
    QCOMPARE(m_doc->plan()->partitionCount(), std::size_t(2));
    const PartitionId first = m_doc->plan()->partitions()[0].id;
    roundTrip(new AssignNodesToPartition(m_doc.get(), nodes(*m_doc, { "%13" }), first));
    QCOMPARE(m_doc->plan()->partitionOf(nodes(*m_doc, { "%13" })[0]), first);
}

void TestCommands::isolateSelection()
{
    // The second residual block's main path: a convex selection in the middle of stage0.
    roundTrip(new IsolateSelection(
        m_doc.get(), nodes(*m_doc, { "%14", "%15", "%16", "%17", "%18", "%19", "%20" })));
    const cleave::PartitionPlan &plan = *m_doc->plan();
    QCOMPARE(plan.partitionCount(), std::size_t(3));
    QCOMPARE(plan.indexOf(plan.partitionOf(nodes(*m_doc, { "%14" })[0])), 1);
    QCOMPARE(plan.nodeCount(plan.partitions()[1].id), std::size_t(7));
    QCOMPARE(m_doc->errorCount(), 0);
}

void TestCommands::mergePartitionsAndRemoveCut()
{
    m_doc->undoStack()->push(new IsolateSelection(
        m_doc.get(), nodes(*m_doc, { "%14", "%15", "%16", "%17", "%18", "%19", "%20" })));
    const std::vector<cleave::Partition> parts = m_doc->plan()->partitions();
    QCOMPARE(parts.size(), std::size_t(3));
    roundTrip(new MergePartitions(m_doc.get(), { parts[0].id, parts[1].id }));
    QCOMPARE(m_doc->plan()->partitionCount(), std::size_t(2));
    m_doc->undoStack()->undo();
    roundTrip(new RemoveCut(m_doc.get(), parts[1].id, parts[2].id));
    QCOMPARE(m_doc->plan()->partitionCount(), std::size_t(2));
    QCOMPARE(m_doc->undoStack()->undoText(), QStringLiteral("Remove cut"));
}

void TestCommands::renameAndTarget()
{
    const PartitionId id = m_doc->plan()->partitions()[0].id;
    roundTrip(new RenamePartition(m_doc.get(), id, "backbone"));
    QCOMPARE(m_doc->plan()->partitions()[0].name, std::string("backbone"));
    roundTrip(new SetPartitionTarget(m_doc.get(), id, "cuda"));
    QCOMPARE(m_doc->plan()->partitions()[0].target, std::string("cuda"));
    m_doc->undoStack()->undo();
    m_doc->undoStack()->undo();
    QCOMPARE(m_doc->plan()->partitions()[0].name, std::string("stage0"));
    QVERIFY(!m_doc->isModified());
}

void TestCommands::refusedEditIsDropped()
{
    // %13 and %21 with the path %14..%20 between them left out: not convex, so isolation is
    // refused, nothing changes and nothing lands on the undo stack.
    const QString before = snapshot(*m_doc);
    QSignalSpy refused(m_doc.get(), &Document::editRefused);
    QSignalSpy changed(m_doc.get(), &Document::planChanged);
    m_doc->undoStack()->push(new IsolateSelection(m_doc.get(), nodes(*m_doc, { "%13", "%21" })));
    QCOMPARE(m_doc->undoStack()->count(), 0);
    QCOMPARE(refused.count(), 1);
    QCOMPARE(changed.count(), 0);
    QVERIFY(!refused.at(0).at(0).toString().isEmpty());
    QCOMPARE(snapshot(*m_doc), before);
    QVERIFY(!m_doc->plan()->nonConvexWitness(nodes(*m_doc, { "%13", "%21" })).empty());
}

void TestCommands::partitionModelEditsAreUndoable()
{
    const QModelIndex name = m_partitions->index(0, PartitionListModel::NameColumn);
    QCOMPARE(name.data().toString(), QStringLiteral("stage0"));
    QVERIFY(m_partitions->flags(name) & Qt::ItemIsEditable);
    QVERIFY(!(m_partitions->flags(m_partitions->index(0, PartitionListModel::OpsColumn))
              & Qt::ItemIsEditable));
    QVERIFY(m_partitions->setData(name, QStringLiteral("all")));
    QCOMPARE(name.data().toString(), QStringLiteral("all"));
    const QModelIndex target = m_partitions->index(0, PartitionListModel::TargetColumn);
    QVERIFY(m_partitions->setData(target, QStringLiteral("cuda")));
    QCOMPARE(target.data().toString(), QStringLiteral("cuda"));
    QCOMPARE(m_doc->undoStack()->count(), 2);
    // Same value or empty: no command.
    QVERIFY(!m_partitions->setData(name, QStringLiteral("all")));
    QVERIFY(!m_partitions->setData(name, QStringLiteral("  ")));
    QCOMPARE(m_doc->undoStack()->count(), 2);
    m_doc->undoStack()->undo();
    m_doc->undoStack()->undo();
    QCOMPARE(name.data().toString(), QStringLiteral("stage0"));
    QCOMPARE(target.data().toString(), QStringLiteral("llvm"));

    // Numbers: the whole ResNet-18 in one partition.
    QCOMPARE(m_partitions->index(0, PartitionListModel::OpsColumn).data().toString(),
             QStringLiteral("71"));
    QCOMPARE(m_partitions->index(0, PartitionListModel::FlopsColumn).data().toString(),
             QStringLiteral("3.64 GFLOP"));
    QCOMPARE(m_partitions->index(0, PartitionListModel::BytesInColumn).data().toString(),
             QStringLiteral("0 B"));
    QCOMPARE(
        m_partitions->index(0, PartitionListModel::NameColumn).data(Qt::DecorationRole).typeId(),
        QMetaType::QColor);
}

void TestCommands::boundaryAndDiagnosticModels()
{
    QCOMPARE(m_boundary->rowCount(), 0);
    const std::vector<NodeId> ends = nodes(*m_doc, { "%13", "%14" });
    m_doc->undoStack()->push(
        new CutAcrossEdges(m_doc.get(), { m_doc->plan()->edgeBetween(ends[0], ends[1]) }));
    QCOMPARE(m_boundary->rowCount(), 1);
    auto cell = [&](int column) { return m_boundary->index(0, column).data().toString(); };
    QCOMPARE(cell(BoundaryTensorModel::TensorColumn), QStringLiteral("%13"));
    QCOMPARE(cell(BoundaryTensorModel::RouteColumn), QStringLiteral("stage0 → stage1"));
    QCOMPARE(cell(BoundaryTensorModel::InputNameColumn), QStringLiteral("data_n_0"));
    QCOMPARE(cell(BoundaryTensorModel::ShapeColumn), QStringLiteral("1×64×56×56"));
    QCOMPARE(cell(BoundaryTensorModel::DTypeColumn), QStringLiteral("float32"));
    QCOMPARE(cell(BoundaryTensorModel::BytesColumn), QStringLiteral("784.0 KiB"));
    QCOMPARE(m_boundary->index(0, BoundaryTensorModel::BytesColumn)
                 .data(BoundaryTensorModel::SortRole)
                 .toLongLong(),
             802816);
    QCOMPARE(m_boundary->edgeAt(0).tensor.node, ends[0]);
    QCOMPARE(m_boundary->edgeAt(0).consumer, ends[1]);
    QCOMPARE(m_boundary->partitionsAt(0).first, m_doc->plan()->partitions()[0].id);

    // The cut's findings: the implied %13 -> %21 edge (the only warning) and the boundary summary
    // (info); rows are sorted by severity, so the warning is the first row.
    const int implied = m_diagnostics->findCode(QStringLiteral("partition.implied_edge"));
    QCOMPARE(implied, 0);
    QCOMPARE(m_diagnostics->index(implied, DiagnosticListModel::SeverityColumn).data().toString(),
             QStringLiteral("warning"));
    QVERIFY(!m_diagnostics->diagnosticAt(implied)->nodes.empty());

    m_doc->undoStack()->undo();
    QCOMPARE(m_boundary->rowCount(), 0);
    QCOMPARE(m_diagnostics->findCode(QStringLiteral("partition.implied_edge")), -1);
}

void TestCommands::propertiesModel()
{
    m_properties->setNode(nodes(*m_doc, { "%0" })[0]);
    QCOMPARE(m_properties->value(QStringLiteral("Node"), QStringLiteral("Op")),
             QStringLiteral("nn.conv2d"));
    QCOMPARE(m_properties->value(QStringLiteral("Node"), QStringLiteral("Partition")),
             QStringLiteral("stage0 (llvm)"));
    QCOMPARE(m_properties->value(QStringLiteral("Attributes"), QStringLiteral("strides")),
             QStringLiteral("[2, 2]"));
    QCOMPARE(m_properties->value(QStringLiteral("Inputs"), QStringLiteral("0")),
             QStringLiteral("%data  Tensor[(1, 3, 224, 224), float32]"));
    QCOMPARE(m_properties->value(QStringLiteral("Outputs"), QStringLiteral("0")),
             QStringLiteral("Tensor[(1, 64, 112, 112), float32]"));
    QVERIFY(m_properties->value(QStringLiteral("Node"), QStringLiteral("Fused block"))
                .startsWith(QStringLiteral("fused_nn_conv2d")));
    QCOMPARE(m_properties->value(QStringLiteral("Node"), QStringLiteral("Source")),
             QStringLiteral("resnet18.relay line 3, column 8"));
    // A node of a block of several ops: the block's name, its index, then its op count (the
    // arguments once filled the wrong places: "4 (#fused_..., 1802 ops)").
    const std::vector<cleave::FusedBlock> &blocks = m_doc->blocks();
    const auto several
        = std::find_if(blocks.begin(), blocks.end(),
                       [](const cleave::FusedBlock &b) { return b.nodes.size() > 1; });
    QVERIFY(several != blocks.end());
    m_properties->setNode(several->nodes.front());
    QCOMPARE(m_properties->value(QStringLiteral("Node"), QStringLiteral("Fused block")),
             QStringLiteral("%1 (#%2, %3 ops)")
                 .arg(QString::fromStdString(several->name))
                 .arg(several - blocks.begin())
                 .arg(several->nodes.size()));
    m_properties->setNode({});
    QCOMPARE(m_properties->rowCount(), 0);
}

void TestCommands::search()
{
    QCOMPARE(findNodes(*m_doc, QStringLiteral("conv2d")).size(), std::size_t(20));
    const std::vector<NodeId> byId = findNodes(*m_doc, QStringLiteral("%12"));
    QCOMPARE(byId.front(), nodes(*m_doc, { "%12" })[0]);
    QCOMPARE(findNodes(*m_doc, QStringLiteral("12")).front(), nodes(*m_doc, { "%12" })[0]);
    QVERIFY(findNodes(*m_doc, QStringLiteral("")).empty());
    QVERIFY(findNodes(*m_doc, QStringLiteral("no-such-op")).empty());
    const std::vector<NodeId> ends = nodes(*m_doc, { "%13", "%14" });
    m_doc->undoStack()->push(
        new CutAcrossEdges(m_doc.get(), { m_doc->plan()->edgeBetween(ends[0], ends[1]) }));
    QCOMPARE(findNodes(*m_doc, QStringLiteral("data_n_0")), std::vector<NodeId> { ends[0] });
}

QTEST_MAIN(TestCommands)
#include "tst_commands.moc"
