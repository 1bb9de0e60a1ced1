#!/bin/sh
# gen.sh writes models/quantize/testdata/llamacpp: for synthetic tiny shapes
# (litert-go synth, seed 1, F32) and each mix llama-quantize makes without
# an importance matrix, the tensor types of llama.cpp's output and the
# SHA-256 of the whole file (llama_model_quantize, 1 thread).
#
# Usage (from the repository root):
#   LLAMA=/path/to/llama.cpp LLAMA_BUILD=$LLAMA/build models/quantize/testdata/gen/gen.sh
# LLAMA_BUILD holds a static build of libllama (cmake -DBUILD_SHARED_LIBS=OFF).
set -eu
LLAMA=${LLAMA:-/work/llama.cpp}
LLAMA_BUILD=${LLAMA_BUILD:-$LLAMA/build}
GEN=$(cd "$(dirname "$0")" && pwd)
OUT=$GEN/../llamacpp
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
gcc -O2 -c "$GEN/llamaquant.c" -I"$LLAMA/include" -I"$LLAMA/ggml/include" -o "$TMP/llamaquant.o"
g++ "$TMP/llamaquant.o" -o "$TMP/llamaquant" "$LLAMA_BUILD/src/libllama.a" "$LLAMA_BUILD/ggml/src/libggml.a" \
	"$LLAMA_BUILD/ggml/src/libggml-cpu.a" "$LLAMA_BUILD/ggml/src/libggml-base.a" -lgomp -lpthread -lm -ldl
go build -o "$TMP/litert-go" ./cmd/litert-go
for shape in tiny-gemma3-270m tiny-qwen3-0.6b; do
	"$TMP/litert-go" synth --shape "$shape" --type f32 --seed 1 -o "$TMP/in.gguf" >/dev/null
	# name:llama_ftype
	for mix in q2_k:10 q3_k_s:11 q3_k_m:12 q3_k_l:13 iq4_nl:25 iq4_xs:30; do
		name=${mix%%:*}
		"$TMP/llamaquant" "$TMP/in.gguf" "$TMP/out.gguf" "${mix##*:}" > "$TMP/types" 2>/dev/null
		{
			echo "sha256 $(sha256sum "$TMP/out.gguf" | cut -d' ' -f1)"
			cat "$TMP/types"
		} > "$OUT/$shape-$name.txt"
		echo "$shape $name"
	done
done
git -C "$LLAMA" rev-parse HEAD > "$OUT/LLAMA_COMMIT" 2>/dev/null || true
