// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/onnx/OnnxVerify.h"

#include "core/analysis/RandomOps.h"
#include "core/export/VerifySupport.h"
#include "core/export/onnx/OnnxModelFile.h"
#include "core/graph/GraphCompare.h"
#include "core/io/onnx/OnnxImporter.h"
#include "core/io/onnx/OnnxNames.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace cleave {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

using verify::BadInput;

/// A node without its doc string, serialized: equal strings mean equal nodes.
std::string canonical(onnx::NodeProto node)
{
    node.clear_doc_string();
    return node.SerializeAsString();
}

std::string canonical(onnx::TensorProto tensor)
{
    tensor.clear_doc_string();
    return tensor.SerializeAsString();
}

std::string nodeLabel(const onnx::NodeProto &node)
{
    return node.op_type() + " node '"
        + (node.name().empty() ? (node.output_size() ? node.output(0) : std::string())
                               : node.name())
        + "'";
}

std::string join(const google::protobuf::RepeatedPtrField<std::string> &names)
{
    std::string s;
    for (const std::string &n : names) {
        if (!s.empty())
            s += ", ";
        s += n;
    }
    return "(" + s + ")";
}

/// How two nodes with the same first output differ.
std::string nodeDifference(const onnx::NodeProto &mod, const onnx::NodeProto &src)
{
    if (mod.op_type() != src.op_type() || mod.domain() != src.domain())
        return "is " + mod.op_type() + " in the module but " + src.op_type() + " in the source";
    if (mod.name() != src.name())
        return "is named '" + mod.name() + "' in the module but '" + src.name() + "' in the source";
    if (!std::equal(mod.input().begin(), mod.input().end(), src.input().begin(), src.input().end()))
        return "reads " + join(mod.input()) + " in the module but " + join(src.input())
            + " in the source";
    if (!std::equal(mod.output().begin(), mod.output().end(), src.output().begin(),
                    src.output().end()))
        return "writes " + join(mod.output()) + " in the module but " + join(src.output())
            + " in the source";
    std::map<std::string, std::string> a;
    std::map<std::string, std::string> b;
    for (onnx::AttributeProto attr : mod.attribute()) {
        attr.clear_doc_string();
        a[attr.name()] = attr.SerializeAsString();
    }
    for (onnx::AttributeProto attr : src.attribute()) {
        attr.clear_doc_string();
        b[attr.name()] = attr.SerializeAsString();
    }
    for (const auto &[name, value] : b) {
        auto it = a.find(name);
        if (it == a.end())
            return "has no attribute '" + name + "' (the source has it)";
        if (it->second != value)
            return "has another value of attribute '" + name + "' than the source";
    }
    for (const auto &entry : a) {
        if (!b.contains(entry.first))
            return "has an attribute '" + entry.first + "' the source does not have";
    }
    return "differs from the source";
}

/// The names of a graph's inputs that are not initializers (before IR version 4 initializers
/// are listed as inputs too).
std::set<std::string> dataInputs(const onnx::GraphProto &g)
{
    std::set<std::string> inits;
    for (const auto &t : g.initializer())
        inits.insert(t.name());
    std::set<std::string> inputs;
    for (const auto &v : g.input()) {
        if (!inits.contains(v.name()))
            inputs.insert(v.name());
    }
    return inputs;
}

/// The recomposition check of one ONNX export folder: reads the manifest, the source and the
/// modules, checks that the modules wire up by tensor names, recomposes them into one model and
/// compares its import with the source's. Each step returns the first difference it finds.
class OnnxExportCheck
{
public:
    explicit OnnxExportCheck(const std::string &dir)
        : m_root(dir)
        , m_manifestPath((m_root / "partitions.json").string())
    {
    }

