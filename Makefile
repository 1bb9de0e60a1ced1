# litert-go build. Go 1.27 is fetched by the go command itself.
export GOTOOLCHAIN=go1.27.3

BUILD_DIR ?= build
GO ?= go
FUZZTIME ?= 10s

.PHONY: all native bin test vet fuzz bench clean

all: native bin

native:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD_DIR) -j >/dev/null

bin:
	$(GO) build -o bin/litert-go ./cmd/litert-go

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1)

test: native vet
	LITERT_NATIVE_LIB=$(CURDIR)/$(BUILD_DIR)/liblitert.so $(GO) test -race -timeout 20m ./...
	$(MAKE) fuzz

fuzz:
	$(GO) test ./models/gguf -run '^$$' -fuzz FuzzRead -fuzztime $(FUZZTIME)

bench: all
	./bench/run.sh

clean:
	rm -rf $(BUILD_DIR) bin
