// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace cleave {

/// Prints a Graph read from Relax TVMScript (or built for a Relax export) as a TVMScript
/// IRModule the way TVM's printer lays it out: the `# from tvm.script import ...` header, the
/// metadata header when the graph has one, `@I.ir_module class Name:`, every global function
/// in graph order — `@T.prim_func` members verbatim, `@R.function` members with their
/// `R.func_attr`, symbolic variable declarations, `cls = Name`, bindings with their annotations
/// (inside `with R.dataflow():` for functions that had one), nested closures before their first
/// use, `if` / `else`, `return`. The importer reads the text back to a structurally equal graph.
class RelaxPrinter
{
public:
    explicit RelaxPrinter(const Graph &graph);

    /// The whole module.
    std::string printModule();
    /// One `@R.function` (at indentation `indent`), or a PrimFunc's text re-indented.
    std::string printFunction(FunctionId f, int indent);

    /// Module attribute: print annotations with this vdevice per node (placed modules).
    void setNodeDevice(std::unordered_map<std::uint32_t, std::string> devices)
    {
        m_devices = std::move(devices);
    }
    /// Extra statements printed right after a node's binding (placed modules: `R.to_vdevice`).
    void setAfterNode(std::unordered_map<std::uint32_t, std::vector<std::string>> lines)
    {
        m_after = std::move(lines);
    }

private:
    void printRelaxFunction(FunctionId f, int indent, std::string &out);
    void printBody(FunctionId f, int indent, std::string &out);
    void printBinding(NodeId id, int indent, std::string &out);
    void printIf(NodeId id, int indent, std::string &out);
    void printClosuresUsedBy(NodeId id, int indent, std::string &out);
    /// The bound variables the result `id` reads, through tuples and projections written in the
    /// return itself at any depth: each must leave the dataflow block through `R.output`.
    void collectOutputs(NodeId id, std::vector<std::string> &out) const;
    std::string value(NodeId id);
    std::string ref(TensorRef t);
    std::string kernelCall(const Node &n);
    std::string arguments(const Node &n, std::size_t first);
    std::string annotation(NodeId id);
    [[nodiscard]] bool isBound(NodeId id) const;
    std::string bindingName(NodeId id) const;
    void collectSymbols(FunctionId f, std::vector<std::string> &out) const;
    [[nodiscard]] bool referencesModule(FunctionId f) const;

    const Graph &m_graph;
    std::string m_className;
    bool m_newSinfo = false;
    std::unordered_set<std::uint32_t> m_printedClosures;
    std::unordered_map<std::uint32_t, std::string> m_devices;
    std::unordered_map<std::uint32_t, std::vector<std::string>> m_after;
};

/// Convenience: the whole graph as Relax TVMScript.
std::string printRelax(const Graph &graph);

/// `metadata = tvm.ir.load_json("""...""")` for a metadata JSON text (escaped as TVM does).
std::string relaxMetadataHeader(const std::string &json);

} // namespace cleave
