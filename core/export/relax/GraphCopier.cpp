// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relax/GraphCopier.h"

#include <optional>

namespace cleave {

Function emptyGlobalLike(const Function &source)
{
    Function f;
    f.kind = Function::Kind::Global;
    f.name = source.name;
    f.attrs = source.attrs;
    f.returnType = source.returnType;
    f.hasReturnType = source.hasReturnType;
    return f;
}

FunctionId GraphCopier::global(FunctionId f)
{
    if (auto it = m_functions.find(f.value); it != m_functions.end())
        return it->second;
    const FunctionId existing = m_dst.findFunction(m_src.function(f).name);
    if (existing.isValid()) {
        m_functions.emplace(f.value, existing);
        return existing;
    }
    return copyFunction(f, {});
}

FunctionId GraphCopier::copyFunction(FunctionId f, FunctionId parent, const std::string &name)
{
    const Function &src = m_src.function(f);
    Function nf;
    nf.kind = src.kind;
    nf.name = name.empty() ? src.name : name;
    nf.parent = parent;
    nf.attrs = src.attrs;
    nf.typeParams = src.typeParams;
    nf.returnType = src.returnType;
    nf.hasReturnType = src.hasReturnType;
    nf.where = src.where;
    nf.sourceText = src.sourceText;
    const FunctionId id = m_dst.addFunction(std::move(nf));
    m_functions.emplace(f.value, id);
    for (NodeId n : src.nodes) {
        if (!isMapped(n))
            copyNode(n, id);
    }
    for (NodeId p : src.params)
        m_dst.function(id).params.push_back(resolve(TensorRef { p, 0 }).node);
    if (src.result.isValid())
        m_dst.function(id).result = resolve(TensorRef { src.result, 0 }).node;
    return id;
}

TensorRef GraphCopier::resolve(TensorRef t) const
{
    auto it = m_nodes.find(t.node.value);
    if (it == m_nodes.end())
        return {};
    return TensorRef { it->second.node, it->second.output + t.output };
}

NodeId GraphCopier::copyNode(NodeId id, FunctionId into)
{
    const Node &src = m_src.node(id);
    Node n = src;
    n.function = into;
    for (TensorRef &in : n.inputs) {
        std::optional<TensorRef> hooked;
        if (inputHook)
            hooked = inputHook(id, in);
        if (!hooked && !isMapped(in.node) && in.node.isValid()) {
            // Constants and function values belong to no partition: copy them where used.
            const NodeKind kind = m_src.node(in.node).kind;
            if (kind == NodeKind::Constant || kind == NodeKind::FunctionValue)
                copyNode(in.node, into);
        }
        in = hooked ? *hooked : resolve(in);
    }
    n.setScopes({});
    if (src.callee.isValid()) {
        const Function &callee = m_src.function(src.callee);
        if (callee.kind == Function::Kind::Global)
            n.callee = global(src.callee);
        else if (auto it = m_functions.find(src.callee.value); it != m_functions.end())
            n.callee = it->second;
        else
            n.callee = copyFunction(src.callee, into);
    }
    const NodeId nid = m_dst.addNode(std::move(n));
    m_nodes[id.value] = TensorRef { nid, 0 };
    std::vector<FunctionId> scopes;
    for (FunctionId s : src.scopes())
        scopes.push_back(copyFunction(s, into));
    m_dst.node(nid).setScopes(std::move(scopes));
    return nid;
}

} // namespace cleave
