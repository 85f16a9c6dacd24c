// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/MainWindow.h"

#include "core/io/Importer.h"
#include "ui/docks/SummaryDock.h"
#include "ui/document/Document.h"
#include "ui/models/ModelOutlineModel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTreeView>

namespace cleave::ui {

namespace {

const QString recentFilesKey = QStringLiteral("recentFiles");
const QString lastDirectoryKey = QStringLiteral("lastOpenDirectory");
const QString geometryKey = QStringLiteral("mainWindow/geometry");
const QString stateKey = QStringLiteral("mainWindow/state");

void writeRecentFiles(const QStringList &files)
{
    QSettings().setValue(recentFilesKey, files);
}

// How a file is written in the recent-files list: absolute, without `..`.
QString recentEntry(const QString &path)
{
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

QString plural(qsizetype n, const QString &singular, const QString &pluralForm)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? singular : pluralForm);
}

// The one local file a drag carries, or an empty string.
QString droppedFile(const QMimeData *mime)
{
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1)
        return {};
    const QUrl url = mime->urls().constFirst();
    return url.isLocalFile() && QFileInfo(url.toLocalFile()).isFile() ? url.toLocalFile()
                                                                      : QString();
}

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_document(new Document(this))
    , m_outlineModel(new ModelOutlineModel(this))
    , m_central(new QStackedWidget)
    , m_emptyHint(new QLabel)
    , m_outlineView(new QTreeView)
    , m_summaryDock(new SummaryDock(this))
    , m_statusSummary(new QLabel)
{
    setWindowTitle(tr("Cleave"));
    setAcceptDrops(true);

    QStringList formats;
    for (const auto &importer : cleave::importers())
        formats.append(QString::fromStdString(importer->formatName()));
    m_emptyHint->setObjectName(QStringLiteral("emptyHint"));
    m_emptyHint->setAlignment(Qt::AlignCenter);
    m_emptyHint->setWordWrap(true);
    m_emptyHint->setEnabled(false);
    m_emptyHint->setText(
        tr("Open a model with File ▸ Open… (%1) or drop its file here.\n\n"
           "Formats: %2")
            .arg(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText),
                 formats.join(QStringLiteral(", "))));

    m_outlineView->setObjectName(QStringLiteral("modelOutline"));
    m_outlineView->setAccessibleName(tr("Model outline"));
    m_outlineView->setModel(m_outlineModel);
    m_outlineView->setUniformRowHeights(true);
    m_outlineView->setAlternatingRowColors(true);
    m_outlineView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_outlineView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_outlineView->header()->resizeSection(ModelOutlineModel::IdColumn, 260);
    m_outlineView->header()->resizeSection(ModelOutlineModel::KindColumn, 320);

    m_central->addWidget(m_emptyHint);
    m_central->addWidget(m_outlineView);
    setCentralWidget(m_central);

    addDockWidget(Qt::RightDockWidgetArea, m_summaryDock);
    resizeDocks({ m_summaryDock }, { 360 }, Qt::Horizontal);

    m_statusSummary->setObjectName(QStringLiteral("statusSummary"));
    statusBar()->addWidget(m_statusSummary, 1);

    createMenus();
    connect(m_document, &Document::graphChanged, this, &MainWindow::onGraphChanged);

    resize(1280, 800);
    const QSettings settings;
    restoreGeometry(settings.value(geometryKey).toByteArray());
    restoreState(settings.value(stateKey).toByteArray());
}

MainWindow::~MainWindow() = default;

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open…"), this, &MainWindow::showOpenDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    // Filled when shown: an action must not be deleted while its own trigger is handled.
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    m_recentMenu->setEnabled(!recentFiles().isEmpty());
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_summaryDock->toggleViewAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *about = help->addAction(tr("&About Cleave"), this, &MainWindow::showAbout);
    about->setMenuRole(QAction::AboutRole);
    QAction *aboutQt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    aboutQt->setMenuRole(QAction::AboutQtRole);
}

