#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Counts operator calls, @main's inputs and outputs and global functions in Relay text files.

This is the independent reference for the importer tests: it shares no code with the C++
importer and does not build a graph. It tokenizes the text (block comments nest, `//` line
comments, strings with escapes, `meta[...][...]` references, everything after `#[metadata]`
or `METADATA:` is ignored) and then reads these facts off the token stream:

ops          every call of a primitive operator anywhere in the module: an identifier, possibly
             dotted (`nn.conv2d`, `annotation.stop_fusion`, `accelerator_call`), directly
             followed by `(`. Not counted: calls of `%vars`, `@globals`, `fn` literals,
             keywords (`fn`, `if`, `match`, `ref`, ...), ADT constructors (every name declared
             in a `type` definition, lowercase ones such as `tensor2_float32` included, and any
             capitalised name such as `Cons`, `Some` or a `VirtualDevice(...)` repr).
op_calls     sum of ops.
main_inputs  number of parameters of `def @main` (of the single top-level `fn` when the file
             has no `def`); function attributes (`Compiler="..."`) are not parameters.
main_outputs number of fields when @main's return type (or, without one, its result
             expression or the tuple it names) is a tuple, else 1.
functions    number of `def` global functions.

Usage:
    python3 tests/data/count_relay.py              # rewrite tests/data/relay_expected.json
    python3 tests/data/count_relay.py --check      # compare with the stored file
    python3 tests/data/count_relay.py FILE...      # print the counts of some files
