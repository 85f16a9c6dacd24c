// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"

#include <string>
#include <unordered_map>
#include <unordered_set>

namespace cleave {

/// Options of the Relay text printer.
struct RelayPrintOptions
{
    bool versionHeader = true; ///< Start with `#[version = "0.0.5"]`.
    bool typeComments = true; ///< Append `/* ty=... */` to calls and constants with a known type.
    bool metadata = true; ///< Carry the source's `#[metadata]` section when it has one.
};

/// Prints a Graph (or one function of it) as Relay text in graph normal form, the way TVM's
/// printer does: `%N = ...;` bindings numbered by one counter per print, nested `fn` literals
/// bound before their first call, the function's result as the last, unbound expression. The
/// importer reads the text back to a structurally equal graph (see GraphCompare.h).
class RelayPrinter
{
public:
    explicit RelayPrinter(const Graph &graph, RelayPrintOptions options = {});

    /// The whole module: header, type definitions, every global function, metadata.
    std::string printModule();
    /// One global function as `def @name(...) {...}`, or as `def @main` when `asMain` is set.
    std::string printDefinition(FunctionId f, bool asMain = false);

private:
    void printFunctionBody(FunctionId f, int indent, std::string &out);
    void printSignature(FunctionId f, std::string &out);
    void printLiteral(FunctionId f, int indent, std::string &out);
    std::string literalName(FunctionId f, int indent, std::string &out);
    std::string expression(NodeId id, int indent, std::string &out);
    std::string atom(NodeId id, int indent, std::string &out);
    std::string pattern(const Pattern &p);
    std::string freshName();
    std::string typeComment(const Type &t) const;
    bool isAtomic(const Node &n) const;

    const Graph &m_graph;
    RelayPrintOptions m_options;
    std::unordered_map<std::uint32_t, std::string> m_printed; // node → its printed name or atom
    std::unordered_map<std::uint32_t, std::string> m_literals; // literal function → bound name
    std::unordered_set<std::string> m_reserved; // parameter names that look like `%N`
    int m_counter = 0;
};

/// Convenience: the whole graph as Relay text.
std::string printRelay(const Graph &graph, RelayPrintOptions options = {});

} // namespace cleave
