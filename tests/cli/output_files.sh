# Output files are complete or absent, never something else: compile -o through a unique
# temporary file in the same directory, replacing only a missing or regular file (a symlink's
# target, with the link kept); FIFOs and character devices are written in place; a failed
# write is reported and leaves the old file as it was. Also --ops-header, plan --svg,
# plan --csv --out/--svg, run --out-dir, and write errors on stdout.
. "$(dirname "$0")/lib.inc"
S=examples/seed/seed.bir
d=$(mktemp -d /tmp/berth_out.XXXXXX)
trap 'chattr -i "$d/ro" 2>/dev/null; chmod -R u+w "$d" 2>/dev/null; rm -rf "$d"' EXIT
$BERTH compile $S -o $d/ref.berth >/dev/null || { echo "FAIL cannot compile the seed"; exit 1; }
csv=$d/p.csv
printf 'id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n' > $csv
# no file other than the named ones may be left in $d/$1 (no temporary files)
only() { dir=$1; shift; [ "$(cd $dir && ls -A | tr '\n' ' ' | sed 's/ $//')" = "$*" ]; }

# a new file: 0666 less the umask, bytes as written
mkdir $d/new
(umask 027; $BERTH compile $S -o $d/new/a.berth >/dev/null)
expect_true "new file is complete" cmp -s $d/new/a.berth $d/ref.berth
expect_true "new file mode is 0666 less the umask" [ "$(stat -c %a $d/new/a.berth)" = 640 ]
expect_true "no temporary file left" only $d/new a.berth

# replacing a regular file keeps its permission bits
mkdir $d/perm
echo old > $d/perm/a.berth; chmod 604 $d/perm/a.berth
$BERTH compile $S -o $d/perm/a.berth >/dev/null
expect_true "replaced file is complete" cmp -s $d/perm/a.berth $d/ref.berth
expect_true "replaced file keeps mode 604" [ "$(stat -c %a $d/perm/a.berth)" = 604 ]

# a user's PATH.tmp is neither overwritten nor deleted
mkdir $d/tmp
echo "user data" > $d/tmp/a.berth.tmp
$BERTH compile $S -o $d/tmp/a.berth >/dev/null
expect_true "PATH.tmp untouched" [ "$(cat $d/tmp/a.berth.tmp)" = "user data" ]
expect_true "PATH.tmp: output written" cmp -s $d/tmp/a.berth $d/ref.berth
expect_true "PATH.tmp: nothing else left" only $d/tmp a.berth a.berth.tmp

# a symbolic link stays a link; its target gets the bytes
mkdir $d/link
echo old > $d/link/target.berth
ln -s target.berth $d/link/l.berth
$BERTH compile $S -o $d/link/l.berth >/dev/null
expect_true "symlink is still a symlink" [ -L $d/link/l.berth ]
expect_true "symlink target replaced" cmp -s $d/link/target.berth $d/ref.berth
expect_true "symlink: nothing else left" only $d/link l.berth target.berth
ln -s missing.berth $d/link/dangling.berth
expect_status "dangling symlink refused" 1 "dangling.berth: it is a symbolic link to a missing file" \
  $BERTH compile $S -o $d/link/dangling.berth
expect_true "dangling symlink: nothing created" only $d/link dangling.berth l.berth target.berth

# a FIFO is written in place (a reader gets the bytes), not replaced
mkfifo $d/fifo
timeout 20 cat $d/fifo > $d/from_fifo &
reader=$!
timeout 20 $BERTH compile $S -o $d/fifo >/dev/null 2>&1
expect_true "FIFO: compile succeeds" [ $? -eq 0 ]
wait $reader
expect_true "FIFO is still a FIFO" [ -p $d/fifo ]
expect_true "FIFO reader got the program" cmp -s $d/from_fifo $d/ref.berth

# a character device (a private copy of /dev/full, so that nothing of the system's is at
# stake) is written in place: the write error is reported and the node stays a device
if mknod $d/full c 1 7 2>/dev/null; then
  expect_status "device full: compile fails" 1 "cannot write $d/full: No space left on device" \
    $BERTH compile $S -o $d/full
  expect_true "device is still a character device" [ -c $d/full ]
  expect_status "device full: --ops-header fails" 1 "cannot write $d/full: No space left on device" \
    $BERTH compile $S -o $d/ops.berth --ops-header $d/full
  expect_true "--ops-header failure leaves no program file" [ ! -e $d/ops.berth ]
  expect_status "device full: plan --svg fails with a message" 1 "cannot write $d/full: No space left on device" \
    $BERTH plan $S --svg $d/full
  expect_status "device full: plan --csv --out fails" 1 "cannot write $d/full" $BERTH plan --csv $csv --out $d/full
  expect_status "device full: plan --csv --svg fails" 1 "cannot write $d/full" \
    $BERTH plan --csv $csv --out $d/both.csv --svg $d/full
  expect_true "plan --csv --svg failure leaves no --out file" [ ! -e $d/both.csv ]
  mknod $d/null c 1 3
  expect_status "device null is a fine output" 0 "" $BERTH compile $S -o $d/null
  expect_true "device null is still a device" [ -c $d/null ]
else
  echo "skip device node tests (mknod not permitted)"
