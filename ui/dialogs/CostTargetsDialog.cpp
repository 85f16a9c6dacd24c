// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/dialogs/CostTargetsDialog.h"

#include "core/analysis/WeightInputs.h"
#include "core/partition/BoundaryTensors.h"
#include "ui/commands/ChangeEngineSettings.h"
#include "ui/docks/DockTableView.h"
#include "ui/docks/FunctionChooser.h"
#include "ui/document/Document.h"
#include "ui/models/PartitionListModel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace cleave::ui {

namespace {

/// The target column's editor: an editable list of the targets worth knowing (the usual TVM
/// targets and those the loaded op-support lists name).
class TargetDelegate : public QStyledItemDelegate
{
public:
    TargetDelegate(Document *document, QObject *parent)
        : QStyledItemDelegate(parent)
        , m_document(document)
    {
    }

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem & /*option*/,
                          const QModelIndex & /*index*/) const override
    {
        auto *combo = new QComboBox(parent);
        combo->setObjectName(QStringLiteral("targetEditor"));
        combo->setEditable(true);
        QStringList targets = { QStringLiteral("llvm"), QStringLiteral("cuda") };
        for (const std::string &t : m_document->settings().supportedTargets())
            targets.append(QString::fromStdString(t));
        targets.removeDuplicates();
        combo->addItems(targets);
        // Enter in the text (eventFilter), or a target picked from the list, commits at once.
        combo->lineEdit()->installEventFilter(const_cast<TargetDelegate *>(this));
        QObject::connect(
            combo, &QComboBox::activated, combo,
            [self = const_cast<TargetDelegate *>(this), combo] { self->commit(combo); });
        return combo;
    }

    void setEditorData(QWidget *editor, const QModelIndex &index) const override
    {
        static_cast<QComboBox *>(editor)->setCurrentText(index.data(Qt::EditRole).toString());
    }

    bool eventFilter(QObject *object, QEvent *event) override
    {
        if (event->type() == QEvent::KeyPress) {
            const int key = static_cast<QKeyEvent *>(event)->key();
            auto *combo = qobject_cast<QComboBox *>(object->parent());
            if (combo && (key == Qt::Key_Return || key == Qt::Key_Enter)) {
                // Taken here: the page (a dialog) would press its default button otherwise.
                commit(combo);
                return true;
            }
        }
        return QStyledItemDelegate::eventFilter(object, event);
    }

    void commit(QComboBox *combo)
    {
        if (combo->property("committed").toBool())
            return; // Enter also activates the typed entry
        combo->setProperty("committed", true);
        emit commitData(combo);
        emit closeEditor(combo);
    }

    void setModelData(QWidget *editor, QAbstractItemModel *model,
                      const QModelIndex &index) const override
    {
        model->setData(index, static_cast<QComboBox *>(editor)->currentText(), Qt::EditRole);
    }

private:
    Document *m_document;
};

QPushButton *button(const QString &text, const char *name)
{
    auto *b = new QPushButton(text);
    b->setObjectName(QLatin1String(name));
    // Enter in a field (a target being typed) must not press Load… and open a file dialog.
    b->setAutoDefault(false);
    return b;
}

QLabel *fileLabel(const char *name)
{
    auto *label = new QLabel;
    label->setObjectName(QLatin1String(name));
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setWordWrap(true);
    return label;
}

QString native(const std::string &path)
{
    return QDir::toNativeSeparators(QString::fromStdString(path));
}

} // namespace