    VerifyResult run()
    {
        VerifyResult r;
        std::optional<std::string> difference = readSourceAndModules();
        if (!difference)
            difference = checkWiring();
        if (!difference)
            difference = recompose();
        if (!difference)
            difference = checkCoverage();
        if (!difference)
            difference = compareWithSource();
        r.ok = !difference;
        if (difference)
            r.firstDifference = *difference;
        return r;
    }

private:
    std::optional<std::string> readSourceAndModules();
    std::optional<std::string> readModule(std::size_t k, const Json &part);
    std::optional<std::string> checkWiring();
    std::optional<std::string> checkModuleReads(std::size_t k);
    std::optional<std::string> recompose();
    std::optional<std::string> takeModule(std::size_t k);
    std::optional<std::string> checkCoverage();
    std::optional<std::string> compareWithSource();

    const fs::path m_root;
    const std::string m_manifestPath;
    std::string m_sourcePath;
    onnx::ModelProto m_source;
    std::vector<onnx::ModelProto> m_modules;
    std::vector<std::string> m_files;
    std::set<std::string> m_globalInputs;
    std::map<std::string, std::size_t> m_producerModule; // module output -> module
    std::map<std::string, int> m_sourceByOutput; // first output -> source node
    std::map<std::string, std::string> m_sourceInit; // name -> canonical initializer
    onnx::ModelProto m_recomposed;
    std::map<std::string, std::string> m_takenNode; // first output -> canonical node
    std::map<std::string, std::string> m_takenInit;
    /// Source tensors computed from initializers, Constant nodes and the weights the manifest
    /// lists as params only: a node writing one may sit in several modules (each stage that
    /// reads it computes it again, partitions.json's weight_duplicated).
    std::set<std::string> m_weightOnly;
    std::set<std::string> m_params; // global inputs the manifest marks as params
};

std::optional<std::string> OnnxExportCheck::readSourceAndModules()
{
    const Json manifest = verify::readJson(m_manifestPath);
    if (!manifest.contains("source") || !manifest["source"].is_object()
        || !manifest["source"].contains("path") || !manifest["source"]["path"].is_string())
        throw BadInput(m_manifestPath + R"(: missing "source"."path")");
    m_sourcePath = manifest["source"]["path"].get<std::string>();
    const std::string checksum = manifest["source"].value("checksum", std::string());
    for (const Json &in : manifest.value("global_inputs", Json::array())) {
        if (in.is_object() && in.value("param", false) && in.contains("name")
            && in["name"].is_string())
            m_params.insert(in["name"].get<std::string>());
    }
    if (!manifest.contains("partitions") || !manifest["partitions"].is_array())
        throw BadInput(m_manifestPath + ": missing \"partitions\"");

    std::string error;
    if (!onnxio::loadModel(m_sourcePath, checksum, m_source, error)) {
        if (error.find("checksum") != std::string::npos)
            return error;
        throw BadInput("the source model cannot be read: " + error);
    }
    const Json &parts = manifest["partitions"];
    m_modules.resize(parts.size());
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (auto difference = readModule(k, parts[k]))
            return difference;
    }
    return std::nullopt;
}

std::optional<std::string> OnnxExportCheck::readModule(std::size_t k, const Json &part)
{
    const std::string where = m_manifestPath + ": partitions[" + std::to_string(k) + "]";
    if (!part.contains("file") || !part["file"].is_string())
        throw BadInput(where + ": missing \"file\"");
    const std::string file = part["file"].get<std::string>();
    if (file.empty() || file.find_first_of("/\\") != std::string::npos || file == "..")
        throw BadInput(where + ": module file '" + file + "' is not a plain file name");
    m_files.push_back(file);
    std::string error;
    if (!onnxio::loadModel((m_root / file).string(), std::string(), m_modules[k], error))
        return file + " cannot be re-imported: " + error;
    return std::nullopt;
}

