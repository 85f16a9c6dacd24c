// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/document/ProjectSession.h"

#include "core/formats/FormatRegistry.h"
#include "core/session/EngineSettings.h"
#include "ui/document/Document.h"
#include "ui/document/ModelLoader.h"

#include <QApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>
#include <QUuid>

#include <algorithm>

namespace cleave::ui {

namespace {

const QString recentFilesKey = QStringLiteral("recentFiles");
constexpr int shownDiagnostics = 10;

QString newRecoveryPath()
{
    const QString id = QUuid::createUuid().toString(QUuid::Id128).left(16);
    return QDir(ProjectSession::recoveryDirectory())
        .filePath(QStringLiteral("recovery-%1.cleave").arg(id));
}

QString lockPathOf(const QString &recovery)
{
    return recovery + QStringLiteral(".lock");
}

void writeRecentFiles(const QStringList &files)
{
    QSettings().setValue(recentFilesKey, files);
}

// How a file is written in the recent-files list: absolute, without `..`.
QString recentEntry(const QString &path)
{
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

// A project by its suffix, or by its content (a project saved under another name).
bool isProjectFile(const QString &path)
{
    if (path.endsWith(QStringLiteral(".cleave"), Qt::CaseInsensitive))
        return true;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray head = file.read(4096);
    return head.trimmed().startsWith('{') && head.contains("\"cleave_project\"");
}

QString diagnosticsText(const std::vector<cleave::Diagnostic> &diagnostics,
                        cleave::Severity atLeast)
{
    QStringList lines;
    int shown = 0;
    int hidden = 0;
    for (const cleave::Diagnostic &d : diagnostics) {
        if (static_cast<int>(d.severity) < static_cast<int>(atLeast))
            continue;
        if (shown++ < shownDiagnostics)
            lines.append(QString::fromStdString(d.toString()));
        else
            ++hidden;
    }
    if (hidden > 0)
        lines.append(QApplication::translate("ProjectSession", "(%n more)", nullptr, hidden));
    return lines.join(QLatin1Char('\n'));
}

QString native(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

} // namespace

struct ProjectSession::Loaded
{
    std::string projectPath;
    QString modelPath;
    cleave::ProjectViewState view;
    std::shared_ptr<PreparedModel> model;
    std::optional<cleave::PartitionPlan> plan;
    EngineSettings settings;
    QString warnings;
};

ProjectSession::ProjectSession(Document *document, QWidget *dialogParent, QObject *parent)
    : QObject(parent)
    , m_document(document)
    , m_dialogParent(dialogParent)
    , m_loader(new ModelLoader(this))
    , m_autosaveTimer(new QTimer(this))
    , m_recoveryPath(newRecoveryPath())
    , m_recoveryLock(lockPathOf(m_recoveryPath))
{
    QDir().mkpath(recoveryDirectory());
    m_recoveryLock.setStaleLockTime(0); // held for the session's life, however long it runs
    m_recoveryLock.tryLock(0);
    m_autosaveTimer->setInterval(autosaveIntervalMs);
    connect(m_autosaveTimer, &QTimer::timeout, this, &ProjectSession::autosave);
    m_autosaveTimer->start();
    connect(m_loader, &ModelLoader::phaseChanged, this,
            [this](quint64, ModelLoader::Phase, const QString &text, int percent) {
                emit loadPhase(text, percent);
            });
}

ProjectSession::~ProjectSession() = default;

void ProjectSession::setViewStateProvider(std::function<cleave::ProjectViewState()> provider)
{
    m_viewState = std::move(provider);
}

cleave::ProjectViewState ProjectSession::viewState() const
{
    return m_viewState ? m_viewState() : cleave::ProjectViewState {};
}

bool ProjectSession::openFile(const QString &path)
{
    return isProjectFile(path) ? openProject(path) : openModel(path);
}

bool ProjectSession::isLoading() const
{
    return m_loader->isRunning();
}

void ProjectSession::cancelLoad()
{
    m_loader->cancel();
}

std::shared_ptr<PreparedModel> ProjectSession::importInBackground(const QString &path)
{
    std::shared_ptr<PreparedModel> result;
    bool answered = false;
    QEventLoop loop;
    const quint64 generation = m_loader->start(path);
    connect(m_loader, &ModelLoader::finished, &loop,
            [&](quint64 finished, const std::shared_ptr<PreparedModel> &model) {
                if (finished != generation)
                    return;
                result = model;
                answered = true;
                loop.quit();
            });
    emit loadStarted(path);
    QApplication::setOverrideCursor(Qt::BusyCursor);
    // The window paints and answers meanwhile; only the user's other input reaches it, as with
    // a dialog's exec(). The loop also ends when the application quits.
    if (!answered)
        loop.exec();
    QApplication::restoreOverrideCursor();
    if (!answered && m_loader->generation() == generation)
        m_loader->cancel();
    emit loadEnded();
    return result;
}

bool ProjectSession::openModel(const QString &path)
{
    const std::shared_ptr<PreparedModel> prepared = importInBackground(path);
    if (!prepared) {
        emit statusMessage(tr("Opening %1 was cancelled").arg(native(path)), 10000);
        return false;
    }
    if (!prepared->ok()) {
        if (!QFileInfo::exists(path))
            forgetRecentFile(path);
        QString error = diagnosticsText(prepared->importDiagnostics, cleave::Severity::Error);
        if (error.isEmpty())
            error = tr("%1: error: the model could not be read").arg(path);
        showError(tr("Cannot open model"),
                  tr("Cleave could not open %1.\n\n%2").arg(native(path), error));
        return false;
    }
    if (!maybeSave())
        return false;
    m_document->setPrepared(std::move(*prepared), path);
    rememberRecentFile(path);
    return true;
}

std::unique_ptr<ProjectSession::Loaded> ProjectSession::loadProject(const QString &path,
                                                                    bool asRecovery)
{
    const QString title
        = asRecovery ? tr("Cannot recover unsaved work") : tr("Cannot open project");
    auto loaded = std::make_unique<Loaded>();
    loaded->projectPath = QDir::cleanPath(QFileInfo(path).absoluteFilePath()).toStdString();
    const cleave::ProjectLoadResult project = cleave::loadProjectFile(loaded->projectPath);
    if (!project.ok()) {
        showError(
            title,
            tr("Cleave could not read the project %1.\n\n%2")
                .arg(native(path), diagnosticsText(project.diagnostics, cleave::Severity::Error)));
        return nullptr;
    }
    loaded->view = project.project->view;
    loaded->modelPath
        = QString::fromStdString(cleave::resolveModelPath(*project.project, loaded->projectPath));

    loaded->model = importInBackground(loaded->modelPath);
    if (!loaded->model) {
        emit statusMessage(tr("Opening %1 was cancelled").arg(native(path)), 10000);
        return nullptr;
    }
    if (!loaded->model->ok()) {
        showError(
            title,
            tr("The model of the project %1 could not be read.\n\n%2")
                .arg(native(path),
                     diagnosticsText(loaded->model->importDiagnostics, cleave::Severity::Error)));
        return nullptr;
    }
    const cleave::Graph &graph = *loaded->model->graph;

    bool force = false;
    if (cleave::modelChanged(*project.project, graph)) {
        QMessageBox box(QMessageBox::Warning, tr("Model changed"),
                        tr("The model %1 changed since the project was saved (its checksum "
                           "differs).\n\nApply the saved plan to the changed model anyway? Nodes "
                           "the model no longer has are reported.")
                            .arg(native(loaded->modelPath)),
                        QMessageBox::NoButton, m_dialogParent);
        box.setTextFormat(Qt::PlainText);
        QPushButton *apply = box.addButton(tr("Apply Anyway"), QMessageBox::AcceptRole);
        box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(apply);
        box.exec();
        if (box.clickedButton() != apply)
            return nullptr;
        force = true;
    }

    cleave::PlanLoadResult plan
        = cleave::projectPlan(*project.project, graph, loaded->projectPath, force);
    if (!plan.ok()) {
        showError(
            title,
            tr("The plan of the project %1 does not fit its model.\n\n%2")
                .arg(native(path), diagnosticsText(plan.diagnostics, cleave::Severity::Error)));
        return nullptr;
    }
    loaded->plan = std::move(plan.plan);
    loaded->warnings = diagnosticsText(plan.diagnostics, cleave::Severity::Warning);
    // The engine settings: a file that moved or broke is left out and reported, never a reason
    // to refuse the project.
    std::vector<cleave::Diagnostic> problems;
    loaded->settings = EngineSettings::fromProject(
        cleave::resolvedSettings(project.project->settings, loaded->projectPath), problems);
    const QString settingsErrors = diagnosticsText(problems, cleave::Severity::Error);
    if (!settingsErrors.isEmpty())
        loaded->warnings.prepend(tr("Opened without a settings file: %1\n").arg(settingsErrors));
    return loaded;
}

void ProjectSession::applyProject(Loaded &loaded)
{
    m_document->setPrepared(std::move(*loaded.model), loaded.modelPath, std::move(loaded.plan),
                            std::move(loaded.settings));
    m_document->setProjectPath(QString::fromStdString(loaded.projectPath));
    emit viewStateLoaded(loaded.view);
    if (!loaded.warnings.isEmpty())
        emit statusMessage(loaded.warnings.section(QLatin1Char('\n'), 0, 0), 15000);
}

bool ProjectSession::openProject(const QString &path)
{
    std::unique_ptr<Loaded> loaded = loadProject(path, false);
    if (!loaded) {
        if (!QFileInfo::exists(path))
            forgetRecentFile(path);
        return false;
    }
    if (!maybeSave())
        return false;
    applyProject(*loaded);
    m_projectHash = fileHash(path);
    rememberRecentFile(path);
    return true;
}

QByteArray ProjectSession::fileHash(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(&file);
    return hash.result();
}

bool ProjectSession::changedOnDisk(const QString &path) const
{
    if (m_projectHash.isEmpty() || !QFileInfo::exists(path))
        return false; // never read here (a recovered plan), or gone: nothing to lose
    return fileHash(path) != m_projectHash;
}

bool ProjectSession::saveProject(const QString &path)
{
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!plan)
        return false;
    const std::string target = QDir::cleanPath(QFileInfo(path).absoluteFilePath()).toStdString();
    std::string error;
    if (!cleave::saveProjectFile(
            cleave::makeProject(*plan, target, viewState(), m_document->settings().toProject()),
            target, &error)) {
        showError(
            tr("Cannot save project"),
            tr("Cleave could not save the project.\n\n%1").arg(QString::fromStdString(error)));
        return false;
    }
    m_document->setProjectPath(QString::fromStdString(target));
    m_projectHash = fileHash(QString::fromStdString(target));
    m_document->undoStack()->setClean();
    QFile::remove(m_recoveryPath);
    rememberRecentFile(path);
    emit statusMessage(tr("Saved %1").arg(native(path)), 5000);
    return true;
}

bool ProjectSession::save()
{
    const QString path = m_document->projectPath();
    if (path.isEmpty())
        return saveAs();
    if (changedOnDisk(path)) {
        // Another editor (or program) saved the project since this window read or wrote it:
        // saving now would drop its plan without a word.
        QMessageBox box(QMessageBox::Warning, tr("Project changed on disk"),
                        tr("%1 changed on disk since this window opened or saved it (another "
                           "editor or program wrote it).")
                            .arg(native(path)),
                        QMessageBox::NoButton, m_dialogParent);
        box.setInformativeText(tr("Overwrite it with this window's plan, reload it (this "
                                  "window's unsaved changes are dropped), or save this plan "
                                  "under another name?"));
        QPushButton *overwrite = box.addButton(tr("Overwrite"), QMessageBox::DestructiveRole);
        QPushButton *reload = box.addButton(tr("Reload"), QMessageBox::ResetRole);
        QPushButton *another = box.addButton(tr("Save As…"), QMessageBox::AcceptRole);
        box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(another);
        box.exec();
        if (box.clickedButton() == overwrite)
            return saveProject(path);
        if (box.clickedButton() == reload) {
            m_document->undoStack()->setClean(); // the user chose to drop them
            return openProject(path);
        }
        if (box.clickedButton() == another)
            return saveAs();
        return false;
    }
    return saveProject(path);
}

bool ProjectSession::saveAs()
{
    if (!m_document->hasGraph())
        return false;
    QString suggestion = m_document->projectPath();
    if (suggestion.isEmpty()) {
        const QFileInfo model(m_document->filePath());
        suggestion = model.dir().filePath(model.completeBaseName() + QStringLiteral(".cleave"));
    }
    QString path = QFileDialog::getSaveFileName(m_dialogParent, tr("Save Project"), suggestion,
                                                tr("Cleave projects (*.cleave)"));
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".cleave");
    return saveProject(path);
}

bool ProjectSession::maybeSave()
{
    if (!m_document->hasGraph() || !m_document->isModified())
        return true;
    QMessageBox box(QMessageBox::Warning, tr("Unsaved changes"),
                    tr("The plan of %1 has unsaved changes. Save them as a project?")
                        .arg(m_document->fileName()),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, m_dialogParent);
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        return save();
    case QMessageBox::Discard:
        return true;
    default:
        return false;
    }
}

