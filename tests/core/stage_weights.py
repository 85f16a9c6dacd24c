#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Independent count of the weight bytes each stage of a plan reads, from the model text.

Usage: stage_weights.py MODEL.relay PLAN.json ACTIVATION[,ACTIVATION...]

Reads @main's parameters and their types from the Relay text, takes every parameter not named
as an activation to be a weight, and for each partition of the plan (a Cleave plan file) sums
the bytes of the distinct weights its bindings (`%key = ...`) name. Prints a JSON object
{partition name: bytes}. Shares no code with Cleave.
"""
import json
import re
import sys

DTYPE_BYTES = {"float32": 4, "float16": 2, "int64": 8, "int32": 4, "int8": 1, "uint8": 1,
               "float64": 8, "int16": 2, "bool": 1}


def main():
    model, plan_path, activations = sys.argv[1], sys.argv[2], set(sys.argv[3].split(","))
    text = open(model, encoding="utf-8").read()
    header = re.search(r"def @main\((.*?)\)\s*->", text, re.S).group(1)
    weights = {}
    for name, shape, dtype in re.findall(
            r"%([\w.]+): Tensor\[\(([\d, ]*)\), (\w+)\]", header):
        if name in activations:
            continue
        count = 1
        for d in shape.replace(" ", "").split(","):
            if d:
                count *= int(d)
        weights[name] = count * DTYPE_BYTES[dtype]
    body = text[text.index("def @main"):]
    reads = {}
    for line in body.split("\n"):
        m = re.match(r"\s*%([\w.]+) = (.*)", line)
        if not m:
            continue
        value = m.group(2).split("/*")[0]
        reads["%" + m.group(1)] = {w for w in re.findall(r"%([\w.]+)", value) if w in weights}
    plan = json.load(open(plan_path, encoding="utf-8"))
    out = {}
    for p in plan["partitions"]:
        seen = set()
        for key in p["nodes"]:
            seen |= reads.get(key, set())
        out[p["name"]] = sum(weights[w] for w in seen)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
