#!/usr/bin/env bash
# make bench: prefill and decode speed of synthetic smollm2-135m and
# qwen2.5-0.5b models in F16, Q8_0, Q4_0, Q4_K_M and BF16 at 1 and 2 threads, on
# the C kernels and on the pure-Go ones (BACKENDS, the bench command's
# --backend values), printed as a Markdown table. Models are generated
# once into $BENCH_DIR.
#
# Columns follow llama-bench: pp512 is prefill of a 512-token prompt, tg128
# is decode of 128 tokens from an empty context; "decode after pp" is decode
# after the prompt, and the bandwidth column relates it to the machine's
# measured memory read bandwidth. The KV cache is F16, as llama-bench's.
# Set LLAMA_BENCH to a llama.cpp llama-bench binary to add its numbers on
# the same files with the same threads: with its default load mode (the
# file memory-mapped), and decode once more with -lm none (its --no-mmap:
# weights read into private memory, as our default --load auto does).
# LLAMA_BENCH_ALT, a second llama-bench build, adds its tg column ("alt"):
# a build whose decode is worth showing but that cannot run the rest (on a
# VM that reports AMX but faults on its tile instructions, the default
# native build's decode runs, over weights its AMX buffer repacks at load,
# while its prefill and depth tests crash).
#
# A second table is prefill and decode at depth: pp$PROMPT and tg$GEN, each
# after DEPTH (4096) tokens of context, llama-bench's -d, for each KV cache
# type of DEPTH_KV on the
# DEPTH_TYPES files of the first shape (llama-bench runs with flash
# attention, which its quantized V cache needs). DEPTH=0 skips it, TABLE=0
# the first.
# Rates are the best of REPS repetitions, llama-bench's as ours; ROUNDS
# (default 1) repeats each row's runs, llama.cpp's and each backend's in
# turn, and keeps each column's best.
# The tables are also written to $OUT_DIR/results.md and the first is drawn
# as $OUT_DIR/chart.svg (bench/chart).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-./bin/litert-go}
BENCH_DIR=${BENCH_DIR:-build/bench-models}
SHAPES=${SHAPES:-"smollm2-135m qwen2.5-0.5b"}
TYPES=${TYPES:-"f16 q8_0 q4_0 q4_k_m bf16"}
THREADS=${THREADS:-"1 2"}
BACKENDS=${BACKENDS:-"cpu go"}
PROMPT=${PROMPT:-512}
GEN=${GEN:-128}
REPS=${REPS:-3}
OUT_DIR=${OUT_DIR:-build/bench}
DEPTH=${DEPTH:-4096}
DEPTH_TYPES=${DEPTH_TYPES:-"q8_0"}
DEPTH_KV=${DEPTH_KV:-"f16 q8_0 q4_0"}
DEPTH_REPS=${DEPTH_REPS:-2}
ROUNDS=${ROUNDS:-1}
TABLE=${TABLE:-1}
# ISA picks the C library's kernel set for the cpu backend (--isa), such
# as avx2 on an AVX-512 machine beside a llama-bench built for AVX2
# (the go backend's kernels are picked at build time: with ISA=avx2 its
# rows come from a binary built with -tags avx2only, GO_BIN)
ISA_ARGS=()
[ -n "${ISA:-}" ] && ISA_ARGS=(--isa "$ISA")
GO_BIN=$BIN GO_NAME=""
case "${ISA:-}" in
  "" | avx512vnni) ;;
  avx2) GO_BIN=build/litert-go-avx2only GO_NAME=go-avx2only; go build -tags avx2only -o "$GO_BIN" ./cmd/litert-go ;;
  *) case " $BACKENDS " in *" go "*) echo "bench/run.sh: the go backend has no $ISA build; BACKENDS=cpu" >&2; exit 2 ;; esac ;;
esac
# ours BACKEND ARGS...: our bench command's JSON for BACKEND
ours() {
  local be=$1; shift
  if [ "$be" = go ]; then
    "$GO_BIN" bench "$@" --backend go --json
  else
    "$BIN" bench ${ISA_ARGS[@]+"${ISA_ARGS[@]}"} "$@" --backend "$be" --json
  fi
}
mkdir -p "$BENCH_DIR" "$OUT_DIR"

