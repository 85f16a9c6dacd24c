// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// ProjectSession as a unit, on real files: open parses before asking about unsaved changes,
// save and reopen, recent files, one recovery file per session (two sessions in one process
// sharing the recovery directory), and corrupt projects / recovery files reported with
// file:line:col and set aside instead of crashing or being offered again.
#include "core/partition/PlanFile.h"
#include "ui/commands/NewPartitionFromSelection.h"
#include "ui/document/Document.h"
#include "ui/document/ProjectSession.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QWidget>

#include <memory>

using namespace cleave::ui;
using cleave::NodeId;

namespace {

const QString resnet = QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/resnet18.relay"));
const QString inception
    = QDir::cleanPath(QStringLiteral(CLEAVE_SAMPLES_DIR "/inception_block.relay"));
// The project of ../shared/repro/p.cleave: a number no double holds.
const QByteArray hugeNumberProject = "{\"cleave_project\": 1e999}\n";

// Answers every message box shown while it lives: clicks the button whose text contains
// `button` and records each box's text.
class MessageBoxes : public QObject
{
public:
    explicit MessageBoxes(QString button)
        : m_button(std::move(button))
    {
        auto *timer = new QTimer(this);
        connect(timer, &QTimer::timeout, this, [this] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box || box->property("answered").toBool())
                return;
            box->setProperty("answered", true);
            m_texts.append(box->text());
            for (QAbstractButton *b : box->buttons()) {
                if (b->text().remove(QLatin1Char('&')).contains(m_button)) {
                    b->click();
                    return;
                }
            }
            box->reject();
        });
        timer->start(10);
    }
    [[nodiscard]] const QStringList &texts() const { return m_texts; }

private:
    QString m_button;
    QStringList m_texts;
};

// A document with a session, as the window wires them.
struct Editor
{
    QWidget window;
    Document document;
    std::unique_ptr<ProjectSession> session = std::make_unique<ProjectSession>(&document, &window);
};

NodeId key(const Document &doc, const char *name)
{
    return doc.graph()->findByKey(name);
}

QString planJson(const Document &doc)
{
    return QString::fromStdString(cleave::planToJson(*doc.plan()).dump());
}

void writeFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
}

QStringList recoveryFiles()
{
    QStringList files = QDir(ProjectSession::recoveryDirectory())
                            .entryList({ QStringLiteral("recovery*") }, QDir::Files, QDir::Name);
    // Lock files of the sessions alive in the test are not recovery files.
    files.removeIf([](const QString &f) { return f.endsWith(QStringLiteral(".lock")); });
    return files;
}

} // namespace

class TestProjectSession : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void openParsesBeforeAsking();
    void saveAndReopen();
    void twoEditorsOnOneProject();
    void recentFiles();
    void eachSessionOwnsItsRecovery();
    void recoveryOfferedOnlyWhenOwnerGone();
    void corruptProjectIsReported();
    void corruptRecoveryIsSetAside();
};

void TestProjectSession::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("CleaveTests"));
    QApplication::setApplicationName(QStringLiteral("tst_projectsession"));
    qRegisterMetaType<cleave::ProjectViewState>();
}

void TestProjectSession::init()
{
    QSettings().clear();
    QDir(ProjectSession::recoveryDirectory()).removeRecursively();
}

