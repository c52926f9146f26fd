/* Moved to src/fuzzgen/onnx_build.h (the ONNX fuzz generator builds its models with it). */
#include "fuzzgen/onnx_build.h"
