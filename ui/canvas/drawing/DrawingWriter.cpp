// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/canvas/drawing/DrawingWriter.h"

#include "ui/canvas/drawing/SvgExport.h"
#include "ui/support/CanvasTheme.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>

#include <algorithm>
#include <cmath>

namespace cleave::ui {

namespace {

constexpr qreal screenDpi = 96.0;
constexpr qreal largestSide = 16000.0;

QString tr(const char *text)
{
    return QCoreApplication::translate("cleave::ui::DrawingWriter", text);
}

bool rasterise(QGraphicsScene &scene, const QRectF &bounds, int dpi, QByteArray &png,
               QString *error)
{
    qreal scale = dpi > 0 ? dpi / screenDpi : 2.0;
    const qreal longest = std::max(bounds.width(), bounds.height()) * scale;
    if (dpi <= 0 && longest > largestSide)
        scale *= largestSide / longest;
    const QSize size(static_cast<int>(std::lround(bounds.width() * scale)),
                     static_cast<int>(std::lround(bounds.height() * scale)));
    if (std::max(size.width(), size.height()) > 4 * largestSide) {
        if (error != nullptr)
            *error = tr("The drawing would be %1×%2 pixels at %3 dpi: too large for a PNG image; "
                        "choose a lower --dpi.")
                         .arg(size.width())
                         .arg(size.height())
                         .arg(dpi);
        return false;
    }
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) {
        if (error != nullptr)
            *error = tr("The drawing is too large for a PNG image.");
        return false;
    }
    image.fill(canvasColours().background);
    {
        QPainter painter(&image);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        scene.render(&painter, QRectF(QPointF(0, 0), size), bounds);
    }
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) {
        if (error != nullptr)
            *error = tr("Cannot encode the drawing as PNG.");
        return false;
    }
    return true;
}

void writePdf(QGraphicsScene &scene, const QRectF &bounds, int dpi, QByteArray &pdf)
{
    QBuffer buffer(&pdf);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setCreator(QStringLiteral("Cleave"));
    writer.setResolution(dpi > 0 ? dpi : 300);
    // One page exactly the drawing's size (96 scene units per inch = 72 points per inch).
    const QSizeF points = bounds.size() * (72.0 / screenDpi);
    writer.setPageLayout(
        QPageLayout(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch),
                    QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    QPainter painter(&writer);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    const QRectF page(QPointF(0, 0), QSizeF(writer.width(), writer.height()));
    painter.fillRect(page, canvasColours().background);
    scene.render(&painter, page, bounds);
}

} // namespace

bool writeDrawing(QGraphicsScene &scene, const QRectF &bounds, const QString &path, int dpi,
                  QString *error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    // Images are for documents and paper: always the light colours, whatever the editor shows.
    const LightCanvasScope light;
    QByteArray bytes;
    if (suffix == QLatin1String("svg")) {
        bytes = sceneToSvg(scene, bounds).toUtf8();
    } else if (suffix == QLatin1String("png")) {
        if (!rasterise(scene, bounds, dpi, bytes, error))
            return false;
    } else if (suffix == QLatin1String("pdf")) {
        writePdf(scene, bounds, dpi, bytes);
    } else {
        if (error != nullptr)
            *error = tr("Unsupported image format \"%1\": use .svg, .png or .pdf.").arg(suffix);
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error != nullptr)
            *error = tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace cleave::ui
