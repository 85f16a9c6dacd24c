// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/onnx/OnnxModelFile.h"

#include "core/io/onnx/OnnxNames.h"
#include "core/support/Checksum.h"
#include "core/support/FileIo.h"

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cleave::onnxio {

namespace fs = std::filesystem;

bool inlineExternalData(onnx::TensorProto &tensor, const std::string &folder, std::string &error)
{
    if (tensor.data_location() != onnx::TensorProto::EXTERNAL)
        return true;
    const auto [location, offset, length] = externalDataOf(tensor);
    std::string problem;
    const std::optional<std::string> file = resolveExternalData(folder, location, problem);
    if (!file || offset < 0) {
        error = "initializer '" + tensor.name() + "' keeps its data in '" + location + "', which "
            + (file ? std::string("has a negative offset") : problem);
        return false;
    }
    std::ifstream in(*file, std::ios::binary);
    if (!in) {
        error = "initializer '" + tensor.name() + "' keeps its data in '" + location
            + "', which cannot be read from " + folder;
        return false;
    }
    std::string bytes;
    if (length < 0) {
        std::ostringstream all;
        in.seekg(offset);
        all << in.rdbuf();
        bytes = all.str();
    } else {
        bytes.resize(static_cast<std::size_t>(length));
        in.seekg(offset);
        in.read(bytes.data(), length);
        if (in.gcount() != length) {
            error = "initializer '" + tensor.name() + "': '" + location + "' is shorter than "
                + std::to_string(offset + length) + " bytes";
            return false;
        }
    }
    tensor.set_raw_data(std::move(bytes));
    tensor.clear_external_data();
    tensor.set_data_location(onnx::TensorProto::DEFAULT);
    return true;
}

bool loadModel(const std::string &path, const std::string &checksum, onnx::ModelProto &model,
               std::string &error)
{
    const std::optional<std::string> read = readFile(path);
    if (!read) {
        error = "cannot read the ONNX model " + path;
        return false;
    }
    const std::string &bytes = *read;
    if (!checksum.empty() && sha256Hex(bytes) != checksum) {
        error = "the ONNX model " + path + " has changed since it was imported (checksum differs)";
        return false;
    }
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)
        || !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        error = path + " is not a readable ONNX model (malformed protobuf or over 2 GiB)";
        return false;
    }
    const std::string folder = fs::path(path).parent_path().string();
    const std::string from = folder.empty() ? std::string(".") : folder;
    for (auto &t : *model.mutable_graph()->mutable_initializer()) {
        if (!inlineExternalData(t, from, error))
            return false;
    }
    // Tensor attributes (the value of `Constant` nodes) may be external too.
    for (auto &node : *model.mutable_graph()->mutable_node()) {
        for (auto &a : *node.mutable_attribute()) {
            if (a.has_t() && !inlineExternalData(*a.mutable_t(), from, error))
                return false;
        }
    }
    return true;
}

} // namespace cleave::onnxio
