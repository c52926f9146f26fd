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