CostTargetsDialog::CostTargetsDialog(Document *document, QWidget *parent)
    : QDialog(parent)
    , m_document(document)
    , m_function(new FunctionChooser(document))
    , m_opSupport(new QListWidget)
    , m_unloadOpSupport(button(tr("Unload"), "unloadOpSupportButton"))
    , m_latency(fileLabel("latencyFileLabel"))
    , m_unloadLatency(button(tr("Unload"), "unloadLatencyButton"))
    , m_foldBatchNorm(new QCheckBox(tr("Fold batch norm, as after SimplifyInference "
                                       "(conv → batch_norm → relu is one block)")))
    , m_transparentStopFusion(new QCheckBox(tr("Let blocks grow across annotation.stop_fusion")))
    , m_opPatterns(fileLabel("opPatternsFileLabel"))
    , m_unloadOpPatterns(button(tr("Unload"), "unloadOpPatternsButton"))
    , m_blocks(fileLabel("blocksCountLabel"))
    , m_partitions(new PartitionListModel(document, this))
    , m_targets(new QTableView)
    , m_params(new QListWidget)
    , m_paramName(new QComboBox)
    , m_removeParam(button(tr("Remove"), "removeParamButton"))
    , m_liftConstants(new QCheckBox(tr("Lift constants to module parameters "
                                       "(for dumps without a metadata section)")))
    , m_errors(new QLabel)
{
    setObjectName(QStringLiteral("costTargetsDialog"));
    setWindowTitle(tr("Cost & Targets"));
    setMinimumSize(640, 560);
    m_function->setObjectName(QStringLiteral("costFunctionChooser"));
    m_errors->setObjectName(QStringLiteral("settingsErrors"));
    m_errors->setWordWrap(true);
    m_errors->setTextFormat(Qt::PlainText);
    m_errors->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errors->setStyleSheet(QStringLiteral("color: #b3261e;"));
    m_errors->hide();

    auto *tabs = new QTabWidget;
    tabs->setObjectName(QStringLiteral("costTargetsTabs"));
    tabs->addTab(createModelPage(), tr("&Model && Targets"));
    tabs->addTab(createCostPage(), tr("&Cost && Fusion"));
    tabs->addTab(createExportPage(), tr("&Parameters && Export"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    // A page of fields: Enter never closes it (Escape and Close do).
    buttons->button(QDialogButtonBox::Close)->setAutoDefault(false);
    buttons->button(QDialogButtonBox::Close)->setDefault(false);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(tabs, 1);
    layout->addWidget(m_errors);
    layout->addWidget(buttons);

    // The window's document may go before its children: the table lets go of it first.
    connect(document, &QObject::destroyed, this, [this] { m_targets->setModel(nullptr); });
    connect(document, &Document::settingsChanged, this, &CostTargetsDialog::refresh);
    connect(document, &Document::graphChanged, this, &CostTargetsDialog::refresh);
    connect(document, &Document::planReset, this, &CostTargetsDialog::refresh);
    refresh();
}

QWidget *CostTargetsDialog::createModelPage()
{
    auto *functionBox = new QGroupBox(tr("Function to partition"));
    auto *functionLayout = new QFormLayout(functionBox);
    auto *functionNote = new QLabel(tr("Modules with several functions (Relax modules: "
                                       "prefill, decode, …) are partitioned one function at a "
                                       "time; choosing another starts a new plan (undoable)."));
    functionNote->setWordWrap(true);
    functionNote->setEnabled(false);
    functionLayout->addRow(tr("&Function:"), m_function);
    functionLayout->addRow(functionNote);

    auto *targetsBox = new QGroupBox(tr("Partition targets"));
    auto *targetsLayout = new QVBoxLayout(targetsBox);
    m_targets->setObjectName(QStringLiteral("targetsView"));
    m_targets->setModel(m_partitions);
    setUpDockTable(m_targets);
    m_targets->setItemDelegateForColumn(PartitionListModel::TargetColumn,
                                        new TargetDelegate(m_document, m_targets));
    m_targets->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                               | QAbstractItemView::SelectedClicked);
    for (int c = 0; c < PartitionListModel::ColumnCount; ++c) {
        m_targets->setColumnHidden(
            c,
            c != PartitionListModel::NameColumn && c != PartitionListModel::TargetColumn
                && c != PartitionListModel::OpsColumn && c != PartitionListModel::LatencyColumn);
    }
    m_targets->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    auto *targetsNote = new QLabel(tr("Double-click a target to change it. Ops a target's "
                                      "op-support list does not name are drawn in red on the "
                                      "canvas and listed in Diagnostics."));
    targetsNote->setWordWrap(true);
    targetsNote->setEnabled(false);
    targetsLayout->addWidget(m_targets, 1);
    targetsLayout->addWidget(targetsNote);

    auto *supportBox = new QGroupBox(tr("Op-support lists (--op-support)"));
    auto *supportLayout = new QVBoxLayout(supportBox);
    m_opSupport->setObjectName(QStringLiteral("opSupportList"));
    m_opSupport->setMaximumHeight(110);
    QPushButton *load = button(tr("Load…"), "loadOpSupportButton");
    auto *row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("{\"target\": \"dnnl\", \"ops\": [\"nn.conv2d\", …]}")), 1);
    row->addWidget(load);
    row->addWidget(m_unloadOpSupport);
    supportLayout->addWidget(m_opSupport);
    supportLayout->addLayout(row);
    connect(load, &QPushButton::clicked, this, [this] {
        const QString path = askForFile(tr("Load Op-Support List"), tr("JSON files (*.json)"));
        if (!path.isEmpty())
            loadOpSupport(path);
    });
    connect(m_unloadOpSupport, &QPushButton::clicked, this, [this] {
        const int row = m_opSupport->currentRow();
        EngineSettings settings = m_document->settings();
        if (row < 0 || row >= static_cast<int>(settings.opSupport.size()))
            return;
        const QString name = QFileInfo(QString::fromStdString(
                                           settings.opSupport[static_cast<std::size_t>(row)]->path))
                                 .fileName();
        settings.opSupport.erase(settings.opSupport.begin() + row);
        change(std::move(settings), tr("Unload op-support list %1").arg(name));
    });
    connect(m_opSupport, &QListWidget::currentRowChanged, this,
            [this](int row) { m_unloadOpSupport->setEnabled(row >= 0); });

    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->addWidget(functionBox);
    layout->addWidget(supportBox);
    layout->addWidget(targetsBox, 1);
    return page;
}