void TestProjectSession::openParsesBeforeAsking()
{
    QTemporaryDir dir;
    Editor editor;
    QVERIFY(editor.session->openFile(resnet));
    editor.document.undoStack()->push(
        new NewPartitionFromSelection(&editor.document, { key(editor.document, "%5") }));
    QVERIFY(editor.document.isModified());
    const QString edited = planJson(editor.document);

    // A file that cannot be read: one error box naming the place, no unsaved-changes question.
    const QString broken = dir.filePath(QStringLiteral("broken.relay"));
    writeFile(broken,
              "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n  nn.relu(%x\n}\n");
    {
        MessageBoxes boxes(QStringLiteral("OK"));
        QVERIFY(!editor.session->openFile(broken));
        QCOMPARE(boxes.texts().size(), 1);
        QVERIFY2(QRegularExpression(QRegularExpression::escape(broken)
                                    + QStringLiteral(":\\d+:\\d+: error: "))
                     .match(boxes.texts().constFirst())
                     .hasMatch(),
                 qPrintable(boxes.texts().constFirst()));
    }
    QCOMPARE(planJson(editor.document), edited);

    // A readable model: now the question comes, and Cancel keeps the edits.
    {
        MessageBoxes boxes(QStringLiteral("Cancel"));
        QVERIFY(!editor.session->openFile(inception));
        QCOMPARE(boxes.texts().size(), 1);
        QVERIFY(boxes.texts().constFirst().contains(QStringLiteral("unsaved changes")));
    }
    QCOMPARE(planJson(editor.document), edited);
    {
        MessageBoxes boxes(QStringLiteral("Discard"));
        QVERIFY(editor.session->openFile(inception));
    }
    QCOMPARE(editor.document.fileName(), QStringLiteral("inception_block.relay"));
}

void TestProjectSession::saveAndReopen()
{
    QTemporaryDir dir;
    const QString project = dir.filePath(QStringLiteral("net.cleave"));
    QString edited;
    {
        Editor editor;
        QVERIFY(editor.session->openFile(resnet));
        editor.document.undoStack()->push(new NewPartitionFromSelection(
            &editor.document, { key(editor.document, "%5"), key(editor.document, "%6") }));
        edited = planJson(editor.document);
        editor.session->setViewStateProvider([] {
            cleave::ProjectViewState view;
            view.tool = "cut";
            view.level = "blocks";
            return view;
        });
        QSignalSpy status(editor.session.get(), &ProjectSession::statusMessage);
        QVERIFY(editor.session->saveProject(project));
        QVERIFY(!editor.document.isModified());
        QCOMPARE(editor.document.projectPath(), QDir::cleanPath(project));
        QCOMPARE(status.count(), 1);
        QCOMPARE(status.at(0).at(0).toString(),
                 QStringLiteral("Saved %1").arg(QDir::toNativeSeparators(project)));
    }
    Editor again;
    QSignalSpy view(again.session.get(), &ProjectSession::viewStateLoaded);
    QVERIFY(again.session->openFile(project));
    QCOMPARE(planJson(again.document), edited);
    QCOMPARE(again.document.filePath(), resnet);
    QCOMPARE(view.count(), 1);
    const auto state = view.at(0).at(0).value<cleave::ProjectViewState>();
    QCOMPARE(state.tool, std::string("cut"));
    QCOMPARE(state.level, std::string("blocks"));
}

