#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
#
# Installs the Debian 12 packages that building Cleave, running its tests and running the editor
# need. Installs only what is missing (apt-get update runs only then), so a second run is a no-op.
# Works as root and, for other users, through sudo.
set -euo pipefail

packages=(
    # Toolchain and build system.
    build-essential cmake ninja-build pkg-config
    # Qt 6 (Widgets, Test, SVG) and the platform plugins: xcb for a desktop, offscreen for tests.
    qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqt6svg6 qt6-qpa-plugins libgl1-mesa-dev
    # Engine libraries: Graphviz layout, JSON, SHA-256 checksums, ONNX models.
    libgraphviz-dev graphviz nlohmann-json3-dev libssl-dev
    libonnx-dev libprotobuf-dev protobuf-compiler
    # Test fixtures are checked with the ONNX Python package.
    python3 python3-onnx python3-numpy
    # The runtime tests' virtual environment (packaging/pydeps.sh: TVM, ONNX Runtime).
    python3-venv
    # Style checks run by CI (tests/style/check_style.sh).
    clang-format clang-tidy
    # Fuzzing (tests/fuzz/run_fuzzers.sh): clang with libFuzzer, ASan and UBSan.
    clang-14 libfuzzer-14-dev libclang-rt-14-dev
    # The export kill test (tests/cli/export_kills.py) injects SIGKILL and errors with strace.
    strace
    # The ONNX Runtime chain test installs onnxruntime-node from npm into the build tree.
    # (nodejs and npm: added below unless `node` and `npm` are already there, e.g. from
    # NodeSource, whose nodejs bundles npm and conflicts with Debian's npm package.)
    # Running the editor headless (Xvfb, with openbox so that dialogs are managed) and legible
    # text in it.
    xvfb xauth fonts-dejavu-core openbox
)

command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
    if [[ "$status" != installed ]]; then
        missing+=("$package")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "deps.sh: all ${#packages[@]} packages are installed."
    exit 0
fi

as_root=()
if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "deps.sh: not root and sudo is not installed; as root run:" >&2
        echo "  apt-get update && apt-get install ${missing[*]}" >&2
        exit 1
    fi
    as_root=(sudo)
fi

echo "deps.sh: installing what is missing: ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "deps.sh: done."
