// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Diagnostic.h"
#include "core/project/ProjectFile.h"

#include <QLockFile>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

class QTimer;
class QWidget;

namespace cleave::ui {

class Document;
class ModelLoader;
struct PreparedModel;

/// Everything between the document and files (Tiled's DocumentManager): opening models and
/// projects, saving (atomically), the unsaved-changes question, recent files, autosave and
/// crash recovery. The window only wires menus to it.
///
/// Opening imports the model off the UI thread (ModelLoader: reading, importing with shape
/// inference, fusion, checking), announced phase by phase (loadPhase()) while the window keeps
/// painting and answering; the open waits in a local event loop, like a dialog. cancelLoad()
/// (the progress card's Cancel) ends the wait at once and leaves the document as it was.
///
/// Opening parses first: a file that cannot be read is reported (file:line:col) without asking
/// about unsaved changes, because there is nothing to switch to; only a readable model or
/// project leads to the question. A failure leaves the document untouched.
///
/// Recovery: every session has its own recovery file, `recovery-<id>.cleave` in the recovery
/// directory, locked (QLockFile) for as long as the session lives. autosave() writes or
/// removes only that file. offerRecovery() offers the recovery files whose owner is no longer
/// running (their lock is free or stale) — never the file of another running editor — naming the
/// model each belongs to. A recovery file that cannot be read is reported and set aside
/// (renamed to `….cleave.broken`), so it is never offered, nor fails, twice.
class ProjectSession : public QObject
{
    Q_OBJECT

public:
    /// Follows `document`; dialogs are shown over `dialogParent`.
    ProjectSession(Document *document, QWidget *dialogParent, QObject *parent = nullptr);
    /// Releases the recovery lock. The recovery file stays unless close() was called: a window
    /// that goes away without closing (a crash) leaves it to be offered next time.
    ~ProjectSession() override;

    /// The view written into saved projects (tool, level, zoom, centre).
    void setViewStateProvider(std::function<cleave::ProjectViewState()> provider);

    /// Opens a model or a project (`.cleave`, or any file whose content is a Cleave project).
    bool openFile(const QString &path);
    /// Opens a model file: parses it, asks about unsaved changes, then shows it.
    bool openModel(const QString &path);
    /// Opens a project: its model, its plan (after asking when the model's checksum changed) and
    /// its view (viewStateLoaded()). False (with an error dialog) when anything fails.
    bool openProject(const QString &path);
    /// True while a model is being imported (an open waits for it).
    [[nodiscard]] bool isLoading() const;
    /// Cancels the import of the model being opened: that open returns false and the document
    /// stays as it was.
    void cancelLoad();
    /// The loader (tests wait on its idle() signal before checking that nothing arrived late).
    [[nodiscard]] ModelLoader *loader() const { return m_loader; }

    /// Saves the document as a project at `path` (atomically). False with an error dialog.
    bool saveProject(const QString &path);
    /// Saves to the current project, asking for a path when there is none. When the project
    /// file changed on disk since this session opened or saved it (another editor saved it),
    /// asks first: Overwrite it, Reload it (this window's unsaved changes are dropped), Save As…
    /// another file, or Cancel; false when nothing was saved or reloaded.
    bool save();
    bool saveAs();
    /// True when it is fine to replace or close the document (saved, discarded, or unchanged).
    bool maybeSave();
    /// A clean close: stops autosaving and removes this session's recovery file.
    void close();

    /// Writes this session's recovery file now when there are unsaved changes (removes it
    /// otherwise). Other sessions' files are never touched.
    void autosave();
    /// Offers the recovery files left by sessions that are no longer running, newest first,
    /// until one is restored or none is left; true when one was restored.
    bool offerRecovery();
    /// This session's recovery file (it exists only while there are unsaved changes).
    [[nodiscard]] QString recoveryFilePath() const { return m_recoveryPath; }
    /// Where recovery files live (QStandardPaths::AppDataLocation).
    [[nodiscard]] static QString recoveryDirectory();
    /// The recovery files in recoveryDirectory() whose owner is not running.
    [[nodiscard]] QStringList orphanedRecoveryFiles() const;

    /// The most recently opened files, newest first (at most maxRecentFiles).
    [[nodiscard]] static QStringList recentFiles();
    static void clearRecentFiles();
    static constexpr int maxRecentFiles = 10;
    static constexpr int autosaveIntervalMs = 60 * 1000;

signals:
    /// A project was opened with this saved view: apply it once its layout is ready.
    void viewStateLoaded(const cleave::ProjectViewState &state);
    /// A message for the status bar.
    void statusMessage(const QString &text, int timeoutMs);
    void recentFilesChanged();
    /// A model import started, entered a new phase (`text` says which), or ended.
    void loadStarted(const QString &path);
    void loadPhase(const QString &text, int percent);
    void loadEnded();

private:
    struct Loaded;
    /// Imports `path` in the background and waits for it (the event loop runs meanwhile); null
    /// when cancelled or superseded, else the prepared model, which may have failed.
    std::shared_ptr<PreparedModel> importInBackground(const QString &path);
    /// Reads a project and its model and fits the plan; nullptr (after an error dialog) on
    /// failure. `asRecovery` words the errors for a recovery file.
    std::unique_ptr<Loaded> loadProject(const QString &path, bool asRecovery);
    void applyProject(Loaded &loaded);
    /// Offers one orphaned recovery file; true when restored.
    bool offerRecoveryFile(const QString &path);
    /// Renames a recovery file that cannot be read out of the way; returns the new name.
    QString setAside(const QString &path);
    void rememberRecentFile(const QString &path);
    void forgetRecentFile(const QString &path);
    void showError(const QString &title, const QString &text);
    [[nodiscard]] cleave::ProjectViewState viewState() const;

    /// The SHA-256 of a file's bytes, empty when it cannot be read.
    static QByteArray fileHash(const QString &path);
    /// True when `path` holds other bytes than this session last read or wrote there.
    [[nodiscard]] bool changedOnDisk(const QString &path) const;

    Document *m_document;
    QWidget *m_dialogParent;
    QByteArray m_projectHash; ///< Of the project file as this session last read or wrote it.
    ModelLoader *m_loader;
    QTimer *m_autosaveTimer;
    QString m_recoveryPath;
    QLockFile m_recoveryLock;
    std::function<cleave::ProjectViewState()> m_viewState;
};

} // namespace cleave::ui
