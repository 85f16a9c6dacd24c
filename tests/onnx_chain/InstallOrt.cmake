# SPDX-License-Identifier: Apache-2.0
# Installs onnxruntime-node (its CPU library ships inside the package) into ORT_DIR for the
# ONNX Runtime chain test, once. Offline or without npm the chain test reports SKIP instead.
if(EXISTS "${ORT_DIR}/node_modules/onnxruntime-node/package.json")
  return()
endif()
find_program(NPM npm)
if(NOT NPM)
  message(STATUS "npm not found: the ONNX Runtime chain test will be skipped")
  return()
endif()
file(MAKE_DIRECTORY "${ORT_DIR}")
execute_process(
  COMMAND "${NPM}" install --ignore-scripts --no-audit --no-fund --prefix "${ORT_DIR}"
          onnxruntime-node@1.30.0
  RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE errors TIMEOUT 600)
if(NOT status EQUAL 0)
  message(STATUS "npm install onnxruntime-node failed (${status}); the chain test will be "
                 "skipped:\n${errors}")
endif()
