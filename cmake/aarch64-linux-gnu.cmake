# CMake toolchain file for AArch64 Linux (Debian's gcc-aarch64-linux-gnu); the programs run
# under qemu-user (qemu-aarch64 -L /usr/aarch64-linux-gnu). Used by tests/neon.
#
#   cmake -S tests/neon -B build-neon -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
find_program(CMAKE_AR aarch64-linux-gnu-ar)
find_program(CMAKE_RANLIB aarch64-linux-gnu-ranlib)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
