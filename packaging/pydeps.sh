#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
#
# Makes the Python virtual environment the runtime tests use (TVM, ONNX Runtime), with the pinned
# versions of packaging/python-requirements.txt, outside the source tree:
#   ${CLEAVE_PYENV:-${XDG_CACHE_HOME:-~/.cache}/cleave/pyenv-<hash of the requirements>}
# A second run with the same requirements is a no-op. Prints the environment's python on the last
# line of its output. `--print` prints that path without installing anything (exit 1 when the
# environment is not there yet). Exits non-zero, with pip's reason, when a pinned package cannot be
# installed; the tests that need it then SKIP and print why.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
requirements="$here/python-requirements.txt"
python="${CLEAVE_PYTHON:-/usr/bin/python3}"
[[ -x "$python" ]] || python="$(command -v python3)"

hash=$( { cat "$requirements"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-12)
env_dir="${CLEAVE_PYENV:-${XDG_CACHE_HOME:-$HOME/.cache}/cleave/pyenv-$hash}"
stamp="$env_dir/.cleave-requirements"

if [[ "${1:-}" == --print ]]; then
    [[ -f "$stamp" ]] || { echo "pydeps.sh: no environment at $env_dir yet" >&2; exit 1; }
    echo "$env_dir/bin/python"
    exit 0
fi

if [[ -f "$stamp" ]] && cmp -s "$stamp" "$requirements"; then
    echo "pydeps.sh: the environment is up to date ($env_dir)."
    echo "$env_dir/bin/python"
    exit 0
fi

echo "pydeps.sh: making $env_dir with $("$python" --version 2>&1)"
rm -rf "$env_dir"
mkdir -p "$(dirname "$env_dir")"
if ! "$python" -m venv "$env_dir"; then
    echo "pydeps.sh: '$python -m venv' failed (Debian: apt-get install python3-venv)" >&2
    exit 1
fi
"$env_dir/bin/python" -m pip install -q --disable-pip-version-check --no-input \
    --require-virtualenv -r "$requirements"
cp "$requirements" "$stamp"
echo "pydeps.sh: installed $(grep -c '==' "$requirements") pinned packages."
echo "$env_dir/bin/python"
