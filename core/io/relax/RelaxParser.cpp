// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// RelaxParser, the module: the `@I.ir_module` class, its metadata header and its members
// (`@R.function`s read in RelaxParserFunctions.cpp, `@T.prim_func`s kept as text). The
// expressions become graph nodes in RelaxLowering.cpp.
#include "core/io/relax/RelaxParser.h"

#include "core/io/relax/RelaxMetadataCheck.h"
#include "core/io/relax/RelaxMetadataTypes.h"
#include "core/io/relax/RelaxValues.h"
#include "core/support/JsonLocator.h"
#include "core/support/NodeGraphIndex.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace cleave::relax {

namespace {

// Room for the module's nodes, reserved up front: growing the node store past its capacity moves
// every node into one twice as large (for a moment both are held). About 80 bytes make a node,
// and a line holds a binding, some lines two or three nodes (inline constants, prim values,
// tuples): the larger of the two guesses. Graph::finalize() gives back a large surplus.
// Over 8 MiB, the lines are counted in 64 windows of 64 KiB spread over the text (a guess within
// a few percent for the regular text printers write, for a sixteenth of the work) and an eighth
// is added for luck; a smaller text is counted whole.
std::size_t nodeEstimate(std::string_view src)
{
    const auto countLines = [](std::string_view text) {
        std::size_t lines = 0;
        for (std::size_t eol = text.find('\n'); eol != std::string_view::npos;
             eol = text.find('\n', eol + 1))
            ++lines;
        return lines;
    };
    constexpr std::size_t windows = 64;
    constexpr std::size_t window = std::size_t { 64 } * 1024;
    std::size_t lines = 0;
    if (src.size() <= std::size_t { 8 } * 1024 * 1024) {
        lines = countLines(src);
    } else {
        const std::size_t step = src.size() / windows;
        std::size_t sampled = 0;
        for (std::size_t w = 0; w < windows; ++w)
            sampled += countLines(src.substr(w * step, window));
        lines = sampled * (src.size() / window) / windows * 9 / 8;
    }
    return std::max(src.size() / 80, lines * 7 / 4);
}

} // namespace

RelaxParser::RelaxParser(std::string_view source, bool shareKeywords)
    : m_ts(source, shareKeywords)
{
}

void RelaxParser::fail(const Expr &at, const std::string &message, const std::string &code) const
{
    throw ParseError { message, at.line, at.column, code };
}

std::unique_ptr<Graph> RelaxParser::parse()
{
    m_graph = std::make_unique<Graph>();
    m_graph->setFormat("relax");
    m_graph->reserveNodes(nodeEstimate(m_ts.source()));
    const std::string_view head = m_ts.source().substr(0, 4096);
    m_graph->moduleAttrs().set(
        "tir",
        AttrValue::string(head.find("import tirx as T") != std::string_view::npos ? "tirx"
                                                                                  : "tir"));
    while (!m_ts.peek().is(TokenKind::End))
        parseModuleStatement();
    if (!m_sawClass)
        fail(exprAt(m_ts.peek()), "no `@I.ir_module class ...:` module found");
    finish();
    return std::move(m_graph);
}