bool MainWindow::openFile(const QString &path)
{
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool opened = m_document->open(path, &error);
    QApplication::restoreOverrideCursor();
    if (opened) {
        rememberRecentFile(path);
        return true;
    }
    if (!QFileInfo::exists(path))
        forgetRecentFile(path);
    QMessageBox box(
        QMessageBox::Critical, tr("Cannot open model"),
        tr("Cleave could not open %1.\n\n%2").arg(QDir::toNativeSeparators(path), error),
        QMessageBox::Ok, this);
    box.setTextFormat(Qt::PlainText);
    box.exec();
    return false;
}

void MainWindow::showOpenDialog()
{
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Model"), settings.value(lastDirectoryKey, QDir::homePath()).toString(),
        tr("Models (*.relay *.txt *.json *.onnx);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(lastDirectoryKey, QFileInfo(path).absolutePath());
    openFile(path);
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Cleave"),
                       tr("<h3>Cleave %1</h3>"
                          "<p>The partition editor for deep-learning computation graphs: open a "
                          "TVM model, see its functions, operators and fused blocks.</p>"
                          "<p>Built with Qt %2.</p>")
                           .arg(QStringLiteral(CLEAVE_VERSION), QString::fromUtf8(qVersion())));
}

QStringList MainWindow::recentFiles()
{
    return QSettings().value(recentFilesKey).toStringList();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (const QString &file : files) {
        QAction *action = m_recentMenu->addAction(QFileInfo(file).fileName(), this,
                                                  [this, file] { openFile(file); });
        action->setToolTip(QDir::toNativeSeparators(file));
        action->setStatusTip(QDir::toNativeSeparators(file));
    }
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear Menu"), this, [this] {
            writeRecentFiles({});
            m_recentMenu->setEnabled(false);
        });
    }
}

void MainWindow::rememberRecentFile(const QString &path)
{
    const QString absolute = recentEntry(path);
    QStringList files = recentFiles();
    files.removeAll(absolute);
    files.prepend(absolute);
    writeRecentFiles(files.mid(0, maxRecentFiles));
    m_recentMenu->setEnabled(true);
}

void MainWindow::forgetRecentFile(const QString &path)
{
    QStringList files = recentFiles();
    if (files.removeAll(recentEntry(path)) > 0) {
        writeRecentFiles(files);
        m_recentMenu->setEnabled(!files.isEmpty());
    }
}

void MainWindow::onGraphChanged()
{
    m_outlineModel->setGraph(m_document->graph());
    const cleave::ModelSummary &summary = m_document->summary();
    m_summaryDock->setSummary(summary);

    if (!m_document->hasGraph()) {
        setWindowTitle(tr("Cleave"));
        m_statusSummary->clear();
        m_central->setCurrentWidget(m_emptyHint);
        return;
    }
    setWindowTitle(tr("%1 — Cleave").arg(m_document->fileName()));
    m_statusSummary->setText(QStringList {
        plural(static_cast<qsizetype>(summary.opCalls), tr("op"), tr("ops")),
        plural(static_cast<qsizetype>(summary.inputs.size()), tr("input"), tr("inputs")),
        plural(static_cast<qsizetype>(summary.outputs.size()), tr("output"), tr("outputs")),
        QString::fromStdString(summary.format) }
                                 .join(QStringLiteral(" · ")));
    m_central->setCurrentWidget(m_outlineView);

    const QModelIndex main = m_outlineModel->functionIndex(m_document->graph()->mainFunction());
    m_outlineView->expand(main);
    m_outlineView->setCurrentIndex(main);
    m_outlineView->setFocus();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!droppedFile(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QString path = droppedFile(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
    // Open after the drop returns, so an error dialog does not run inside the drag.
    QMetaObject::invokeMethod(
        this, [this, path] { openFile(path); }, Qt::QueuedConnection);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(geometryKey, saveGeometry());
    settings.setValue(stateKey, saveState());
    QMainWindow::closeEvent(event);
}

} // namespace cleave::ui
