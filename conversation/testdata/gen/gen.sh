#!/bin/sh
# gen.sh writes ../llamacpp/e2e-*.json: what llama.cpp's libmtmd makes of a
# raw prompt with one image for a tiny synthetic language model and mmproj
# (litert-go synth, seed 1): the chunks mtmd_tokenize cuts it into and the
# logits after the whole prompt (mtmd_helper_eval_chunks, as llama-mtmd-cli
# runs it). The driver is the encoder package's dumpmedia.cpp; the image is
# its deterministic W×H RGB one (byte i = (i*2654435761 mod 2^32) >> 24).
# The embeddings are left out (the encoder package checks them).
#
# Usage (from the repository root):
#   LLAMA=/path/to/llama.cpp LLAMA_BUILD=$LLAMA/build conversation/testdata/gen/gen.sh
# LLAMA_BUILD holds a static build of libmtmd and libllama.
set -eu
LLAMA=${LLAMA:-/work/llama.cpp}
LLAMA_BUILD=${LLAMA_BUILD:-$LLAMA/build}
GEN=$(cd "$(dirname "$0")" && pwd)
OUT=$GEN/../llamacpp
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
g++ -O2 -std=c++17 "$GEN/../../../encoder/testdata/gen/dumpmedia.cpp" -I"$LLAMA/tools/mtmd" -I"$LLAMA/include" -I"$LLAMA/ggml/include" -o "$TMP/dumpmedia" \
	"$LLAMA_BUILD/tools/mtmd/libmtmd.a" "$LLAMA_BUILD/vendor/hash/libvendor-hash.a" "$LLAMA_BUILD/src/libllama.a" \
	"$LLAMA_BUILD/ggml/src/libggml.a" "$LLAMA_BUILD/ggml/src/libggml-cpu.a" "$LLAMA_BUILD/ggml/src/libggml-base.a" -lpthread -lm -ldl
go build -o "$TMP/litert-go" ./cmd/litert-go

# mmproj kind, language model shape, image size, prompt
while read -r kind shape w h prompt; do
	"$TMP/litert-go" synth --mmproj "$kind" --seed 1 -o "$TMP/$kind.gguf" 2>/dev/null
	"$TMP/litert-go" synth --shape "$shape" --seed 1 -o "$TMP/$shape.gguf" 2>/dev/null
	"$TMP/dumpmedia" "$TMP/$shape.gguf" "$TMP/$kind.gguf" image "$w" "$h" "$prompt" 2>/dev/null |
		python3 -c 'import json, sys
d = json.load(sys.stdin)
for c in d["chunks"]:
    c.pop("embd", None)
out = {"mmproj": sys.argv[1], "model": sys.argv[2], "w": int(sys.argv[3]), "h": int(sys.argv[4]), "prompt": sys.argv[5]}
out.update(d)
print(json.dumps(out, separators=(",", ":")))' "$kind" "$shape" "$w" "$h" "$prompt" > "$OUT/e2e-$kind.json"
	echo "e2e-$kind: $shape, $w×$h"
done <<LIST
lfm2 tiny-llama3.2-1b 48 40 Look: <__media__> what is it?
LIST
