/* The differential fuzzer's driver (berth fuzz): its options, statistics and entry points are
 * declared in berth/testing.h (the tool uses only public headers); fuzz_driver.c implements
 * them over the generator (fuzzgen.h), the planner, the host session and the reference
 * interpreter. */
#ifndef BERTH_FUZZGEN_FUZZ_DRIVER_H
#define BERTH_FUZZGEN_FUZZ_DRIVER_H

#include "berth/testing.h"
#include "fuzzgen/fuzzgen.h"
#include "plan/plan.h"

#endif