void ProjectSession::close()
{
    m_autosaveTimer->stop();
    QFile::remove(m_recoveryPath);
}

QString ProjectSession::recoveryDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
}

void ProjectSession::autosave()
{
    const cleave::PartitionPlan *plan = m_document->plan();
    if (!plan || !m_document->isModified()) {
        QFile::remove(m_recoveryPath);
        return;
    }
    QDir().mkpath(recoveryDirectory());
    std::string error;
    const std::string target = m_recoveryPath.toStdString();
    if (!cleave::saveProjectFile(
            cleave::makeProject(*plan, target, viewState(), m_document->settings().toProject()),
            target, &error))
        emit statusMessage(tr("Autosave failed: %1").arg(QString::fromStdString(error)), 10000);
}

QStringList ProjectSession::orphanedRecoveryFiles() const
{
    const QDir dir(recoveryDirectory());
    // `recovery.cleave` is the single shared file of earlier versions: no owner can hold it.
    QFileInfoList files = dir.entryInfoList(
        { QStringLiteral("recovery-*.cleave"), QStringLiteral("recovery.cleave") }, QDir::Files);
    std::sort(files.begin(), files.end(), [](const QFileInfo &a, const QFileInfo &b) {
        return a.lastModified() > b.lastModified();
    });
    QStringList orphans;
    for (const QFileInfo &file : files) {
        const QString path = file.absoluteFilePath();
        if (QDir::cleanPath(path) == QDir::cleanPath(m_recoveryPath))
            continue;
        // A free lock, or one whose process is gone (QLockFile takes over such a stale lock),
        // means nobody owns the file any more.
        QLockFile lock(lockPathOf(path));
        lock.setStaleLockTime(0);
        if (lock.tryLock(0))
            orphans.append(path);
    }
    return orphans;
}

