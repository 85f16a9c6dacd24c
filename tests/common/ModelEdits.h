// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// Known textual edits of a sample, shared by the tests of `cleave-cli diff` and of the editor's
// File ▸ Compare with…: both must find exactly the nodes edited here.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>

namespace cleave::test {

/// The bytes of a file the test cannot do without; aborts when it cannot be read.
inline QByteArray readFileOrAbort(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll();
}

/// Replaces the one occurrence of `from` in `text` (aborts when it is missing or repeated: the
/// edit would not be the one the test means).
inline void replaceOnce(QByteArray &text, const QByteArray &from, const QByteArray &to)
{
    const qsizetype at = text.indexOf(from);
    if (at < 0 || text.indexOf(from, at + 1) >= 0)
        qFatal("edit '%s' does not match exactly once", from.constData());
    text.replace(at, from.size(), to);
}

/// samples/stop_fusion.relay with three edits, each changing exactly one node:
/// 1. %3's op: nn.relu becomes sigmoid (same shape, so nothing else changes);
/// 2. %22 (nn.global_avg_pool2d) gains the attribute layout="NCHW";
/// 3. %25 (nn.bias_add)'s axis changes from -1 to 1.
inline QByteArray stopFusionWithThreeEdits(QByteArray text)
{
    replaceOnce(text, "%3 = nn.relu(%2)", "%3 = sigmoid(%2)");
    replaceOnce(text, "nn.global_avg_pool2d(%21)", "nn.global_avg_pool2d(%21, layout=\"NCHW\")");
    replaceOnce(text,
                "units=10) /* ty=Tensor[(1, 10), float32] */;\n  %25 = nn.bias_add(%24, "
                "meta[relay.Constant][13] /* ty=Tensor[(10), float32] */, axis=-1)",
                "units=10) /* ty=Tensor[(1, 10), float32] */;\n  %25 = nn.bias_add(%24, "
                "meta[relay.Constant][13] /* ty=Tensor[(10), float32] */, axis=1)");
    return text;
}

} // namespace cleave::test
