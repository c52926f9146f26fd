# Option parsing, one rule for every command: a wrong command line exits 2 (unknown option,
# missing or malformed value, an option given twice, --pools naming no op), a failure exits 1.
# Also per-command help, --version, the input size limit, and run --json when a call fails.
. "$(dirname "$0")/lib.inc"
S=examples/seed/seed.bir
A=tests/bir/assert.bir
d=$(mktemp -d /tmp/berth_opts.XXXXXX)
trap 'rm -rf "$d"' EXIT
$BERTH compile $S -o $d/seed.berth >/dev/null || { echo "FAIL cannot compile the seed"; exit 1; }

# --pools: keys are op names, input or output; pools 0..15; each key once
expect_status "--pools unknown op" 2 "--pools: 'frob' is not an op name, input or output" \
  $BERTH run $S --pools frob=1 --call 'f64[1]:5'
expect_status "--pools unknown op (compile)" 2 "'frob' is not an op name" $BERTH compile $S --pools add=1,frob=2 -o $d/x.berth
expect_status "--pools unknown op (plan)" 2 "'frob' is not an op name" $BERTH plan $S --pools frob=1
expect_status "--pools unknown op (fuzz)" 2 "'frob' is not an op name" $BERTH fuzz --count 1 --pools frob=1
expect_status "--pools pool out of range" 2 "rule 'add=16': pool must be 0..15" $BERTH plan $S --pools add=16
expect_status "--pools not key=pool" 2 "rule 'add' is not key=pool" $BERTH plan $S --pools add
expect_status "--pools key twice" 2 "key 'add' given twice" $BERTH plan $S --pools add=1,add=2
expect_status "--pools trailing comma" 2 "ends with ','" $BERTH plan $S --pools add=1,
expect_status "--pools valid" 0 "" $BERTH plan $S --pools input=1,add=2,output=3
expect_true "no file from refused options" [ ! -e $d/x.berth ]

# options given twice
expect_status "-o twice" 2 "-o given twice" $BERTH compile $S -o $d/a.berth -o $d/b.berth
expect_true "-o twice writes nothing" [ ! -e $d/a.berth -a ! -e $d/b.berth ]
expect_status "--algo twice" 2 "--algo given twice" $BERTH plan $S --algo greedy --algo naive
expect_status "--method twice" 2 "--method given twice" $BERTH run $S --method forward --method forward --call 'f64[1]:5'
expect_status "--json twice" 2 "--json given twice" $BERTH run $S --json --json --call 'f64[1]:5'
expect_status "--svg twice" 2 "--svg given twice" $BERTH plan $S --svg $d/a.svg --svg $d/b.svg
expect_status "--out twice (csv)" 2 "--out given twice" $BERTH plan --csv x.csv --out a --out b
expect_status "--seed twice (fuzz)" 2 "--seed given twice" $BERTH fuzz --seed 1 --seed 2
expect_status "--no-verify twice (dis)" 2 "--no-verify given twice" $BERTH dis $d/seed.berth --no-verify --no-verify
expect_status "--max-trip-count twice" 2 "--max-trip-count given twice" $BERTH check $S --max-trip-count 3 --max-trip-count 4
expect_status "--max-input-size twice" 2 "--max-input-size given twice" $BERTH check $S --max-input-size 1M --max-input-size 2M
expect_out "--call repeats" "call 1: call 2:" sh -c "$BERTH run $S --call 'f64[1]:5' --call 'f64[1]:6' | grep '^call' | tr '\n' ' ' | sed 's/ $//'"

# usage errors exit 2, in every command
expect_status "no command" 2 "usage" $BERTH
expect_status "unknown command" 2 "unknown command 'frob'" $BERTH frob
expect_status "run: unknown option" 2 "unknown option '--frob'" $BERTH run $S --frob
expect_status "run: missing value" 2 "--call needs a value" $BERTH run $S --call
expect_status "run: missing PROGRAM" 2 "missing PROGRAM" $BERTH run
expect_status "run: bad --algo" 2 "unknown algorithm 'magic'" $BERTH run $S --algo magic --call 'f64[1]:5'
expect_status "run: bad --alignment" 2 "--alignment takes a power of two" $BERTH run $S --alignment 3
expect_status "run: bad --alloc-inputs" 2 "--alloc-inputs takes 0 or 1" $BERTH run $S --alloc-inputs 2
expect_status "run: bad literal" 2 "call 1, argument 1" $BERTH run $S --call 'f64[1]:abc'
expect_status "check: no program" 2 "usage" $BERTH check
expect_status "check: unknown option" 2 "usage" $BERTH check --frob
expect_status "plan: unknown option" 2 "unknown option '--frob'" $BERTH plan $S --frob
expect_status "plan: two programs" 2 "more than one program" $BERTH plan $S $S
expect_status "plan --csv: unknown option" 2 "unknown option '--frob'" $BERTH plan --csv x.csv --frob
expect_status "plan --csv: bad budget" 2 "--budget-ms 'x'" $BERTH plan --csv x.csv --budget-ms x
expect_status "compile: no -o" 2 "usage" $BERTH compile $S
expect_status "compile: unknown option" 2 "unknown option '--frob'" $BERTH compile $S -o $d/x.berth --frob
expect_status "compile: -o and --ops-header the same" 2 "name the same file" $BERTH compile $S -o $d/x --ops-header $d/x
expect_status "dis: unknown option" 2 "unknown option '--frob'" $BERTH dis $d/seed.berth --frob
expect_status "dis: no file" 2 "usage" $BERTH dis
expect_status "fuzz: unknown option" 2 "unknown option" $BERTH fuzz --frob 1
expect_status "fuzz: bad count" 2 "--count takes an integer" $BERTH fuzz --count x
expect_status "onnx-test: unknown option" 2 "unknown option" $BERTH onnx-test --frob
expect_status "bad --max-input-size" 2 "--max-input-size takes a byte count" $BERTH check $S --max-input-size 12Q
expect_status "bad --input" 2 "" $BERTH check $S --input nonsense
# failures exit 1
expect_status "run: missing file" 1 "cannot open /nonexistent.bir" $BERTH run /nonexistent.bir
expect_status "run: wrong type" 1 "expected f64\[1\], got f32\[1\]" $BERTH run $S --call 'f32[1]:1'
expect_status "run: failing call" 1 "run-time check failed" $BERTH run $A --call 'f64[1]:11 i64[]:5'
expect_status "run: verifier rejects" 1 "may see %result2" $BERTH run $S --strategy regions --call 'f64[1]:5'
expect_status "check: missing file" 1 "cannot open" $BERTH check /nonexistent.bir
expect_status "dis: not a program file" 1 "is not a .berth program file" $BERTH dis $S
expect_status "plan --csv: missing file" 1 "cannot open" $BERTH plan --csv /nonexistent.csv