bool ProjectSession::offerRecovery()
{
    for (const QString &path : orphanedRecoveryFiles()) {
        // Claim the file while it is offered, so a second editor starting now does not.
        QLockFile claim(lockPathOf(path));
        claim.setStaleLockTime(0);
        if (!claim.tryLock(0))
            continue;
        if (offerRecoveryFile(path))
            return true;
    }
    return false;
}

bool ProjectSession::offerRecoveryFile(const QString &path)
{
    const cleave::ProjectLoadResult peek = cleave::loadProjectFile(path.toStdString());
    if (!peek.ok()) {
        const QString aside = setAside(path);
        showError(
            tr("Cannot recover unsaved work"),
            tr("The recovery file of a session that did not close properly cannot be "
               "read, so it was set aside as %1.\n\n%2")
                .arg(native(aside), diagnosticsText(peek.diagnostics, cleave::Severity::Error)));
        return false;
    }
    const QString model
        = QString::fromStdString(cleave::resolveModelPath(*peek.project, path.toStdString()));
    QMessageBox box(
        QMessageBox::Question, tr("Recover unsaved work"),
        tr("Cleave was not closed properly. Unsaved changes to %1 were kept from %2."
           "\n\nRestore them?")
            .arg(native(model),
                 QLocale().toString(QFileInfo(path).lastModified(), QLocale::ShortFormat)),
        QMessageBox::NoButton, m_dialogParent);
    box.setTextFormat(Qt::PlainText);
    QPushButton *restore = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
    box.addButton(QMessageBox::Discard);
    box.setDefaultButton(restore);
    box.exec();
    if (box.clickedButton() != restore) {
        QFile::remove(path);
        return false;
    }
    std::unique_ptr<Loaded> loaded = loadProject(path, true);
    if (!loaded) {
        setAside(path);
        return false;
    }
    if (!maybeSave())
        return false;
    applyProject(*loaded);
    // The restored work is this session's now: its recovery file, and not saved anywhere yet
    // (Save asks where).
    QFile::remove(m_recoveryPath);
    if (!QFile::rename(path, m_recoveryPath))
        QFile::remove(path);
    m_document->setProjectPath({});
    m_document->undoStack()->resetClean();
    return true;
}