QWidget *CostTargetsDialog::createCostPage()
{
    auto *latencyBox = new QGroupBox(tr("Latency table (--latency)"));
    auto *latencyLayout = new QVBoxLayout(latencyBox);
    QPushButton *loadLatencyButton = button(tr("Load…"), "loadLatencyButton");
    auto *latencyRow = new QHBoxLayout;
    latencyRow->addWidget(m_latency, 1);
    latencyRow->addWidget(loadLatencyButton);
    latencyRow->addWidget(m_unloadLatency);
    auto *latencyNote = new QLabel(tr("Measured latencies replace FLOPs as the cost: the "
                                      "Partitions dock gets a Latency column, the Balance dock "
                                      "and auto-partitioning use them."));
    latencyNote->setWordWrap(true);
    latencyNote->setEnabled(false);
    latencyLayout->addLayout(latencyRow);
    latencyLayout->addWidget(latencyNote);
    connect(loadLatencyButton, &QPushButton::clicked, this, [this] {
        const QString path = askForFile(tr("Load Latency Table"), tr("JSON files (*.json)"));
        if (!path.isEmpty())
            loadLatency(path);
    });
    connect(m_unloadLatency, &QPushButton::clicked, this, [this] {
        EngineSettings settings = m_document->settings();
        settings.latency.reset();
        settings.latencyPath.clear();
        change(std::move(settings), tr("Unload latency table"));
    });

    auto *fusionBox = new QGroupBox(tr("Fused blocks (FuseOps)"));
    auto *fusionLayout = new QVBoxLayout(fusionBox);
    m_foldBatchNorm->setObjectName(QStringLiteral("foldBatchNormCheck"));
    m_transparentStopFusion->setObjectName(QStringLiteral("transparentStopFusionCheck"));
    QPushButton *loadPatterns = button(tr("Load…"), "loadOpPatternsButton");
    auto *patternsRow = new QHBoxLayout;
    patternsRow->addWidget(new QLabel(tr("Op patterns:")));
    patternsRow->addWidget(m_opPatterns, 1);
    patternsRow->addWidget(loadPatterns);
    patternsRow->addWidget(m_unloadOpPatterns);
    fusionLayout->addWidget(m_foldBatchNorm);
    fusionLayout->addWidget(m_transparentStopFusion);
    fusionLayout->addLayout(patternsRow);
    fusionLayout->addWidget(m_blocks);
    connect(m_foldBatchNorm, &QCheckBox::toggled, this, [this](bool on) {
        if (on == m_document->settings().foldBatchNorm)
            return;
        EngineSettings settings = m_document->settings();
        settings.foldBatchNorm = on;
        change(std::move(settings), on ? tr("Fold batch norm") : tr("Keep batch norm opaque"));
    });
    connect(m_transparentStopFusion, &QCheckBox::toggled, this, [this](bool on) {
        if (on == m_document->settings().transparentStopFusion)
            return;
        EngineSettings settings = m_document->settings();
        settings.transparentStopFusion = on;
        change(std::move(settings),
               on ? tr("Fuse across stop_fusion") : tr("Stop fusion at stop_fusion"));
    });
    connect(loadPatterns, &QPushButton::clicked, this, [this] {
        const QString path = askForFile(tr("Load Op Patterns"), tr("JSON files (*.json)"));
        if (!path.isEmpty())
            loadOpPatterns(path);
    });
    connect(m_unloadOpPatterns, &QPushButton::clicked, this, [this] {
        EngineSettings settings = m_document->settings();
        settings.opPatterns.reset();
        settings.opPatternsPath.clear();
        change(std::move(settings), tr("Unload op patterns"));
    });

    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->addWidget(latencyBox);
    layout->addWidget(fusionBox);
    layout->addStretch(1);
    return page;
}

