// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli render MODEL [--plan P] [--level ops|blocks] -o OUT.svg|png|pdf [--dpi N]`: the
// picture the editor's canvas draws (partitions tinted, boundary badges), made without a
// display. The only command that needs Qt: it draws with cleave_ui's canvas on the offscreen
// platform.
#include "app/cli/CliArguments.h"
#include "app/cli/CliModel.h"
#include "ui/canvas/SceneRenderer.h"

#include <QFileInfo>

#include <charconv>
#include <optional>
#include <string>

namespace cleave::cli {
namespace {

constexpr int maxDpi = 2400;

/// The last value of `-o` or `--out`, in the order given.
std::optional<std::string> outputPath(const Arguments &args)
{
    std::optional<std::string> path;
    for (const auto &[name, value] : args.options) {
        if (name == "-o" || name == "--out")
            path = value;
    }
    return path;
}

/// Reads `--dpi`: 0 when absent, -1 when it is not a whole number in 1..maxDpi.
int dpiOption(const Arguments &args)
{
    const auto text = args.value("--dpi");
    if (!text)
        return 0;
    int dpi = 0;
    const char *end = text->data() + text->size();
    const auto [ptr, ec] = std::from_chars(text->data(), end, dpi);
    if (ec != std::errc() || ptr != end || dpi < 1 || dpi > maxDpi)
        return -1;
    return dpi;
}

int runRender(const Arguments &args, const CommandContext &context)
{
    const std::string &modelPath = args.positionals.front();
    const auto out = outputPath(args);
    if (!out)
        return context.usageError("render needs an output file: -o OUT.svg, .png or .pdf");
    const QString suffix = QFileInfo(QString::fromStdString(*out)).suffix().toLower();
    if (suffix != QLatin1String("svg") && suffix != QLatin1String("png")
        && suffix != QLatin1String("pdf"))
        return context.usageError("cannot tell the image format of '" + *out
                                  + "': name it .svg, .png or .pdf");
    const std::string level = args.value("--level").value_or("ops");
    if (level != "ops" && level != "blocks")
        return context.usageError("--level is 'ops' or 'blocks', not '" + level + "'");
    const int dpi = dpiOption(args);
    if (dpi < 0)
        return context.usageError("--dpi takes a whole number from 1 to " + std::to_string(maxDpi));

    std::unique_ptr<Graph> graph = importModel(modelPath, context.err);
    if (!graph)
        return exitBadInput;
    std::optional<PartitionPlan> plan;
    if (args.value("--plan")) {
        std::vector<Diagnostic> notes;
        plan = loadPlan(*graph, args, notes, context.err);
        if (!plan)
            return exitBadInput;
        for (const Diagnostic &d : notes)
            context.err << d.toString() << '\n';
    }

    QString error;
    if (!ui::ensureDrawingApplication(&error)) {
        context.err << "cleave-cli: " << error.toStdString() << '\n';
        return exitBadInput;
    }
    ui::RenderRequest request;
    request.blocks = level == "blocks";
    request.output = QString::fromStdString(*out);
    request.dpi = dpi;
    if (!ui::renderDrawing(std::move(graph), QString::fromStdString(modelPath), std::move(plan),
                           request, &error)) {
        context.err << modelPath << ": error: " << error.toStdString() << " [render.failed]\n";
        return exitBadInput;
    }
    context.out << "wrote " << *out << '\n';
    return exitOk;
}

} // namespace

Command renderCommand()
{
    return { "render",
             "MODEL [--plan PLAN.json] [--level ops|blocks] -o OUT.svg|OUT.png|OUT.pdf [--dpi N]",
             "Draw the model as the editor's canvas does (partitions tinted, boundary tensors "
             "with badges) to SVG, PNG or PDF; needs no display.",
             "  --plan FILE           draw this plan's partitions (default: one partition)\n"
             "  --level ops|blocks    one node per operator (default) or per fused block\n"
             "  -o, --out FILE        the image; its suffix picks the format (.svg, .png, .pdf)\n"
             "  --dpi N               raster resolution: a PNG is the drawing's size x N / 96\n"
             "                        pixels (default: twice its size); a PDF's image\n"
             "                        resolution (default 300)\n"
             "  --force               accept a plan made for a model with another checksum\n",
             { "--force" },
             1,
             runRender,
             { "--plan", "--level", "-o", "--out", "--dpi" } };
}

} // namespace cleave::cli
