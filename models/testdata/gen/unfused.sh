#!/bin/sh
# unfused.sh writes llama.cpp's reference logits for the tiny Qwen3.5 shape
# with its fused gated_delta_net op switched off, into ../llamacpp/unfused:
# the 40-token prompt then runs llama.cpp's chunked delta rule
# (build_delta_net_chunking, chunks of 64) and each fed token its
# autoregressive graph (build_delta_net_autoregressive), instead of the
# fused sequential op gen.sh's files come from. llama.h has no switch for
# it, so this compiles a copy of src/llama-context.cpp with
# cparams.fused_gdn_ar and fused_gdn_ch set to false and links it ahead of
# libllama.a (the archive's llama-context.cpp.o is then not pulled in).
#
# Usage (from the repository root):
#   LLAMA=/path/to/llama.cpp LLAMA_BUILD=$LLAMA/build models/testdata/gen/unfused.sh [SHAPE...]
set -eu
LLAMA=${LLAMA:-/work/llama.cpp}
LLAMA_BUILD=${LLAMA_BUILD:-$LLAMA/build}
GEN=$(cd "$(dirname "$0")" && pwd)
OUT=$GEN/../llamacpp/unfused
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

sed -e 's/cparams.fused_gdn_ar = true;/cparams.fused_gdn_ar = false;/' \
	-e 's/cparams.fused_gdn_ch = true;/cparams.fused_gdn_ch = false;/' \
	"$LLAMA/src/llama-context.cpp" > "$TMP/ctx.cpp"
grep -q 'fused_gdn_ch = false;' "$TMP/ctx.cpp"
g++ -O3 -DNDEBUG -DGGML_USE_CPU -std=c++17 -I"$LLAMA/src" -I"$LLAMA_BUILD/src" -I"$LLAMA/include" \
	-I"$LLAMA/ggml/include" -c "$TMP/ctx.cpp" -o "$TMP/ctx.o"
g++ -O2 -std=c++17 "$GEN/reflogits.cpp" "$TMP/ctx.o" -I"$LLAMA/include" -I"$LLAMA/ggml/include" -o "$TMP/reflogits" \
	"$LLAMA_BUILD/src/libllama.a" "$LLAMA_BUILD/ggml/src/libggml.a" "$LLAMA_BUILD/ggml/src/libggml-cpu.a" \
	"$LLAMA_BUILD/ggml/src/libggml-base.a" -lpthread -lm -ldl -fopenmp
go build -o "$TMP/litert-go" ./cmd/litert-go

mkdir -p "$OUT"
for shape in ${@:-tiny-qwen3.5-0.8b}; do
	m=$TMP/$shape-f32.gguf
	"$TMP/litert-go" synth --shape "$shape" --type f32 --seed 1 -o "$m" 2>/dev/null
	"$TMP/reflogits" "$m" 40 16 1 4 > "$OUT/$shape-f32.jsonl"
	echo "$shape f32 (unfused delta rule)"
done
