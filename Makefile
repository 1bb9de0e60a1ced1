# litert-go build. Go 1.27 is fetched by the go command itself.
export GOTOOLCHAIN=go1.27.3

BUILD_DIR ?= build
GO ?= go
FUZZTIME ?= 5s

.PHONY: all native bin test test-arm64 vet fuzz bench readme-check clean

all: native bin

# Without cmake the native kernels are skipped and the pure-Go ones run.
native:
	@if command -v cmake >/dev/null 2>&1; then \
		cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release >/dev/null && \
		cmake --build $(BUILD_DIR) -j >/dev/null; \
	else \
		echo "cmake not found: skipping the native kernels (the pure-Go kernels will run)"; \
	fi

# The binary loads the native library from beside itself (or its prefix's
# lib/), never from the working directory: bin/ gets a copy of the one built.
bin: native
	$(GO) build -o bin/litert-go ./cmd/litert-go
	@if [ -f $(BUILD_DIR)/liblitert.so ]; then cp $(BUILD_DIR)/liblitert.so bin/; fi

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1)

# Every package runs under the race detector but those whose tests are
# mostly pure computation, where the detector costs 6-14x:
# conversation/toolcall (parsers and grammars) and encoder/preprocess (pure
# functions) run without it; tokenizer, bench/synth and encoder run without
# it and then only their concurrency tests with it (concurrent encodes on
# shared vocabularies and encoders, parallel tensor generation).
RACE_LIGHT = /conversation/toolcall$$|/tokenizer$$|/bench/synth$$|/encoder$$|/encoder/preprocess$$
test: native vet
	LITERT_NATIVE_LIB=$(CURDIR)/$(BUILD_DIR)/liblitert.so $(GO) test -race -timeout 20m $$($(GO) list ./... | grep -Ev '$(RACE_LIGHT)')
	LITERT_NATIVE_LIB=$(CURDIR)/$(BUILD_DIR)/liblitert.so $(GO) test -timeout 10m ./conversation/toolcall ./tokenizer ./bench/synth ./encoder ./encoder/preprocess
	LITERT_NATIVE_LIB=$(CURDIR)/$(BUILD_DIR)/liblitert.so $(GO) test -race -timeout 10m -run 'Concurrent|Determinism' ./tokenizer ./bench/synth ./encoder
	@# exact allocation counts, which the race detector's sync.Pool breaks
	$(GO) test -timeout 5m -run 'Allocations|CheckpointsBounded' ./models
	@# the Go kernels capped at AVX2 (-tags avx2only): what an AVX2-only CPU runs
	LITERT_NATIVE_LIB=$(CURDIR)/$(BUILD_DIR)/liblitert.so $(GO) test -tags avx2only -timeout 10m ./native ./models
	$(MAKE) test-arm64
	$(MAKE) readme-check
	$(MAKE) fuzz

# The arm64 NEON kernels (native/*_arm64.s) and everything in ./native that
# dispatches to them, cross-compiled and run under qemu user-mode emulation
# (about a minute on 2 cores): the whole package on qemu's default CPU
# (which has the dot product extension, so the 8-bit dots take their SDOT
# path; the arm64 tests also run them with it off), then the kernel tests
# on a Cortex-A72, an ARMv8.0 CPU without it. The test binary is
# dynamically linked (purego), so qemu also needs the aarch64 C library's
# loader under ARM64_LD_PREFIX (Debian's libc6-arm64-cross). Installs
# nothing: without qemu-aarch64 or the loader it says so and skips.
ARM64_LD_PREFIX ?= /usr/aarch64-linux-gnu
ARM64_KERNEL_TESTS = NEON|Wsum|Q8|Quantize|Attend|Softmax|SwiGLU|DotRow|DotF|^TestMatMul$$
test-arm64:
	@if ! command -v qemu-aarch64 >/dev/null 2>&1; then \
		echo "test-arm64: qemu-aarch64 not found (apt-get install qemu-user): skipping the arm64 kernel tests"; \
	elif [ ! -e $(ARM64_LD_PREFIX)/lib/ld-linux-aarch64.so.1 ]; then \
		echo "test-arm64: no aarch64 loader under $(ARM64_LD_PREFIX) (apt-get install libc6-arm64-cross): skipping the arm64 kernel tests"; \
	else \
		set -ex; \
		QEMU_LD_PREFIX=$(ARM64_LD_PREFIX) GOARCH=arm64 $(GO) test -count=1 -p 1 -timeout 5m -exec qemu-aarch64 ./native; \
		QEMU_CPU=cortex-a72 QEMU_LD_PREFIX=$(ARM64_LD_PREFIX) GOARCH=arm64 $(GO) test -count=1 -p 1 -timeout 5m -exec qemu-aarch64 -run '$(ARM64_KERNEL_TESTS)' ./native; \
	fi

# Runs every ```sh block of README.md, in order, in a fresh copy of the
# working tree beside ../shared/testdata, against a fake Hugging Face Hub
# on loopback (cmd/litert-go/readme_test.go).
readme-check:
	LITERT_README_CHECK=1 $(GO) test -count=1 -timeout 10m -run '^TestReadme$$' ./cmd/litert-go

# Each parser of untrusted input gets a short fuzz run (FUZZTIME each),
# two at a time (one worker each) on the 2-core CI machine.
FUZZ_TARGETS = \
	./models/gguf:FuzzRead \
	./models/ggml:FuzzDequantize \
	./models:FuzzLoadParams ./models/modelinfo:FuzzDescribe \
	./models/hparams:FuzzRead \
	./tokenizer:FuzzEncodeDecode \
	./tokenizer:FuzzPreTokenizers \
	./tokenizer:FuzzEmulatedSteps \
	./tokenizer:FuzzPLaMo2 \
	./template:FuzzParseRender ./template:FuzzToJSON \
	./constrain:FuzzRegex ./constrain:FuzzGBNF ./constrain:FuzzLark ./constrain:FuzzJSONSchema \
	./constrain:FuzzJSONSchemaSound \
	./conversation:FuzzLoadMedia ./conversation:FuzzReadSnapshot \
	./conversation/toolcall:FuzzJSONFamilies ./conversation/toolcall:FuzzTaggedFamilies ./conversation/toolcall:FuzzOtherFamilies ./conversation/toolcall:FuzzThinking \
	./tools:FuzzRunRaw ./tools/fs:FuzzPath \
	./server:FuzzChatRequest \
	./encoder:FuzzOpen \
	./encoder/preprocess:FuzzDecodeImage \
	./encoder/preprocess:FuzzResize \
	./encoder/preprocess:FuzzDecodeAudio \
	./hub:FuzzPick

fuzz:
	@mkdir -p $(BUILD_DIR)/fuzz
	@printf '%s\n' $(FUZZ_TARGETS) | xargs -P 2 -n 1 sh -c '\
		pkg=$${0%%:*}; fn=$${0##*:}; log=$(BUILD_DIR)/fuzz/$$(echo "$$0" | tr "/:." "___").log; \
		echo "fuzz $$pkg $$fn"; \
		$(GO) test $$pkg -run "^$$" -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) -parallel 1 >$$log 2>&1 || { cat $$log; exit 1; }'

bench: all
	./bench/run.sh

clean:
	rm -rf $(BUILD_DIR) bin
