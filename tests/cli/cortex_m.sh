# berth's runtime on a Cortex-M4 (examples/cortex-m): cross-compiles the runtime, cut down to
# the seed's kernels, for thumb with hard float (arm-none-eabi-gcc, newlib-nano), links it
# with the seed program in flash, and runs it bare metal on QEMU's mps2-an386 board, with
# unaligned accesses and integer division by zero trapping. Checks:
#  - image.elf prints exactly "(5, 5)\n(6, 7)\n" on stdout and exits 0; its stderr gives
#    the memory it took and the stack depth measured by painting;
#  - image.elf links no stdio, malloc or exit from the C library (nm);
#  - image_reject.elf (the same runtime with countdown.bir, which calls kernels the seed's
#    runtime lacks) fails at load with berth's message, prints nothing on stdout, exits 1.
# Prints the flash and RAM sizes (image_size.txt). The runtime compiles with -Werror.
# Skips (77) without gcc-arm-none-eabi, libnewlib-arm-none-eabi or qemu-system-arm (Debian:
# apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm).
. "$(dirname "$0")/lib.inc"
root=$(cd "$(dirname "$0")/../.." && pwd)
missing=""
command -v arm-none-eabi-gcc >/dev/null 2>&1 || missing="$missing arm-none-eabi-gcc (gcc-arm-none-eabi)"
if [ -z "$missing" ]; then
  lib=$(arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -print-file-name=libc_nano.a)
  [ -f "$lib" ] || missing="$missing newlib-nano (libnewlib-arm-none-eabi)"
fi
if ! command -v qemu-system-arm >/dev/null 2>&1; then
  missing="$missing qemu-system-arm"
elif ! qemu-system-arm -M help 2>/dev/null | grep -q '^mps2-an386 '; then
  missing="$missing qemu-system-arm's mps2-an386 board"
fi
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
[ -z "$missing" ] || { echo "skip: missing$missing"; exit 77; }

# the cross build lives next to the berth under test (its build folder)
build=$(cd "$(dirname "$BERTH")" && pwd)/cortex-m
mkdir -p "$build"
if ! cmake -S "$root/examples/cortex-m" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
     -DBERTH_TOOL="$BERTH" -DBERTH_WERROR=ON >"$build/build.log" 2>&1 ||
   ! cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" >>"$build/build.log" 2>&1; then
  echo "FAIL cross build (arm-none-eabi):"; tail -40 "$build/build.log"; exit 1
fi
echo "ok   cross build (runtime -Wall -Wextra -Werror for arm-none-eabi)"

# run ELF: QEMU's exit status, stdout and stderr in $build/ELF.{rc,out,err}
run() {
  timeout 60 qemu-system-arm -M mps2-an386 -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -kernel "$build/$1" \
    </dev/null >"$build/$1.out" 2>"$build/$1.err"
  echo $? >"$build/$1.rc"
}

# the image takes nothing from the C library but mem*/str* (and libgcc's arithmetic)
bad=$(arm-none-eabi-nm "$build/image.elf" | awk '{print $NF}' |
  grep -E '^_*(v?[fs]?n?printf|puts|fputs|fwrite|_?write|stdout|stderr|_impure_ptr|__errno|[a-z]*alloc|free|_malloc_r|_?sbrk|abort|exit|_exit)(_r)?$' | tr '\n' ' ')
if [ -n "$bad" ]; then echo "FAIL image.elf links stdio, heap or exit: $bad"; failures=$((failures+1))
else echo "ok   image.elf links no stdio, heap or exit"; fi

run image.elf
printf '(5, 5)\n(6, 7)\n' >"$build/image.want"
rc=$(cat "$build/image.elf.rc")
if [ "$rc" != 0 ] || ! cmp -s "$build/image.want" "$build/image.elf.out"; then
  echo "FAIL seed on qemu mps2-an386: exit $rc"; echo "  want: $(od -c "$build/image.want" | head -3)"
  echo "  got:  $(od -c "$build/image.elf.out" | head -3)"; cat "$build/image.elf.err"; failures=$((failures+1))
elif ! grep -Eq '^memory: program [0-9]+ B, load scratch [0-9]+ B, method [0-9]+ B; static pool [0-9]+ B$' "$build/image.elf.err" ||
     ! grep -Eq '^stack: load [0-9]+ B, execute [0-9]+ B \(below main.s frame\); deepest from reset [0-9]+ B of [0-9]+$' "$build/image.elf.err" ||
     [ "$(wc -l <"$build/image.elf.err")" -ne 2 ]; then
  echo "FAIL seed on qemu mps2-an386: unexpected stderr:"; cat "$build/image.elf.err"; failures=$((failures+1))
else
  echo "ok   seed on qemu mps2-an386: $(tr '\n' ' ' <"$build/image.elf.out")"
  sed 's/^/       /' "$build/image.elf.err"
fi

run image_reject.elf
rc=$(cat "$build/image_reject.elf.rc")
if [ "$rc" != 1 ] || [ -s "$build/image_reject.elf.out" ] ||
   ! grep -Eq '^berth-m4: load: .*op [0-9]+ is a kernel this runtime was built without' "$build/image_reject.elf.err"; then
  echo "FAIL countdown refused on qemu mps2-an386: exit $rc"; cat "$build/image_reject.elf.out" "$build/image_reject.elf.err"
  failures=$((failures+1))
else
  echo "ok   countdown refused on qemu mps2-an386 (exit 1): $(cat "$build/image_reject.elf.err")"
fi

sed 's/^/  /' "$build/image_size.txt"
finish