fi
expect_status "directory refused" 1 "cannot write $d/new: it is a directory" $BERTH compile $S -o $d/new

# a directory where no file can be created: a clear message, nothing changed
mkdir $d/ro
if [ "$(id -u)" -ne 0 ]; then chmod 555 $d/ro; ro_ok=1
elif chattr +i $d/ro 2>/dev/null; then ro_ok=1
else ro_ok=0; echo "skip unwritable directory (neither chmod nor chattr applies)"; fi
if [ $ro_ok -eq 1 ]; then
  expect_status "unwritable directory" 1 "cannot write $d/ro/a.berth: cannot create a temporary file in $d/ro" \
    $BERTH compile $S -o $d/ro/a.berth
  expect_true "unwritable directory: nothing created" only $d/ro
fi
expect_status "missing directory" 1 "cannot create a temporary file in /nonexistent/dir" \
  $BERTH compile $S -o /nonexistent/dir/a.berth

# write errors on a regular file (a file size limit: EFBIG) leave the old file untouched and
# no partial file; the message says why
big() { (trap '' XFSZ; ulimit -f 2; "$@"); }
mkdir $d/fsz
echo "old svg" > $d/fsz/p.svg
expect_status "plan --svg write error is reported" 1 "cannot write $d/fsz/p.svg: File too large" \
  big $BERTH plan $S --svg $d/fsz/p.svg
expect_true "plan --svg: old file kept whole" [ "$(cat $d/fsz/p.svg)" = "old svg" ]
expect_status "compile write error is reported" 1 "cannot write $d/fsz/a.berth: File too large" \
  big $BERTH compile $S -o $d/fsz/a.berth
expect_true "compile write error: no file" only $d/fsz p.svg
i=0; printf 'id,lower,upper,size\n' > $d/big.csv
while [ $i -lt 200 ]; do echo "buffer$i,$i,$((i+5)),64" >> $d/big.csv; i=$((i+1)); done
expect_status "plan --csv --out write error" 1 "cannot write $d/fsz/off.csv: File too large" \
  big $BERTH plan --csv $d/big.csv --out $d/fsz/off.csv
expect_status "plan --csv --svg write error" 1 "cannot write $d/fsz/b.svg: File too large" \
  big $BERTH plan --csv $d/big.csv --svg $d/fsz/b.svg
expect_true "plan --csv: no file left" only $d/fsz p.svg
$BERTH plan --csv $csv --out $d/off.csv --svg $d/off.svg >/dev/null
expect_true "plan --csv --out writes both" [ -s $d/off.csv -a -s $d/off.svg ]

# stdout: a write error is an error
for cmd in "check $S" "dis $d/ref.berth" "plan $S" "run $S --call f64[1]:5" "--help" "help compile" "--version"; do
  expect_status "stdout full: berth $cmd" 1 "cannot write standard output: No space left on device" \
    sh -c "$BERTH $cmd > /dev/full"
done
# /dev/stdout is a stream: written in place, after what the shell wrote before (the summary
# line goes to stderr then, so that stdout carries only the program). A private link to
# /proc/self/fd/1 stands for /dev/stdout, so that a broken berth cannot replace the system's.
ln -s /proc/self/fd/1 $d/stdout
{ echo header; $BERTH compile $S -o $d/stdout 2>$d/stdout.err; } > $d/stdout.out
{ echo header; cat $d/ref.berth; } > $d/stdout.want
expect_true "-o /dev/stdout appends to the shell's file" cmp -s $d/stdout.out $d/stdout.want
expect_true "-o /dev/stdout: summary on stderr" grep -q "^wrote $d/stdout: [0-9]* bytes" $d/stdout.err
expect_true "-o /dev/stdout: the link stays" [ -L $d/stdout ]
$BERTH compile $S -o $d/stdout 2>/dev/null | cat > $d/pipe.out
expect_true "-o /dev/stdout into a pipe" cmp -s $d/pipe.out $d/ref.berth

# run --out-dir: files only when every call succeeded
mkdir $d/run
$BERTH run $S --call 'f64[1]:5' --call 'f64[1]:6' --out-dir $d/run >/dev/null
expect_true "run --out-dir writes every output" only $d/run call1_out0.npy call1_out1.npy call2_out0.npy call2_out1.npy
mkdir $d/run2
expect_status "bad literal in call 2" 2 "call 2, argument 1" $BERTH run $S --call 'f64[1]:5' --call 'f64[1]:x' --out-dir $d/run2
expect_true "bad literal in call 2: call 1 wrote nothing" only $d/run2
A=tests/bir/assert.bir
expect_status "failing call 2" 1 "call 2: .*run-time check failed" \
  $BERTH run $A --call 'f64[1]:3 i64[]:-4' --call 'f64[1]:11 i64[]:5' --out-dir $d/run2
expect_true "failing call 2: call 1 wrote nothing" only $d/run2
expect_status "--out-dir must exist" 1 "--out-dir $d/none: No such file or directory" \
  $BERTH run $S --call 'f64[1]:5' --out-dir $d/none
# fuzz --out-dir must be a directory
expect_status "fuzz --out-dir must exist" 1 "--out-dir $d/none" $BERTH fuzz --count 1 --out-dir $d/none
finish