QWidget *CostTargetsDialog::createExportPage()
{
    auto *paramsBox = new QGroupBox(tr("Inputs that are parameters (--params)"));
    auto *paramsLayout = new QVBoxLayout(paramsBox);
    auto *paramsNote = new QLabel(
        tr("Weights passed as graph inputs go to each module that reads them through "
           "pipeline_config.json's param_connection, never through the data path. Inputs every "
           "consumer reads as a weight are found on their own; name the others here."));
    paramsNote->setWordWrap(true);
    paramsNote->setEnabled(false);
    m_params->setObjectName(QStringLiteral("paramsList"));
    m_paramName->setObjectName(QStringLiteral("paramNameCombo"));
    m_paramName->setEditable(true);
    m_paramName->setInsertPolicy(QComboBox::NoInsert);
    QPushButton *add = button(tr("Add"), "addParamButton");
    auto *row = new QHBoxLayout;
    row->addWidget(m_paramName, 1);
    row->addWidget(add);
    row->addWidget(m_removeParam);
    paramsLayout->addWidget(paramsNote);
    paramsLayout->addWidget(m_params, 1);
    paramsLayout->addLayout(row);
    connect(add, &QPushButton::clicked, this, &CostTargetsDialog::addParam);
    connect(m_removeParam, &QPushButton::clicked, this, [this] {
        const int row = m_params->currentRow();
        EngineSettings settings = m_document->settings();
        if (row < 0 || row >= static_cast<int>(settings.params.size()))
            return;
        const QString name = QString::fromStdString(settings.params[static_cast<std::size_t>(row)]);
        settings.params.erase(settings.params.begin() + row);
        change(std::move(settings), tr("Treat %1 as data").arg(name));
    });
    connect(m_params, &QListWidget::currentRowChanged, this,
            [this](int row) { m_removeParam->setEnabled(row >= 0); });

    auto *exportBox = new QGroupBox(tr("Export"));
    auto *exportLayout = new QVBoxLayout(exportBox);
    m_liftConstants->setObjectName(QStringLiteral("liftConstantsCheck"));
    exportLayout->addWidget(m_liftConstants);
    connect(m_liftConstants, &QCheckBox::toggled, this, [this](bool on) {
        if (on == m_document->settings().liftConstants)
            return;
        EngineSettings settings = m_document->settings();
        settings.liftConstants = on;
        change(std::move(settings),
               on ? tr("Lift constants to parameters") : tr("Keep constants in the modules"));
    });

    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->addWidget(paramsBox, 1);
    layout->addWidget(exportBox);
    return page;
}

