#!/bin/sh
# gen.sh writes llama.cpp's reference logits for the tiny synthetic shapes
# into ../llamacpp (and ../llamacpp/dequant): a 40-token prompt decoded as
# one batch, then 16 teacher-forced tokens, every fourth logit, 1 thread.
#
# Usage (from the repository root):
#   LLAMA=/path/to/llama.cpp LLAMA_BUILD=$LLAMA/build [TYPES="f32 q8_0 q4_k_m"] models/testdata/gen/gen.sh SHAPE...
# With KV="q8_0 q4_0" it writes instead ../llamacpp/kv/SHAPE-TYPE-KV.jsonl:
# the same runs with that K and V cache type (and flash attention on).
# LLAMA_BUILD holds a static build of libllama (cmake -DBUILD_SHARED_LIBS=OFF).
set -eu
LLAMA=${LLAMA:-/work/llama.cpp}
LLAMA_BUILD=${LLAMA_BUILD:-$LLAMA/build}
GEN=$(cd "$(dirname "$0")" && pwd)
OUT=$GEN/../llamacpp
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

g++ -O2 -std=c++17 "$GEN/reflogits.cpp" -I"$LLAMA/include" -I"$LLAMA/ggml/include" -o "$TMP/reflogits" \
	"$LLAMA_BUILD/src/libllama.a" "$LLAMA_BUILD/ggml/src/libggml.a" "$LLAMA_BUILD/ggml/src/libggml-cpu.a" \
	"$LLAMA_BUILD/ggml/src/libggml-base.a" -fopenmp -lpthread -lm -ldl
go build -o "$TMP/litert-go" ./cmd/litert-go

for shape in "$@"; do
	for typ in ${TYPES:-f32 q8_0 q4_k_m}; do
		m=$TMP/$shape-$typ.gguf
		"$TMP/litert-go" synth --shape "$shape" --type "$typ" --seed 1 -o "$m" 2>/dev/null
		if [ -n "${KV:-}" ]; then
			mkdir -p "$OUT/kv"
			for kv in $KV; do
				"$TMP/reflogits" "$m" 40 16 1 4 "$kv" > "$OUT/kv/$shape-$typ-$kv.jsonl"
				echo "$shape $typ KV $kv"
			done
			continue
		fi
		"$TMP/reflogits" "$m" 40 16 1 4 > "$OUT/$shape-$typ.jsonl"
		if [ "$typ" != f32 ]; then
			# the same run on an F32 copy of the dequantized weights
			"$TMP/litert-go" quantize "$m" "$TMP/deq.gguf" --type f32 --allow-requantize 2>/dev/null
			"$TMP/reflogits" "$TMP/deq.gguf" 40 16 1 4 > "$OUT/dequant/$shape-$typ.jsonl"
		fi
		echo "$shape $typ"
	done
done
