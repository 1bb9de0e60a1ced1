// dumpprep runs llama.cpp's own media preprocessing (tools/mtmd/mtmd-image.cpp,
// tools/mtmd/mtmd-audio.cpp and the miniaudio decode of tools/mtmd/mtmd-helper.cpp)
// and prints what it produced as JSON for encoder/preprocess's tests.
//
//   dumpprep image IN.jpeg|IN.png... > ../llamacpp-image.json
//   dumpprep audio IN.mp3 OURS.wav OURS16K.f32 > ../llamacpp-audio.json
//   dumpprep wav IN.wav|IN.flac... > ../llamacpp-pcm.json
//
// image decodes each image with stb_image as mtmd_helper_bitmap_init_from_buf
// does (stbi_load_from_memory, 3 channels) and runs each projector's
// preprocessor on it. audio decodes IN.mp3 with mtmd-helper's miniaudio
// ma_decoder at 16 kHz mono and computes its whisper log-mel; and, for the
// stage tests, resamples OURS.wav (encoder/preprocess's decode at the file's
// rate) the same way and computes the log-mel of OURS16K.f32 (our resample).
//
// The clip hparams each projector gets are set here as clip.cpp's
// clip_model_loader sets them for that projector (see the comments), since a
// real mmproj is not needed to preprocess. Each preprocessed tensor is
// summarised by an FNV-1a 64 hash of its float32 bits (llama.cpp's HWC order),
// its sum, and a strided sample. Build with gen.sh; it is not part of the Go build.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "clip-impl.h"
#include "mtmd-audio.h"
#include "mtmd-image.h"

#define MINIAUDIO_IMPLEMENTATION
#define MA_NO_ENCODING
#define MA_NO_DEVICE_IO
#define MA_NO_RESOURCE_MANAGER
#define MA_NO_NODE_GRAPH
#define MA_NO_ENGINE
#define MA_NO_GENERATION
#define MA_API static
#include "miniaudio/miniaudio.h"

#define STB_IMAGE_IMPLEMENTATION
#include "stb/stb_image.h"

