// benchllama times libllama on a GGUF as llama-bench's pp and tg runs do
// (CPU only, F16 KV cache, no flash attention, llama-bench's defaults):
// one llama_decode of N_PROMPT tokens (the prefill rate), then N_GEN
// single-token decodes (the decode rate), after one untimed warm-up of
// each. It prints one JSON line:
//
//   {"threads":T,"n_prompt":P,"n_gen":G,"prefill_tok_s":x,"decode_tok_s":y,
//    "prefill_cpu_ms_tok":a,"decode_cpu_ms_tok":b}
//
// where the cpu fields are the process's CPU time (all threads, from
// clock()) per token of each phase: on a machine shared with other work,
// the rates say how fast, the CPU time how much work.
//
// Usage: benchllama MODEL.gguf THREADS N_PROMPT N_GEN
// Build it as gen.sh builds reflogits.cpp; it is not part of the Go build.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <vector>

#include "llama.h"

static void quiet(enum ggml_log_level level, const char *text, void *) {
    if (level >= GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

// decode runs tokens at positions pos0, … and returns the seconds it took.
static double decode(llama_context *ctx, const std::vector<llama_token> &tokens, int pos0) {
    llama_batch b = llama_batch_init((int)tokens.size(), 0, 1);
    for (size_t i = 0; i < tokens.size(); i++) {
        b.token[i] = tokens[i];
        b.pos[i] = pos0 + (int)i;
        b.n_seq_id[i] = 1;
        b.seq_id[i][0] = 0;
        b.logits[i] = i == tokens.size() - 1;
    }
    b.n_tokens = (int)tokens.size();
    auto start = std::chrono::steady_clock::now();
    if (llama_decode(ctx, b) != 0) {
        fprintf(stderr, "llama_decode failed at position %d\n", pos0);
        exit(1);
    }
    std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
    llama_batch_free(b);
    return d.count();
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s MODEL.gguf THREADS N_PROMPT N_GEN\n", argv[0]);
        return 2;
    }
    const int threads = atoi(argv[2]), nPrompt = atoi(argv[3]), nGen = atoi(argv[4]);
    if (threads <= 0 || nPrompt <= 0 || nGen <= 0) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    llama_log_set(quiet, nullptr);
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    llama_model *model = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        fprintf(stderr, "%s: llama.cpp cannot load it\n", argv[1]);
        return 1;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 2 * (nPrompt + nGen) + 8;
    cp.n_batch = cp.n_ubatch = nPrompt;
    cp.n_seq_max = 1;
    cp.n_threads = cp.n_threads_batch = threads;
    cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx) {
        fprintf(stderr, "cannot create a context\n");
        return 1;
    }
    const int nVocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    std::vector<llama_token> prompt(nPrompt);
    for (int i = 0; i < nPrompt; i++) prompt[i] = (llama_token)(((long long)i * 7919 + 13) % nVocab);

    // warm-up, then the timed prefill on an empty cache
    decode(ctx, prompt, 0);
    decode(ctx, {prompt[0]}, nPrompt);
    llama_memory_clear(llama_get_memory(ctx), true);
    const std::clock_t c0 = std::clock();
    const double pp = decode(ctx, prompt, 0);
    const std::clock_t c1 = std::clock();
    double tg = 0;
    for (int j = 0; j < nGen; j++) tg += decode(ctx, {prompt[j % nPrompt]}, nPrompt + j);
    const std::clock_t c2 = std::clock();
    const double msPerClock = 1000.0 / CLOCKS_PER_SEC;
    printf("{\"threads\":%d,\"n_prompt\":%d,\"n_gen\":%d,\"prefill_tok_s\":%.2f,\"decode_tok_s\":%.2f,"
           "\"prefill_cpu_ms_tok\":%.3f,\"decode_cpu_ms_tok\":%.3f}\n",
           threads, nPrompt, nGen, nPrompt / pp, nGen / tg,
           (c1 - c0) * msPerClock / nPrompt, (c2 - c1) * msPerClock / nGen);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
