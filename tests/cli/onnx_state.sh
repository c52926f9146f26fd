# State pairs (--state IN=OUT) and PyTorch-exporter shapes:
#  - the seed as torch.onnx.export(dynamo=True) writes it (tests/onnx/torch_seed: the buffer
#    is graph input b_state, its new value output `copy`) with --state b_state=copy and its
#    NaN start value from --input: (5, 5), (6, 7), (6, 6) across calls, planned, under the
#    sanitizer and in the reference interpreter;
#  - Silero v5 with --state state=stateN: the plan writes the new state in place (0 copies,
#    "state updated in place"), and four frames of a sine (x[i] = 0.5 sin(0.3 (i + N f)),
#    state carried by berth) give onnxruntime-node 1.30's probabilities within 1e-4 (there
#    the caller fed stateN back as state), for 512-sample frames at 16 kHz and for 256-sample
#    frames with sr at run time (both rates in one program);
#  - bad --state options name what is wrong.
# The Silero part skips without the model, like onnx_silero.sh.
BERTH=$1
. tests/cli/lib.inc
seed=tests/onnx/torch_seed/model.onnx
st="--state b_state=copy --input b_state:f64[1]=nan"
for o in "" --sanitize --reference; do
  expect_out "seed_state$o" "5 5 6 7 6 6" sh -c "\"$BERTH\" run $seed $st $o --call 'f64[1]:5' --call 'f64[1]:6' --call 'f64[1]:-1' | sed -n 's/.*\\[\\(.*\\)\\]/\\1/p' | tr '\\n' ' ' | sed 's/ \$//'"
done
expect_fail state_no_input "onnx: --state nope=copy: the model has no graph input named 'nope'" "$BERTH" run $seed --state nope=copy --call ''
expect_fail state_no_output "onnx: --state b_state=nope: the model has no graph output named 'nope'" "$BERTH" run $seed --state b_state=nope --call ''
expect_fail state_syntax "berth: --state 'b_state': expected INPUT=OUTPUT" "$BERTH" run $seed --state b_state --call ''
expect_fail state_types "onnx: --state i0=getitem_1: the output is f32\\[3\\] but the input i64\\[\\]" "$BERTH" run tests/onnx/torch_while_loop/model.onnx --state i0=getitem_1 --call ''

model=${BERTH_VAD_MODEL:-}
for m in build/vad-deps/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx \
         /tmp/vadpkg/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx; do
  [ -n "$model" ] || { [ -f "$m" ] && model=$m; }
done
if [ -n "$model" ] && [ -f "$model" ]; then
  frame() { awk -v o="$1" 'BEGIN{for(i=0;i<512;i++) printf "%s%.6f", (i?",":""), 0.5*sin(0.3*(i+o))}'; }
  sil="--input input:f32[1,512] --input sr:i64[]=16000 --input state:f32[2,1,128] --state state=stateN"
  expect_out silero_state_in_place "0 copies
  state updated in place: 1 copy_ computed in the buffer's own bytes (a rename, no copy per call)" \
    sh -c "\"$BERTH\" plan \"$model\" $sil | sed -n '2,3p' | sed 's/.*values, \\([0-9]* copies\\).*/\\1/'"
  for o in "" --sanitize; do
    got=$("$BERTH" run "$model" $sil $o --json --call "f32[1,512]:$(frame 0)" --call "f32[1,512]:$(frame 512)" \
      --call "f32[1,512]:$(frame 1024)" --call "f32[1,512]:$(frame 1536)" 2>&1 | grep -o '"shape":\[1,1\],"data":\[[^]]*' | sed 's/.*\[//' | tr '\n' ' ')
    if echo "$got|0.23636320 0.16509327 0.15115100 0.14863035" | awk -F'|' '{n=split($1,g," "); m=split($2,w," "); if (n!=m) exit 1;
        for(i=1;i<=n;i++){d=g[i]-w[i]; if(d<0)d=-d; if(d>1e-4) exit 1}}'; then echo "ok   silero_state_frames$o"
    else echo "FAIL silero_state_frames$o: got '$got'"; failures=$((failures+1)); fi
  done
  # 256-sample frames with sr at run time: the If on sr stays a cond, the new state is a
  # cond result computed in place by either branch (reads of the old state in the other
  # branch are exclusive with the write)
  frame256() { awk -v o="$1" 'BEGIN{for(i=0;i<256;i++) printf "%s%.6f", (i?",":""), 0.5*sin(0.3*(i+o))}'; }
  both="--input input:f32[1,256] --input sr:i64[] --input state:f32[2,1,128] --state state=stateN"
  expect_out silero_both_rates_in_place "0 copies" sh -c "\"$BERTH\" plan \"$model\" $both | sed -n '2p' | sed 's/.*values, \\([0-9]* copies\\).*/\\1/'"
  for sr in 16000 8000; do
    [ $sr = 16000 ] && want="0.0048668683 0.00085741282 0.00058799982 0.00055038929" || want="0.074172139 0.036314607 0.026419520 0.022368014"
    got=$("$BERTH" run "$model" $both --sanitize --json --call "f32[1,256]:$(frame256 0) i64[]:$sr" --call "f32[1,256]:$(frame256 256) i64[]:$sr" \
      --call "f32[1,256]:$(frame256 512) i64[]:$sr" --call "f32[1,256]:$(frame256 768) i64[]:$sr" 2>&1 | grep -o '"shape":\[1,1\],"data":\[[^]]*' | sed 's/.*\[//' | tr '\n' ' ')
    if echo "$got|$want" | awk -F'|' '{n=split($1,g," "); m=split($2,w," "); if (n!=m) exit 1;
        for(i=1;i<=n;i++){d=g[i]-w[i]; if(d<0)d=-d; if(d>1e-4) exit 1}}'; then echo "ok   silero_both_rates_frames_$sr"
    else echo "FAIL silero_both_rates_frames_$sr: got '$got'"; failures=$((failures+1)); fi
  done
else
  echo "skip: silero part (no silero_vad_v5.onnx)"
fi
finish