field() { sed -n "s/.*\"$1\": *\([^,}]*\).*/\1/p" | head -1 | tr -d '"'; }
# best A B: the larger of two rates to one decimal ("-" for none)
best() { python3 -c 'import sys; v=[float(x) for x in sys.argv[1:] if x not in ("-", "")]; print("%.1f" % max(v) if v else "-")' "$@"; }
llama() { # llama() PROMPT GEN [ARGS...]: the best repetition's tokens/s of each of llama-bench's tests (of LLAMA_BIN, default LLAMA_BENCH: prefill, then decode, where both run), as ours report the best
  local p=$1 n=$2 reps=$REPS; shift 2
  [ "${1:-}" = "-r" ] && { reps=$2; shift 2; }
  "${LLAMA_BIN:-$LLAMA_BENCH}" -m "$model" -p "$p" -n "$n" -t "$t" -r "$reps" "$@" -o json 2>/dev/null |
    python3 -c 'import json,sys; print(" ".join("%.1f" % max(d.get("samples_ts") or [d["avg_ts"]]) for d in json.load(sys.stdin)))' 2>/dev/null || echo "-"
}

table() {
if [ -n "${LLAMA_BENCH:-}" ]; then
  alt_head="" alt_sep=""
  [ -n "${LLAMA_BENCH_ALT:-}" ] && alt_head=" llama.cpp alt tg$GEN |" alt_sep=" --- |"
  echo "| model | type | threads | backend | pp$PROMPT | llama.cpp pp$PROMPT | tg$GEN | llama.cpp tg$GEN | llama.cpp --no-mmap tg$GEN |$alt_head decode after pp$PROMPT | % of bandwidth bound | load ms | peak RSS MB |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |$alt_sep --- | --- | --- | --- |"
else
  echo "| model | type | threads | backend | pp$PROMPT | tg$GEN | decode after pp$PROMPT | % of bandwidth bound | load ms | peak RSS MB |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
fi
for shape in $SHAPES; do
  for type in $TYPES; do
    model="$BENCH_DIR/$shape-$type.gguf"
    [ -f "$model" ] || "$BIN" synth --shape "$shape" --type "$type" --seed 1 -o "$model" >/dev/null 2>&1
    for t in $THREADS; do
      # ROUNDS passes over the row, llama.cpp's and each backend's runs in
      # turn, keep each column's best: on a VM whose memory bandwidth
      # drifts over minutes, each program meets the same spells
      declare -A row=()
      for ((round = 1; round <= ROUNDS; round++)); do
        if [ -n "${LLAMA_BENCH:-}" ]; then # once for every backend's row
          row[llama_pp]=$(best "${row[llama_pp]:--}" "$(llama "$PROMPT" 0)")
          row[llama_tg]=$(best "${row[llama_tg]:--}" "$(llama 0 "$GEN")")
          row[llama_tg_read]=$(best "${row[llama_tg_read]:--}" "$(llama 0 "$GEN" -lm none)")
          [ -n "${LLAMA_BENCH_ALT:-}" ] && row[alt]=$(best "${row[alt]:--}" "$(LLAMA_BIN=$LLAMA_BENCH_ALT llama 0 "$GEN")")
        fi
        for be in $BACKENDS; do
          # every backend's load from the page cache (llama-bench's runs may
          # have pushed the file out; the first row would pay the disk)
          cat "$model" >/dev/null
          pp=$(ours "$be" -m "$model" -p "$PROMPT" -n "$GEN" -t "$t" -r "$REPS" --kv f16)
          tg=$(ours "$be" -m "$model" -p 1 -n "$GEN" -t "$t" -r "$REPS" --kv f16 --bw=false)
          row[$be.pp]=$(best "${row[$be.pp]:--}" "$(echo "$pp" | field prefill_tps)")
          row[$be.tg]=$(best "${row[$be.tg]:--}" "$(echo "$tg" | field decode_tps)")
          after=$(echo "$pp" | field decode_tps)
          if [ "$(best "${row[$be.after]:--}" "$after")" != "${row[$be.after]:--}" ]; then
            # the bandwidth share, load and memory of the round whose decode after the prompt was best
            row[$be.after]=$(printf '%.1f' "$after")
            row[$be.rest]=$(printf '%.0f | %.0f | %.0f' "$(echo "$pp" | field decode_pct_of_bound)" \
              "$(echo "$pp" | field load_ms)" "$(echo "$pp" | field peak_rss_mb)")
          fi
          row[$be.name]=$(echo "$pp" | field backend)
          [ "$be" = go ] && [ -n "$GO_NAME" ] && row[$be.name]=$GO_NAME
        done
      done
      alt=""
      [ -n "${LLAMA_BENCH_ALT:-}" ] && alt=" ${row[alt]} |"
      for be in $BACKENDS; do
        rest="${row[$be.after]} | ${row[$be.rest]}"
        if [ -n "${LLAMA_BENCH:-}" ]; then
          echo "| $shape | $type | $t | ${row[$be.name]} | ${row[$be.pp]} | ${row[llama_pp]} | ${row[$be.tg]} | ${row[llama_tg]} | ${row[llama_tg_read]} |$alt $rest |"
        else
          echo "| $shape | $type | $t | ${row[$be.name]} | ${row[$be.pp]} | ${row[$be.tg]} | $rest |"
        fi
      done
      unset row
    done
  done
done
}

