#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
#
# Runs a Python test script in the runtime tests' virtual environment (packaging/pydeps.sh).
# When the environment is missing, or lacks a module the script needs (`--needs tvm,onnxruntime`),
# prints why and exits 77, which ctest reports as SKIP.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
needs=""
if [[ "${1:-}" == --needs ]]; then
    needs="$2"
    shift 2
fi
if ! python="$("$here/../../packaging/pydeps.sh" --print 2>&1)"; then
    echo "SKIP: no Python environment for the runtime tests: $python (packaging/pydeps.sh failed or did not run)"
    exit 77
fi
for module in ${needs//,/ }; do
    if ! reason="$("$python" -c "import $module" 2>&1)"; then
        echo "SKIP: $module cannot be imported in $python: ${reason##*$'\n'}"
        exit 77
    fi
done
exec "$python" "$@"
