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

# file name, kind, weight type, modality, and the input: image width and
# height, or mel bins and frames
while read -r name kind typ modality a b; do
	"$TMP/litert-go" synth --mmproj "$kind" --type "$typ" --seed 1 -o "$TMP/$kind.gguf" 2>/dev/null
	"$TMP/dumpembd" "$TMP/$kind.gguf" "$modality" "$a" "$b" 2>/dev/null |
		sed "s|\"projector\":\"[^\"]*\"|\"projector\":\"$kind\",\"type\":\"$typ\"|" > "$OUT/$name.json"
	echo "$name"
done <<LIST
gemma3 gemma3 f32 vision 64 64
gemma3-f16 gemma3 f16 vision 64 64
gemma3-q8_0 gemma3 q8_0 vision 64 64
idefics3 idefics3 f32 vision 32 32
idefics3-f16 idefics3 f16 vision 32 32
lfm2 lfm2 f32 vision 32 32
lfm2-48x40 lfm2 f32 vision 48 40
lfm2-24x20 lfm2 f32 vision 24 20
lfm2-q8_0 lfm2 q8_0 vision 48 40
ultravox ultravox f32 audio 80 208
ultravox-f16 ultravox f16 audio 80 208
voxtral voxtral f32 audio 128 208
voxtral-q8_0 voxtral q8_0 audio 128 208
qwen2a qwen2a f32 audio 128 208
LIST

# file name, kind, language model shape, media (image W H, or audio N 0:
# N samples), prompt
mkdir -p "$OUT/e2e"
while read -r name kind shape media a b prompt; do
	"$TMP/litert-go" synth --mmproj "$kind" --seed 1 -o "$TMP/$kind.gguf" 2>/dev/null
	"$TMP/litert-go" synth --shape "$shape" --seed 1 -o "$TMP/$shape.gguf" 2>/dev/null
	if [ "$media" = image ]; then
		args="image $a $b"
	else
		args="audio $a"
	fi
	# shellcheck disable=SC2086
	"$TMP/dumpmedia" "$TMP/$shape.gguf" "$TMP/$kind.gguf" $args "$prompt" 2>/dev/null |
		sed "s|^{|{\"mmproj\":\"$kind\",\"model\":\"$shape\",\"media\":\"$media\",\"w\":$a,\"h\":$b,\"prompt\":\"$prompt\",|" > "$OUT/e2e/$name.json"
	echo "e2e $name $shape"
done <<LIST
gemma3 gemma3 tiny-gemma3-270m image 64 64 Look: <__media__> what is it?
gemma3-80x48 gemma3 tiny-gemma3-270m image 80 48 <__media__>Describe the picture.
lfm2-80x48 lfm2 tiny-qwen3-0.6b image 80 48 What is in <__media__>?
qwen2a qwen2a tiny-llama3.2-1b audio 16000 0 Listen: <__media__> what is it?
LIST
