// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ModuleComposer.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace cleave {

namespace {

class Composer
{
public:
    Composer(const std::vector<ComposedModule> &modules, const ComposeSpec &spec,
             std::string &error)
        : m_modules(modules)
        , m_spec(spec)
        , m_error(error)
        , m_weights(spec.weightInputs.begin(), spec.weightInputs.end())
    {
    }

    Graph run()
    {
        Function main;
        main.kind = Function::Kind::Global;
        main.name = "main";
        main.attrs = m_spec.signature.attrs;
        main.typeParams = m_spec.signature.typeParams;
        main.returnType = m_spec.signature.returnType;
        main.hasReturnType = m_spec.signature.hasReturnType;
        main.where = m_spec.signature.where;
        m_main = m_out.addFunction(std::move(main));
        for (const auto &[name, type] : m_spec.inputs) {
            const NodeId id = m_out.addParam(m_main, "%" + name, type);
            m_inputs.emplace(name, id);
        }
        if (!m_modules.empty() && m_modules.front().graph) {
            for (const TypeDefinition &def : m_modules.front().graph->typeDefinitions())
                m_out.addTypeDefinition(def);
        }
        m_outputs.resize(m_modules.size());
        for (std::size_t k = 0; k < m_modules.size() && m_error.empty(); ++k)
            composeModule(k);
        if (!m_error.empty())
            return std::move(m_out);
        std::vector<TensorRef> results;
        for (const auto &[module, output] : m_spec.outputs) {
            if (module >= m_outputs.size() || output >= m_outputs[module].size()) {
                m_error = "global output refers to mod" + std::to_string(module) + " output "
                    + std::to_string(output) + ", which does not exist";
                return std::move(m_out);
            }
            results.push_back(m_outputs[module][output]);
        }
        if (results.size() == 1 && !m_spec.tupleResult) {
            m_out.function(m_main).result = results.front().node;
        } else if (!results.empty()) {
            Node tuple;
            tuple.kind = NodeKind::Tuple;
            tuple.function = m_main;
            tuple.inputs = results;
            std::vector<Type> fields;
            fields.reserve(results.size());
            for (TensorRef r : results)
                fields.push_back(m_out.tensorType(r));
            tuple.setOutputTypes({ Type::tuple(fields) });
            m_out.function(m_main).result = m_out.addNode(std::move(tuple));
        }
        m_out.finalize();
        return std::move(m_out);
    }

private:
    struct ModuleState
    {
        std::unordered_map<std::uint32_t, TensorRef> nodes;
        std::unordered_map<std::uint32_t, FunctionId> functions;
        FunctionId partition; ///< The module's function that is the partition.
        /// Lifted constants by parameter name (without `%`): the partition's parameters bound
        /// to constants, and the extra parameters of the same name that closed functions of
        /// the module were given to receive them (ConstantLifting::Everywhere).
        std::unordered_map<std::string, const ModuleBinding *> lifted;
    };

    /// A parameter that a closed function of the module was given to receive a lifted
    /// constant: the constant it stands for, else null.
    const ModuleBinding *liftedCarrier(const Graph &g, const ModuleState &st, NodeId id) const
    {
        const Node &n = g.node(id);
        if (n.kind != NodeKind::Input || n.function == st.partition || st.lifted.empty())
            return nullptr;
        auto it = st.lifted.find(n.name.substr(n.name.starts_with('%') ? 1 : 0));
        return it == st.lifted.end() ? nullptr : it->second;
    }

    /// The constant `ref` as a node of `f` (one per function and constant, as a Relay source
    /// has it).
    NodeId constantIn(FunctionId f, const std::string &ref, const Type &type)
    {
        if (f == m_main) {
            if (auto it = m_constants.find(ref); it != m_constants.end())
                return it->second;
        }
        const auto key = std::make_pair(f.value, ref);
        if (auto it = m_functionConstants.find(key); it != m_functionConstants.end())
            return it->second;
        Node n;
        n.kind = NodeKind::Constant;
        n.function = f;
        n.name = ref;
        n.setMetaRef(ref);
        n.setOutputTypes({ type });
        n.typeAnnotated = true;
        const NodeId id = m_out.addNode(std::move(n));
        if (f == m_main)
            m_constants.emplace(ref, id);
        else
            m_functionConstants.emplace(key, id);
        return id;
    }