void RelaxParser::parseModuleStatement()
{
    const Token t = m_ts.peek();
    if (t.is(TokenKind::Newline)) {
        m_ts.take();
        return;
    }
    if (t.isName("import") || t.isName("from")) {
        while (!m_ts.peek().is(TokenKind::Newline) && !m_ts.peek().is(TokenKind::End))
            m_ts.take();
        return;
    }
    if (t.isName("metadata") && m_ts.peek(1).isPunct("=")) {
        m_ts.take();
        m_ts.take();
        readMetadata(m_ts.parseExpr());
        m_ts.expectKind(TokenKind::Newline, "end of line after the metadata header");
        return;
    }
    // TVM 0.27 declares the module's symbolic shape variables before the class:
    // `n = TypeVar("n")`. Dims are kept by name, so the declaration itself adds nothing.
    if (t.is(TokenKind::Name) && m_ts.peek(1).isPunct("=")) {
        m_ts.take();
        m_ts.take();
        const Expr value = m_ts.parseExpr();
        if (!value.isCallOf("TypeVar") && !value.isCallOf("typing.TypeVar"))
            fail(value,
                 "expected a symbolic variable `" + std::string(t.text) + " = TypeVar(\""
                     + std::string(t.text) + "\")` or the module, found "
                     + exprText(value).substr(0, 60));
        m_symbols.emplace(t.text);
        m_ts.expectKind(TokenKind::Newline, "end of line after the symbolic variable");
        return;
    }
    if (t.isPunct("@")) {
        const Token decorator = m_ts.take();
        const Expr e = m_ts.parseExpr();
        m_ts.expectKind(TokenKind::Newline, "end of line after the decorator");
        if (!isDecorator(e, "I.ir_module") && !isDecorator(e, "tvm.script.ir_module")
            && !isDecorator(e, "ir_module"))
            fail(e, "expected @I.ir_module before the module class, found @" + exprText(e));
        parseClass(decorator, e);
        return;
    }
    fail(exprAt(t), "expected `@I.ir_module class Name:`, found " + describe(t));
}

