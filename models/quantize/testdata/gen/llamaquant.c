// llamaquant runs llama.cpp's llama_model_quantize (the whole of
// llama-quantize without an importance matrix) on one file and prints the
// output's tensors as "name type" lines, for models/quantize's tests.
//
// Usage: llamaquant IN.gguf OUT.gguf FTYPE   (FTYPE: llama_ftype number)
#include <stdio.h>
#include <stdlib.h>

#include "gguf.h"
#include "llama.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: llamaquant IN.gguf OUT.gguf FTYPE\n");
    return 2;
  }
  llama_backend_init();
  struct llama_model_quantize_params p = llama_model_quantize_default_params();
  p.ftype = (enum llama_ftype)atoi(argv[3]);
  p.nthread = 1;
  if (llama_model_quantize(argv[1], argv[2], &p) != 0) {
    fprintf(stderr, "llamaquant: quantizing %s failed\n", argv[1]);
    return 1;
  }
  struct gguf_init_params gp = {.no_alloc = true, .ctx = NULL};
  struct gguf_context *g = gguf_init_from_file(argv[2], gp);
  if (!g) {
    fprintf(stderr, "llamaquant: cannot read %s\n", argv[2]);
    return 1;
  }
  for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
    printf("%s %s\n", gguf_get_tensor_name(g, i), ggml_type_name(gguf_get_tensor_type(g, i)));
  }
  gguf_free(g);
  llama_backend_free();
  return 0;
}
