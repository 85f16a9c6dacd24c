// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include <QMainWindow>
#include <QStringList>

class QLabel;
class QMenu;
class QStackedWidget;
class QTreeView;

namespace cleave::ui {

class Document;
class ModelOutlineModel;
class SummaryDock;

/// The editor window: File menu (Open, Open Recent, Quit), Help ▸ About, the model outline in the
/// centre, the Summary dock, and a status bar with the model's counts. A file dropped on the
/// window is opened.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Opens the model at `path`. On failure shows the diagnostic in an error dialog, keeps the
    /// model that was open, and returns false.
    bool openFile(const QString &path);

    [[nodiscard]] Document *document() const { return m_document; }
    [[nodiscard]] ModelOutlineModel *outlineModel() const { return m_outlineModel; }
    [[nodiscard]] QTreeView *outlineView() const { return m_outlineView; }
    [[nodiscard]] SummaryDock *summaryDock() const { return m_summaryDock; }

    /// The most recently opened files, newest first (at most maxRecentFiles).
    [[nodiscard]] static QStringList recentFiles();
    static constexpr int maxRecentFiles = 10;

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    void createMenus();
    void showOpenDialog();
    void showAbout();
    void rebuildRecentMenu();
    void rememberRecentFile(const QString &path);
    void forgetRecentFile(const QString &path);
    void onGraphChanged();

    Document *m_document = nullptr;
    ModelOutlineModel *m_outlineModel = nullptr;
    QStackedWidget *m_central = nullptr;
    QLabel *m_emptyHint = nullptr;
    QTreeView *m_outlineView = nullptr;
    SummaryDock *m_summaryDock = nullptr;
    QLabel *m_statusSummary = nullptr;
    QMenu *m_recentMenu = nullptr;
};

} // namespace cleave::ui
