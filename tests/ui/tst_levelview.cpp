// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// LevelView as a unit: the graph shown at the Ops and Blocks levels, the translation of nodes,
// edges and partitions between them, in-place expansion, and what it tells its observers
// (which edit changed the shown plan, or that everything must be redrawn).
#include "ui/commands/ChangePartitionValue.h"
#include "ui/commands/CutAcrossEdges.h"
#include "ui/document/Document.h"
#include "ui/document/LevelPrefetch.h"
#include "ui/document/LevelView.h"

#include <QDir>
#include <QSignalSpy>
#include <QTest>

using namespace cleave::ui;
using cleave::EdgeRef;
using cleave::EngineSettings;
using cleave::NodeId;

namespace {

const QString resnet = QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay"));

} // namespace

class TestLevelView : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void opsLevelIsIdentity();
    void blocksLevelTranslates();
    void expandAndCollapse();
    void observersHearWhatChanged();
    void blocksAreSharedWithTheWorker();

private:
    NodeId key(const char *name) const { return m_doc->graph()->findByKey(name); }

    std::unique_ptr<Document> m_doc;
    std::unique_ptr<LevelView> m_levels;
};

void TestLevelView::init()
{
    m_levels.reset();
    m_doc = std::make_unique<Document>();
    m_levels = std::make_unique<LevelView>(m_doc.get());
    QString error;
    QVERIFY2(m_doc->open(resnet, &error), qPrintable(error));
}

void TestLevelView::opsLevelIsIdentity()
{
    QCOMPARE(m_levels->level(), LevelView::Level::Ops);
    QCOMPARE(m_levels->shownGraph(), m_doc->graph());
    QCOMPARE(m_levels->shownPlan(), m_doc->plan());
    QCOMPARE(m_levels->shownBoundary(), &m_doc->boundary());
    QCOMPARE(m_levels->layoutKey(), m_doc->graph()->checksum());
    QVERIFY(!m_levels->blockGraph());
    // The frames are the document's blocks, computed once there.
    QCOMPARE(&m_levels->framedBlocks(), &m_doc->blocks());
    const std::vector<NodeId> nodes { key("%13"), key("%14") };
    QCOMPARE(m_levels->modelNodes(nodes), nodes);
    QCOMPARE(m_levels->shownNodes(nodes), nodes);
    const std::vector<EdgeRef> edges { { { key("%13"), 0 }, key("%14") } };
    QCOMPARE(m_levels->modelEdges(edges), edges);
    QCOMPARE(m_levels->shownEdges(edges), edges);
}

void TestLevelView::blocksLevelTranslates()
{
    QSignalSpy level(m_levels.get(), &LevelView::levelChanged);
    m_levels->setLevel(LevelView::Level::Blocks);
    QCOMPARE(level.count(), 1);
    const cleave::BlockGraph *blocks = m_levels->blockGraph();
    QVERIFY(blocks);
    QCOMPARE(m_levels->shownGraph(), &blocks->graph);
    QCOMPARE(m_levels->layoutKey(), m_doc->graph()->checksum() + "/blocks");
    QVERIFY(m_levels->framedBlocks().empty());
    // 62 FuseOps kernels for ResNet-18 with unfolded batch norms.
    QCOMPARE(blocks->kernelCount(), std::size_t(62));

    // fused_add_nn_relu: the batch norm's projection %11, the residual add %12, the relu %13.
    const NodeId reluBlock = m_levels->shownNodes({ key("%13") }).front();
    const NodeId convBlock = m_levels->shownNodes({ key("%14") }).front();
    QCOMPARE(m_levels->modelNodes({ reluBlock }),
             (std::vector<NodeId> { key("%11"), key("%12"), key("%13") }));
    QCOMPARE(m_levels->shownNodes({ key("%11"), key("%12"), key("%13") }),
             std::vector<NodeId> { reluBlock });

    // A block edge stands for the op edge behind it, and back.
    const EdgeRef shown { { reluBlock, 0 }, convBlock };
    const EdgeRef op { { key("%13"), 0 }, key("%14") };
    QCOMPARE(m_levels->modelEdges({ shown }), std::vector<EdgeRef> { op });
    QCOMPARE(m_levels->shownEdges({ op }), std::vector<EdgeRef> { shown });
    // An edge inside a collapsed block is not shown.
    QCOMPARE(m_levels->shownEdges({ { { key("%12"), 0 }, key("%13") } }), std::vector<EdgeRef> {});

    // The cut converts: two partitions at both levels, matched by position.
    m_doc->undoStack()->push(new CutAcrossEdges(m_doc.get(), m_levels->modelEdges({ shown })));
    QCOMPARE(m_doc->plan()->partitionCount(), std::size_t(2));
    const cleave::PartitionPlan *plan = m_levels->shownPlan();
    QVERIFY(plan && plan != m_doc->plan());
    QCOMPARE(plan->partitionCount(), std::size_t(2));
    QCOMPARE(plan->partitionOf(reluBlock), plan->partitions()[0].id);
    QCOMPARE(plan->partitionOf(convBlock), plan->partitions()[1].id);
    QCOMPARE(m_levels->shownPartition(m_doc->plan()->partitions()[1].id), plan->partitions()[1].id);
    QCOMPARE(m_levels->shownBoundary()->tensors.size(), std::size_t(1));
    QCOMPARE(m_levels->shownBoundary()->tensors[0].tensor.node, reluBlock);
}