    /// A tensor constant of another function read in `into` (a lifted constant that a scope or
    /// a closure read as a free variable) becomes a constant of `into`.
    TensorRef localise(TensorRef t, FunctionId into)
    {
        if (!t.isValid())
            return t;
        const Node &n = m_out.node(t.node);
        if (n.kind != NodeKind::Constant || n.metaRef().empty() || n.function == into)
            return t;
        const std::string ref = n.metaRef();
        const Type type = n.outputType();
        return TensorRef { constantIn(into, ref, type), t.output };
    }

    TensorRef annotate(TensorRef t, const char *op, const std::string &compiler)
    {
        Node n;
        n.kind = NodeKind::OpCall;
        n.function = m_main;
        n.op = op;
        n.inputs = { t };
        n.attrs.set("compiler", AttrValue::string(compiler));
        n.setOutputTypes({ m_out.tensorType(t) });
        return TensorRef { m_out.addNode(std::move(n)), 0 };
    }

    TensorRef bindingValue(std::size_t k, const ModuleBinding &b)
    {
        switch (b.kind) {
        case ModuleBinding::Kind::GlobalInput: {
            auto it = m_inputs.find(b.name);
            if (it == m_inputs.end()) {
                m_error = "mod" + std::to_string(k) + " reads global input '" + b.name
                    + "', which the model does not have";
                return {};
            }
            return TensorRef { it->second, 0 };
        }
        case ModuleBinding::Kind::ModuleOutput:
            if (b.module >= k || b.output >= m_outputs[b.module].size()) {
                m_error = "mod" + std::to_string(k) + " reads output " + std::to_string(b.output)
                    + " of mod" + std::to_string(b.module) + ", which is not produced before it";
                return {};
            }
            return m_outputs[b.module][b.output];
        case ModuleBinding::Kind::Constant: {
            auto it = m_constants.find(b.constantRef);
            if (it != m_constants.end())
                return TensorRef { it->second, 0 };
            Node n;
            n.kind = NodeKind::Constant;
            n.function = m_main;
            n.setMetaRef(b.constantRef);
            n.setOutputTypes({ b.type });
            n.typeAnnotated = true;
            const NodeId id = m_out.addNode(std::move(n));
            m_constants.emplace(b.constantRef, id);
            return TensorRef { id, 0 };
        }
        }
        return {};
    }

    /// Module `k`'s body copied into the composed @main, its parameters standing for `args`;
    /// returns its outputs.
    std::vector<TensorRef> inlineModule(std::size_t k, ModuleState &st, FunctionId gmain,
                                        const std::vector<TensorRef> &args)
    {
        const ComposedModule &cm = m_modules[k];
        const Graph &g = *cm.graph;
        const Function &f = g.function(gmain);
        std::vector<TensorRef> outs;
        for (std::size_t i = 0; i < f.params.size(); ++i)
            st.nodes.emplace(f.params[i].value, args[i]);
        st.functions.emplace(gmain.value, m_main);
        const NodeId result = f.result;
        const bool tupleOut = cm.outputCount > 1 || cm.tupleOutputs;
        for (NodeId n : g.topologicalOrder(gmain)) {
            if (st.nodes.contains(n.value) || (tupleOut && n == result))
                continue;
            copyNode(cm, st, n, m_main);
        }
        if (!m_error.empty())
            return {};
        if (tupleOut) {
            if (!result.isValid() || g.node(result).kind != NodeKind::Tuple
                || g.node(result).inputs.size() != cm.outputCount) {
                m_error = "mod" + std::to_string(k) + " does not return a tuple of "
                    + std::to_string(cm.outputCount) + " outputs";
                return {};
            }
            for (TensorRef t : g.node(result).inputs)
                outs.push_back(resolve(cm, st, t));
        } else if (result.isValid()) {
            outs.push_back(resolve(cm, st, TensorRef { result, 0 }));
        }
        return outs;
    }

