#!/usr/bin/env bash
# make bench: prefill and decode speed of synthetic smollm2-135m and
# qwen2.5-0.5b models in F16, Q8_0, Q4_0 and Q4_K_M at 1 and 2 threads,
# printed as a Markdown table. Models are generated once into $BENCH_DIR.
#
# Set LLAMA_BENCH to a llama.cpp llama-bench binary to add its pp/tg numbers
# on the same files (same threads) side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-./bin/litert-go}
BENCH_DIR=${BENCH_DIR:-build/bench-models}
SHAPES=${SHAPES:-"smollm2-135m qwen2.5-0.5b"}
TYPES=${TYPES:-"f16 q8_0 q4_0 q4_k_m"}
THREADS=${THREADS:-"1 2"}
PROMPT=${PROMPT:-512}
GEN=${GEN:-128}
REPS=${REPS:-3}
mkdir -p "$BENCH_DIR"

field() { sed -n "s/.*\"$1\": *\([^,}]*\).*/\1/p" | head -1 | tr -d '"'; }

header="| model | type | threads | backend | load ms | prefill tok/s (pp$PROMPT) | decode tok/s (tg$GEN) | decode % of bandwidth bound | peak RSS MB |"
sep="| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
if [ -n "${LLAMA_BENCH:-}" ]; then
  header="$header llama.cpp pp$PROMPT | llama.cpp tg$GEN |"
  sep="$sep --- | --- |"
fi
echo "$header"
echo "$sep"
for shape in $SHAPES; do
  for type in $TYPES; do
    model="$BENCH_DIR/$shape-$type.gguf"
    [ -f "$model" ] || "$BIN" synth --shape "$shape" --type "$type" --seed 1 -o "$model" >/dev/null 2>&1
    for t in $THREADS; do
      out=$("$BIN" bench -m "$model" -p "$PROMPT" -n "$GEN" -t "$t" -r "$REPS" --kv f16 --json)
      row=$(printf '| %s | %s | %s | %s | %.0f | %.1f | %.1f | %.0f | %.0f |' "$shape" "$type" "$t" \
        "$(echo "$out" | field backend)" "$(echo "$out" | field load_ms)" \
        "$(echo "$out" | field prefill_tps)" "$(echo "$out" | field decode_tps)" \
        "$(echo "$out" | field decode_pct_of_bound)" "$(echo "$out" | field peak_rss_mb)")
      if [ -n "${LLAMA_BENCH:-}" ]; then
        lb=$("$LLAMA_BENCH" -m "$model" -p "$PROMPT" -n "$GEN" -t "$t" -r "$REPS" -o json 2>/dev/null || true)
        pp=$(echo "$lb" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.1f" % [r["avg_ts"] for r in d if r["n_prompt"]>0][0])' 2>/dev/null || echo "-")
        tg=$(echo "$lb" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.1f" % [r["avg_ts"] for r in d if r["n_gen"]>0][0])' 2>/dev/null || echo "-")
        row="$row $pp | $tg |"
      fi
      echo "$row"
    done
  done
done
