// tokdump: reference token ids from llama.cpp for litert-go's tokenizer tests.
//
//   tokdump VOCAB.gguf CASES            one line of ids per case
//   tokdump VOCAB.gguf --time FILE N    encode FILE N times, print MB/s
//
// CASES is a file of cases, each "F <flags> <byte length>\n<bytes>\n", where
// flags is a two-letter string: add_special (a/-) and parse_special (p/-).
// Built against libllama (see gen.sh); the vocabulary is loaded vocab_only.
#include "llama.h"

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static void quiet(ggml_log_level, const char *, void *) {}

static std::vector<llama_token> tokenize(const llama_vocab * vocab, const std::string & text, bool add, bool parse) {
    std::vector<llama_token> ids(text.size() + 16);
    int n = llama_tokenize(vocab, text.data(), (int32_t) text.size(), ids.data(), (int32_t) ids.size(), add, parse);
    if (n < 0) {
        ids.resize(-n);
        n = llama_tokenize(vocab, text.data(), (int32_t) text.size(), ids.data(), (int32_t) ids.size(), add, parse);
    }
    ids.resize(n < 0 ? 0 : n);
    return ids;
}

static std::string slurp(const char * path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int main(int argc, char ** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s VOCAB.gguf CASES | VOCAB.gguf --time FILE N\n", argv[0]);
        return 2;
    }
    if (!getenv("TOKDUMP_LOG")) {
        llama_log_set(quiet, nullptr);
    }
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    mp.vocab_only = true;
    llama_model * model = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        fprintf(stderr, "cannot load %s\n", argv[1]);
        return 1;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);

    if (strcmp(argv[2], "--time") == 0 && argc == 5) {
        std::string text = slurp(argv[3]);
        int n = atoi(argv[4]);
        size_t ntok = 0;
        tokenize(vocab, text, false, false); // warm up
        auto t0 = std::chrono::steady_clock::now();
        std::clock_t c0 = std::clock();
        for (int i = 0; i < n; i++) {
            ntok += tokenize(vocab, text, false, false).size();
        }
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        double cpu = (double) (std::clock() - c0) / CLOCKS_PER_SEC;
        printf("%.2f MB/s wall, %.2f MB/s CPU time, %zu tokens, %.3f s\n",
               (double) text.size() * n / s / 1e6, (double) text.size() * n / cpu / 1e6, ntok / n, s / n);
        return 0;
    }

    std::string data = slurp(argv[2]);
    size_t pos = 0;
    while (pos < data.size()) {
        char flags[3] = {0};
        size_t len = 0;
        size_t nl = data.find('\n', pos);
        std::string header = data.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        if (nl == std::string::npos || sscanf(header.c_str(), "F %2s %zu", flags, &len) != 2) {
            fprintf(stderr, "bad case header at byte %zu\n", pos);
            return 1;
        }
        pos = nl + 1;
        std::string text = data.substr(pos, len);
        pos += len + 1;
        auto ids = tokenize(vocab, text, flags[0] == 'a', flags[1] == 'p');
        for (size_t i = 0; i < ids.size(); i++) {
            printf(i ? " %d" : "%d", ids[i]);
        }
        printf("\n");
    }
    llama_model_free(model);
    return 0;
}