    /// Module `k` as a global function of the composed graph, called from @main with `args`
    /// (PartitionGraph style); returns the call's outputs.
    std::vector<TensorRef> callModule(std::size_t k, ModuleState &st, FunctionId gmain,
                                      const std::vector<TensorRef> &args)
    {
        const ComposedModule &cm = m_modules[k];
        const Graph &g = *cm.graph;
        const Function &f = g.function(gmain);
        std::vector<TensorRef> outs;
        Function fn = f;
        fn.name = cm.callName;
        fn.attrs = cm.callAttrs;
        fn.params.clear();
        fn.nodes.clear();
        fn.result = {};
        const FunctionId callee = m_out.addFunction(std::move(fn));
        st.functions.emplace(gmain.value, callee);
        for (std::size_t i = 0; i < f.params.size(); ++i) {
            Node p = g.node(f.params[i]);
            p.function = callee;
            if (i < cm.callParams.size())
                p.name = "%" + cm.callParams[i];
            const NodeId id = m_out.addNode(std::move(p));
            m_out.function(callee).params.push_back(id);
            st.nodes.emplace(f.params[i].value, TensorRef { id, 0 });
        }
        for (NodeId n : g.topologicalOrder(gmain)) {
            if (!st.nodes.contains(n.value))
                copyNode(cm, st, n, callee);
        }
        if (f.result.isValid())
            m_out.function(callee).result = resolve(cm, st, TensorRef { f.result, 0 }).node;
        Node call;
        call.kind = NodeKind::FunctionCall;
        call.function = m_main;
        call.callee = callee;
        call.inputs = args;
        call.setOutputTypes({ f.returnType });
        const NodeId c = m_out.addNode(std::move(call));
        if (cm.outputCount > 1 || cm.tupleOutputs) {
            for (std::uint32_t o = 0; o < cm.outputCount; ++o) {
                Node item;
                item.kind = NodeKind::TupleGetItem;
                item.function = m_main;
                item.index = o;
                item.inputs = { TensorRef { c, 0 } };
                item.setOutputTypes(
                    { f.returnType.isTuple() ? f.returnType.field(o) : Type::unknown() });
                outs.push_back(TensorRef { m_out.addNode(std::move(item)), 0 });
            }
        } else {
            outs.push_back(TensorRef { c, 0 });
        }
        return outs;
    }

    void composeModule(std::size_t k)
    {
        const ComposedModule &cm = m_modules[k];
        if (!cm.graph) {
            m_error = "mod" + std::to_string(k) + " is missing";
            return;
        }
        const Graph &g = *cm.graph;
        const FunctionId gmain = g.findFunction(cm.function);
        if (!gmain.isValid()) {
            m_error = "mod" + std::to_string(k) + " has no @" + cm.function;
            return;
        }
        const Function &f = g.function(gmain);
        if (f.params.size() != cm.bindings.size()) {
            m_error = "mod" + std::to_string(k) + " has " + std::to_string(f.params.size())
                + " parameters but the config binds " + std::to_string(cm.bindings.size());
            return;
        }
        ModuleState st;
        st.partition = gmain;
        for (std::size_t i = 0; i < f.params.size(); ++i) {
            if (cm.bindings[i].kind == ModuleBinding::Kind::Constant) {
                const std::string &name = g.node(f.params[i]).name;
                st.lifted.emplace(name.substr(name.starts_with('%') ? 1 : 0), &cm.bindings[i]);
            }
        }
        std::vector<TensorRef> args;
        for (std::size_t i = 0; i < f.params.size(); ++i) {
            TensorRef v = bindingValue(k, cm.bindings[i]);
            if (!m_error.empty())
                return;
            if (!cm.annotateCompiler.empty())
                v = annotate(v, "annotation.compiler_begin", cm.annotateCompiler);
            args.push_back(v);
        }
        std::vector<TensorRef> outs = cm.callName.empty() ? inlineModule(k, st, gmain, args)
                                                          : callModule(k, st, gmain, args);
        if (!m_error.empty())
            return;
        if (!cm.annotateCompiler.empty()) {
            for (TensorRef &o : outs)
                o = annotate(o, "annotation.compiler_end", cm.annotateCompiler);
        }
        m_outputs[k] = std::move(outs);
    }

    TensorRef resolve(const ComposedModule &cm, ModuleState &st, TensorRef t)
    {
        if (auto it = st.nodes.find(t.node.value); it != st.nodes.end())
            return TensorRef { it->second.node, it->second.output + t.output };
        const Node &n = cm.graph->node(t.node);
        auto f = st.functions.find(n.function.value);
        const FunctionId into = f != st.functions.end() ? f->second : m_main;
        const NodeId id = copyNode(cm, st, t.node, into);
        return TensorRef { id, t.output };
    }