// Issue 34, N4: editor A saves, editor B opens and saves the same project, then A saves again.
// A is asked first (the file changed on disk since A wrote it): Cancel keeps B's plan in the
// file, Overwrite writes A's; B, asked in turn, reloads and gets A's plan. A save over the
// session's own last save asks nothing.
void TestProjectSession::twoEditorsOnOneProject()
{
    QTemporaryDir dir;
    const QString project = dir.filePath(QStringLiteral("shared.cleave"));
    Editor a;
    QVERIFY(a.session->openFile(resnet));
    a.document.undoStack()->push(
        new NewPartitionFromSelection(&a.document, { key(a.document, "%5") }));
    QVERIFY(a.session->saveProject(project));

    Editor b;
    QVERIFY(b.session->openFile(project));
    b.document.undoStack()->push(
        new NewPartitionFromSelection(&b.document, { key(b.document, "%7") }));
    {
        MessageBoxes answers(QStringLiteral("Cancel"));
        QVERIFY(b.session->save()); // B read the file as it is: nothing to ask
        QVERIFY(answers.texts().isEmpty());
    }
    const QString planOfB = planJson(b.document);

    a.document.undoStack()->push(
        new NewPartitionFromSelection(&a.document, { key(a.document, "%6") }));
    const QString planOfA = planJson(a.document);
    QVERIFY(planOfA != planOfB);
    {
        MessageBoxes answers(QStringLiteral("Cancel"));
        QVERIFY(!a.session->save());
        QCOMPARE(answers.texts().size(), 1);
        QVERIFY2(answers.texts()[0].contains(QStringLiteral("changed on disk")),
                 qPrintable(answers.texts()[0]));
        QVERIFY(a.document.isModified());
    }
    {
        Editor reader;
        QVERIFY(reader.session->openFile(project));
        QCOMPARE(planJson(reader.document), planOfB);
    }
    {
        MessageBoxes answers(QStringLiteral("Overwrite"));
        QVERIFY(a.session->save());
        QCOMPARE(answers.texts().size(), 1);
        QVERIFY(!a.document.isModified());
    }
    {
        Editor reader;
        QVERIFY(reader.session->openFile(project));
        QCOMPARE(planJson(reader.document), planOfA);
    }

    b.document.undoStack()->push(
        new NewPartitionFromSelection(&b.document, { key(b.document, "%9") }));
    {
        MessageBoxes answers(QStringLiteral("Reload"));
        QVERIFY(b.session->save());
        QCOMPARE(answers.texts().size(), 1);
    }
    QCOMPARE(planJson(b.document), planOfA);
    QVERIFY(!b.document.isModified());

    a.document.undoStack()->push(
        new NewPartitionFromSelection(&a.document, { key(a.document, "%9") }));
    {
        MessageBoxes answers(QStringLiteral("Cancel"));
        QVERIFY(a.session->save()); // over its own last save: nothing to ask
        QVERIFY(answers.texts().isEmpty());
    }
}

void TestProjectSession::recentFiles()
{
    Editor editor;
    QSignalSpy changed(editor.session.get(), &ProjectSession::recentFilesChanged);
    QVERIFY(editor.session->openFile(resnet));
    QVERIFY(editor.session->openFile(inception));
    QVERIFY(editor.session->openFile(resnet));
    QCOMPARE(ProjectSession::recentFiles(), (QStringList { resnet, inception }));
    QCOMPARE(changed.count(), 3);
    ProjectSession::clearRecentFiles();
    QCOMPARE(ProjectSession::recentFiles(), QStringList());
}

void TestProjectSession::eachSessionOwnsItsRecovery()
{
    // Two editors at once: the first has unsaved cuts, the second is idle.
    auto first = std::make_unique<Editor>();
    Editor second;
    QVERIFY(first->session->recoveryFilePath() != second.session->recoveryFilePath());
    QVERIFY(first->session->openFile(resnet));
    first->document.undoStack()->push(
        new NewPartitionFromSelection(&first->document, { key(first->document, "%5") }));
    const QString edited = planJson(first->document);
    first->session->autosave();
    const QString recovery = first->session->recoveryFilePath();
    QVERIFY(QFileInfo::exists(recovery));

    // The idle editor's autosave tick touches only its own file; it does not offer a file
    // whose owner is running.
    second.session->autosave();
    QVERIFY(QFileInfo::exists(recovery));
    QVERIFY(!QFileInfo::exists(second.session->recoveryFilePath()));
    QCOMPARE(second.session->orphanedRecoveryFiles(), QStringList());
    {
        MessageBoxes boxes(QStringLiteral("Restore"));
        QVERIFY(!second.session->offerRecovery());
        QCOMPARE(boxes.texts(), QStringList());
    }

    // The first editor "crashes" (goes away without closing): its work is offered to the next
    // session, naming its model, and restored there.
    first.reset();
    QVERIFY(QFileInfo::exists(recovery));
    QCOMPARE(second.session->orphanedRecoveryFiles(), QStringList { recovery });
    Editor third;
    {
        MessageBoxes boxes(QStringLiteral("Restore"));
        QVERIFY(third.session->offerRecovery());
        QCOMPARE(boxes.texts().size(), 1);
        QVERIFY2(boxes.texts().constFirst().contains(QDir::toNativeSeparators(resnet)),
                 qPrintable(boxes.texts().constFirst()));
    }
    QCOMPARE(planJson(third.document), edited);
    QVERIFY(third.document.isModified());
    QVERIFY(third.document.projectPath().isEmpty());
    // The restored work is the third session's own recovery now, and nobody else's orphan.
    QVERIFY(!QFileInfo::exists(recovery));
    QVERIFY(QFileInfo::exists(third.session->recoveryFilePath()));
    QCOMPARE(second.session->orphanedRecoveryFiles(), QStringList());
    // A clean close removes it.
    third.session->close();
    QVERIFY(!QFileInfo::exists(third.session->recoveryFilePath()));
}