// Every node of module `k` reads what is available before it; its outputs are produced in it
// and by no other module.
std::optional<std::string> OnnxExportCheck::checkModuleReads(std::size_t k)
{
    const onnx::GraphProto &g = m_modules[k].graph();
    std::set<std::string> available;
    for (const auto &v : g.input())
        available.insert(v.name());
    for (const auto &t : g.initializer())
        available.insert(t.name());
    for (const auto &n : g.node()) {
        for (const std::string &in : n.input()) {
            if (!in.empty() && !available.contains(in))
                return m_files[k] + ": " + nodeLabel(n) + " reads '" + in
                    + "', which is neither a module input, an initializer nor produced before it";
        }
        for (const std::string &out : n.output())
            available.insert(out);
    }
    for (const auto &v : g.output()) {
        if (!available.contains(v.name()))
            return m_files[k] + ": output '" + v.name() + "' is not produced in the module";
        const bool isInput = std::any_of(g.input().begin(), g.input().end(),
                                         [&](const auto &in) { return in.name() == v.name(); });
        if (isInput)
            continue; // a forwarded global input
        auto [it, fresh] = m_producerModule.emplace(v.name(), k);
        if (!fresh)
            return "tensor '" + v.name() + "' is an output of both " + m_files[it->second] + " and "
                + m_files[k];
    }
    return std::nullopt;
}

// Wire by tensor names: every module input is a global input or another module's output, and
// every global output is some module's output.
std::optional<std::string> OnnxExportCheck::checkWiring()
{
    const onnx::GraphProto &sg = m_source.graph();
    m_globalInputs = dataInputs(sg);
    for (std::size_t k = 0; k < m_modules.size(); ++k) {
        if (auto difference = checkModuleReads(k))
            return difference;
    }
    for (std::size_t k = 0; k < m_modules.size(); ++k) {
        std::set<std::string> initializers; // graph inputs too before IR version 4
        for (const auto &t : m_modules[k].graph().initializer())
            initializers.insert(t.name());
        for (const auto &v : m_modules[k].graph().input()) {
            if (m_globalInputs.contains(v.name()) || initializers.contains(v.name()))
                continue;
            auto it = m_producerModule.find(v.name());
            if (it == m_producerModule.end() || it->second == k)
                return m_files[k] + ": input '" + v.name()
                    + "' is neither a global input of the source nor an output of another module";
        }
    }
    for (const auto &v : sg.output()) {
        if (!m_producerModule.contains(v.name()))
            return "no module outputs the source's global output '" + v.name() + "'";
    }
    return std::nullopt;
}

// Takes the nodes and initializers of module `k` into the recomposed model, each equal to the
// source's and (except Constant nodes) in no other module.
std::optional<std::string> OnnxExportCheck::takeModule(std::size_t k)
{
    const onnx::GraphProto &sg = m_source.graph();
    const onnx::GraphProto &g = m_modules[k].graph();
    onnx::GraphProto &rg = *m_recomposed.mutable_graph();
    const std::string &file = m_files[k];
    for (const auto &n : g.node()) {
        if (n.output_size() == 0)
            continue;
        auto s = m_sourceByOutput.find(n.output(0));
        if (s == m_sourceByOutput.end())
            return file + ": " + nodeLabel(n) + " is not in the source model";
        const std::string c = canonical(n);
        if (c != canonical(sg.node(s->second)))
            return file + ": " + nodeLabel(n) + " " + nodeDifference(n, sg.node(s->second));
        auto [it, fresh] = m_takenNode.emplace(n.output(0), c);
        if (!fresh) {
            if (n.op_type() == "Constant" && n.domain().empty())
                continue; // a Constant node each reading module carries
            if (m_weightOnly.contains(n.output(0)))
                continue; // a value of weights only, computed again where it is read
            return file + ": " + nodeLabel(n) + " is in two modules";
        }
        *rg.add_node() = n;
    }
    for (const auto &t : g.initializer()) {
        auto s = m_sourceInit.find(t.name());
        if (s == m_sourceInit.end())
            return file + ": initializer '" + t.name() + "' is not in the source model";
        const std::string c = canonical(t);
        if (c != s->second)
            return file + ": initializer '" + t.name()
                + "' has other dims, type or values than in the source";
        if (m_takenInit.emplace(t.name(), c).second)
            *rg.add_initializer() = t;
    }
    return std::nullopt;
}

