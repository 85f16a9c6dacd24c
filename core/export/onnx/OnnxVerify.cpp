// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/onnx/OnnxVerify.h"

#include "core/export/VerifySupport.h"
#include "core/export/onnx/OnnxModelFile.h"
#include "core/graph/GraphCompare.h"
#include "core/io/onnx/OnnxImporter.h"
#include "core/io/onnx/OnnxNames.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace cleave {

namespace fs = std::filesystem;
using json = nlohmann::json;

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
    for (const std::string &n : names)
        s += (s.empty() ? "" : ", ") + n;
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
    std::map<std::string, std::string> a, b;
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
        if (!b.count(entry.first))
            return "has an attribute '" + entry.first + "' the source does not have";
    }
    return "differs from the source";
}

VerifyResult runVerify(const std::string &dir)
{
    VerifyResult r;
    const fs::path root(dir);
    const std::string manifestPath = (root / "partitions.json").string();
    const json manifest = verify::readJson(manifestPath);
    if (!manifest.contains("source") || !manifest["source"].is_object()
        || !manifest["source"].contains("path") || !manifest["source"]["path"].is_string())
        throw BadInput(manifestPath + ": missing \"source\".\"path\"");
    const std::string sourcePath = manifest["source"]["path"].get<std::string>();
    const std::string checksum = manifest["source"].value("checksum", std::string());
    if (!manifest.contains("partitions") || !manifest["partitions"].is_array())
        throw BadInput(manifestPath + ": missing \"partitions\"");

    onnx::ModelProto source;
    std::string error;
    if (!onnxio::loadModel(sourcePath, checksum, source, error)) {
        if (error.find("checksum") != std::string::npos) {
            r.firstDifference = error;
            return r;
        }
        throw BadInput("the source model cannot be read: " + error);
    }
    const onnx::GraphProto &sg = source.graph();

    // Read the modules.
    const json &parts = manifest["partitions"];
    std::vector<onnx::ModelProto> modules(parts.size());
    std::vector<std::string> files;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const std::string where = manifestPath + ": partitions[" + std::to_string(k) + "]";
        if (!parts[k].contains("file") || !parts[k]["file"].is_string())
            throw BadInput(where + ": missing \"file\"");
        const std::string file = parts[k]["file"].get<std::string>();
        if (file.empty() || file.find_first_of("/\\") != std::string::npos || file == "..")
            throw BadInput(where + ": module file '" + file + "' is not a plain file name");
        files.push_back(file);
        if (!onnxio::loadModel((root / file).string(), std::string(), modules[k], error)) {
            r.firstDifference = file + " cannot be re-imported: " + error;
            return r;
        }
    }

    // Wire by tensor names.
    std::set<std::string> globalInputs;
    {
        std::set<std::string> inits;
        for (const auto &t : sg.initializer())
            inits.insert(t.name());
        for (const auto &v : sg.input()) {
            if (!inits.count(v.name()))
                globalInputs.insert(v.name());
        }
    }
    std::map<std::string, std::size_t> producerModule;
    for (std::size_t k = 0; k < modules.size(); ++k) {
        const onnx::GraphProto &g = modules[k].graph();
        std::set<std::string> available;
        for (const auto &v : g.input())
            available.insert(v.name());
        for (const auto &t : g.initializer())
            available.insert(t.name());
        for (const auto &n : g.node()) {
            for (const std::string &in : n.input()) {
                if (!in.empty() && !available.count(in)) {
                    r.firstDifference = files[k] + ": " + nodeLabel(n) + " reads '" + in
                        + "', which is neither a module input, an initializer nor produced before "
                          "it";
                    return r;
                }
            }
            for (const std::string &out : n.output())
                available.insert(out);
        }
        for (const auto &v : g.output()) {
            if (!available.count(v.name())) {
                r.firstDifference
                    = files[k] + ": output '" + v.name() + "' is not produced in the module";
                return r;
            }
            bool isInput = false;
            for (const auto &in : g.input())
                isInput = isInput || in.name() == v.name();
            if (isInput)
                continue; // a forwarded global input
            auto [it, fresh] = producerModule.emplace(v.name(), k);
            if (!fresh) {
                r.firstDifference = "tensor '" + v.name() + "' is an output of both "
                    + files[it->second] + " and " + files[k];
                return r;
            }
        }
    }
    for (std::size_t k = 0; k < modules.size(); ++k) {
        std::set<std::string> initializers; // graph inputs too before IR version 4
        for (const auto &t : modules[k].graph().initializer())
            initializers.insert(t.name());
        for (const auto &v : modules[k].graph().input()) {
            if (globalInputs.count(v.name()) || initializers.count(v.name()))
                continue;
            auto it = producerModule.find(v.name());
            if (it == producerModule.end() || it->second == k) {
                r.firstDifference = files[k] + ": input '" + v.name()
                    + "' is neither a global input of the source nor an output of another module";
                return r;
            }
        }
    }
    for (const auto &v : sg.output()) {
        if (!producerModule.count(v.name())) {
            r.firstDifference = "no module outputs the source's global output '" + v.name() + "'";
            return r;
        }
    }

    // Union of the modules against the source, by the tensors each node writes.
    std::map<std::string, int> sourceByOutput;
    for (int i = 0; i < sg.node_size(); ++i) {
        if (sg.node(i).output_size())
            sourceByOutput.emplace(sg.node(i).output(0), i);
    }
    std::map<std::string, std::string> sourceInit;
    for (const auto &t : sg.initializer())
        sourceInit.emplace(t.name(), canonical(t));
    onnx::ModelProto recomposed;
    recomposed.set_ir_version(source.ir_version());
    *recomposed.mutable_opset_import() = source.opset_import();
    *recomposed.mutable_functions() = source.functions();
    onnx::GraphProto &rg = *recomposed.mutable_graph();
    rg.set_name(sg.name());
    std::map<std::string, std::string> takenNode; // first output -> canonical node
    std::map<std::string, std::string> takenInit;
    for (std::size_t k = 0; k < modules.size(); ++k) {
        const onnx::GraphProto &g = modules[k].graph();
        for (const auto &n : g.node()) {
            if (n.output_size() == 0)
                continue;
            auto s = sourceByOutput.find(n.output(0));
            if (s == sourceByOutput.end()) {
                r.firstDifference = files[k] + ": " + nodeLabel(n) + " is not in the source model";
                return r;
            }
            const std::string c = canonical(n);
            if (c != canonical(sg.node(s->second))) {
                r.firstDifference
                    = files[k] + ": " + nodeLabel(n) + " " + nodeDifference(n, sg.node(s->second));
                return r;
            }
            auto [it, fresh] = takenNode.emplace(n.output(0), c);
            if (!fresh) {
                if (n.op_type() == "Constant" && n.domain().empty())
                    continue; // a Constant node each reading module carries
                r.firstDifference = files[k] + ": " + nodeLabel(n) + " is in two modules";
                return r;
            }
            *rg.add_node() = n;
        }
        for (const auto &t : g.initializer()) {
            auto s = sourceInit.find(t.name());
            if (s == sourceInit.end()) {
                r.firstDifference
                    = files[k] + ": initializer '" + t.name() + "' is not in the source model";
                return r;
            }
            const std::string c = canonical(t);
            if (c != s->second) {
                r.firstDifference = files[k] + ": initializer '" + t.name()
                    + "' has other dims, type or values than in the source";
                return r;
            }
            if (takenInit.emplace(t.name(), c).second)
                *rg.add_initializer() = t;
        }
    }
    std::set<std::string> readBySource;
    for (const auto &n : sg.node()) {
        std::string label = nodeLabel(n);
        if (n.output_size() && !takenNode.count(n.output(0))) {
            r.firstDifference = "the source's " + label + " is in no module";
            return r;
        }
        for (const std::string &in : n.input())
            readBySource.insert(in);
    }
    for (const auto &t : sg.initializer()) {
        if (readBySource.count(t.name()) && !takenInit.count(t.name())) {
            r.firstDifference = "the source's initializer '" + t.name() + "' is in no module";
            return r;
        }
    }

    // The recomposed model imports as a graph equal to the source's.
    for (const auto &v : sg.input()) {
        if (globalInputs.count(v.name()) || takenInit.count(v.name()))
            *rg.add_input() = v;
    }
    *rg.mutable_output() = sg.output();
    const std::string bytes = recomposed.SerializeAsString();
    ImportResult a = importBytesWith(OnnxImporter(), bytes, (root / "recomposed.onnx").string());
    if (!a.ok()) {
        r.firstDifference = "the recomposed model cannot be imported: " + a.firstError();
        return r;
    }
    ImportResult b = importFileWith(OnnxImporter(), sourcePath);
    if (!b.ok())
        throw BadInput("the source model " + sourcePath + " cannot be read: " + b.firstError());
    if (auto diff = firstDifference(*a.graph, *b.graph)) {
        r.firstDifference = *diff;
        return r;
    }
    r.ok = true;
    return r;
}

} // namespace

VerifyResult verifyOnnxExport(const std::string &dir)
{
    return verify::guarded(dir, [&] { return runVerify(dir); });
}

} // namespace cleave
