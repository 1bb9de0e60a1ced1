#!/bin/sh
# Builds tokdump against a llama.cpp checkout built as static libraries:
#   git clone node-llama-cpp/llama/gitRelease.bundle $LLAMA
#   cmake -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_OPENMP=OFF \
#     -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
#     -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF && cmake --build build --target llama
set -e
LLAMA=${LLAMA:-/work/llama.cpp}
OUT=${1:-/tmp/tokdump}
g++ -O2 -std=c++17 -I"$LLAMA/include" -I"$LLAMA/ggml/include" "$(dirname "$0")/tokdump.cpp" -o "$OUT" \
	"$LLAMA/build/src/libllama.a" "$LLAMA/build/ggml/src/libggml.a" "$LLAMA/build/ggml/src/libggml-cpu.a" \
	"$LLAMA/build/ggml/src/libggml-base.a" -lpthread -ldl -lm
echo "$OUT"