    FunctionId copyFunction(const ComposedModule &cm, ModuleState &st, FunctionId f,
                            FunctionId parent)
    {
        if (auto it = st.functions.find(f.value); it != st.functions.end())
            return it->second;
        const Function &src = cm.graph->function(f);
        if (src.kind == Function::Kind::Global) {
            if (auto it = m_globals.find(src.name); it != m_globals.end()) {
                st.functions.emplace(f.value, it->second);
                return it->second;
            }
        }
        Function nf = src;
        nf.parent = src.kind == Function::Kind::Global ? FunctionId {} : parent;
        nf.params.clear();
        nf.nodes.clear();
        nf.result = {};
        const FunctionId id = m_out.addFunction(std::move(nf));
        st.functions.emplace(f.value, id);
        if (src.kind == Function::Kind::Global)
            m_globals.emplace(src.name, id);
        for (NodeId n : src.nodes) {
            if (!st.nodes.contains(n.value))
                copyNode(cm, st, n, id);
        }
        for (NodeId p : src.params) {
            if (!liftedCarrier(*cm.graph, st, p))
                m_out.function(id).params.push_back(st.nodes.at(p.value).node);
        }
        if (src.result.isValid())
            m_out.function(id).result
                = localise(resolve(cm, st, TensorRef { src.result, 0 }), id).node;
        return id;
    }

    /// The arguments of a call of `callee` that pass lifted constants to it, dropped.
    void dropLiftedArguments(const ComposedModule &cm, const ModuleState &st, FunctionId callee,
                             TensorRefList &inputs) const
    {
        const std::vector<NodeId> &params = cm.graph->function(callee).params;
        TensorRefList kept;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            if (i >= params.size() || !liftedCarrier(*cm.graph, st, params[i]))
                kept.push_back(inputs[i]);
        }
        inputs = std::move(kept);
    }

    NodeId copyNode(const ComposedModule &cm, ModuleState &st, NodeId id, FunctionId into)
    {
        const Node &src = cm.graph->node(id);
        if (const ModuleBinding *lifted = liftedCarrier(*cm.graph, st, id)) {
            const NodeId c = constantIn(into, lifted->constantRef, src.outputType());
            st.nodes.emplace(id.value, TensorRef { c, 0 });
            return c;
        }
        Node n = src;
        n.function = into;
        if (src.kind == NodeKind::FunctionCall && src.callee.isValid())
            dropLiftedArguments(cm, st, src.callee, n.inputs);
        for (TensorRef &in : n.inputs) {
            if (in.isValid())
                in = localise(resolve(cm, st, in), into);
        }
        if (src.callee.isValid())
            n.callee = copyFunction(cm, st, src.callee, into);
        n.setScopes({});
        if (src.kind == NodeKind::Constant && !src.metaRef().empty()) {
            if (auto it = cm.constantRefs.find(src.metaRef()); it != cm.constantRefs.end())
                n.setMetaRef(it->second);
            if (into == m_main && cm.callName.empty()) {
                if (auto it = m_constants.find(n.metaRef()); it != m_constants.end()) {
                    st.nodes.emplace(id.value, TensorRef { it->second, 0 });
                    return it->second;
                }
            }
        }
        if (m_spec.collapseFieldTuples && src.kind == NodeKind::Tuple && !n.inputs.empty()) {
            const TensorRef whole = collapsible(n.inputs);
            if (whole.isValid()) {
                st.nodes.emplace(id.value, whole);
                return whole.node;
            }
        }
        const bool weightOnly = into == m_main && src.scopes().empty() && isWeightOnly(n);
        if (weightOnly) {
            if (const NodeId same = sameWeightOnly(n); same.isValid()) {
                st.nodes.emplace(id.value, TensorRef { same, 0 });
                return same;
            }
        }
        const std::string key = weightOnly ? weightOnlyKey(n) : std::string();
        const NodeId nid = m_out.addNode(std::move(n));
        if (weightOnly) {
            m_weightOnly.insert(nid.value);
            m_weightOnlyByKey[key].push_back(nid);
        }
        st.nodes.emplace(id.value, TensorRef { nid, 0 });
        if (src.kind == NodeKind::Constant && !src.metaRef().empty() && into == m_main
            && cm.callName.empty())
            m_constants.emplace(m_out.node(nid).metaRef(), nid);
        std::vector<FunctionId> scopes;
        for (FunctionId s : src.scopes())
            scopes.push_back(copyFunction(cm, st, s, into));
        m_out.node(nid).setScopes(std::move(scopes));
        return nid;
    }