The corpus is taken from $CLEAVE_CORPUS_DIR or ../shared/corpus/relay beside the repository.
"""

import glob
import json
import os
import sys
from collections import Counter

KEYWORDS = {"def", "fn", "let", "if", "else", "type", "extern", "match", "free_var", "ref",
            "ref_read", "ref_write", "Tensor"}

IDENT_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
IDENT_CHARS = IDENT_START | set("0123456789")
LOCAL_CHARS = IDENT_CHARS | set("./:")
DIGITS = set("0123456789")


class Token:
    __slots__ = ("kind", "text", "line", "col")

    def __init__(self, kind, text, line, col):
        self.kind = kind
        self.text = text
        self.line = line
        self.col = col

    def __repr__(self):
        return "%s(%r @%d:%d)" % (self.kind, self.text, self.line, self.col)


def tokenize(src):
    """Returns the token list. Kinds: ident, local, global, num, str, meta, punct."""
    toks = []
    i, n = 0, len(src)
    line, line_start = 1, 0

    def pos(k):
        return line, k - line_start + 1

    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            line_start = i + 1
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth += 1
                    j += 2
                elif src.startswith("*/", j):
                    depth -= 1
                    j += 2
                else:
                    if src[j] == "\n":
                        line += 1
                        line_start = j + 1
                    j += 1
            if depth:
                raise ValueError("unterminated block comment")
            i = j
            continue
        if src.startswith("#[", i):
            j = src.find("]", i)
            directive = src[i:j + 1]
            if directive.replace(" ", "") == "#[metadata]":
                break
            i = j + 1
            continue
        if src.startswith("METADATA:", i):
            break
        l, col = pos(i)
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            toks.append(Token("str", src[i + 1:j], l, col))
            i = j + 1
            continue
        if src.startswith("meta[", i):
            j = src.index("]", i)
            j = src.index("]", j + 1)
            toks.append(Token("meta", src[i:j + 1], l, col))
            i = j + 1
            continue
        if c == "%":
            j = i + 1
            if j < n and src[j] in DIGITS:
                while j < n and src[j] in DIGITS:
                    j += 1
            else:
                while j < n and src[j] in LOCAL_CHARS:
                    j += 1
                while src[j - 1] == ":":  # the type-annotation colon
                    j -= 1
            toks.append(Token("local", src[i + 1:j], l, col))
            i = j
            continue
        if c == "@":
            j = i + 1
            while j < n and src[j] in IDENT_CHARS | {"."}:
                j += 1
            toks.append(Token("global", src[i + 1:j], l, col))
            i = j
            continue
        if c in DIGITS or (c == "-" and i + 1 < n and src[i + 1] in DIGITS):
            j = i + 1
            while j < n and (src[j] in IDENT_CHARS or src[j] == "." or
                             (src[j] in "+-" and src[j - 1] in "eE")):
                j += 1
            toks.append(Token("num", src[i:j], l, col))
            i = j
            continue
        if c in IDENT_START:
            j = i + 1
            while j < n and src[j] in IDENT_CHARS:
                j += 1
            # dotted operator names: nn.conv2d, annotation.compiler_begin, vision.nms
            while j + 1 < n and src[j] == "." and src[j + 1] in IDENT_START:
                j += 2
                while j < n and src[j] in IDENT_CHARS:
                    j += 1
            toks.append(Token("ident", src[i:j], l, col))
            i = j
            continue
        if src.startswith("->", i) or src.startswith("=>", i):
            toks.append(Token("punct", src[i:i + 2], l, col))
            i += 2
            continue
        toks.append(Token("punct", c, l, col))
        i += 1
    return toks


OPEN = {"(": ")", "[": "]", "{": "}"}


def matching(toks, k):
    """Index of the bracket closing the one at toks[k]."""
    close = OPEN[toks[k].text]
    depth = 0
    for j in range(k, len(toks)):
        t = toks[j]
        if t.kind != "punct":
            continue
        if t.text in OPEN:
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                assert t.text == close, "mismatched bracket at %d:%d" % (t.line, t.col)
                return j
    raise ValueError("unbalanced bracket opened at %d:%d" % (toks[k].line, toks[k].col))


def split_top(toks, lo, hi):
    """Splits toks[lo:hi] at top-level commas; returns lists of (start, end) index pairs."""
    items, start, depth = [], lo, 0
    for j in range(lo, hi):
        t = toks[j]
        if t.kind == "punct":
            if t.text in OPEN:
                depth += 1
            elif t.text in (")", "]", "}"):
                depth -= 1
            elif t.text == "," and depth == 0:
                items.append((start, j))
                start = j + 1
    if start < hi:
        items.append((start, hi))
    return items


def constructors(toks):
    """Names declared in `type Name[...] { Ctor(...), ... }` definitions."""
    names = set()
    for k, t in enumerate(toks):
        if t.kind == "ident" and t.text == "type" and k + 1 < len(toks) and toks[k + 1].kind == "ident":
            j = k + 2
            while toks[j].text != "{":
                j += 1
            end = matching(toks, j)
            for a, b in split_top(toks, j + 1, end):
                if b > a and toks[a].kind == "ident":
                    names.add(toks[a].text)
    return names


def count_ops(toks, ctors):
    ops = Counter()
    for k in range(len(toks) - 1):
        t = toks[k]
        if t.kind != "ident" or toks[k + 1].text != "(" or toks[k + 1].kind != "punct":
            continue
        name = t.text
        if name in KEYWORDS or name in ctors or name[0].isupper():
            continue
        ops[name] += 1
    return ops


def main_signature(toks):
    """Returns (index of '(' of the params, index of its ')') for @main or the top-level fn."""
    for k, t in enumerate(toks):
        if t.kind == "ident" and t.text == "def" and toks[k + 1].kind == "global" and toks[k + 1].text == "main":
            j = k + 2
            if toks[j].text == "[":
                j = matching(toks, j) + 1
            return j, matching(toks, j)
    depth = 0
    for k, t in enumerate(toks):
        if t.kind == "punct" and t.text in OPEN:
            depth += 1
        elif t.kind == "punct" and t.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t.kind == "ident" and t.text == "fn":
            return k + 1, matching(toks, k + 1)
    raise ValueError("no @main and no top-level fn")


def tuple_fields(toks, lo, hi):
    """Number of fields if toks[lo:hi] is a tuple `( ... )`, else None."""
    if hi - lo < 2 or toks[lo].text != "(" or matching(toks, lo) != hi - 1:
        return None
    items = split_top(toks, lo + 1, hi - 1)
    if toks[hi - 2].text == "," and toks[hi - 2].kind == "punct":
        return len(items)  # `(x,)`
    if len(items) == 1:
        return None  # parenthesised expression or type
    return len(items)


def main_counts(toks):
    lo, hi = main_signature(toks)
    params = [it for it in split_top(toks, lo + 1, hi) if toks[it[0]].kind == "local"]
    j = hi + 1
    from_type = None
    if toks[j].text == "->":
        start = j + 1
        j = start
        while toks[j].text != "{":
            j = matching(toks, j) + 1 if toks[j].text in ("(", "[") else j + 1
        from_type = tuple_fields(toks, start, j) or 1
    body_end = matching(toks, j)
    # the result expression: the tokens after the last top-level ';' of the body
    last, depth = j + 1, 0
    for k in range(j + 1, body_end):
        t = toks[k]
        if t.kind == "punct":
            if t.text in OPEN:
                depth += 1
            elif t.text in (")", "]", "}"):
                depth -= 1
            elif t.text == ";" and depth == 0:
                last = k + 1
    from_expr = tuple_fields(toks, last, body_end)
    if from_expr is None and body_end - last == 1 and toks[last].kind == "local":
        name = toks[last].text
        for k in range(j + 1, last):  # the binding of that name: `%x = (...)` / `let %x: T = (...)`
            if toks[k].kind == "local" and toks[k].text == name:
                e = k + 1
                if toks[e].text == ":":
                    while toks[e].text != "=":
                        e = matching(toks, e) + 1 if toks[e].text in ("(", "[") else e + 1
                if toks[e].text == "=" and toks[e + 1].text == "(":
                    from_expr = tuple_fields(toks, e + 1, matching(toks, e + 1) + 1)
                break
    if from_type is not None and from_expr is not None and from_type != from_expr:
        raise ValueError("return type has %d fields, result tuple %d" % (from_type, from_expr))
    outputs = from_type if from_type is not None else (from_expr or 1)
    return len(params), outputs


def count_functions(toks):
    depth, n = 0, 0
    for t in toks:
        if t.kind == "punct" and t.text in OPEN:
            depth += 1
        elif t.kind == "punct" and t.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t.kind == "ident" and t.text == "def":
            n += 1
    return n


def bindings(toks):
    """(`%N =` graph bindings, `let` bindings): the two columns of the corpus SOURCES.md."""
    graph = sum(1 for k in range(len(toks) - 1)
                if toks[k].kind == "local" and toks[k].text.isdigit() and toks[k + 1].text == "="
                and (k == 0 or toks[k - 1].text != "let"))
    lets = sum(1 for t in toks if t.kind == "ident" and t.text == "let")
    return graph, lets


def count_file(path):
    with open(path, encoding="utf-8") as f:
        toks = tokenize(f.read())
    ctors = constructors(toks)
    ops = count_ops(toks, ctors)
    inputs, outputs = main_counts(toks)
    return {
        "ops": dict(sorted(ops.items())),
        "op_calls": sum(ops.values()),
        "main_inputs": inputs,
        "main_outputs": outputs,
        "functions": count_functions(toks),
    }


def default_files():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    corpus = os.environ.get("CLEAVE_CORPUS_DIR") or os.path.join(repo, "..", "shared", "corpus")
    relay_dir = os.path.join(corpus, "relay") if os.path.isdir(os.path.join(corpus, "relay")) else corpus
    files = sorted(glob.glob(os.path.join(relay_dir, "*.relay.txt")))
    files += sorted(glob.glob(os.path.join(repo, "samples", "*.relay")))
    return files, os.path.join(here, "relay_expected.json")


def main(argv):
    if argv and argv[0] not in ("--check",):
        for path in argv:
            counts = count_file(path)
            with open(path, encoding="utf-8") as f:
                g, l = bindings(tokenize(f.read()))
            print(os.path.basename(path), json.dumps(counts), "binds=%d lets=%d" % (g, l))
        return 0
    files, out = default_files()
    result = {os.path.basename(p): count_file(p) for p in files}
    text = json.dumps(result, indent=2) + "\n"
    if argv and argv[0] == "--check":
        with open(out, encoding="utf-8") as f:
            stored = json.load(f)
        if stored != result:
            for name in sorted(set(stored) | set(result)):
                if stored.get(name) != result.get(name):
                    print("differs:", name)
            return 1
        print("relay_expected.json is up to date (%d files)" % len(result))
        return 0
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    for p in files:
        c = result[os.path.basename(p)]
        with open(p, encoding="utf-8") as f:
            g, l = bindings(tokenize(f.read()))
        print("%-70s op_calls=%6d in=%4d out=%4d defs=%4d binds=%6d lets=%4d" % (
            os.path.basename(p), c["op_calls"], c["main_inputs"], c["main_outputs"],
            c["functions"], g, l))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