# run --json: one valid JSON document whatever happens; a failed call carries its error
expect_out "run --json, call 2 fails" \
  '{"calls":[{"outputs":[{"dtype":"f64","shape":[1],"data":[6.0]},{"dtype":"i64","shape":[],"data":[4]}]},{"error":"call 2: method forward: run-time check failed at instruction 1 (%small is false): x must be at most 10"}],"error":"call 2: method forward: run-time check failed at instruction 1 (%small is false): x must be at most 10"}' \
  sh -c "$BERTH run $A --json --call 'f64[1]:3 i64[]:-4' --call 'f64[1]:11 i64[]:5'; test \$? -eq 1"
expect_out "run --json, bad argument before any call" \
  '{"calls":[],"error":"call 2, argument 1 (%x): expected f64[1], got f32[1]"}' \
  sh -c "$BERTH run $A --json --call 'f64[1]:3 i64[]:-4' --call 'f32[1]:11 i64[]:5' 2>/dev/null; test \$? -eq 1"
if command -v python3 >/dev/null 2>&1; then
  for args in "$A --call 'f64[1]:11 i64[]:5'" "/nonexistent.bir --call 'f64[1]:1'" "$S --strategy regions --call 'f64[1]:5'" \
              "$S --call 'f64[1]:5' --call 'f64[1]:6'"; do
    expect_status "run --json is valid JSON: $args" 0 "" \
      sh -c "$BERTH run --json $args 2>/dev/null | python3 -c 'import json,sys; json.load(sys.stdin)'"
  done
fi

# help for every command, --version
for cmd in run check plan compile dis onnx-test fuzz help; do
  expect_out "berth $cmd --help" "usage: berth $cmd" sh -c "$BERTH $cmd --help | head -1 | cut -d' ' -f1-3"
  expect_out "berth help $cmd" "usage: berth $cmd" sh -c "$BERTH help $cmd | head -1 | cut -d' ' -f1-3"
done
expect_out "berth compile -h anywhere" "usage: berth compile" sh -c "$BERTH compile $S -h | head -1 | cut -d' ' -f1-3"
expect_status "berth help nope" 2 "unknown command 'nope'" $BERTH help nope
expect_out "berth --version" "berth" sh -c "$BERTH --version | cut -d' ' -f1"
expect_true "version is x.y.z" sh -c "$BERTH --version | grep -Eq '^berth [0-9]+\.[0-9]+\.[0-9]+ \(program file format version [0-9]+\)$'"

# input files are read with a limit (default 256 MiB; --max-input-size)
expect_status "check /dev/zero stops at the limit" 1 "/dev/zero: larger than the input limit of 268435456 bytes \(--max-input-size raises it\)" \
  timeout 120 $BERTH check /dev/zero
expect_status "a stream over a small limit" 1 "/dev/zero: larger than the input limit of 1024 bytes" \
  $BERTH check /dev/zero --max-input-size 1K
expect_status "a program from a pipe is refused" 1 "/dev/stdin is a pipe; a program must be a file" \
  sh -c "cat $S | $BERTH check /dev/stdin"
expect_status "a program from a redirected file is fine" 0 "" sh -c "$BERTH check /dev/stdin < $S"
expect_status "a file over the limit" 1 "seed.bir: the file is [0-9]+ bytes, over the input limit of 1024 bytes" \
  $BERTH check $S --max-input-size 1K
expect_status "the limit raised" 0 "" $BERTH --max-input-size 64K check $S
expect_status "a .berth over the limit" 1 "over the input limit of 2048 bytes" $BERTH run $d/seed.berth --max-input-size 2K --call 'f64[1]:5'
# ONNX import options on a program that is no ONNX model would be ignored: refused
expect_status "--input on a .bir" 1 "is not an ONNX model: --input, --state" $BERTH run $S --input 'x:f32[1]' --call 'f64[1]:5'
expect_status "--state on a .bir" 1 "is not an ONNX model" $BERTH plan $S --state a=b
expect_status "--keep-control-flow on a .berth" 1 "is not an ONNX model" $BERTH run $d/seed.berth --keep-control-flow --call 'f64[1]:5'
finish
