// dumpmedia runs libmtmd end to end on a prompt with one image: it
// tokenizes the prompt around the media marker (mtmd_tokenize), encodes the
// image (preprocessing included), evaluates every chunk on the language
// model (mtmd_helper_eval_chunks, as llama-mtmd-cli does) and prints one
// JSON object: {"chunks": [{"tokens": [...]} | {"n_tokens": N, "embd_stride": S,
// "embd": [every S-th value of the N rows]}], "n_vocab": V, "logits": [V
// floats after the last prompt position]}.
//
// usage: dumpmedia MODEL.gguf MMPROJ.gguf image W H PROMPT
//        dumpmedia MODEL.gguf MMPROJ.gguf audio N_SAMPLES PROMPT
//
// The image is W×H RGB bytes, byte i = (i*2654435761 mod 2^32) >> 24; the
// audio is N_SAMPLES of 16 kHz mono PCM, sample i = ((i*2654435761 mod 2^32)
// mod 2001 - 1000)/1000 * 0.25f; encoder/media_test.go builds both the same
// way. PROMPT holds "<__media__>" where the media goes.
#include "llama.h"
#include "mtmd.h"
#include "mtmd-helper.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static void quiet(enum ggml_log_level level, const char * text, void *) {
    if (level >= GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

int main(int argc, char ** argv) {
    const bool audio = argc == 6 && strcmp(argv[3], "audio") == 0;
    if (!(audio || (argc == 7 && strcmp(argv[3], "image") == 0))) {
        fprintf(stderr, "usage: %s MODEL.gguf MMPROJ.gguf image W H PROMPT | audio N_SAMPLES PROMPT\n", argv[0]);
        return 2;
    }
    const char * prompt = argv[argc - 1];
    llama_log_set(quiet, nullptr);
    mtmd_log_set(quiet, nullptr);
    llama_backend_init();

    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    llama_model * model = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        fprintf(stderr, "%s: llama.cpp cannot load it\n", argv[1]);
        return 1;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = cp.n_batch = cp.n_ubatch = 1024;
    cp.n_seq_max = 1;
    cp.n_threads = cp.n_threads_batch = 1;
    cp.type_k = cp.type_v = GGML_TYPE_F32;
    cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    llama_context * lctx = llama_init_from_model(model, cp);

    mtmd_context_params mparams = mtmd_context_params_default();
    mparams.use_gpu = false;
    mparams.print_timings = false;
    mparams.n_threads = 1;
    mparams.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    mparams.warmup = false;
    mtmd_context * mctx = mtmd_init_from_file(argv[2], model, mparams);
    if (!mctx) {
        fprintf(stderr, "%s: libmtmd cannot load it\n", argv[2]);
        return 1;
    }

    mtmd_bitmap * bmp = nullptr;
    if (audio) {
        std::vector<float> pcm((size_t) atoi(argv[4]));
        for (size_t i = 0; i < pcm.size(); i++) {
            const uint32_t x = (uint32_t) i * 2654435761u;
            pcm[i] = (float) ((int) (x % 2001u) - 1000) / 1000.0f * 0.25f;
        }
        bmp = mtmd_bitmap_init_from_audio(pcm.size(), pcm.data());
    } else {
        const int w = atoi(argv[4]), h = atoi(argv[5]);
        std::vector<unsigned char> rgb((size_t) w * h * 3);
        for (size_t i = 0; i < rgb.size(); i++) {
            rgb[i] = (unsigned char) (((uint32_t) i * 2654435761u) >> 24);
        }
        bmp = mtmd_bitmap_init(w, h, rgb.data());
    }
    mtmd_input_text text = {prompt, strlen(prompt), /* add_special */ true, /* parse_special */ true};
    mtmd_input_chunks * chunks = mtmd_input_chunks_init();
    const mtmd_bitmap * bitmaps[] = {bmp};
    if (mtmd_tokenize(mctx, chunks, &text, bitmaps, 1) != 0) {
        fprintf(stderr, "mtmd_tokenize failed\n");
        return 1;
    }

    const int n_embd = llama_model_n_embd_inp(model);
    printf("{\"chunks\":[");
    for (size_t c = 0; c < mtmd_input_chunks_size(chunks); c++) {
        const mtmd_input_chunk * ch = mtmd_input_chunks_get(chunks, c);
        printf(c ? ",{" : "{");
        if (mtmd_input_chunk_get_type(ch) == MTMD_INPUT_CHUNK_TYPE_TEXT) {
            size_t n = 0;
            const llama_token * toks = mtmd_input_chunk_get_tokens_text(ch, &n);
            printf("\"tokens\":[");
            for (size_t i = 0; i < n; i++) printf(i ? ",%d" : "%d", toks[i]);
            printf("]}");
        } else {
            if (mtmd_encode_chunk(mctx, ch) != 0) {
                fprintf(stderr, "mtmd_encode_chunk failed\n");
                return 1;
            }
            const size_t n = mtmd_input_chunk_get_n_tokens(ch);
            const float * embd = mtmd_get_output_embd(mctx);
            // every value of an image's rows; every 37th of a 30 s audio window's 750
            const size_t stride = audio ? 37 : 1;
            printf("\"n_tokens\":%zu,\"non_causal\":%s,\"embd_stride\":%zu,\"embd\":[", n,
                   mtmd_decode_use_non_causal(mctx, ch) ? "true" : "false", stride);
            for (size_t i = 0; i < n * n_embd; i += stride) printf(i ? ",%.8g" : "%.8g", embd[i]);
            printf("]}");
        }
    }
    llama_pos n_past = 0;
    if (mtmd_helper_eval_chunks(mctx, lctx, chunks, 0, 0, 1024, true, &n_past) != 0) {
        fprintf(stderr, "mtmd_helper_eval_chunks failed\n");
        return 1;
    }
    const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    const float * logits = llama_get_logits_ith(lctx, -1);
    printf("],\"n_past\":%d,\"n_vocab\":%d,\"logits\":[", (int) n_past, n_vocab);
    for (int v = 0; v < n_vocab; v++) printf(v ? ",%.7g" : "%.7g", logits[v]);
    printf("]}\n");

    mtmd_input_chunks_free(chunks);
    mtmd_bitmap_free(bmp);
    mtmd_free(mctx);
    llama_free(lctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
