/* The one early-return helper for fallible internal code (berth_status_t, berth/status.h):
 *
 *   BERTH_TRY(read_header(r));   // returns its status from the caller unless it is BERTH_OK
 */
#ifndef BERTH_BASE_TRY_H
#define BERTH_BASE_TRY_H

#include "berth/status.h"

#define BERTH_TRY(expr)                        \
  do {                                         \
    berth_status_t berth_try_st_ = (expr);     \
    if (berth_try_st_ != BERTH_OK) return berth_try_st_; \
  } while (0)

#endif