// Union of the modules against the source, by the tensors each node writes.
std::optional<std::string> OnnxExportCheck::recompose()
{
    const onnx::GraphProto &sg = m_source.graph();
    for (int i = 0; i < sg.node_size(); ++i) {
        if (sg.node(i).output_size())
            m_sourceByOutput.emplace(sg.node(i).output(0), i);
    }
    for (const auto &t : sg.initializer())
        m_sourceInit.emplace(t.name(), canonical(t));
    // Nodes in topological order (as ONNX requires): weight-only when every input is.
    for (const auto &n : sg.node()) {
        const bool weightOnly = std::all_of(n.input().begin(), n.input().end(), [&](const auto &i) {
            return i.empty() || m_sourceInit.contains(i) || m_params.contains(i)
                || m_weightOnly.contains(i);
        });
        // A node with a subgraph (If, Loop) may read any outer value inside it; a random one
        // computes another value each time.
        const bool subgraph
            = std::any_of(n.attribute().begin(), n.attribute().end(),
                          [](const auto &a) { return a.has_g() || a.graphs_size(); });
        if (weightOnly && !subgraph && !drawsRandomNumbers(n.op_type())) {
            for (const auto &o : n.output())
                m_weightOnly.insert(o);
        }
    }
    m_recomposed.set_ir_version(m_source.ir_version());
    *m_recomposed.mutable_opset_import() = m_source.opset_import();
    *m_recomposed.mutable_functions() = m_source.functions();
    m_recomposed.mutable_graph()->set_name(sg.name());
    for (std::size_t k = 0; k < m_modules.size(); ++k) {
        if (auto difference = takeModule(k))
            return difference;
    }
    return std::nullopt;
}

// Every source node and every initializer the source reads is in some module.
std::optional<std::string> OnnxExportCheck::checkCoverage()
{
    const onnx::GraphProto &sg = m_source.graph();
    std::set<std::string> readBySource;
    for (const auto &n : sg.node()) {
        if (n.output_size() && !m_takenNode.contains(n.output(0)))
            return "the source's " + nodeLabel(n) + " is in no module";
        for (const std::string &in : n.input())
            readBySource.insert(in);
    }
    for (const auto &t : sg.initializer()) {
        if (readBySource.contains(t.name()) && !m_takenInit.contains(t.name()))
            return "the source's initializer '" + t.name() + "' is in no module";
    }
    return std::nullopt;
}

// The recomposed model imports as a graph equal to the source's.
std::optional<std::string> OnnxExportCheck::compareWithSource()
{
    const onnx::GraphProto &sg = m_source.graph();
    onnx::GraphProto &rg = *m_recomposed.mutable_graph();
    for (const auto &v : sg.input()) {
        if (m_globalInputs.contains(v.name()) || m_takenInit.contains(v.name()))
            *rg.add_input() = v;
    }
    *rg.mutable_output() = sg.output();
    const std::string bytes = m_recomposed.SerializeAsString();
    ImportResult a = importBytesWith(OnnxImporter(), bytes, (m_root / "recomposed.onnx").string());
    if (!a.ok())
        return "the recomposed model cannot be imported: " + a.firstError();
    ImportResult b = importFileWith(OnnxImporter(), m_sourcePath);
    if (!b.ok())
        throw BadInput("the source model " + m_sourcePath + " cannot be read: " + b.firstError());
    return firstDifference(*a.graph, *b.graph);
}

} // namespace

VerifyResult verifyOnnxExport(const std::string &dir)
{
    return verify::guarded(dir, [&] { return OnnxExportCheck(dir).run(); });
}

} // namespace cleave
