// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// RelaxParser, second half: from parsed expressions to graph nodes, and the module's final
// checks (undefined functions, types of untyped bindings, op patterns of kernels).
#include "core/io/relax/RelaxParser.h"
#include "core/io/relax/RelaxValues.h"

#include <algorithm>
#include <array>
#include <span>

namespace cleave::relax {

namespace {

constexpr std::array<std::string_view, 6> kernelForms
    = { "call_tir",        "call_tir_inplace", "call_tir_with_grad",
        "call_dps_packed", "call_packed",      "call_pure_packed" };
constexpr std::array<std::string_view, 5> constantForms
    = { "const", "shape", "prim_value", "str", "dtype" };

bool isOneOf(std::string_view s, std::span<const std::string_view> list)
{
    return std::ranges::any_of(list, [s](std::string_view item) { return s == item; });
}

Type scalarType(const AttrValue &v, const std::string &dtype)
{
    std::string dt = dtype;
    if (dt.empty())
        dt = v.kind == AttrValue::Kind::Float ? "float32"
            : v.kind == AttrValue::Kind::Bool ? "bool"
                                              : "int64";
    if (v.kind == AttrValue::Kind::List)
        return Type::tensor({ Dim::known(static_cast<std::int64_t>(v.list.size())) }, dt);
    return Type::tensor({}, dt);
}

Type namedType(const std::string &name, const std::string &dtype = {})
{
    Type t;
    t.kind = Type::Kind::Named;
    t.name = name;
    t.dtype = dtype;
    return t;
}

} // namespace

RelaxParser::Value RelaxParser::addNode(Node node, Scope &scope, const Expr &at)
{
    node.function = scope.function;
    node.where = SourcePosition { at.line, at.column };
    const bool untyped = (node.kind == NodeKind::FunctionCall || node.kind == NodeKind::Tuple
                          || node.kind == NodeKind::TupleGetItem)
        && node.outputType().isUnknown();
    Value v;
    v.ref = TensorRef { m_graph->addNode(std::move(node)), 0 };
    if (untyped)
        m_untypedNodes.push_back(v.ref.node);
    return v;
}

TensorRef RelaxParser::materialize(const Value &v, Scope &scope, const Expr &at)
{
    if (v.kind == Value::Kind::Tensor)
        return v.ref;
    Node n;
    n.kind = NodeKind::FunctionValue;
    n.callee = v.function;
    return addNode(std::move(n), scope, at).ref;
}

RelaxParser::Value RelaxParser::lowerBinding(const Expr &e, Scope &scope, std::string_view name,
                                             const TypeList *annotation)
{
    // A call makes its own node (before the typed node below is made, to intern its type once).
    if (e.kind == Expr::Kind::Call)
        return lowerCall(e, scope, name, annotation);
    // A variable (an argument, most often) is the value it names: no node.
    if (e.kind == Expr::Kind::Name && e.text.find('.') == std::string::npos
        && (m_symbols.empty() || !isSymbolicValue(e, scope)))
        return lookup(e, scope);
    Node node;
    node.name = name;
    if (annotation) {
        node.setOutputTypes(*annotation);
        node.typeAnnotated = true;
    }
    // `R.arange(0, n, 1)`: a symbolic shape variable, or an expression of them, written as a
    // value is a PrimValue in TVM, like `R.prim_value(n)`.
    if (!m_symbols.empty() && isSymbolicValue(e, scope))
        return addPrimText(std::move(node), "R.prim_value", "int64", scope, e);
    switch (e.kind) {
    case Expr::Kind::Name: {
        if (e.text.find('.') == std::string::npos)
            return lookup(e, scope); // an alias is the same value
        const std::string_view prefix = e.text.substr(0, e.text.find('.'));
        if (prefix == "cls" || prefix == m_className) {
            Value v;
            v.kind = Value::Kind::Function;
            v.function = globalFunction(std::string(e.text.substr(prefix.size() + 1)), e);
            if (name.empty())
                return v;
            node.kind = NodeKind::FunctionValue;
            node.callee = v.function;
            return addNode(std::move(node), scope, e);
        }
        fail(e, "'" + std::string(e.text) + "' is not a value", "relax.undefined");
    }
    case Expr::Kind::Call:
        return lowerCall(e, scope, name, annotation);
    case Expr::Kind::Tuple: {
        node.kind = NodeKind::Tuple;
        for (const Expr &item : e.items)
            node.inputs.push_back(materialize(lowerExpr(item, scope), scope, item));
        return addNode(std::move(node), scope, e);
    }
    case Expr::Kind::Subscript:
        return lowerSubscript(e, scope, std::move(node));
    case Expr::Kind::Number:
    case Expr::Kind::String:
    case Expr::Kind::Constant:
        node.kind = NodeKind::Constant;
        node.op = "literal";
        m_values.setValue(node, attrFromExpr(e));
        if (node.outputTypes().empty())
            node.setOutputTypes({ e.kind == Expr::Kind::String ? namedType("R.Object")
                                                               : scalarType(node.value(), {}) });
        return addNode(std::move(node), scope, e);
    default:
        fail(e, "expected a Relax value, found " + exprText(e).substr(0, 60));
    }
}

bool RelaxParser::isSymbolicValue(const Expr &e, const Scope &scope) const
{
    switch (e.kind) {
    case Expr::Kind::Name:
        if (!m_symbols.contains(e.text))
            return false;
        for (const Scope *s = &scope; s; s = s->parent) {
            if (s->names.contains(e.text))
                return false;
        }
        return true;
    case Expr::Kind::Unary:
    case Expr::Kind::Binary: {
        // At least one symbol; the other operands symbols or integers (`n * 2`, `-n`).
        bool symbol = false;
        for (const Expr &item : e.items) {
            if (isSymbolicValue(item, scope))
                symbol = true;
            else if (item.kind != Expr::Kind::Number)
                return false;
        }
        return symbol;
    }
    default:
        return false;
    }
}

RelaxParser::Value RelaxParser::addPrimText(Node node, const char *op, const std::string &dtype,
                                            Scope &scope, const Expr &e)
{
    node.kind = NodeKind::Constant;
    node.op = op;
    AttrValue text;
    text.kind = AttrValue::Kind::Opaque;
    text.text = exprText(e);
    m_values.setValue(node, std::move(text));
    if (node.outputTypes().empty())
        node.setOutputTypes({ namedType("R.Prim", dtype) });
    return addNode(std::move(node), scope, e);
}

RelaxParser::Value RelaxParser::lowerSubscript(const Expr &e, Scope &scope, Node node)
{
    const Expr &base = e.items[0];
    const Expr &index = e.items[1];
    if (base.kind == Expr::Kind::Subscript && base.items[0].isName("metadata")) {
        const Expr &key = base.items[1];
        if (key.kind != Expr::Kind::String)
            fail(key, "expected metadata[\"relax.expr.Constant\"][i]", "relax.metadata");
        if (index.kind != Expr::Kind::Number
            || index.text.find_first_not_of("0123456789") != std::string::npos)
            fail(index, "a metadata index must be a non-negative integer", "relax.metadata");
        const std::size_t i = std::stoull(index.text.size() > 18 ? std::string("999999999999999999")
                                                                 : std::string(index.text));
        if (m_hasMetadata) {
            auto it = m_metadataCounts.find(key.text);
            if (it == m_metadataCounts.end())
                fail(key, "the metadata header has no \"" + std::string(key.text) + "\" entries",
                     "relax.metadata");
            if (i >= it->second)
                fail(index,
                     "metadata[\"" + std::string(key.text) + "\"][" + std::string(index.text)
                         + "] is out of range: the metadata header holds "
                         + std::to_string(it->second) + " entr" + (it->second == 1 ? "y" : "ies"),
                     "relax.metadata");
        }
        node.kind = NodeKind::Constant;
        if (key.text != m_metadataRefKey) { // one key in practice: built once
            m_metadataRefKey = key.text;
            m_metadataRefPrefix = "metadata[" + quoted(std::string(key.text)) + "][";
        }
        std::string ref = m_metadataRefPrefix;
        ref += index.text;
        ref += ']';
        node.setMetaRef(std::move(ref));
        // The header gives the constant's type (its shape and dtype), unless annotated.
        const auto table = m_metadataTypes.find(key.text);
        if (node.outputTypes().empty() && table != m_metadataTypes.end() && i < table->second.size()
            && !table->second[i].isUnknown())
            node.setOutputTypes({ table->second[i] });
        return addNode(std::move(node), scope, e);
    }
    if (index.kind != Expr::Kind::Number
        || index.text.find_first_not_of("0123456789") != std::string::npos || index.text.size() > 9)
        fail(index, "expected a tuple index such as lv[0], found " + exprText(index));
    node.kind = NodeKind::TupleGetItem;
    node.index = static_cast<std::uint32_t>(std::stoul(std::string(index.text)));
    node.inputs = { materialize(lowerExpr(base, scope), scope, base) };
    return addNode(std::move(node), scope, e);
}

Attributes RelaxParser::keywordAttributes(const KeywordArguments &args)
{
    const auto lower = [&args] {
        // Pooled once with every keyword (setting them one by one pools each partial list).
        std::vector<Attributes::Item> attrs;
        attrs.reserve(args.names.size());
        for (std::size_t i = 0; i < args.names.size(); ++i)
            Attributes::setItem(attrs, std::string(args.names[i]), attrFromExpr(args.values[i]));
        return Attributes(std::move(attrs));
    };
    if (!args.shared)
        return lower();
    auto known = m_sharedAttributes.find(&args);
    if (known == m_sharedAttributes.end())
        known = m_sharedAttributes.emplace(&args, lower()).first;
    return known->second;
}

InternedString RelaxParser::relaxOpName(std::string_view op)
{
    if (const InternedString *recent = m_recentOpNames.find(op))
        return *recent;
    auto it = m_opNames.find(op);
    if (it == m_opNames.end())
        it = m_opNames.emplace(std::string(op), InternedString("relax." + std::string(op))).first;
    m_recentOpNames.remember(it->first, it->second);
    return it->second;
}

RelaxParser::Value RelaxParser::lowerCall(const Expr &e, Scope &scope, std::string_view name,
                                          const TypeList *annotation)
{
    Node node;
    node.name = name;
    if (annotation) {
        node.setOutputTypes(*annotation);
        node.typeAnnotated = true;
    }
    const Expr &callee = e.items[0];
    if (callee.kind != Expr::Kind::Name)
        fail(callee, "cannot call " + exprText(callee).substr(0, 60));
    const std::string_view path = callee.text;
    const std::size_t dot = path.find('.');
    const std::string_view prefix = path.substr(0, dot);
    if (prefix == "R" && dot != std::string::npos) {
        const std::string_view op = path.substr(2);
        if (isOneOf(op, kernelForms))
            return lowerKernelCall(e, op, scope, std::move(node));
        if (isOneOf(op, constantForms))
            return lowerConstant(e, op, scope, std::move(node));
        if (op == "tuple") {
            node.kind = NodeKind::Tuple;
            for (std::size_t i = 1; i < e.items.size(); ++i)
                node.inputs.push_back(materialize(lowerExpr(e.items[i], scope), scope, e.items[i]));
            return addNode(std::move(node), scope, e);
        }
        if (op == "match_cast") {
            // `lv: T = R.match_cast(value, T)`: TVM's MatchCast binding, which gives `value` the
            // refined type T (and defines T's new symbolic dims). Not an operator call: the node
            // is named relax.match_cast, typed T, and not counted as an op (ModelSummary).
            const Expr *sinfo = e.items.size() == 3 ? &e.items[2] : e.keyword("struct_info");
            if (e.items.size() < 2 || !sinfo || e.items.size() + e.keywordCount() != 3)
                fail(e, "R.match_cast takes a value and the type to cast it to");
            node.kind = NodeKind::OpCall;
            node.op = "relax.match_cast";
            node.inputs.push_back(materialize(lowerExpr(e.items[1], scope), scope, e.items[1]));
            if (node.outputTypes().empty()) {
                node.setOutputTypes({ typeFromExpr(*sinfo) });
                node.typeAnnotated = true;
            }
            return addNode(std::move(node), scope, e);
        }
        if (op == "output" || op == "func_attr" || op == "dataflow")
            fail(e, std::string(path) + " is a statement, not a value");
        if (!op.empty() && op[0] >= 'A' && op[0] <= 'Z')
            fail(e, std::string(path) + " is a type annotation, not a value");
        node.kind = NodeKind::OpCall;
        node.op = relaxOpName(op);
    } else if (prefix == "T" && dot != std::string::npos && e.items.size() == 2
               && e.keywordCount() == 0
               && (e.items[1].kind == Expr::Kind::Number
                   || e.items[1].kind == Expr::Kind::Constant)) {
        // `R.add(f, T.float32(1.0))`: TVM 0.27 prints a PrimValue of a literal as the TIR
        // literal. Kept as written, typed R.Prim of its dtype.
        return addPrimText(std::move(node), "literal", std::string(path.substr(dot + 1)), scope, e);
    } else if ((prefix == "cls" || prefix == m_className) && dot != std::string::npos) {
        node.kind = NodeKind::FunctionCall;
        node.callee = globalFunction(std::string(path.substr(dot + 1)), callee);
    } else if (dot == std::string::npos) {
        const Value f = lookup(callee, scope);
        if (f.kind == Value::Kind::Function) {
            node.kind = NodeKind::FunctionCall;
            node.callee = f.function;
        } else {
            node.kind = NodeKind::ClosureCall;
            node.inputs.push_back(f.ref);
        }
    } else {
        fail(callee,
             "unknown callee '" + std::string(path)
                 + "' (expected R.<op>, cls.<function> or a local function)",
             "relax.undefined");
    }
    for (std::size_t i = 1; i < e.items.size(); ++i)
        node.inputs.push_back(materialize(lowerExpr(e.items[i], scope), scope, e.items[i]));
    if (e.keywordArgs)
        node.attrs = keywordAttributes(*e.keywordArgs);
    if (node.kind == NodeKind::OpCall && node.outputTypes().empty()) {
        if (const Expr *sinfo = e.keyword("sinfo_args"))
            node.setOutputTypes({ typeFromExpr(*sinfo) });
    }
    return addNode(std::move(node), scope, e);
}

RelaxParser::Value RelaxParser::lowerKernelCall(const Expr &e, std::string_view form, Scope &scope,
                                                Node node)
{
    node.kind = NodeKind::OpCall;
    const std::string callName = "R." + std::string(form);
    // The attributes are pooled once, at the end (see lowerCall).
    std::vector<Attributes::Item> attrs = node.attrs.items();
    attrs.reserve(attrs.size() + e.keywordCount() + 2); // with `call` and `tir_vars`
    Attributes::setItem(attrs, "call", AttrValue::string(std::string(form)));
    const bool packed = form == "call_packed" || form == "call_pure_packed";
    if (e.items.size() < 2)
        fail(e, callName + " needs the function to call");
    const Expr &fn = e.items[1];
    if (fn.kind == Expr::Kind::String) {
        node.op = fn.text;
    } else if (fn.kind == Expr::Kind::Name && fn.text.find('.') != std::string::npos
               && (fn.text.rfind("cls.", 0) == 0 || fn.text.rfind(m_className + ".", 0) == 0)) {
        node.op = fn.text.substr(fn.text.find('.') + 1);
        globalFunction(node.op, fn);
    } else {
        fail(fn, callName + " calls cls.<PrimFunc> or a \"symbol\", found " + exprText(fn));
    }
    std::size_t next = 2;
    if (packed) {
        for (; next < e.items.size(); ++next)
            node.inputs.push_back(
                materialize(lowerExpr(e.items[next], scope), scope, e.items[next]));
    } else if (next < e.items.size()) {
        const Expr &args = e.items[next++];
        if (args.kind == Expr::Kind::Tuple) {
            for (const Expr &a : args.items)
                node.inputs.push_back(materialize(lowerExpr(a, scope), scope, a));
        } else if (!args.isCallOf("R.tuple") || args.items.size() > 1) {
            node.inputs.push_back(materialize(lowerExpr(args, scope), scope, args));
        }
    }
    const Expr *sinfo = nullptr;
    for (const char *key : { "out_sinfo", "out_ty", "sinfo_args", "ty_args" }) {
        if (const Expr *k = e.keyword(key)) {
            sinfo = k;
            if (std::string_view(key) == "out_ty" || std::string_view(key) == "ty_args")
                m_sinfoKeyword = "ty";
        }
    }
    const bool sharedSinfo = sinfo && e.keywordArgs->shared;
    if (!sinfo && !packed && next < e.items.size())
        sinfo = &e.items[next++];
    if (!packed && next < e.items.size()) {
        Attributes::setItem(attrs, "tir_vars", attrFromExpr(e.items[next++]));
    }
    if (next < e.items.size())
        fail(e.items[next], "too many arguments to " + callName);
    if (!sinfo && !packed)
        fail(e, callName + " needs out_sinfo= (the output's struct info)");
    if (sinfo && node.outputTypes().empty()) {
        // sinfo_args=(R.Object,) is the one result's struct info.
        const auto result = [packed](Type t) {
            return packed && t.isTuple() && t.fields.size() == 1 ? t.fields[0] : t;
        };
        if (sharedSinfo) {
            // Read once per keyword text, pooled like an annotation's type.
            auto known = m_sharedSinfoTypes.find(sinfo);
            if (known == m_sharedSinfoTypes.end())
                known = m_sharedSinfoTypes.emplace(sinfo, TypeList { result(typeFromExpr(*sinfo)) })
                            .first;
            node.setOutputTypes(known->second);
        } else {
            node.setOutputTypes({ result(typeFromExpr(*sinfo)) });
        }
    }
    for (std::size_t i = 0; i < e.keywordCount(); ++i) {
        const std::string_view k = e.keywordName(i);
        if (k != "out_sinfo" && k != "out_ty" && k != "sinfo_args" && k != "ty_args")
            Attributes::setItem(attrs, std::string(k), attrFromExpr(e.keywordValue(i)));
    }
    node.attrs = Attributes(std::move(attrs));
    const Value kernel = addNode(std::move(node), scope, e);
    m_kernelCalls.push_back(kernel.ref.node);
    return kernel;
}

RelaxParser::Value RelaxParser::lowerConstant(const Expr &e, std::string_view ctor, Scope &scope,
                                              Node node)
{
    node.kind = NodeKind::Constant;
    const std::string callName = "R." + std::string(ctor);
    node.op = callName;
    if (e.items.size() < 2 && ctor != "shape")
        fail(e, callName + " needs a value");
    const Expr *value = e.items.size() > 1 ? &e.items[1] : nullptr;
    Type type;
    if (ctor == "const") {
        m_values.setValue(node, attrFromExpr(*value));
        const Expr *dtype = e.keyword("dtype");
        if (!dtype && e.items.size() > 2)
            dtype = &e.items[2];
        if (dtype && dtype->kind != Expr::Kind::String)
            fail(*dtype, "the dtype of R.const must be a string");
        if (dtype)
            node.attrs.set("dtype", AttrValue::string(std::string(dtype->text)));
        type = scalarType(node.value(), dtype ? std::string(dtype->text) : std::string());
    } else if (ctor == "shape") {
        if (!value || (value->kind != Expr::Kind::List && value->kind != Expr::Kind::Tuple))
            fail(e, "R.shape expects a list of dims such as R.shape([1, n])");
        m_values.setValue(node, attrFromExpr(*value));
        type = typeFromExpr([&] {
            Expr t = e;
            t.items[0].text = "R.Shape";
            return t;
        }());
    } else if (ctor == "prim_value") {
        m_values.setValue(node, attrFromExpr(*value));
        type = namedType("R.Prim",
                         node.value().kind == AttrValue::Kind::Float ? "float64" : "int64");
    } else {
        if (value->kind != Expr::Kind::String)
            fail(*value, callName + " expects a string");
        m_values.setValue(node, AttrValue::string(std::string(value->text)));
        type = namedType("R.Object");
    }
    if (node.outputTypes().empty())
        node.setOutputTypes({ type });
    return addNode(std::move(node), scope, e);
}

void RelaxParser::finish()
{
    Graph &g = *m_graph;
    // The earliest reference of a function the module does not define.
    const std::string *missing = nullptr;
    std::pair<int, int> first { 0, 0 };
    for (const auto &[name, id] : m_globals) {
        const auto where = m_firstReference[id.value];
        if (!m_defined[id.value] && (!missing || where < first)) {
            missing = &name;
            first = where;
        }
    }
    if (missing) {
        Expr at;
        at.line = first.first;
        at.column = first.second;
        fail(at, "the module has no function '" + *missing + "'", "relax.undefined");
    }
    if (!m_sinfoKeyword.empty())
        g.moduleAttrs().set("sinfo_keyword", AttrValue::string(m_sinfoKeyword));
    // A kernel call carries its PrimFunc's op_pattern.
    for (const NodeId id : m_kernelCalls) {
        Node &n = g.node(id);
        const auto it = m_globals.find(n.op);
        if (it != m_globals.end()) {
            if (const AttrValue *p = g.function(it->second).attrs.find("op_pattern"))
                n.attrs.set("op_pattern", *p);
        }
    }
    // Types of untyped calls, tuples and tuple items, in creation order (producers first).
    for (const NodeId id : m_untypedNodes) {
        Node &n = g.node(id);
        if (!n.outputType().isUnknown())
            continue;
        if (n.kind == NodeKind::FunctionCall && n.callee.isValid()
            && g.function(n.callee).hasReturnType) {
            n.setOutputTypes({ g.function(n.callee).returnType });
        } else if (n.kind == NodeKind::TupleGetItem && !n.inputs.empty()) {
            n.setOutputTypes({ g.tensorType(n.inputs[0]).field(n.index) });
        } else if (n.kind == NodeKind::Tuple) {
            // Only a complete tuple type: a field still unknown here is left to inferTypes,
            // which skips nodes whose type is already (partly) known.
            std::vector<Type> fields;
            bool complete = true;
            for (const TensorRef &in : n.inputs) {
                fields.push_back(g.tensorType(in));
                complete = complete && !fields.back().isUnknown();
            }
            if (complete)
                n.setOutputTypes({ Type::tuple(std::move(fields)) });
        }
    }
}

} // namespace cleave::relax
