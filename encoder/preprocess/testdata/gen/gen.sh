#!/bin/sh
# gen.sh writes llama.cpp's reference preprocessing of test-1.jpeg and
# test-2.mp3 (llama.cpp's tools/mtmd test media) into ../llamacpp-*.json.
#
# dumpprep.cpp is compiled together with llama.cpp's own tools/mtmd/mtmd-image.cpp
# and mtmd-audio.cpp (the sources libmtmd is built from) and links
# libggml-base.a for GGML_ASSERT; miniaudio and stb_image come from llama.cpp's
# vendor/. goprep (this package's audio decoder and resampler) writes the PCM
# the audio stage references start from.
#
# Usage (from the repository root):
#   LLAMA=/path/to/llama.cpp LLAMA_BUILD=$LLAMA/build encoder/preprocess/testdata/gen/gen.sh
set -eu
LLAMA=${LLAMA:-/work/llama.cpp}
LLAMA_BUILD=${LLAMA_BUILD:-$LLAMA/build}
GEN=$(cd "$(dirname "$0")" && pwd)
TD=$GEN/..
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

M=$LLAMA/tools/mtmd
INC="-I$M -I$LLAMA/ggml/include -I$LLAMA/include -I$LLAMA/vendor"
# the flags libmtmd is compiled with (build/tools/mtmd/CMakeFiles/mtmd.dir/flags.make)
CXXFLAGS="-O3 -DNDEBUG -std=c++17"
for f in mtmd-image mtmd-audio; do
	nice g++ $CXXFLAGS $INC -c "$M/$f.cpp" -o "$TMP/$f.o"
done
nice g++ $CXXFLAGS $INC -c "$GEN/dumpprep.cpp" -o "$TMP/dumpprep.o"
g++ -o "$TMP/dumpprep" "$TMP/dumpprep.o" "$TMP/mtmd-image.o" "$TMP/mtmd-audio.o" \
	"$LLAMA_BUILD/ggml/src/libggml-base.a" -lpthread -lm -ldl

(cd "$TD/.." && go run ./testdata/gen/goprep testdata/test-2.mp3 "$TMP")
cp "$TMP/portrait.png" "$TD/"
"$TMP/dumpprep" image "$TD/test-1.jpeg" "$TD/portrait.png" > "$TD/llamacpp-image.json"
"$TMP/dumpprep" audio "$TD/test-2.mp3" "$TMP/test-2-native.wav" "$TMP/test-2-16k.f32" > "$TD/llamacpp-audio.json"
cp "$TMP/stereo-8k-s16.wav" "$TMP/stereo-48k-s24.wav" "$TMP/stereo-44k-s16.flac" "$TD/"
"$TMP/dumpprep" wav "$TD/stereo-8k-s16.wav" "$TD/stereo-48k-s24.wav" "$TD/stereo-44k-s16.flac" > "$TD/llamacpp-pcm.json"
ls -l "$TD"/llamacpp-*.json
