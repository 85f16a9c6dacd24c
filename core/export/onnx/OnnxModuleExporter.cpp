// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/onnx/OnnxModuleExporter.h"

#include "core/export/ExportModel.h"
#include "core/export/onnx/OnnxModelFile.h"
#include "core/export/onnx/OnnxScripts.h"
#include "core/export/onnx/OnnxVerify.h"
#include "core/io/onnx/OnnxImporter.h"
#include "core/io/onnx/OnnxNames.h"

#include <onnx/shape_inference/implementation.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>

namespace cleave {

namespace {

Diagnostic onnxError(std::string message)
{
    return Diagnostic::make(Severity::Error, "export.onnx", std::move(message));
}

/// The source model of a plan with the lookups the writer needs, read once per file version.
struct OnnxSource
{
    onnx::ModelProto model; ///< External data inlined, shapes inferred.
    std::unordered_map<std::string, int> nodeByKey;
    std::unordered_map<std::string, int> producer; ///< Tensor name -> node index.
    std::unordered_map<std::string, int> initializer; ///< Name -> index.
    std::unordered_map<std::string, const onnx::ValueInfoProto *> valueInfo;
};

/// The source of `graph`, parsed once while anyone holds it. The cache keeps weak references
/// only: an export holds the source over its modules (OnnxModuleExporter::holdSource), and
/// when the last holder lets go the model and its weights are freed. A cache that owned its
/// entries kept the last models' weights (330 MB for ViT-B/16) after every export.
std::shared_ptr<const OnnxSource> loadSource(const Graph &graph, std::string &error)
{
    static std::mutex mutex;
    static std::map<std::pair<std::string, std::string>, std::weak_ptr<const OnnxSource>> cache;
    const std::pair<std::string, std::string> id(graph.sourcePath(), graph.checksum());
    std::lock_guard<std::mutex> lock(mutex);
    std::erase_if(cache, [](const auto &entry) { return entry.second.expired(); });
    if (auto it = cache.find(id); it != cache.end()) {
        if (std::shared_ptr<const OnnxSource> held = it->second.lock())
            return held;
    }
    auto src = std::make_shared<OnnxSource>();
    if (!onnxio::loadModel(graph.sourcePath(), graph.checksum(), src->model, error))
        return nullptr;
    try {
        onnx::shape_inference::InferShapes(src->model);
    } catch (const std::exception &) {
        // Types then come from the file's own value_info only (the importer warned already).
    }
    const onnx::GraphProto &g = src->model.graph();
    const std::vector<std::string> keys = onnxio::nodeKeys(g);
    for (int i = 0; i < g.node_size(); ++i) {
        src->nodeByKey.emplace(keys[static_cast<std::size_t>(i)], i);
        for (const std::string &out : g.node(i).output()) {
            if (!out.empty())
                src->producer.emplace(out, i);
        }
    }
    for (int i = 0; i < g.initializer_size(); ++i)
        src->initializer.emplace(g.initializer(i).name(), i);
    for (const auto &v : g.input())
        src->valueInfo.emplace(v.name(), &v);
    for (const auto &v : g.output())
        src->valueInfo.emplace(v.name(), &v);
    for (const auto &v : g.value_info())
        src->valueInfo.emplace(v.name(), &v);
    cache[id] = src;
    return src;
}

/// Tensor names a node reads, including the outer tensors its subgraphs read.
void readsOf(const onnx::NodeProto &node, std::vector<std::string> &names)
{
    for (const std::string &in : node.input()) {
        if (!in.empty())
            names.push_back(in);
    }
    for (const auto &a : node.attribute()) {
        std::vector<const onnx::GraphProto *> graphs;
        if (a.has_g())
            graphs.push_back(&a.g());
        for (const auto &g : a.graphs())
            graphs.push_back(&g);
        for (const onnx::GraphProto *g : graphs) {
            std::set<std::string> local;
            for (const auto &v : g->input())
                local.insert(v.name());
            for (const auto &t : g->initializer())
                local.insert(t.name());
            for (const auto &n : g->node()) {
                std::vector<std::string> inner;
                readsOf(n, inner);
                for (std::string &s : inner) {
                    if (!local.contains(s))
                        names.push_back(std::move(s));
                }
                for (const std::string &out : n.output())
                    local.insert(out);
            }
        }
    }
}

} // namespace

std::string onnxTensorName(const Graph &graph, TensorRef tensor)
{
    const Node &n = graph.node(tensor.node);
    if (tensor.output < n.outputNames().size() && !n.outputNames()[tensor.output].empty())
        return n.outputNames()[tensor.output];
    return n.name;
}

std::vector<std::string> onnxInputNames(const PartitionPlan &plan, const BoundaryTable &boundary,
                                        std::size_t k)
{
    std::vector<std::string> names;
    for (const PartitionInput &pi : boundary.interfaces[k].inputs) {
        names.push_back(
            pi.boundary >= 0 ? onnxTensorName(
                plan.graph(), boundary.tensors[static_cast<std::size_t>(pi.boundary)].tensor)
                             : onnxTensorName(plan.graph(), { pi.globalInput, 0 }));
    }
    return names;
}

std::vector<std::string> onnxOutputNames(const PartitionPlan &plan, const BoundaryTable &boundary,
                                         std::size_t k)
{
    std::vector<std::string> names;
    for (const PartitionOutput &po : boundary.interfaces[k].outputs)
        names.push_back(onnxTensorName(plan.graph(), po.tensor));
    return names;
}

std::string onnxExecutionProvider(const std::string &target)
{
    static const std::pair<const char *, const char *> providers[] = {
        { "cuda", "CUDAExecutionProvider" },         { "nvptx", "CUDAExecutionProvider" },
        { "tensorrt", "TensorrtExecutionProvider" }, { "dnnl", "DnnlExecutionProvider" },
        { "openvino", "OpenVINOExecutionProvider" }, { "rocm", "ROCMExecutionProvider" },
        { "migraphx", "MIGraphXExecutionProvider" }, { "coreml", "CoreMLExecutionProvider" },
        { "nnapi", "NnapiExecutionProvider" },       { "acl", "ACLExecutionProvider" },
        { "armnn", "ArmNNExecutionProvider" },       { "qnn", "QNNExecutionProvider" },
        { "vitisai", "VitisAIExecutionProvider" },   { "cann", "CANNExecutionProvider" },
        { "xnnpack", "XnnpackExecutionProvider" },   { "dml", "DmlExecutionProvider" },
    };
    const std::string kind = targetKind(target);
    for (const auto &[name, provider] : providers) {
        if (kind == name)
            return provider;
    }
    return "CPUExecutionProvider";
}

std::string OnnxModuleExporter::executionProvider(const std::string &target) const
{
    return onnxExecutionProvider(target);
}

bool OnnxModuleExporter::acceptsSource(const Graph &graph) const
{
    return graph.format() == "onnx";
}

namespace {

/// Which parts of the source graph one module takes: its nodes (plus the Constant nodes they
/// read), the initializers they read, and the tensors that must enter as inputs.
struct ModuleSelection
{
    std::vector<char> chosen; ///< Per source node.
    std::vector<char> usedInitializer; ///< Per source initializer.
    std::set<std::string> produced; ///< Tensors the partition's own nodes write.
    std::vector<std::string> external; ///< Other tensors read, in first-read order.
};

/// Marks the source nodes of module `k` (moduleNodes); false (with an error) when one has no ONNX
/// node.
bool chooseNodes(const PartitionPlan &plan, const BoundaryTable &boundary, std::size_t k,
                 const OnnxSource &src, ModuleSelection &sel, std::vector<Diagnostic> &diagnostics)
{
    const Graph &graph = plan.graph();
    const Partition &part = plan.partitions()[k];
    sel.chosen.assign(static_cast<std::size_t>(src.model.graph().node_size()), 0);
    for (NodeId n : moduleNodes(plan, boundary, k)) {
        if (graph.node(n).function != plan.function())
            continue;
        auto it = src.nodeByKey.find(graph.key(n));
        if (it == src.nodeByKey.end()) {
            diagnostics.push_back(onnxError("node " + graph.key(n) + " of partition " + part.name
                                            + " has no ONNX node in " + graph.sourcePath()));
            return false;
        }
        sel.chosen[static_cast<std::size_t>(it->second)] = 1;
    }
    return true;
}

// What the partition reads from outside: initializers, Constant nodes, or module inputs.
void selectReads(const OnnxSource &src, ModuleSelection &sel)
{
    const onnx::GraphProto &sg = src.model.graph();
    for (int i = 0; i < sg.node_size(); ++i) {
        if (sel.chosen[static_cast<std::size_t>(i)]) {
            for (const std::string &out : sg.node(i).output())
                sel.produced.insert(out);
        }
    }
    sel.usedInitializer.assign(static_cast<std::size_t>(sg.initializer_size()), 0);
    std::set<std::string> seen;
    for (int i = 0; i < sg.node_size(); ++i) {
        if (!sel.chosen[static_cast<std::size_t>(i)] || sg.node(i).op_type() == "Constant")
            continue;
        std::vector<std::string> reads;
        readsOf(sg.node(i), reads);
        for (const std::string &name : reads) {
            if (sel.produced.contains(name) || !seen.insert(name).second)
                continue;
            if (auto p = src.producer.find(name); p != src.producer.end()
                && sg.node(p->second).op_type() == "Constant"
                && sg.node(p->second).domain().empty()) {
                sel.chosen[static_cast<std::size_t>(p->second)] = 1;
                continue;
            }
            if (auto t = src.initializer.find(name); t != src.initializer.end()) {
                sel.usedInitializer[static_cast<std::size_t>(t->second)] = 1;
                continue;
            }
            sel.external.push_back(name);
        }
    }
}

/// A model with the source's IR version, opsets, functions and metadata, whose graph holds the
/// selected nodes and initializers.
onnx::ModelProto selectedModel(const onnx::ModelProto &source, const ModuleSelection &sel,
                               const std::string &partitionName)
{
    onnx::ModelProto out;
    out.set_ir_version(source.ir_version());
    *out.mutable_opset_import() = source.opset_import();
    *out.mutable_functions() = source.functions();
    out.set_producer_name("cleave");
    out.set_producer_version(CLEAVE_VERSION);
    out.set_domain(source.domain());
    out.set_model_version(source.model_version());
    const onnx::GraphProto &sg = source.graph();
    onnx::GraphProto &g = *out.mutable_graph();
    g.set_name(sg.name() + "_" + partitionName);
    for (int i = 0; i < sg.node_size(); ++i) {
        if (sel.chosen[static_cast<std::size_t>(i)])
            *g.add_node() = sg.node(i);
    }
    for (int i = 0; i < sg.initializer_size(); ++i) {
        if (sel.usedInitializer[static_cast<std::size_t>(i)])
            *g.add_initializer() = sg.initializer(i);
    }
    return out;
}

/// Adds `name` to `list` with the source's type for it, when known.
void addValue(const OnnxSource &src, google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> &list,
              const std::string &name)
{
    onnx::ValueInfoProto &v = *list.Add();
    if (auto it = src.valueInfo.find(name); it != src.valueInfo.end())
        v = *it->second;
    v.set_name(name);
}

/// The module's inputs in the interface's order (global inputs and cut tensors by first use),
/// then the other tensors it reads; returns their names.
std::vector<std::string> writeInputs(const OnnxSource &src, const ModuleSelection &sel,
                                     const std::vector<std::string> &interfaceInputs,
                                     onnx::ModelProto &out)
{
    onnx::GraphProto &g = *out.mutable_graph();
    std::set<std::string> inputs;
    std::vector<std::string> inputOrder;
    for (const std::string &name : interfaceInputs) {
        if (inputs.insert(name).second)
            inputOrder.push_back(name);
    }
    for (const std::string &name : sel.external) {
        if (inputs.insert(name).second)
            inputOrder.push_back(name);
    }
    for (const std::string &name : inputOrder)
        addValue(src, *g.mutable_input(), name);
    if (out.ir_version() < 4) {
        // Before IR version 4 every initializer must also be a graph input.
        for (const auto &t : g.initializer())
            addValue(src, *g.mutable_input(), t.name());
    }
    return inputOrder;
}

/// The module's outputs (interface outputs, then forwarded global inputs) and the value_info
/// of the other tensors it produces.
void writeOutputs(const Graph &graph, const OnnxSource &src, const ModuleSelection &sel,
                  const std::vector<std::string> &interfaceOutputs,
                  const std::vector<std::string> &passThrough, onnx::GraphProto &g)
{
    std::set<std::string> outputs;
    for (const std::string &name : interfaceOutputs) {
        if (outputs.insert(name).second)
            addValue(src, *g.mutable_output(), name);
    }
    for (const std::string &input : passThrough) {
        // A global input another module needs, forwarded under its own name.
        const NodeId id = graph.findByKey(input);
        const std::string name = id.isValid() ? onnxTensorName(graph, { id, 0 }) : input;
        if (outputs.insert(name).second)
            addValue(src, *g.mutable_output(), name);
    }
    for (const auto &v : src.model.graph().value_info()) {
        if (sel.produced.contains(v.name()) && !outputs.contains(v.name()))
            *g.add_value_info() = v;
    }
}

} // namespace

bool OnnxModuleExporter::writeModule(const PartitionPlan &plan, const BoundaryTable &boundary,
                                     std::size_t k, const ExportOptions &options,
                                     const std::vector<std::string> &passThrough,
                                     std::string &content, ModuleSummary &summary,
                                     std::vector<Diagnostic> &diagnostics) const
{
    const Graph &graph = plan.graph();
    std::string error;
    const std::shared_ptr<const OnnxSource> src = loadSource(graph, error);
    if (!src) {
        diagnostics.push_back(onnxError(error));
        return false;
    }
    if (k == 0 && options.liftConstants) {
        diagnostics.push_back(Diagnostic::make(
            Severity::Warning, "export.onnx",
            "ONNX modules keep their initializers; --lift-constants applies to Relay modules"));
    }
    ModuleSelection sel;
    if (!chooseNodes(plan, boundary, k, *src, sel, diagnostics))
        return false;
    selectReads(*src, sel);

    const Partition &part = plan.partitions()[k];
    onnx::ModelProto out = selectedModel(src->model, sel, part.name);
    summary.parameters = writeInputs(*src, sel, onnxInputNames(plan, boundary, k), out);
    onnx::GraphProto &g = *out.mutable_graph();
    writeOutputs(graph, *src, sel, onnxOutputNames(plan, boundary, k), passThrough, g);
    for (int i = 0; i < g.initializer_size(); ++i) {
        ModuleSummary::Constant c;
        c.sourceRef = c.moduleRef = c.sourceKey = g.initializer(i).name();
        if (const NodeId id = graph.findByKey(c.sourceKey); id.isValid())
            c.type = graph.node(id).outputType();
        summary.constants.push_back(std::move(c));
    }
    if (!out.SerializeToString(&content)) {
        diagnostics.push_back(
            onnxError("partition " + part.name + " cannot be written as ONNX (over 2 GiB?)"));
        return false;
    }
    return true;
}

std::shared_ptr<const void> OnnxModuleExporter::holdSource(const Graph &graph) const
{
    std::string error;
    return loadSource(graph, error);
}

std::unique_ptr<Graph> OnnxModuleExporter::readModule(const std::string &path,
                                                      std::vector<Diagnostic> &diagnostics) const
{
    return readGraphWith(OnnxImporter(), path, diagnostics);
}

std::optional<VerifyResult> OnnxModuleExporter::verifyFolder(const std::string &dir) const
{
    return verifyOnnxExport(dir); // ONNX modules connect by tensor names, not by @main
}

} // namespace cleave

namespace cleave {

bool OnnxModuleExporter::writeModelArtefacts(
    const ExportModel &model, const ExportOptions &options,
    std::vector<std::pair<std::string, std::string>> &files,
    std::vector<Diagnostic> &diagnostics) const
{
    (void)model;
    (void)options;
    (void)diagnostics;
    files.emplace_back("run_pipeline.py", std::string(onnxRunPipelineScript()));
    files.emplace_back("profile.py", std::string(onnxProfileScript()));
    return true;
}

} // namespace cleave
