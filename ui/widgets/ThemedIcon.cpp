// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "ui/widgets/ThemedIcon.h"

#include "ui/support/CanvasTheme.h"

#include <QApplication>
#include <QIconEngine>
#include <QImage>
#include <QPainter>
#include <QPalette>
#include <QPixmap>

namespace cleave::ui {

namespace {

// The slate the icon files draw their lines in (#3b4252).
constexpr int slateRed = 0x3b;
constexpr int slateGreen = 0x42;
constexpr int slateBlue = 0x52;

bool isSlate(QRgb pixel)
{
    // Premultiplied: compare the colour as it was before antialiasing scaled it.
    const int alpha = qAlpha(pixel);
    if (alpha == 0)
        return false;
    const auto near
        = [alpha](int channel, int slate) { return std::abs(channel * 255 / alpha - slate) <= 24; };
    return near(qRed(pixel), slateRed) && near(qGreen(pixel), slateGreen)
        && near(qBlue(pixel), slateBlue);
}

class ThemedIconEngine : public QIconEngine
{
public:
    explicit ThemedIconEngine(QIcon icon)
        : m_icon(std::move(icon))
    {
    }

    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state) override
    {
        const QPalette palette = QApplication::palette();
        if (!isDarkPalette(palette))
            return m_icon.pixmap(size, mode, state);
        QImage image = m_icon.pixmap(size, QIcon::Normal, state)
                           .toImage()
                           .convertToFormat(QImage::Format_ARGB32_Premultiplied);
        const QColor ink = palette.color(
            mode == QIcon::Disabled ? QPalette::Disabled : QPalette::Active, QPalette::WindowText);
        for (int y = 0; y < image.height(); ++y) {
            auto *line = reinterpret_cast<QRgb *>(image.scanLine(y));
            for (int x = 0; x < image.width(); ++x) {
                if (isSlate(line[x])) {
                    const int a = qAlpha(line[x]);
                    line[x] = qRgba(ink.red() * a / 255, ink.green() * a / 255,
                                    ink.blue() * a / 255, a);
                }
            }
        }
        return QPixmap::fromImage(image);
    }

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State state) override
    {
        const qreal ratio
            = painter->device() != nullptr ? painter->device()->devicePixelRatioF() : 1;
        QPixmap pm = pixmap(rect.size() * ratio, mode, state);
        pm.setDevicePixelRatio(ratio);
        painter->drawPixmap(rect, pm);
    }

    QSize actualSize(const QSize &size, QIcon::Mode mode, QIcon::State state) override
    {
        return m_icon.actualSize(size, mode, state);
    }

    [[nodiscard]] QIconEngine *clone() const override { return new ThemedIconEngine(m_icon); }

private:
    QIcon m_icon;
};

} // namespace

QIcon themedIcon(const char *name)
{
    return QIcon(new ThemedIconEngine(
        QIcon(QStringLiteral(":/cleave/icons/%1.svg").arg(QLatin1String(name)))));
}

} // namespace cleave::ui