void CostTargetsDialog::addParam()
{
    const cleave::PartitionPlan *plan = m_document->plan();
    const std::string name = m_paramName->currentText().trimmed().toStdString();
    if (!plan || name.empty())
        return;
    const cleave::Graph &graph = plan->graph();
    const std::vector<cleave::NodeId> &inputs = plan->view().inputs();
    const bool known = std::any_of(inputs.begin(), inputs.end(), [&](cleave::NodeId n) {
        return cleave::globalInputName(graph, n) == name;
    });
    if (!known) {
        m_errors->setText(tr("The function %1 has no input named %2.")
                              .arg(QString::fromStdString(graph.function(plan->function()).name),
                                   QString::fromStdString(name)));
        m_errors->show();
        return;
    }
    m_errors->hide();
    EngineSettings settings = m_document->settings();
    if (settings.isParam(name))
        return;
    settings.params.push_back(name);
    change(std::move(settings), tr("Treat %1 as a parameter").arg(QString::fromStdString(name)));
}

CostTargetsDialog *CostTargetsDialog::showFor(Document *document, QWidget *parent)
{
    auto *dialog = parent->findChild<CostTargetsDialog *>(QStringLiteral("costTargetsDialog"),
                                                          Qt::FindDirectChildrenOnly);
    if (!dialog)
        dialog = new CostTargetsDialog(document, parent);
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    return dialog;
}

bool CostTargetsDialog::loadOpSupport(const QString &path)
{
    std::vector<cleave::Diagnostic> problems;
    auto file = EngineSettings::loadOpSupport(path.toStdString(), problems);
    if (!reportProblems(problems) || !file)
        return false;
    EngineSettings settings = m_document->settings();
    // Loading a file again replaces it (it may have been edited since).
    std::erase_if(settings.opSupport, [&](const auto &f) { return f->path == file->path; });
    settings.opSupport.push_back(std::move(file));
    change(std::move(settings), tr("Load op-support list %1").arg(QFileInfo(path).fileName()));
    return true;
}

bool CostTargetsDialog::loadLatency(const QString &path)
{
    std::vector<cleave::Diagnostic> problems;
    auto table = EngineSettings::loadLatency(path.toStdString(), problems);
    if (!reportProblems(problems) || !table)
        return false;
    EngineSettings settings = m_document->settings();
    settings.latency = std::move(table);
    settings.latencyPath = path.toStdString();
    change(std::move(settings), tr("Load latency table %1").arg(QFileInfo(path).fileName()));
    return true;
}

bool CostTargetsDialog::loadOpPatterns(const QString &path)
{
    std::vector<cleave::Diagnostic> problems;
    auto table = EngineSettings::loadOpPatterns(path.toStdString(), problems);
    if (!reportProblems(problems) || !table)
        return false;
    EngineSettings settings = m_document->settings();
    settings.opPatterns = std::move(table);
    settings.opPatternsPath = path.toStdString();
    change(std::move(settings), tr("Load op patterns %1").arg(QFileInfo(path).fileName()));
    return true;
}

