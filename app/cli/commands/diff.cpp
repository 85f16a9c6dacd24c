// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// `cleave-cli diff A B [--json]`: the nodes added, removed and changed between two models
// (core/graph/ModelDiff). Exits 0 when the models match node for node, 1 when they differ, as
// diff(1) does.
#include "app/cli/CliArguments.h"
#include "app/cli/CliModel.h"
#include "core/graph/ModelDiff.h"

#include <nlohmann/json.hpp>

namespace cleave::cli {
namespace {

nlohmann::json diffJson(const ModelDiff &diff)
{
    nlohmann::json nodes = nlohmann::json::array();
    for (const NodeDifference &d : diff.nodes) {
        nlohmann::json row
            = { { "kind", differenceKindName(d.kind) }, { "key", d.key }, { "op", d.op } };
        if (d.kind == NodeDifference::Kind::Changed) {
            nlohmann::json changes = nlohmann::json::array();
            for (const NodeChange &c : d.changes)
                changes.push_back(
                    { { "what", c.what }, { "before", c.before }, { "after", c.after } });
            row["changes"] = std::move(changes);
        }
        nodes.push_back(std::move(row));
    }
    return { { "equal", diff.isEmpty() },
             { "added", diff.count(NodeDifference::Kind::Added) },
             { "removed", diff.count(NodeDifference::Kind::Removed) },
             { "changed", diff.count(NodeDifference::Kind::Changed) },
             { "nodes", std::move(nodes) } };
}

void printDiff(const ModelDiff &diff, const std::string &a, const std::string &b, std::ostream &out)
{
    if (diff.isEmpty()) {
        out << a << " and " << b << " match node for node\n";
        return;
    }
    out << a << " -> " << b << ": " << diff.nodes.size()
        << (diff.nodes.size() == 1 ? " node differs (" : " nodes differ (")
        << diff.count(NodeDifference::Kind::Added) << " added, "
        << diff.count(NodeDifference::Kind::Removed) << " removed, "
        << diff.count(NodeDifference::Kind::Changed) << " changed)\n";
    for (const NodeDifference &d : diff.nodes) {
        out << differenceKindName(d.kind) << ' ' << d.key << ' ' << d.op << '\n';
        for (const NodeChange &c : d.changes) {
            out << "    " << c.what << ": " << (c.before.empty() ? "(none)" : c.before) << " -> "
                << (c.after.empty() ? "(none)" : c.after) << '\n';
        }
    }
}

int runDiff(const Arguments &args, const CommandContext &context)
{
    const std::string &pathA = args.positionals[0];
    const std::string &pathB = args.positionals[1];
    const std::unique_ptr<Graph> a = importModel(pathA, context.err);
    const std::unique_ptr<Graph> b = importModel(pathB, context.err);
    if (!a || !b)
        return exitBadInput;
    const ModelDiff diff = diffModels(*a, *b);
    if (args.has("--json")) {
        context.out << jsonText(diffJson(diff)) << '\n';
    } else {
        printDiff(diff, pathA, pathB, context.out);
        if (a->format() != b->format() && !diff.isEmpty())
            context.out << "note: " << pathA << " is " << a->format() << " and " << pathB << " is "
                        << b->format()
                        << ": nodes are matched by their keys, which each format names its own "
                           "way (%N, @fn:%N, node names), so differences in keys are expected\n";
    }
    return diff.isEmpty() ? exitOk : exitInvalidPlan;
}

} // namespace

Command diffCommand()
{
    return {
        "diff",
        "A B [--json]",
        "Compare two models node by node (matched by their keys: %N, @fn:%N, ONNX names): "
        "added, removed and changed nodes (op, attributes, types, inputs); exit 1 when they "
        "differ.",
        "  --json   print {\"equal\", \"added\", \"removed\", \"changed\", \"nodes\": [{\"kind\",\n"
        "           \"key\", \"op\", \"changes\": [{\"what\", \"before\", \"after\"}]}]}\n",
        { "--json" },
        2,
        runDiff
    };
}

} // namespace cleave::cli
