# CMake toolchain file for bare-metal Cortex-M4 with the FPU (thumb, hard float, single-precision
# FPv4-SP-D16): Debian's gcc-arm-none-eabi with newlib (libnewlib-arm-none-eabi).
#
#   cmake -S examples/cortex-m -B build-mcu -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake ...
#
# Doubles and 64-bit integers are done in software (libgcc) on this core.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(BERTH_ARM_TRIPLE arm-none-eabi)
set(CMAKE_C_COMPILER ${BERTH_ARM_TRIPLE}-gcc)
set(CMAKE_ASM_COMPILER ${BERTH_ARM_TRIPLE}-gcc)
find_program(CMAKE_AR ${BERTH_ARM_TRIPLE}-ar)
find_program(CMAKE_RANLIB ${BERTH_ARM_TRIPLE}-ranlib)
find_program(CMAKE_NM ${BERTH_ARM_TRIPLE}-nm)
find_program(CMAKE_OBJCOPY ${BERTH_ARM_TRIPLE}-objcopy)
find_program(CMAKE_SIZE ${BERTH_ARM_TRIPLE}-size)

# No OS to run a test executable on: check the compiler by building a static library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(BERTH_ARM_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_INIT "${BERTH_ARM_CPU_FLAGS}")
set(CMAKE_ASM_FLAGS_INIT "${BERTH_ARM_CPU_FLAGS}")
# newlib-nano: the small C library (memcpy, memset, strlen, ...); startup code is the program's.
set(CMAKE_EXE_LINKER_FLAGS_INIT "${BERTH_ARM_CPU_FLAGS} --specs=nano.specs -nostartfiles")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
