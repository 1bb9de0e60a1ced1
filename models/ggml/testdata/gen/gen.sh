#!/bin/sh
# gen.sh rebuilds models/ggml/testdata/llamacpp from llama.cpp: quantref.c
# linked against a static ggml build (cmake -DBUILD_SHARED_LIBS=OFF; the
# build is read, never written).
#
# Usage: LLAMA=/path/to/llama.cpp LLAMA_BUILD=$LLAMA/build models/ggml/testdata/gen/gen.sh
set -eu
LLAMA=${LLAMA:-/work/llama.cpp}
LLAMA_BUILD=${LLAMA_BUILD:-$LLAMA/build}
GEN=$(cd "$(dirname "$0")" && pwd)
OUT=$GEN/../llamacpp
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
gcc -O2 -c "$GEN/quantref.c" -I"$LLAMA/ggml/include" -o "$TMP/quantref.o"
g++ "$TMP/quantref.o" -o "$TMP/quantref" \
	"$LLAMA_BUILD/ggml/src/libggml.a" "$LLAMA_BUILD/ggml/src/libggml-cpu.a" \
	"$LLAMA_BUILD/ggml/src/libggml-base.a" -lgomp -lpthread -lm -ldl -lstdc++
"$TMP/quantref" "$OUT"
git -C "$LLAMA" rev-parse HEAD > "$OUT/LLAMA_COMMIT" 2>/dev/null || true