void TestLevelView::expandAndCollapse()
{
    m_levels->setLevel(LevelView::Level::Blocks);
    const NodeId reluBlock = m_levels->shownNodes({ key("%13") }).front();
    QSignalSpy shown(m_levels.get(), &LevelView::graphShown);
    // A single-op node is not a block to expand.
    QVERIFY(!m_levels->expandBlock(m_levels->shownNodes({ key("%14") }).front()));
    QCOMPARE(shown.count(), 0);
    QVERIFY(m_levels->expandBlock(reluBlock));
    QCOMPARE(shown.count(), 1);
    QVERIFY(m_levels->hasExpandedBlocks());
    // 61 blocks + the add + the relu.
    QCOMPARE(m_levels->blockGraph()->kernelCount(), std::size_t(63));
    QVERIFY(m_levels->shownNodes({ key("%12") }) != m_levels->shownNodes({ key("%13") }));
    QVERIFY(m_levels->layoutKey() != m_doc->graph()->checksum() + "/blocks");
    m_levels->collapseAllBlocks();
    QCOMPARE(shown.count(), 2);
    QCOMPARE(m_levels->blockGraph()->kernelCount(), std::size_t(62));
    // A new graph collapses everything and starts over.
    QVERIFY(m_levels->expandBlock(m_levels->shownNodes({ key("%13") }).front()));
    QVERIFY(m_doc->open(resnet));
    QVERIFY(!m_levels->hasExpandedBlocks());
    QCOMPARE(m_levels->blockGraph()->kernelCount(), std::size_t(62));
}

void TestLevelView::observersHearWhatChanged()
{
    QList<bool> withEdit;
    QList<bool> recordsOnly;
    connect(m_levels.get(), &LevelView::planShown, this, [&](const cleave::PlanEdit *edit) {
        withEdit.append(edit != nullptr);
        recordsOnly.append(edit != nullptr && Document::changesRecordsOnly(*edit));
    });
    const cleave::PartitionId first = m_doc->plan()->partitions()[0].id;

    // At Ops level the observer hears the edit itself: a rename changes one record.
    m_doc->undoStack()->push(new RenamePartition(m_doc.get(), first, "stem"));
    QCOMPARE(withEdit, (QList<bool> { true }));
    QCOMPARE(recordsOnly, (QList<bool> { true }));
    m_doc->undoStack()->undo();
    QCOMPARE(recordsOnly, (QList<bool> { true, true }));
    // A cut moves nodes: not records only.
    m_doc->undoStack()->push(
        new CutAcrossEdges(m_doc.get(), { { { key("%13"), 0 }, key("%14") } }));
    QCOMPARE(withEdit, (QList<bool> { true, true, true }));
    QCOMPARE(recordsOnly, (QList<bool> { true, true, false }));

    // At Blocks level the plan is converted again: observers redraw it whole.
    m_levels->setLevel(LevelView::Level::Blocks);
    withEdit.clear();
    m_doc->undoStack()->push(new SetPartitionTarget(m_doc.get(), first, "cuda"));
    QCOMPARE(withEdit, (QList<bool> { false }));
    QCOMPARE(m_levels->shownPlan()->partitions()[0].target, std::string("cuda"));
}

// The worker preparing the Blocks level reads the document's blocks, shared and not copied;
// other fusion settings replace them, and whoever still holds the old ones keeps them intact.
void TestLevelView::blocksAreSharedWithTheWorker()
{
    const std::shared_ptr<const std::vector<cleave::FusedBlock>> held = m_doc->sharedBlocks();
    QCOMPARE(held.get(), &m_doc->blocks());
    QCOMPARE(held->size(), std::size_t(62)); // ResNet-18's FuseOps kernels, as above
    QSignalSpy ready(m_levels->prefetch(), &LevelPrefetch::ready);
    QVERIFY(m_levels->prepareBlocks(nullptr));
    QVERIFY(ready.wait(30000));
    // Collapsed from those very blocks: one kernel per block.
    QCOMPARE(m_levels->preparedBlocks()->blocks->kernelCount(), held->size());
    EngineSettings settings = m_doc->settings();
    settings.foldBatchNorm = true;
    m_doc->setSettings(settings);
    QVERIFY(m_doc->sharedBlocks().get() != held.get());
    QCOMPARE(held->size(), std::size_t(62));
}

QTEST_MAIN(TestLevelView)
#include "tst_levelview.moc"