depth_table() {
[ "$DEPTH" -gt 0 ] || return 0
shape=${SHAPES%% *}
echo
if [ -n "${LLAMA_BENCH:-}" ]; then
  echo "| model | type | threads | backend | KV | pp$PROMPT at depth $DEPTH | llama.cpp pp$PROMPT at depth $DEPTH | tg$GEN at depth $DEPTH | llama.cpp tg$GEN at depth $DEPTH |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
else
  echo "| model | type | threads | backend | KV | pp$PROMPT at depth $DEPTH | tg$GEN at depth $DEPTH |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
fi
for type in $DEPTH_TYPES; do
  model="$BENCH_DIR/$shape-$type.gguf"
  [ -f "$model" ] || "$BIN" synth --shape "$shape" --type "$type" --seed 1 -o "$model" >/dev/null 2>&1
  for t in $THREADS; do
    for kv in $DEPTH_KV; do
      if [ -n "${LLAMA_BENCH:-}" ]; then
        read -r llama_pp llama_tg < <(llama "$PROMPT" "$GEN" -r "$DEPTH_REPS" -d "$DEPTH" -fa 1 -ctk "$kv" -ctv "$kv")
        llama_tg=${llama_tg:--}
      fi
      for be in $BACKENDS; do
        # the prompt and the decode each after DEPTH tokens (llama-bench -d)
        res=$(ours "$be" -m "$model" -p "$PROMPT" -n "$GEN" -t "$t" -r "$DEPTH_REPS" --depth "$DEPTH" \
          -c $((DEPTH + PROMPT + GEN + 16)) --kv "$kv" --bw=false)
        ours_pp=$(printf '%.1f' "$(echo "$res" | field prefill_tps)")
        ours_tg=$(printf '%.1f' "$(echo "$res" | field decode_tps)")
        backend=$(echo "$res" | field backend)
        [ "$be" = go ] && [ -n "$GO_NAME" ] && backend=$GO_NAME
        if [ -n "${LLAMA_BENCH:-}" ]; then
          echo "| $shape | $type | $t | $backend | $kv | $ours_pp | $llama_pp | $ours_tg | $llama_tg |"
        else
          echo "| $shape | $type | $t | $backend | $kv | $ours_pp | $ours_tg |"
        fi
      done
    done
  done
done
}

{ if [ "$TABLE" != 0 ]; then table; fi; depth_table; } | tee "$OUT_DIR/results.md"
if [ "$TABLE" = 0 ]; then
  echo "wrote $OUT_DIR/results.md" >&2
  exit 0
fi
go run ./bench/chart -o "$OUT_DIR/chart.svg" < "$OUT_DIR/results.md"
echo "wrote $OUT_DIR/results.md and $OUT_DIR/chart.svg" >&2
