// reflogits loads a GGUF with libllama (CPU only, F32 KV cache and no flash
// attention unless KV says otherwise), decodes a prompt as one batch, then feeds tokens one at a
// time (teacher forcing), printing llama.cpp's logits after each step as
// JSON lines in the format models/llamacpp_test.go reads:
//
//   {"prompt_tokens":[...],"feed":[...],"n_vocab":V,"stride":S}
//   {"step":0,"argmax":id,"logits":[logit of id 0, S, 2S, ...]}
//
// Usage: reflogits MODEL.gguf N_PROMPT N_FEED THREADS STRIDE [KV]
// KV (f32 when absent) is the K and V cache type, as llama-cli's -ctk/-ctv:
// q8_0 or q4_0 turn flash attention on, which llama.cpp requires for a
// quantized V cache.
// Prompt token i is (i*7919 + 13) % V, fed token j is
// ((N_PROMPT+j)*104729 + 7) % V, as in testdata/llamacpp/README.md.
// Build with gen.sh; it is not part of the Go build.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "llama.h"

static void quiet(enum ggml_log_level level, const char *text, void *) {
    if (level >= GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: %s MODEL.gguf N_PROMPT N_FEED THREADS STRIDE [f32|q8_0|q4_0]\n", argv[0]);
        return 2;
    }
    ggml_type kv = GGML_TYPE_F32;
    if (argc == 7) {
        if (!strcmp(argv[6], "q8_0")) {
            kv = GGML_TYPE_Q8_0;
        } else if (!strcmp(argv[6], "q4_0")) {
            kv = GGML_TYPE_Q4_0;
        } else if (strcmp(argv[6], "f32")) {
            fprintf(stderr, "KV type %s: want f32, q8_0 or q4_0\n", argv[6]);
            return 2;
        }
    }
    const int nPrompt = atoi(argv[2]), nFeed = atoi(argv[3]), threads = atoi(argv[4]), stride = atoi(argv[5]);
    if (nPrompt <= 0 || nFeed < 0 || threads <= 0 || stride <= 0) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    llama_log_set(quiet, nullptr);
    llama_backend_init();

    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    mp.check_tensors = true;
    llama_model *model = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        fprintf(stderr, "%s: llama.cpp cannot load it\n", argv[1]);
        return 1;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = cp.n_batch = cp.n_ubatch = 512;
    cp.n_seq_max = 1;
    cp.n_threads = cp.n_threads_batch = threads;
    cp.type_k = cp.type_v = kv;
    cp.flash_attn_type = kv == GGML_TYPE_F32 ? LLAMA_FLASH_ATTN_TYPE_DISABLED : LLAMA_FLASH_ATTN_TYPE_ENABLED;
    cp.swa_full = false;
    llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx) {
        fprintf(stderr, "cannot create a context\n");
        return 1;
    }
    const int nVocab = llama_vocab_n_tokens(llama_model_get_vocab(model));

    std::vector<llama_token> prompt(nPrompt), feed(nFeed);
    for (int i = 0; i < nPrompt; i++) prompt[i] = (llama_token)(((long long)i * 7919 + 13) % nVocab);
    for (int j = 0; j < nFeed; j++) feed[j] = (llama_token)(((long long)(nPrompt + j) * 104729 + 7) % nVocab);

    printf("{\"prompt_tokens\":[");
    for (int i = 0; i < nPrompt; i++) printf(i ? ",%d" : "%d", prompt[i]);
    printf("],\"feed\":[");
    for (int j = 0; j < nFeed; j++) printf(j ? ",%d" : "%d", feed[j]);
    printf("],\"n_vocab\":%d,\"stride\":%d}\n", nVocab, stride);

    for (int step = 0; step <= nFeed; step++) {
        llama_batch b = llama_batch_init(nPrompt, 0, 1);
        const int pos0 = step == 0 ? 0 : nPrompt + step - 1;
        const int n = step == 0 ? nPrompt : 1;
        for (int i = 0; i < n; i++) {
            b.token[i] = step == 0 ? prompt[i] : feed[step - 1];
            b.pos[i] = pos0 + i;
            b.n_seq_id[i] = 1;
            b.seq_id[i][0] = 0;
            b.logits[i] = i == n - 1;
        }
        b.n_tokens = n;
        if (llama_decode(ctx, b) != 0) {
            fprintf(stderr, "llama_decode failed at step %d\n", step);
            return 1;
        }
        llama_batch_free(b);
        const float *l = llama_get_logits_ith(ctx, -1);
        int best = 0;
        for (int v = 1; v < nVocab; v++)
            if (l[v] > l[best]) best = v;
        printf("{\"step\":%d,\"argmax\":%d,\"logits\":[", step, best);
        for (int v = 0; v < nVocab; v += stride) printf(v ? ",%.6g" : "%.6g", l[v]);
        printf("]}\n");
    }
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
