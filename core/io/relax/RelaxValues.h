// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/AttrValue.h"
#include "core/graph/Type.h"
#include "core/io/relax/RelaxSyntax.h"

#include <string>

namespace cleave::relax {

/// The Graph Type of a Relax struct-info annotation:
/// - `R.Tensor((1, n, 4096), dtype="float16")` → a tensor (symbolic dims keep their text
///   without quotes, `"n"` and `n` are the same dim); `R.Tensor(dtype="f16", ndim=3)` → a
///   tensor of three unknown dims; a `vdevice` ("cuda:1") is kept in Type::name;
/// - `R.Tuple(a, b)` → a tuple; `R.Shape([n, 4])` → Named "R.Shape" with the dims in `shape`;
///   `R.Prim("int64")` → Named "R.Prim" with the dtype; `R.Object` and anything else → Named
///   with its canonical text.
Type typeFromExpr(const Expr &e);

/// An attribute value from a keyword argument or `R.func_attr` entry: numbers, strings,
/// `True` / `False` / `None`, lists and tuples (as lists), dicts (as maps); anything else
/// (`R.shape([n])`, `T.bool(True)`) is Opaque with its canonical text.
AttrValue attrFromExpr(const Expr &e);

/// TVMScript text of a type. In a function signature symbolic dims are quoted (`"n"`), as TVM
/// prints them; elsewhere they are bare names. A tensor or shape with an unknown dim (`?`, not
/// symbolic) is written by its rank: `R.Tensor(dtype="int64", ndim=2)`, `R.Shape(ndim=1)`.
std::string typeText(const Type &t, bool signature);

/// Python text of an attribute value: `[1, 1]`, `"NCHW"`, `True`, `None`, `{"k": 1}`.
std::string attrText(const AttrValue &v);

/// Python string literal with double quotes.
std::string quoted(const std::string &s);

/// True for a dim that TVM would print as a bare identifier (`n`), not an expression.
bool isPlainIdentifier(const std::string &s);

} // namespace cleave::relax