// The symbols mtmd-image.cpp / mtmd-audio.cpp take from clip.cpp: the
// preprocessors only read the hparams through clip_get_hparams.
static void quiet_log(enum ggml_log_level level, const char * text, void *) {
    if (level >= GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}
struct clip_logger_state g_logger_state = {quiet_log, nullptr};
struct fake_ctx {
    clip_hparams   hp;
    projector_type proj;
};
const clip_hparams * clip_get_hparams(const struct clip_ctx * ctx) { return &((const fake_ctx *) ctx)->hp; }
projector_type clip_get_projector_type(const struct clip_ctx * ctx) { return ((const fake_ctx *) ctx)->proj; }

static std::vector<uint8_t> read_file(const char * path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

static uint64_t fnv(const void * p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= ((const uint8_t *) p)[i];
        h *= 1099511628211ull;
    }
    return h;
}

// summary prints {"n":N,"fnv":"hex","sum":S,"stride":K,"sample":[every Kth value]}.
static void summary(const float * v, size_t n, size_t n_sample) {
    size_t stride = n / n_sample;
    if (stride < 1) stride = 1;
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[i];
    printf("{\"n\":%zu,\"fnv\":\"%016" PRIx64 "\",\"sum\":%.10g,\"stride\":%zu,\"sample\":[", n, fnv(v, n * sizeof(float)), sum,
           stride);
    for (size_t i = 0, k = 0; i < n; i += stride, k++) printf("%s%.9g", k ? "," : "", v[i]);
    printf("]}");
}

static void set_mean_std(clip_hparams & hp, const float m[3], const float s[3]) {
    for (int i = 0; i < 3; i++) {
        hp.image_mean[i] = m[i];
        hp.image_std[i]  = s[i];
    }
}

static void dump_preproc(const char * name, const fake_ctx & fc, const mtmd_image_preprocessor & pp, const clip_image_u8 & img,
                         bool first) {
    (void) fc;
    mtmd_image_preproc_out out = pp.preprocess(img);
    printf("%s{\"name\":\"%s\",\"grid_x\":%d,\"grid_y\":%d,\"overview\":", first ? "" : ",\n", name, out.grid_x, out.grid_y);
    if (out.has_overview()) {
        printf("{\"nx\":%d,\"ny\":%d,\"data\":", out.overview.nx(), out.overview.ny());
        summary(out.overview.get_ro_buf().data(), out.overview.get_ro_buf().size(), 512);
        printf("}");
    } else {
        printf("null");
    }
    printf(",\"entries\":[");
    for (size_t i = 0; i < out.entries.size(); i++) {
        const auto & e = out.entries[i];
        printf("%s{\"nx\":%d,\"ny\":%d,\"data\":", i ? "," : "", e.nx(), e.ny());
        summary(e.get_ro_buf().data(), e.get_ro_buf().size(), 512);
        printf("}");
    }
    printf("]}");
}

static int image_configs(const char * path) {
    auto buf = read_file(path);
    int nx, ny, nc;
    uint8_t * data = stbi_load_from_memory(buf.data(), (int) buf.size(), &nx, &ny, &nc, 3);
    if (!data) {
        fprintf(stderr, "stb cannot decode %s\n", path);
        return 1;
    }
    const char * base = strrchr(path, '/');
    clip_image_u8 img;
    img.set_size({nx, ny}, false);
    img.cpy_buf(std::vector<uint8_t>(data, data + (size_t) nx * ny * 3));
    stbi_image_free(data);
    const auto & px = img.get_ro_buf();
    printf("\"%s\":{\"input\":{\"w\":%d,\"h\":%d,\"fnv\":\"%016" PRIx64 "\"},\"configs\":[\n", base ? base + 1 : path,
           img.get_size().width, img.get_size().height, fnv(px.data(), px.size()));

    const float half[3] = {0.5f, 0.5f, 0.5f};
    const float clip_mean[3] = {0.48145466f, 0.4578275f, 0.40821073f};
    const float clip_std[3]  = {0.26862954f, 0.26130258f, 0.27577711f};

    // gemma3 (clip.cpp PROJECTOR_TYPE_GEMMA3: n_merge 4, bilinear; fixed_size
    // preprocessor with the default PAD_CEIL padding). Gemma 3 mmproj: 896/14.
    {
        fake_ctx fc{};
        fc.proj = PROJECTOR_TYPE_GEMMA3;
        fc.hp.image_size = 896;
        fc.hp.patch_size = 14;
        fc.hp.n_merge = 4;
        fc.hp.image_resize_algo = RESIZE_ALGO_BILINEAR;
        set_mean_std(fc.hp, half, half);
        mtmd_image_preprocessor_fixed_size pp((const clip_ctx *) &fc);
        dump_preproc("gemma3", fc, pp, img, true);
    }
    // idefics3 / SmolVLM (clip.cpp PROJECTOR_TYPE_IDEFICS3: lanczos, scale
    // factor and preproc_image_size read from the mmproj; SmolVLM2: image 512,
    // patch 16, scale factor 4, longest edge 1536; no token limits given).
    {
        fake_ctx fc{};
        fc.proj = PROJECTOR_TYPE_IDEFICS3;
        fc.hp.image_size = 512;
        fc.hp.patch_size = 16;
        fc.hp.n_merge = 4;
        fc.hp.image_longest_edge = 1536;
        fc.hp.image_resize_algo = RESIZE_ALGO_LANCZOS;
        set_mean_std(fc.hp, half, half);
        fc.hp.set_limit_image_tokens();
        mtmd_image_preprocessor_idefics3 pp((const clip_ctx *) &fc);
        dump_preproc("idefics3", fc, pp, img, false);
        // the same with a custom --image-max-tokens: the smart-resize path.
        fake_ctx fc2 = fc;
        fc2.hp.custom_image_max_tokens = 64;
        fc2.hp.set_limit_image_tokens();
        mtmd_image_preprocessor_idefics3 pp2((const clip_ctx *) &fc2);
        dump_preproc("idefics3-max64", fc2, pp2, img, false);
    }
    // lfm2-vl (clip.cpp PROJECTOR_TYPE_LFM2: bilinear everywhere, tokens 64..256;
    // LFM2-VL mmproj: image 512, patch 16, scale factor 2).
    for (int max_tok : {0, 64}) {
        fake_ctx fc{};
        fc.proj = PROJECTOR_TYPE_LFM2;
        fc.hp.image_size = 512;
        fc.hp.patch_size = 16;
        fc.hp.n_merge = 2;
        fc.hp.image_resize_algo = fc.hp.image_resize_algo_rf = fc.hp.image_resize_algo_ov = RESIZE_ALGO_BILINEAR;
        set_mean_std(fc.hp, half, half);
        if (max_tok > 0) fc.hp.custom_image_max_tokens = max_tok;
        fc.hp.set_limit_image_tokens(64, 256);
        mtmd_image_preprocessor_lfm2 pp((const clip_ctx *) &fc);
        dump_preproc(max_tok ? "lfm2-max64" : "lfm2", fc, pp, img, false);
    }
    // qwen2.5-vl (clip.cpp PROJECTOR_TYPE_QWEN25VL: n_merge 2, bicubic, tokens
    // 8..4096; dyn_size preprocessor; patch 14, OpenAI CLIP mean/std).
    // (and with --image-min-tokens 1024, which llama.cpp suggests for grounding)
    for (int tok : {0, 256, -1024}) {
        fake_ctx fc{};
        fc.proj = PROJECTOR_TYPE_QWEN25VL;
        fc.hp.image_size = 560;
        fc.hp.patch_size = 14;
        fc.hp.n_merge = 2;
        fc.hp.image_resize_algo = RESIZE_ALGO_BICUBIC;
        set_mean_std(fc.hp, clip_mean, clip_std);
        if (tok > 0) fc.hp.custom_image_max_tokens = tok;
        if (tok < 0) fc.hp.custom_image_min_tokens = -tok;
        fc.hp.set_limit_image_tokens(8, 4096);
        mtmd_image_preprocessor_dyn_size pp((const clip_ctx *) &fc);
        dump_preproc(tok > 0 ? "qwen25vl-max256" : tok < 0 ? "qwen25vl-min1024" : "qwen25vl", fc, pp, img, false);
    }
    printf("\n]}");
    return 0;
}

// cmd_image prints {"FILE": {"input": …, "configs": […]}, …}.
static int cmd_image(int n, char ** paths) {
    printf("{");
    for (int i = 0; i < n; i++) {
        printf("%s\n", i ? "," : "");
        if (image_configs(paths[i]) != 0) return 1;
    }
    printf("}\n");
    return 0;
}

// decode_audio_from_buf is mtmd-helper.cpp's, verbatim.
static bool decode_audio_from_buf(const unsigned char * buf_in, size_t len, int target_sampler_rate, std::vector<float> & pcmf32_mono) {
    ma_result result;
    const int channels = 1;
    ma_decoder_config decoder_config = ma_decoder_config_init(ma_format_f32, channels, target_sampler_rate);
    ma_decoder decoder;

    result = ma_decoder_init_memory(buf_in, len, &decoder_config, &decoder);
    if (result != MA_SUCCESS) {
        return false;
    }

    ma_uint64 frame_count;
    ma_uint64 frames_read;
    result = ma_decoder_get_length_in_pcm_frames(&decoder, &frame_count);
    if (result != MA_SUCCESS) {
        ma_decoder_uninit(&decoder);
        return false;
    }

    pcmf32_mono.resize(frame_count);
    result = ma_decoder_read_pcm_frames(&decoder, pcmf32_mono.data(), frame_count, &frames_read);
    if (result != MA_SUCCESS) {
        ma_decoder_uninit(&decoder);
        return false;
    }

    ma_decoder_uninit(&decoder);
    return true;
}

static void dump_mel(const std::vector<float> & pcm, int n_mel) {
    // clip.cpp PROJECTOR_TYPE_ULTRAVOX / VOXTRAL audio preprocessing params
    fake_ctx fc{};
    fc.proj = PROJECTOR_TYPE_ULTRAVOX;
    fc.hp.n_mel_bins = n_mel;
    fc.hp.audio_chunk_len = 30;
    fc.hp.audio_sample_rate = 16000;
    fc.hp.audio_n_fft = 400;
    fc.hp.audio_window_len = 400;
    fc.hp.audio_hop_len = 160;
    mtmd_audio_preprocessor_whisper pp((const clip_ctx *) &fc);
    pp.initialize();
    std::vector<mtmd_audio_mel> mels;
    if (!pp.preprocess(pcm.data(), pcm.size(), mels)) {
        fprintf(stderr, "whisper preprocess failed\n");
        exit(1);
    }
    printf("[");
    for (size_t i = 0; i < mels.size(); i++) {
        printf("%s{\"n_mel\":%" PRId64 ",\"n_len\":%" PRId64 ",\"data\":", i ? "," : "", mels[i].n_mel, mels[i].n_len);
        summary(mels[i].data.data(), mels[i].data.size(), 3072);
        printf("}");
    }
    printf("]");
}

static int cmd_audio(const char * mp3, const char * ours_wav, const char * ours16k) {
    auto buf = read_file(mp3);
    std::vector<float> llama_pcm, resampled;
    if (!decode_audio_from_buf(buf.data(), buf.size(), 16000, llama_pcm)) {
        fprintf(stderr, "miniaudio cannot decode %s\n", mp3);
        return 1;
    }
    auto wav = read_file(ours_wav);
    if (!decode_audio_from_buf(wav.data(), wav.size(), 16000, resampled)) {
        fprintf(stderr, "miniaudio cannot decode %s\n", ours_wav);
        return 1;
    }
    auto raw = read_file(ours16k);
    std::vector<float> pcm(raw.size() / 4);
    memcpy(pcm.data(), raw.data(), pcm.size() * 4);

    printf("{\"llama_pcm16k\":");
    summary(llama_pcm.data(), llama_pcm.size(), 4096);
    printf(",\n\"llama_mel80\":");
    dump_mel(llama_pcm, 80);
    printf(",\n\"resampled_ours\":");
    summary(resampled.data(), resampled.size(), 4096);
    printf(",\n\"mel80_ours\":");
    dump_mel(pcm, 80);
    printf(",\n\"mel128_ours\":");
    dump_mel(pcm, 128);
    printf("}\n");
    return 0;
}

// cmd_wav prints each file's full 16 kHz mono decode, as mtmd-helper makes it.
static int cmd_wav(int n, char ** paths) {
    printf("{");
    for (int i = 0; i < n; i++) {
        auto buf = read_file(paths[i]);
        std::vector<float> pcm;
        if (!decode_audio_from_buf(buf.data(), buf.size(), 16000, pcm)) {
            fprintf(stderr, "miniaudio cannot decode %s\n", paths[i]);
            return 1;
        }
        const char * base = strrchr(paths[i], '/');
        printf("%s\n\"%s\":", i ? "," : "", base ? base + 1 : paths[i]);
        summary(pcm.data(), pcm.size(), pcm.size());
    }
    printf("}\n");
    return 0;
}

int main(int argc, char ** argv) {
    if (argc >= 3 && !strcmp(argv[1], "image")) return cmd_image(argc - 2, argv + 2);
    if (argc == 5 && !strcmp(argv[1], "audio")) return cmd_audio(argv[2], argv[3], argv[4]);
    if (argc >= 3 && !strcmp(argv[1], "wav")) return cmd_wav(argc - 2, argv + 2);
    fprintf(stderr, "usage: %s image IMAGE... | audio IN.mp3 OURS.wav OURS16K.f32 | wav IN.wav...\n", argv[0]);
    return 2;
}
