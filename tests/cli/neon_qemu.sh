# The AArch64 NEON kernel variant (src/kernels/kernel_isa_neon.c): cross-builds the kernel
# tests (tests/neon: test_kernel_isa, test_kernel_conv_scratch, test_kernel_conv_dw, test_kernel_conv_direct, test_kernel_nn, test_kernels,
# test_kernel_dot, test_kernel_move: the 16-byte vector moves, test_crc32c_hw: the CRC extension's instruction, test_kernel_softmax, test_kernel_norm_ukr, test_kernel_vec_lanes: the transposes of every lane count, test_kernel_conv_blocked, test_kernel_pool_blocked and test_kernel_conv_winograd: the channel-blocked convs, pools and Winograd convs) with aarch64-linux-gnu-gcc and runs them under qemu-aarch64, once with the
# widest variant (NEON) and once with BERTH_KERNELS=portable. test_kernel_isa checks NEON
# against the portable variant and double loops (the ulp sweep coarser than on the host);
# the others check every kernel's results.
# Skips (77) without the cross tools (Debian: apt-get install gcc-aarch64-linux-gnu qemu-user).
. "$(dirname "$0")/lib.inc"
root=$(cd "$(dirname "$0")/../.." && pwd)
missing=""
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing="$missing aarch64-linux-gnu-gcc (gcc-aarch64-linux-gnu)"
command -v qemu-aarch64 >/dev/null 2>&1 || missing="$missing qemu-aarch64 (qemu-user)"
[ -d /usr/aarch64-linux-gnu/lib ] || missing="$missing the AArch64 C library (/usr/aarch64-linux-gnu)"
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
[ -z "$missing" ] || { echo "skip: missing$missing"; exit 77; }

# the cross build lives next to the berth under test (its build folder)
build=$(cd "$(dirname "$BERTH")" && pwd)/neon
mkdir -p "$build"
if ! cmake -S "$root/tests/neon" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
     -DCMAKE_BUILD_TYPE=Release >"$build/build.log" 2>&1 ||
   ! cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" >>"$build/build.log" 2>&1; then
  echo "FAIL cross build (aarch64-linux-gnu):"; tail -40 "$build/build.log"; exit 1
fi
echo "ok   cross build (runtime and kernel tests, -Wall -Wextra -Werror, for aarch64-linux-gnu)"

fails=0
for variant in neon portable; do
  for t in test_kernel_isa test_kernel_conv_scratch test_kernel_conv_dw test_kernel_conv_direct test_kernel_nn test_kernels test_kernel_dot test_crc32c_hw \
           test_kernel_softmax test_kernel_norm_ukr test_kernel_move test_kernel_vec_lanes test_kernel_conv_blocked \
           test_kernel_pool_blocked test_kernel_conv_winograd; do
    # the ulp sweep of exp / sigmoid / tanh every 65537th float: emulation is slow
    # (test_kernel_conv_winograd forces each variant itself: once is enough, ~1 minute)
    [ "$t" = test_kernel_conv_winograd ] && [ "$variant" = portable ] && continue
    if BERTH_VMATH_STEP=65537 BERTH_KERNELS=$variant QEMU_LD_PREFIX=/usr/aarch64-linux-gnu qemu-aarch64 "$build/$t" >"$build/$t.$variant.log" 2>&1; then
      echo "ok   $t (BERTH_KERNELS=$variant, qemu-aarch64): $(grep "checks" "$build/$t.$variant.log" | tail -1)"
    else
      echo "FAIL $t (BERTH_KERNELS=$variant, qemu-aarch64):"; tail -20 "$build/$t.$variant.log"; fails=$((fails + 1))
    fi
  done
done
# the CRC instruction was there to test (qemu's CPU has the CRC extension)
if ! grep -q "instruction runs" "$build/test_crc32c_hw.neon.log"; then
  echo "FAIL test_crc32c_hw did not run the CRC instruction"; fails=$((fails + 1))
fi
# NEON was there to test (test_kernel_isa names a variant it skips)
if grep -q "neon: not in this build" "$build/test_kernel_isa.neon.log"; then
  echo "FAIL test_kernel_isa skipped the NEON variant"; fails=$((fails + 1))
fi
[ "$fails" -eq 0 ]
