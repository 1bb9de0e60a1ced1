// dumpembd runs llama.cpp's clip encoder (tools/mtmd/clip.cpp, the code
// libmtmd calls) on a deterministic input and prints the embeddings as one
// JSON object: {"projector", "modality", "nx", "ny", "n_tokens", "n_embd",
// "embd": [n_tokens*n_embd floats, token-major]}.
//
// usage: dumpembd MMPROJ.gguf vision W H      (an RGB image of W×H)
//        dumpembd MMPROJ.gguf audio NMEL NFRAMES (a log-mel spectrogram)
//
// The input value at flat index i (HWC for images as clip_image_f32 holds
// them, mel-major for audio) is ((i*2654435761 mod 2^32) mod 2001 - 1000)/1000,
// which encoder/llamacpp_test.go computes the same way.
#include "clip.h"
#include "clip-impl.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static float input_value(size_t i) {
    uint32_t h = (uint32_t) i * 2654435761u;
    return (float) ((int) (h % 2001u) - 1000) / 1000.0f;
}

int main(int argc, char ** argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s MMPROJ.gguf vision|audio NX NY\n", argv[0]);
        return 2;
    }
    const bool audio = strcmp(argv[2], "audio") == 0;
    const int a = atoi(argv[3]), b = atoi(argv[4]);

    clip_context_params params = {};
    params.use_gpu = false;
    params.device = nullptr;
    params.flash_attn_type = CLIP_FLASH_ATTN_TYPE_DISABLED;
    params.image_min_tokens = -1;
    params.image_max_tokens = -1;
    params.warmup = false;
    clip_init_result res = clip_init(argv[1], params);
    clip_ctx * ctx = audio ? res.ctx_a : res.ctx_v;
    if (!ctx) {
        fprintf(stderr, "no %s encoder in %s\n", argv[2], argv[1]);
        return 1;
    }

    clip_image_f32_batch batch;
    batch.is_audio = audio;
    clip_image_f32 img;
    // audio: nx = frames, ny = mel bins
    const int nx = audio ? b : a, ny = audio ? a : b;
    img.set_size({nx, ny}, false, audio);
    std::vector<float> buf((size_t) nx * ny * (audio ? 1 : 3));
    for (size_t i = 0; i < buf.size(); i++) {
        buf[i] = input_value(i);
    }
    img.cpy_buf(buf);
    batch.entries.push_back(img);

    const int n_tokens = clip_n_output_tokens(ctx, &batch.entries[0]);
    const int n_embd = clip_n_mmproj_embd(ctx);
    std::vector<float> out((size_t) n_tokens * n_embd);
    if (!clip_image_batch_encode(ctx, 1, &batch, out)) {
        fprintf(stderr, "clip_image_batch_encode failed\n");
        return 1;
    }
    printf("{\"projector\":\"%s\",\"modality\":\"%s\",\"nx\":%d,\"ny\":%d,\"n_tokens\":%d,\"n_embd\":%d,\"embd\":[",
           argv[1], argv[2], nx, ny, n_tokens, n_embd);
    for (size_t i = 0; i < out.size(); i++) {
        printf(i ? ",%.8g" : "%.8g", out[i]);
    }
    printf("]}\n");
    clip_free(ctx);
    return 0;
}
