// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// The helpers every test shares: loading a model, finding nodes by key, and reaching the
// shared corpus (a test that needs the corpus and finds none skips; it never passes silently).
#pragma once

#include "core/formats/FormatRegistry.h"
#include "core/graph/Graph.h"

#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QTest>

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace cleave::test {

/// The whole content of a file; empty when it cannot be read.
inline std::string readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

/// Writes `text` as the whole content of a file; false when it cannot be written completely.
inline bool writeAll(const QString &path, const std::string &text)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return f.write(text.data(), static_cast<qint64>(text.size()))
        == static_cast<qint64>(text.size());
}

/// The diagnostics of `all` whose code is `code`, in order.
inline std::vector<Diagnostic> withCode(const std::vector<Diagnostic> &all, const std::string &code)
{
    std::vector<Diagnostic> out;
    std::copy_if(all.begin(), all.end(), std::back_inserter(out),
                 [&](const Diagnostic &d) { return d.code == code; });
    return out;
}

/// Imports a model file; null (with the first error as a warning) when it cannot be read, so
/// that the test's QVERIFY(graph) fails with the reason in the log.
inline std::unique_ptr<Graph> load(const std::string &path)
{
    ImportResult r = importFile(path);
    if (!r.ok()) {
        qWarning("cannot import %s: %s", path.c_str(), r.firstError().c_str());
        return nullptr;
    }
    return std::move(r.graph);
}

/// load() for a path held as a QString.
inline std::unique_ptr<Graph> load(const QString &path)
{
    return load(path.toStdString());
}

/// load() for a string literal (neither overload above is preferred for one).
inline std::unique_ptr<Graph> load(const char *path)
{
    return load(std::string(path));
}

/// Imports a model the test cannot do without (an in-tree sample, a file the test just wrote);
/// aborts the test program when it cannot be read.
inline std::unique_ptr<Graph> loadOrAbort(const std::string &path)
{
    ImportResult r = importFile(path);
    if (!r.ok())
        qFatal("cannot import %s: %s", path.c_str(), r.firstError().c_str());
    return std::move(r.graph);
}

/// loadOrAbort() for a path held as a QString.
inline std::unique_ptr<Graph> loadOrAbort(const QString &path)
{
    return loadOrAbort(path.toStdString());
}

/// loadOrAbort() for a string literal.
inline std::unique_ptr<Graph> loadOrAbort(const char *path)
{
    return loadOrAbort(std::string(path));
}

/// `samples/<name>`, imported; aborts when the in-tree sample cannot be read.
inline std::unique_ptr<Graph> loadSample(const char *name)
{
    return loadOrAbort(std::string(CLEAVE_SAMPLES_DIR) + "/" + name);
}

/// The node whose key (`%3`, `@f:%0`, an ONNX node name) is `key`; aborts when there is none,
/// since a test naming a node that does not exist is itself broken.
inline NodeId node(const Graph &g, const char *key)
{
    const NodeId id = g.findByKey(key);
    if (!id.isValid())
        qFatal("no node %s", key);
    return id;
}

/// node() for each key, in order.
inline std::vector<NodeId> nodes(const Graph &g, std::initializer_list<const char *> keys)
{
    std::vector<NodeId> out;
    for (const char *k : keys)
        out.push_back(node(g, k));
    return out;
}

/// A folder of the shared corpus (`relay`, `graph_json`, `relax`) under CLEAVE_CORPUS_DIR.
inline QDir corpusDir(const char *subdir)
{
    return QDir(QStringLiteral(CLEAVE_CORPUS_DIR "/") + QString::fromUtf8(subdir));
}

/// The files of a corpus folder matching `pattern`, sorted by name, as full paths; empty when
/// the corpus is not there.
inline QStringList corpusFiles(const char *subdir, const QString &pattern)
{
    const QDir dir = corpusDir(subdir);
    QStringList out;
    for (const QString &f : dir.entryList({ pattern }, QDir::Files, QDir::Name))
        out << dir.filePath(f);
    return out;
}

/// The row name a `_data` function adds when the corpus is missing: the test function sees an
/// empty path in it and skips (CLEAVE_SKIP_MISSING_CORPUS_ROW), so a run without the corpus
/// reports a SKIP instead of passing on the in-tree samples alone.
inline const char *missingCorpusRow()
{
    return "corpus missing";
}

} // namespace cleave::test

/// Skips the current test when the shared corpus folder `subdir` is absent or empty.
#define CLEAVE_REQUIRE_CORPUS(subdir)                                                              \
    do {                                                                                           \
        if (::cleave::test::corpusDir(subdir).entryList(QDir::Files).isEmpty())                    \
            QSKIP(qPrintable(QStringLiteral("no corpus in ")                                       \
                             + ::cleave::test::corpusDir(subdir).path()));                         \
    } while (false)

/// In a data-driven test whose rows may include the missing-corpus row: skip that row.
#define CLEAVE_SKIP_MISSING_CORPUS_ROW(path)                                                       \
    do {                                                                                           \
        if ((path).isEmpty())                                                                      \
            QSKIP("no corpus in " CLEAVE_CORPUS_DIR);                                              \
    } while (false)
