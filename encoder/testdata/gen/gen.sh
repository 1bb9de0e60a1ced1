#!/bin/sh
# gen.sh writes llama.cpp's reference embeddings for the tiny synthetic
# mmproj files (litert-go synth --mmproj KIND --seed 1) into ../llamacpp:
# clip.cpp (libmtmd's encoder) run by dumpembd.cpp on a deterministic input,
# 1 thread, flash attention off; and into ../llamacpp/e2e what libmtmd makes
# of a prompt with an image for a tiny synthetic language model
# (dumpmedia.cpp: chunks, embeddings, logits after the prompt).
#
# Usage (from the repository root):
#   LLAMA=/path/to/llama.cpp LLAMA_BUILD=$LLAMA/build encoder/testdata/gen/gen.sh
# LLAMA_BUILD holds a static build of libmtmd and libllama
# (cmake -DBUILD_SHARED_LIBS=OFF; the mtmd target).
set -eu
LLAMA=${LLAMA:-/work/llama.cpp}
LLAMA_BUILD=${LLAMA_BUILD:-$LLAMA/build}
GEN=$(cd "$(dirname "$0")" && pwd)
OUT=$GEN/../llamacpp
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"

g++ -O2 -std=c++17 "$GEN/dumpembd.cpp" -I"$LLAMA/tools/mtmd" -I"$LLAMA/include" -I"$LLAMA/ggml/include" -o "$TMP/dumpembd" \
	"$LLAMA_BUILD/tools/mtmd/libmtmd.a" "$LLAMA_BUILD/src/libllama.a" "$LLAMA_BUILD/ggml/src/libggml.a" \
	"$LLAMA_BUILD/ggml/src/libggml-cpu.a" "$LLAMA_BUILD/ggml/src/libggml-base.a" -lpthread -lm -ldl
g++ -O2 -std=c++17 "$GEN/dumpmedia.cpp" -I"$LLAMA/tools/mtmd" -I"$LLAMA/include" -I"$LLAMA/ggml/include" -o "$TMP/dumpmedia" \
	"$LLAMA_BUILD/tools/mtmd/libmtmd.a" "$LLAMA_BUILD/vendor/hash/libvendor-hash.a" "$LLAMA_BUILD/src/libllama.a" \
	"$LLAMA_BUILD/ggml/src/libggml.a" "$LLAMA_BUILD/ggml/src/libggml-cpu.a" "$LLAMA_BUILD/ggml/src/libggml-base.a" -lpthread -lm -ldl
go build -o "$TMP/litert-go" ./cmd/litert-go

# kind, modality, and the input: image width and height, or mel bins and frames
# (name-WxH: another input size for the same kind)
while read -r name modality a b; do
	kind=${name%%-*}
	"$TMP/litert-go" synth --mmproj "$kind" --seed 1 -o "$TMP/$kind.gguf" 2>/dev/null
	"$TMP/dumpembd" "$TMP/$kind.gguf" "$modality" "$a" "$b" 2>/dev/null | sed "s|\"projector\":\"[^\"]*\"|\"projector\":\"$kind\"|" > "$OUT/$name.json"
	echo "$name"
done <<LIST
gemma3 vision 64 64
idefics3 vision 32 32
lfm2 vision 32 32
lfm2-48x40 vision 48 40
lfm2-24x20 vision 24 20
ultravox audio 80 208
voxtral audio 128 208
LIST

# kind, language model shape, image size, prompt
mkdir -p "$OUT/e2e"
while read -r kind shape w h prompt; do
	"$TMP/litert-go" synth --mmproj "$kind" --seed 1 -o "$TMP/$kind.gguf" 2>/dev/null
	"$TMP/litert-go" synth --shape "$shape" --seed 1 -o "$TMP/$shape.gguf" 2>/dev/null
	"$TMP/dumpmedia" "$TMP/$shape.gguf" "$TMP/$kind.gguf" image "$w" "$h" "$prompt" 2>/dev/null |
		sed "s|^{|{\"mmproj\":\"$kind\",\"model\":\"$shape\",\"w\":$w,\"h\":$h,\"prompt\":\"$prompt\",|" > "$OUT/e2e/$kind.json"
	echo "e2e $kind $shape"
done <<LIST
gemma3 tiny-gemma3-270m 64 64 Look: <__media__> what is it?
LIST
