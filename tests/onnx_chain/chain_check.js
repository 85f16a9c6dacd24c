// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
//
// ONNX Runtime chain test: for every ONNX model given, and several cut configurations each,
// exports the partitions with cleave-cli (mod<k>.onnx + pipeline_config.json), runs the whole
// model and the chain of partitions wired by pipeline_config.json in ONNX Runtime on the same
// deterministic input, and requires every output to be equal to the last bit.
//
// Usage: node chain_check.js CLEAVE_CLI ORT_MODULE_DIR WORK_DIR MODEL.onnx...
// Exit status: 0 all equal, 1 a difference or failure, 77 (skip) when onnxruntime-node is not
// installed.
'use strict';

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const [cli, ortDir, workDir, ...models] = process.argv.slice(2);
let ort;
try {
    ort = require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));
} catch (e) {
    console.log(`SKIP: onnxruntime-node is not installed in ${ortDir} (${e.message})`);
    process.exit(77);
}

const elementTypes = {
    float32: [Float32Array, 'float32'], float64: [Float64Array, 'float64'],
    int64: [BigInt64Array, 'int64'], int32: [Int32Array, 'int32'], uint8: [Uint8Array, 'uint8'],
    int8: [Int8Array, 'int8'],
};

/// A deterministic pseudo-random tensor (xorshift32) for an input of `shape` and `dtype`.
function inputTensor(shape, dtype, seed) {
    const dims = shape.map((d) => (typeof d === 'number' && d > 0 ? d : 1));
    const size = dims.reduce((a, b) => a * b, 1);
    const [Type, name] = elementTypes[dtype] || elementTypes.float32;
    const data = new Type(size);
    let x = seed >>> 0 || 1;
    for (let i = 0; i < size; ++i) {
        x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
        const v = (x % 2001) / 1000 - 1; // in [-1, 1]
        data[i] = Type === BigInt64Array ? BigInt(x % 7) : Type === Float32Array || Type === Float64Array ? v : x % 7;
    }
    return new ort.Tensor(name, data, dims);
}

function cleave(args) {
    return execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/// Cut configurations: after the first, the middle and the last-but-one call of the most
/// frequent op, and the first and middle together.
function cutConfigurations(summary) {
    const ops = Object.entries(summary.ops || {}).sort((a, b) => b[1] - a[1]);
    const configs = [];
    for (const [op, count] of ops.slice(0, 2)) {
        if (count < 2) continue;
        const middle = Math.floor(count / 2);
        configs.push([`${op}:0`], [`${op}:${middle}`], [`${op}:${count - 2}`], [`${op}:0`, `${op}:${middle}`]);
    }
    return configs;
}

function sameBits(a, b) {
    if (a.type !== b.type || a.dims.join(',') !== b.dims.join(',')) return false;
    const x = Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength);
    const y = Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength);
    return x.equals(y);
}

async function runChain(dir, feeds) {
    const config = JSON.parse(fs.readFileSync(path.join(dir, 'pipeline_config.json'), 'utf8'));
    const modules = [...config.module_connection].sort((a, b) => a.mod_idx - b.mod_idx);
    const pending = new Map(); // mod_idx -> {input name: tensor}
    const globalOutputs = [];
    for (const c of config.input_connection) {
        const m = pending.get(c.mod_idx) || {};
        m[c.module_interface_name] = feeds[c.global_interface_name];
        pending.set(c.mod_idx, m);
    }
    for (const c of config.param_connection || []) {
        throw new Error(`param_connection is not expected for an ONNX export (${JSON.stringify(c)})`);
    }
    for (const mod of modules) {
        const session = await ort.InferenceSession.create(path.join(dir, `mod${mod.mod_idx}.onnx`));
        const inputs = pending.get(mod.mod_idx) || {};
        const results = await session.run(inputs);
        for (const out of mod.output) {
            const tensor = results[session.outputNames[out.output_idx]];
            for (const dep of out.dependencies) {
                if (dep.global_output_index !== undefined) {
                    globalOutputs[dep.global_output_index] = tensor;
                } else {
                    const m = pending.get(dep.mod_idx) || {};
                    m[dep.input_name] = tensor;
                    pending.set(dep.mod_idx, m);
                }
            }
        }
    }
    return globalOutputs;
}

async function checkModel(model) {
    const summary = JSON.parse(cleave(['inspect', model, '--json']));
    const whole = await ort.InferenceSession.create(model);
    const feeds = {};
    summary.inputs.forEach((input, k) => {
        feeds[input.name] = inputTensor(input.shape || [], input.dtype, 12345 + k);
    });
    const reference = await whole.run(feeds);
    const expected = whole.outputNames.map((n) => reference[n]);
    let failures = 0;
    const configs = cutConfigurations(summary);
    if (configs.length === 0) throw new Error(`${model}: no op occurs twice; nothing to cut`);
    for (const cuts of configs) {
        const dir = fs.mkdtempSync(path.join(workDir, 'chain-'));
        const args = ['partition', model, '--out', dir];
        for (const c of cuts) args.push('--cut-after', c);
        cleave(args);
        const got = await runChain(dir, feeds);
        const label = `${path.basename(model)} cut after ${cuts.join(' + ')}`;
        const equal = got.length === expected.length && expected.every((t, i) => got[i] && sameBits(t, got[i]));
        console.log(`${equal ? 'ok  ' : 'FAIL'} ${label}: ${expected.length} output(s)`);
        if (!equal) ++failures;
        fs.rmSync(dir, { recursive: true, force: true });
    }
    return failures;
}

(async () => {
    fs.mkdirSync(workDir, { recursive: true });
    let failures = 0;
    for (const model of models) failures += await checkModel(model);
    process.exit(failures === 0 ? 0 : 1);
})().catch((e) => {
    console.error(e.stack || String(e));
    process.exit(1);
});