QString CostTargetsDialog::errorText() const
{
    return m_errors->isHidden() ? QString() : m_errors->text();
}

bool CostTargetsDialog::reportProblems(const std::vector<cleave::Diagnostic> &problems)
{
    QStringList lines;
    for (const cleave::Diagnostic &d : problems) {
        if (d.severity == cleave::Severity::Error)
            lines.append(QString::fromStdString(d.toString()));
    }
    m_errors->setText(lines.join(QLatin1Char('\n')));
    m_errors->setVisible(!lines.isEmpty());
    return lines.isEmpty();
}

QString CostTargetsDialog::askForFile(const QString &title, const QString &filter)
{
    const QString folder = m_document->filePath().isEmpty()
        ? QString()
        : QFileInfo(m_document->filePath()).absolutePath();
    return QFileDialog::getOpenFileName(this, title, folder, filter);
}

void CostTargetsDialog::change(EngineSettings settings, const QString &text)
{
    if (!m_document->hasGraph())
        return;
    m_document->undoStack()->push(new ChangeEngineSettings(m_document, std::move(settings), text));
}

void CostTargetsDialog::refresh()
{
    const EngineSettings &settings = m_document->settings();
    const bool open = m_document->hasGraph();
    m_opSupport->clear();
    for (const auto &file : settings.opSupport) {
        QStringList targets;
        for (const cleave::OpSupportList &list : file->lists)
            targets.append(QStringLiteral("%1 (%2 ops)")
                               .arg(QString::fromStdString(list.target))
                               .arg(list.ops.size()));
        auto *item = new QListWidgetItem(
            QStringLiteral("%1 — %2").arg(QFileInfo(QString::fromStdString(file->path)).fileName(),
                                          targets.join(QStringLiteral(", "))));
        item->setToolTip(native(file->path));
        m_opSupport->addItem(item);
    }
    m_unloadOpSupport->setEnabled(false);
    m_latency->setText(settings.latency ? native(settings.latencyPath)
                                        : tr("none: costs are FLOPs"));
    m_unloadLatency->setEnabled(settings.latency != nullptr);
    m_opPatterns->setText(settings.opPatterns ? native(settings.opPatternsPath)
                                              : tr("built-in (TVM's op patterns)"));
    m_unloadOpPatterns->setEnabled(settings.opPatterns != nullptr);
    m_foldBatchNorm->setChecked(settings.foldBatchNorm);
    m_transparentStopFusion->setChecked(settings.transparentStopFusion);
    const std::size_t blocks = open ? m_document->blocks().size() : 0;
    m_blocks->setText(!open             ? QString()
                          : blocks == 1 ? tr("1 fused block with these options")
                                        : tr("%1 fused blocks with these options").arg(blocks));
    m_targets->setColumnHidden(PartitionListModel::LatencyColumn, !settings.latency);
    m_liftConstants->setChecked(settings.liftConstants);

    m_params->clear();
    for (const std::string &p : settings.params)
        m_params->addItem(QString::fromStdString(p));
    m_removeParam->setEnabled(false);
    const QString typed = m_paramName->currentText();
    m_paramName->clear();
    if (const cleave::PartitionPlan *plan = m_document->plan()) {
        const cleave::Graph &graph = plan->graph();
        const auto weights = cleave::weightInputs(graph, plan->function());
        for (cleave::NodeId n : plan->view().inputs()) {
            const std::string name = cleave::globalInputName(graph, n);
            if (!settings.isParam(name) && !cleave::isWeightInput(weights, n))
                m_paramName->addItem(QString::fromStdString(name));
        }
    }
    m_paramName->setCurrentText(typed);
    for (QWidget *w : std::initializer_list<QWidget *> { m_foldBatchNorm, m_transparentStopFusion,
                                                         m_liftConstants, m_paramName })
        w->setEnabled(open);
}

} // namespace cleave::ui