void TestProjectSession::recoveryOfferedOnlyWhenOwnerGone()
{
    // Discarding an orphan deletes it (the user chose to); then nothing is left to offer.
    auto crashed = std::make_unique<Editor>();
    QVERIFY(crashed->session->openFile(resnet));
    crashed->document.undoStack()->push(
        new NewPartitionFromSelection(&crashed->document, { key(crashed->document, "%7") }));
    crashed->session->autosave();
    const QString recovery = crashed->session->recoveryFilePath();
    crashed.reset();

    Editor editor;
    {
        MessageBoxes boxes(QStringLiteral("Discard"));
        QVERIFY(!editor.session->offerRecovery());
        QCOMPARE(boxes.texts().size(), 1);
    }
    QVERIFY(!QFileInfo::exists(recovery));
    MessageBoxes none(QStringLiteral("Restore"));
    QVERIFY(!editor.session->offerRecovery());
    QCOMPARE(none.texts(), QStringList());
}

void TestProjectSession::corruptProjectIsReported()
{
    QTemporaryDir dir;
    const QString project = dir.filePath(QStringLiteral("p.cleave"));
    writeFile(project, hugeNumberProject);
    Editor editor;
    QVERIFY(editor.session->openFile(resnet));
    const cleave::Graph *graph = editor.document.graph();
    MessageBoxes boxes(QStringLiteral("OK"));
    QVERIFY(!editor.session->openFile(project));
    QCOMPARE(boxes.texts().size(), 1);
    // `1e999` starts at column 20 of line 1.
    QVERIFY2(boxes.texts().constFirst().contains(
                 project + QStringLiteral(":1:20: error: number out of range: '1e999'")),
             qPrintable(boxes.texts().constFirst()));
    QCOMPARE(editor.document.graph(), graph);
    QVERIFY(QFileInfo::exists(project));
}

void TestProjectSession::corruptRecoveryIsSetAside()
{
    QDir().mkpath(ProjectSession::recoveryDirectory());
    const QString recovery = QDir(ProjectSession::recoveryDirectory())
                                 .filePath(QStringLiteral("recovery-dead.cleave"));
    writeFile(recovery, hugeNumberProject);
    Editor editor;
    {
        MessageBoxes boxes(QStringLiteral("OK"));
        QVERIFY(!editor.session->offerRecovery());
        QCOMPARE(boxes.texts().size(), 1);
        QVERIFY2(boxes.texts().constFirst().contains(
                     recovery + QStringLiteral(":1:20: error: number out of range: '1e999'")),
                 qPrintable(boxes.texts().constFirst()));
        QVERIFY(boxes.texts().constFirst().contains(QStringLiteral("set aside as")));
    }
    QVERIFY(!editor.document.hasGraph());
    // Kept under another name, with its content, and never offered again.
    QVERIFY(!QFileInfo::exists(recovery));
    const QStringList left = recoveryFiles();
    QCOMPARE(left.size(), 1);
    QVERIFY2(left.constFirst().startsWith(QStringLiteral("recovery-dead.cleave.broken-")),
             qPrintable(left.constFirst()));
    QFile aside(QDir(ProjectSession::recoveryDirectory()).filePath(left.constFirst()));
    QVERIFY(aside.open(QIODevice::ReadOnly));
    QCOMPARE(aside.readAll(), hugeNumberProject);
    MessageBoxes none(QStringLiteral("OK"));
    QVERIFY(!editor.session->offerRecovery());
    QCOMPARE(none.texts(), QStringList());
}

QTEST_MAIN(TestProjectSession)
#include "tst_projectsession.moc"
