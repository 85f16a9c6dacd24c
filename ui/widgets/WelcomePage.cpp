// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/widgets/WelcomePage.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTextDocument>
#include <QToolButton>
#include <QVBoxLayout>

namespace cleave::ui {

namespace {

const QString dismissedKey = QStringLiteral("help/firstRunCardDismissed");
const QStringList sampleSuffixes { QStringLiteral("*.relay"), QStringLiteral("*.json"),
                                   QStringLiteral("*.onnx"), QStringLiteral("*.py") };

QStringList modelsIn(const QString &dir)
{
    QStringList out;
    const QDir folder(dir);
    for (const QString &name : folder.entryList(sampleSuffixes, QDir::Files, QDir::Name)) {
        // The generators (gen_*.py) are not models.
        if (!name.startsWith(QLatin1String("gen_")))
            out << folder.absoluteFilePath(name);
    }
    return out;
}

QString keyOf(const QAction *action)
{
    return action != nullptr ? action->shortcut().toString(QKeySequence::NativeText) : QString();
}

} // namespace

WelcomePage::WelcomePage(const QStringList &formats, QWidget *parent)
    : QWidget(parent)
    , m_card(new QFrame)
{
    auto *hint = new QLabel;
    hint->setObjectName(QStringLiteral("emptyHint"));
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true);
    hint->setEnabled(false);
    hint->setText(tr("Open a model or a project with File ▸ Open… (%1) or drop its file here.\n\n"
                     "Formats: %2")
                      .arg(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText),
                           formats.join(QStringLiteral(", "))));

    m_card->setObjectName(QStringLiteral("firstRunCard"));
    m_card->setFrameShape(QFrame::StyledPanel);
    m_card->setAutoFillBackground(true);
    m_card->setBackgroundRole(QPalette::Base);
    // A fixed width lets the wrapped lines report their height.
    m_card->setFixedWidth(620);
    auto *cardLayout = new QVBoxLayout(m_card);
    cardLayout->setContentsMargins(18, 12, 12, 16);
    auto *titleRow = new QHBoxLayout;
    auto *title = new QLabel(tr("<b>New to Cleave?</b> Open a sample, then try the three "
                                "gestures."));
    title->setWordWrap(true);
    auto *close = new QToolButton;
    close->setObjectName(QStringLiteral("dismissFirstRunCard"));
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Close this card for good"));
    titleRow->addWidget(title, 1);
    titleRow->addWidget(close, 0, Qt::AlignTop);
    cardLayout->addLayout(titleRow);

    cardLayout->addWidget(new QLabel(tr("Open a sample model:")));
    auto *sampleGrid = new QGridLayout;
    sampleGrid->setHorizontalSpacing(6);
    sampleGrid->setVerticalSpacing(4);
    const QStringList files = sampleFiles();
    for (qsizetype i = 0; i < files.size(); ++i) {
        const QString &file = files[i];
        auto *button = new QPushButton(QFileInfo(file).fileName());
        button->setObjectName(QStringLiteral("sample:%1").arg(QFileInfo(file).fileName()));
        button->setCursor(Qt::PointingHandCursor);
        button->setToolTip(QDir::toNativeSeparators(file));
        connect(button, &QPushButton::clicked, this, [this, file] { emit openRequested(file); });
        sampleGrid->addWidget(button, static_cast<int>(i / 3), static_cast<int>(i % 3));
    }
    if (files.isEmpty())
        sampleGrid->addWidget(new QLabel(tr("(no samples installed)")), 0, 0);
    cardLayout->addLayout(sampleGrid);
    cardLayout->addSpacing(6);
    for (QLabel *&label : m_gestures) {
        label = new QLabel;
        label->setTextFormat(Qt::RichText);
        cardLayout->addWidget(label);
    }
    m_card->setVisible(!isCardDismissed());
    connect(close, &QToolButton::clicked, this, &WelcomePage::dismiss);

    auto *layout = new QVBoxLayout(this);
    layout->addStretch(2);
    layout->addWidget(hint);
    layout->addSpacing(18);
    layout->addWidget(m_card, 0, Qt::AlignHCenter);
    layout->addStretch(3);
    setGestureActions(nullptr, nullptr, nullptr);
}

void WelcomePage::setGestureActions(const QAction *cut, const QAction *select,
                                    const QAction *exportAction)
{
    auto line = [](const QString &name, const QAction *action, const QString &what) {
        const QString key = keyOf(action);
        return QStringLiteral("<b>%1</b>: %2%3")
            .arg(name, key.isEmpty() ? QString() : QStringLiteral("<b>%1</b>, ").arg(key), what);
    };
    m_gestures[0]->setText(
        line(tr("Cut"), cut, tr("then drag a stroke across the edges where one stage ends.")));
    m_gestures[1]->setText(line(tr("Select"), select,
                                tr("then click nodes or drag a rubber band; Edit ▸ New "
                                   "Partition groups them.")));
    m_gestures[2]->setText(line(tr("Export"), exportAction,
                                tr("writes each partition as a module, with the pipeline "
                                   "configuration.")));
}

QStringList WelcomePage::gestureTexts() const
{
    QStringList lines;
    for (const QLabel *label : m_gestures) {
        QTextDocument document;
        document.setHtml(label->text());
        lines << document.toPlainText();
    }
    return lines;
}

bool WelcomePage::isCardDismissed()
{
    return QSettings().value(dismissedKey, false).toBool();
}

void WelcomePage::dismiss()
{
    QSettings().setValue(dismissedKey, true);
    m_card->hide();
}

QStringList WelcomePage::sampleFiles()
{
    QStringList folders;
    folders << QDir(QCoreApplication::applicationDirPath())
                   .absoluteFilePath(QStringLiteral("../share/cleave/samples"));
    folders << QStandardPaths::locateAll(QStandardPaths::GenericDataLocation,
                                         QStringLiteral("cleave/samples"),
                                         QStandardPaths::LocateDirectory);
#ifdef CLEAVE_SOURCE_SAMPLES_DIR
    // A build run from its build folder, never installed.
    folders << QStringLiteral(CLEAVE_SOURCE_SAMPLES_DIR);
#endif
    for (const QString &folder : folders) {
        QStringList files = modelsIn(folder);
        if (!files.isEmpty())
            return files;
    }
    return {};
}

} // namespace cleave::ui
