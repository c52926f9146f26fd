#!/bin/sh
# Installs the Debian packages berth's build and tests need, if any is missing.
set -e
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

# Optional: what the Silero VAD test needs to make its audio (espeak-ng, sox). Without them
# that test skips and says so; a failure to install them is not fatal.
opt=""
command -v espeak-ng >/dev/null 2>&1 || opt="$opt espeak-ng"
command -v sox >/dev/null 2>&1 || opt="$opt sox"
if [ -n "$opt" ] && [ "$(id -u)" = 0 ]; then
  echo "berth: installing (optional)$opt" >&2
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -q && apt-get install -y -q $opt; } >/dev/null 2>&1 || echo "berth: could not install$opt; the VAD test will skip" >&2
fi
# Optional: the Silero VAD model from npm (@ricky0123/vad-web) into build/vad-deps.
if command -v npm >/dev/null 2>&1; then
  sh "$(dirname "$0")/../tools/vad/fetch-model.sh" >/dev/null 2>&1 || echo "berth: could not fetch the Silero VAD model with npm; the VAD test will skip" >&2
else
  echo "berth: npm not found; the Silero VAD model is not fetched and the VAD test will skip" >&2
fi