QString ProjectSession::setAside(const QString &path)
{
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString aside = path + QStringLiteral(".broken-") + stamp;
    for (int k = 1; QFileInfo::exists(aside); ++k)
        aside = path + QStringLiteral(".broken-%1-%2").arg(stamp).arg(k);
    if (!QFile::rename(path, aside)) {
        // Never offer it again, even when it cannot be renamed.
        QFile::remove(path);
        return path;
    }
    return aside;
}

QStringList ProjectSession::recentFiles()
{
    return QSettings().value(recentFilesKey).toStringList();
}

void ProjectSession::clearRecentFiles()
{
    writeRecentFiles({});
}

void ProjectSession::rememberRecentFile(const QString &path)
{
    const QString absolute = recentEntry(path);
    if (QFileInfo(absolute).absolutePath() == QDir::cleanPath(recoveryDirectory())
        && QFileInfo(absolute).fileName().startsWith(QStringLiteral("recovery")))
        return;
    QStringList files = recentFiles();
    files.removeAll(absolute);
    files.prepend(absolute);
    writeRecentFiles(files.mid(0, maxRecentFiles));
    emit recentFilesChanged();
}

void ProjectSession::forgetRecentFile(const QString &path)
{
    QStringList files = recentFiles();
    if (files.removeAll(recentEntry(path)) > 0) {
        writeRecentFiles(files);
        emit recentFilesChanged();
    }
}

void ProjectSession::showError(const QString &title, const QString &text)
{
    QMessageBox box(QMessageBox::Critical, title, text, QMessageBox::Ok, m_dialogParent);
    box.setTextFormat(Qt::PlainText);
    box.exec();
}

} // namespace cleave::ui