void RelaxParser::readMetadata(const Expr &value)
{
    if (!value.isCallOf("tvm.ir.load_json") || value.items.size() != 2
        || value.items[1].kind != Expr::Kind::String)
        fail(value, R"(expected metadata = tvm.ir.load_json("""..."""))", "relax.metadata");
    const std::string_view text = value.items[1].text;
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("nodes")
        || !doc["nodes"].is_array())
        fail(value.items[1], "the metadata header is not TVM's JSON object graph",
             "relax.metadata");
    if (const auto problem = checkRelaxMetadata(doc)) {
        // Pointed at the offending node or payload inside the literal.
        const std::vector<std::size_t> offsets
            = JsonLocator::arrayElementOffsets(text, problem->array);
        const auto [line, column]
            = literalPosition(m_ts.source(), value.items[1].line, value.items[1].column, text,
                              problem->index < offsets.size() ? offsets[problem->index] : 0);
        throw ParseError { "invalid metadata header: " + problem->message, line, column,
                           "relax.metadata" };
    }
    const nlohmann::json &nodes = doc["nodes"];
    m_metadataTypes = metadataConstantTypes(doc);
    if (doc.contains("root_index")) {
        readFfiMetadata(doc, value.items[1]);
        m_graph->setMetadata(std::string(text));
        return;
    }
    const auto root = nodeGraphIndex(doc.value("root", nlohmann::json(0)));
    if (!root)
        fail(value.items[1], "the metadata header's \"root\" is not a node index",
             "relax.metadata");
    if (*root < nodes.size() && nodes[*root].is_object()
        && nodes[*root].value("type_key", "") == "Map") {
        const nlohmann::json &keys = nodes[*root].value("keys", nlohmann::json::array());
        const nlohmann::json &data = nodes[*root].value("data", nlohmann::json::array());
        for (std::size_t i = 0; i < keys.size() && i < data.size(); ++i) {
            if (!keys[i].is_string() || !data[i].is_number_unsigned())
                continue;
            const std::size_t arr = data[i].get<std::size_t>();
            std::size_t count = 0;
            if (arr < nodes.size() && nodes[arr].is_object() && nodes[arr].contains("data")
                && nodes[arr]["data"].is_array())
                count = nodes[arr]["data"].size();
            m_metadataCounts[keys[i].get<std::string>()] = count;
        }
    }
    m_hasMetadata = true;
    m_graph->setMetadata(std::string(text));
}

// TVM 0.27's tvm-ffi graph: `root_index`; the root `ffi.Map` holds key and value node indices
// in turn, each key an `ffi.String` node whose "data" is the table's name.
void RelaxParser::readFfiMetadata(const nlohmann::json &doc, const Expr &where)
{
    const nlohmann::json &nodes = doc["nodes"];
    const auto root = nodeGraphIndex(doc["root_index"]);
    if (!root || *root >= nodes.size())
        fail(where, "the metadata header's \"root_index\" is not a node index", "relax.metadata");
    const nlohmann::json &map = nodes[*root];
    if (map.is_object() && map.value("type", "") == "ffi.Map" && map.contains("data")
        && map["data"].is_array()) {
        const nlohmann::json &pairs = map["data"];
        for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
            const auto key = nodeGraphIndex(pairs[i]);
            const auto arr = nodeGraphIndex(pairs[i + 1]);
            if (!key || !arr || *key >= nodes.size() || *arr >= nodes.size()
                || !nodes[*key].is_object() || !nodes[*key].contains("data")
                || !nodes[*key]["data"].is_string())
                continue;
            std::size_t count = 0;
            if (nodes[*arr].is_object() && nodes[*arr].contains("data")
                && nodes[*arr]["data"].is_array())
                count = nodes[*arr]["data"].size();
            m_metadataCounts[nodes[*key]["data"].get<std::string>()] = count;
        }
    }
    m_hasMetadata = true;
}

void RelaxParser::parseClass(const Token &decorator, const Expr &decoratorExpr)
{
    if (m_sawClass)
        fail(exprAt(decorator), "a second module class: a file holds one IRModule");
    m_sawClass = true;
    m_graph->moduleAttrs().set(
        "decorator",
        AttrValue::string(exprText(decoratorExpr.kind == Expr::Kind::Call ? decoratorExpr.items[0]
                                                                          : decoratorExpr)));
    const Token kw = m_ts.peek();
    if (!kw.isName("class"))
        fail(exprAt(kw), "expected 'class' after @I.ir_module, found " + describe(kw));
    m_ts.take();
    const Token name = m_ts.expectKind(TokenKind::Name, "the module class name");
    m_className = std::string(name.text);
    m_graph->moduleAttrs().set("name", AttrValue::string(m_className));
    if (m_ts.accept("(")) {
        while (!m_ts.peek().isPunct(")"))
            m_ts.take();
        m_ts.take();
    }
    m_ts.expect(":", "after the class name");
    m_ts.expectKind(TokenKind::Newline, "end of line after 'class " + m_className + ":'");
    m_ts.expectKind(TokenKind::Indent, "the indented class body");
    while (!m_ts.peek().is(TokenKind::Dedent) && !m_ts.peek().is(TokenKind::End))
        parseMember();
    m_ts.take();
}

void RelaxParser::parseMember()
{
    const Token t = m_ts.peek();
    if (t.isName("pass")) {
        m_ts.take();
        m_ts.expectKind(TokenKind::Newline, "end of line");
        return;
    }
    if (t.isPunct("@")) {
        const Token atTok = m_ts.take();
        const Expr decorator = m_ts.parseExpr();
        m_ts.expectKind(TokenKind::Newline, "end of line after the decorator");
        if (isDecorator(decorator, "T.prim_func")) {
            parsePrimFunc(atTok, decorator);
            return;
        }
        if (isDecorator(decorator, "R.function")) {
            parseFunction(decorator, Function::Kind::Global, nullptr);
            return;
        }
        fail(decorator,
             "unknown decorator @" + exprText(decorator)
                 + " (expected @R.function or @T.prim_func)");
    }
    if (t.is(TokenKind::Name) || t.is(TokenKind::Path)) {
        const Expr e = m_ts.parseExpr(true);
        if (e.isCallOf("I.module_global_infos")) {
            AttrValue v;
            v.kind = AttrValue::Kind::Opaque;
            v.text = exprText(e.items.size() > 1 ? e.items[1] : e);
            m_graph->moduleAttrs().set("global_infos", v);
            m_ts.expectKind(TokenKind::Newline, "end of line");
            return;
        }
        fail(e,
             "expected a function of the module (@R.function or @T.prim_func), found "
                 + exprText(e).substr(0, 60));
    }
    fail(exprAt(t), "expected a function of the module, found " + describe(t));
}

FunctionId RelaxParser::globalFunction(const std::string &name, const Expr &at)
{
    auto it = m_globals.find(name);
    if (it != m_globals.end())
        return it->second;
    Function f;
    f.kind = Function::Kind::Global;
    f.name = name;
    const FunctionId id = m_graph->addFunction(std::move(f));
    m_globals.emplace(name, id);
    m_firstReference.emplace(id.value, std::make_pair(at.line, at.column));
    return id;
}

void RelaxParser::parsePrimFunc(const Token &atTok, const Expr &decorator)
{
    (void)decorator;
    const Token def = m_ts.peek();
    if (!def.isName("def"))
        fail(exprAt(def), "expected 'def' after @T.prim_func, found " + describe(def));
    m_ts.take();
    const Token name = m_ts.expectKind(TokenKind::Name, "the PrimFunc's name");
    const std::string fname(name.text);
    const FunctionId id = globalFunction(fname, exprAt(name));
    if (m_defined[id.value])
        fail(exprAt(name), "the module defines '" + fname + "' twice", "relax.duplicate");
    m_defined[id.value] = true;
    // Signature: up to the ':' that ends the header (the lexer keeps brackets balanced).
    while (!(m_ts.peek().isPunct(":") && m_ts.peek(1).is(TokenKind::Newline))) {
        if (m_ts.peek().is(TokenKind::Newline) || m_ts.peek().is(TokenKind::End))
            fail(exprAt(m_ts.peek()), "expected ':' to end the header of " + fname);
        m_ts.take();
    }
    m_ts.take();
    Token last = m_ts.expectKind(TokenKind::Newline, "end of line after the PrimFunc header");
    m_ts.expectKind(TokenKind::Indent, "the indented body of " + fname);
    int depth = 1;
    bool lineStart = true;
    while (depth > 0) {
        const Token t = m_ts.peek();
        if (t.is(TokenKind::End))
            fail(exprAt(t), "the body of " + fname + " is not closed");
        const bool funcAttr
            = (t.is(TokenKind::Path) && t.text == "T.func_attr" && m_ts.peek(1).isPunct("("))
            || (t.isName("T") && m_ts.peek(1).isPunct(".") && m_ts.peek(2).isName("func_attr")
                && m_ts.peek(3).isPunct("("));
        if (lineStart && depth == 1 && funcAttr) {
            const Expr call = m_ts.parseExpr();
            if (call.items.size() == 2 && call.items[1].kind == Expr::Kind::Dict) {
                const AttrValue attrs = attrFromExpr(call.items[1]);
                for (std::size_t i = 0; i < attrs.keys.size(); ++i)
                    m_graph->function(id).attrs.set(attrs.keys[i], attrs.list[i]);
            }
            continue;
        }
        const Token tok = m_ts.take();
        lineStart
            = tok.is(TokenKind::Newline) || tok.is(TokenKind::Indent) || tok.is(TokenKind::Dedent);
        if (tok.is(TokenKind::Indent))
            ++depth;
        else if (tok.is(TokenKind::Dedent))
            --depth;
        else if (tok.is(TokenKind::Newline))
            last = tok;
    }
    // The verbatim text, de-indented by the decorator's column.
    const std::string_view src = m_ts.source();
    const std::string_view text = src.substr(atTok.offset, last.offset - atTok.offset);
    const auto indent = static_cast<std::size_t>(atTok.column - 1);
    std::string out;
    out.reserve(text.size());
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos)
            eol = text.size();
        std::string_view line = text.substr(pos, eol - pos);
        if (pos > 0) {
            std::size_t strip = 0;
            while (strip < indent && strip < line.size() && line[strip] == ' ')
                ++strip;
            line.remove_prefix(strip);
        }
        while (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        out.append(line);
        out += '\n';
        pos = eol + 1;
    }
    m_graph->function(id).sourceText = std::move(out);
}

} // namespace cleave::relax