    /// True when `n` (inputs already in the composed graph) is an operator computed only from
    /// weight inputs, constants and other such operators (ComposeSpec::weightInputs).
    bool isWeightOnly(const Node &n) const
    {
        // A call of a global function: globals are shared by every module in the composed
        // graph, so two calls of one read the same callee.
        const bool globalCall = n.kind == NodeKind::FunctionCall && n.callee.isValid()
            && m_out.function(n.callee).kind == Function::Kind::Global;
        if (!m_spec.mergeWeightOnly
            || (n.kind != NodeKind::OpCall && n.kind != NodeKind::TupleGetItem
                && n.kind != NodeKind::Tuple && !globalCall))
            return false;
        return std::all_of(n.inputs.begin(), n.inputs.end(), [&](TensorRef t) {
            if (!t.isValid())
                return false;
            const Node &in = m_out.node(t.node);
            if (in.kind == NodeKind::Constant)
                return true;
            if (in.kind == NodeKind::Input)
                return in.function == m_main
                    && m_weights.contains(in.name.substr(in.name.starts_with('%') ? 1 : 0));
            return m_weightOnly.contains(t.node.value);
        });
    }

    /// The op, callee and inputs of a weight-only operator; a constant input by its value
    /// (each module writes its own inline scalars).
    std::string weightOnlyKey(const Node &n) const
    {
        std::string key = std::to_string(static_cast<int>(n.kind)) + "|" + n.op.str() + "|"
            + std::to_string(n.index) + "|" + std::to_string(n.callee.value);
        for (TensorRef t : n.inputs) {
            const Node &in = m_out.node(t.node);
            if (in.kind == NodeKind::Constant)
                key += "|c:" + in.metaRef() + in.value().toRelay() + ":"
                    + in.outputType().toRelay();
            else
                key += "|" + std::to_string(t.node.value) + ":" + std::to_string(t.output);
        }
        return key;
    }

    /// An earlier weight-only operator equal to `n`, or an invalid id.
    NodeId sameWeightOnly(const Node &n) const
    {
        auto it = m_weightOnlyByKey.find(weightOnlyKey(n));
        if (it == m_weightOnlyByKey.end())
            return {};
        for (NodeId c : it->second) {
            const Node &other = m_out.node(c);
            if (other.attrs == n.attrs && other.attrsRef() == n.attrsRef()
                && other.outputTypes() == n.outputTypes())
                return c;
        }
        return {};
    }

    /// `(%x.0, %x.1, ..., %x.n-1)` over all fields of `%x` → `%x`.
    TensorRef collapsible(const TensorRefList &inputs) const
    {
        TensorRef whole;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const Node &item = m_out.node(inputs[i].node);
            if (item.kind != NodeKind::TupleGetItem || item.index != i || item.inputs.empty())
                return {};
            if (i == 0)
                whole = item.inputs[0];
            else if (!(item.inputs[0] == whole))
                return {};
        }
        const Type &t = m_out.tensorType(whole);
        if (!t.isTuple() || t.fields.size() != inputs.size())
            return {};
        return whole;
    }

    const std::vector<ComposedModule> &m_modules;
    const ComposeSpec &m_spec;
    std::string &m_error;
    Graph m_out;
    FunctionId m_main;
    std::unordered_map<std::string, NodeId> m_inputs;
    std::unordered_map<std::string, NodeId> m_constants;
    std::map<std::pair<std::uint32_t, std::string>, NodeId> m_functionConstants;
    std::unordered_map<std::string, FunctionId> m_globals;
    std::vector<std::vector<TensorRef>> m_outputs;
    std::unordered_set<std::string> m_weights; // ComposeSpec::weightInputs
    std::unordered_set<std::uint32_t> m_weightOnly; // composed weight-only operators
    std::unordered_map<std::string, std::vector<NodeId>> m_weightOnlyByKey;
};

} // namespace

Graph composeModules(const std::vector<ComposedModule> &modules, const ComposeSpec &spec,
                     std::string &error)
{
    return Composer(modules, spec, error).run();
}

} // namespace cleave
