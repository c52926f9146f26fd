# Golden plan reports: the planner's headline decisions for every example program and for
# Silero VAD v5 (arena and lower bound per pool, tensors, copies, coalesced hand-overs, state
# bytes, and the arena of naive, greedy and exact), compared with tests/plan_golden/NAME.txt.
# Correctness alone is checked elsewhere; this pins plan quality, so that a change that
# makes plans worse (say, coalescing switched off: the seed goes from 1 copy / 6 coalesced /
# 33 bytes to 9 / 0 / 56) fails here. Times are dropped, and so is search, whose result
# depends on its wall-clock budget.
# A planner change that improves a plan updates the golden on purpose:
#   BERTH_UPDATE_GOLDEN=1 sh tests/cli/plan_golden.sh build/berth
# Silero's goldens skip (with a message) without the model.
. "$(dirname "$0")/lib.inc"
dir=tests/plan_golden
report() {
  "$BERTH" plan "$@" | awk '
    /^method / { sub(/, planned in [0-9.]+ ms/, ""); print; next }
    /^  algo / { print "  algo            arena"; next }
    /^  search / { next }
    /^  (naive|greedy|exact) / { printf "  %-10s %10s\n", $1, $2; next }
    { print }'
}
golden() {
  name=$1; shift
  got=$(report "$@" 2>/tmp/berth_cli_err.$$) || {
    echo "FAIL $name: berth plan $*: $(cat /tmp/berth_cli_err.$$)"; failures=$((failures+1)); return; }
  if [ "${BERTH_UPDATE_GOLDEN:-0}" = 1 ]; then
    printf '%s\n' "$got" > "$dir/$name.txt"; echo "updated $dir/$name.txt"; return
  fi
  if [ ! -f "$dir/$name.txt" ]; then
    echo "FAIL $name: no golden $dir/$name.txt (BERTH_UPDATE_GOLDEN=1 writes it)"; failures=$((failures+1)); return
  fi
  if printf '%s\n' "$got" | diff -u "$dir/$name.txt" - >/tmp/berth_cli_out.$$; then echo "ok   $name"
  else echo "FAIL $name: plan differs from $dir/$name.txt:"; cat /tmp/berth_cli_out.$$; failures=$((failures+1)); fi
}
for f in examples/*/*.bir tests/bir/*.bir; do
  n=$(basename "$(dirname "$f")")_$(basename "$f" .bir)
  golden "$n" "$f"
done
golden seed_alloc_io examples/seed/seed.bir --alloc-inputs 1 --alloc-outputs 1
golden seed_align1 examples/seed/seed.bir --alignment 1
golden seed_no_views examples/seed/seed.bir --no-views
golden concat_copy tests/bir/concat_in_place.bir --no-concat-in-place
golden concat_arena_always tests/bir/concat_arena.bir --concat-in-place-always
model=${BERTH_VAD_MODEL:-build/vad-deps/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx}
if [ -f "$model" ]; then
  golden silero_v5_256_runtime_sr "$model" --input 'input:f32[1,256]' --input 'state:f32[2,1,128]' --input 'sr:i64[]'
  golden silero_v5_512_16k "$model" --input 'input:f32[1,512]' --input 'state:f32[2,1,128]' --input 'sr:i64[]=16000'
else
  echo "skip silero goldens: no $model (tools/vad/fetch-model.sh fetches it)"
fi
finish
