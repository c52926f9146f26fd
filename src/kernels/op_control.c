/* Table entries for control flow, mutation and run-time checks. They have no kernel: the
 * reference interpreter runs them directly and the emitter lowers them to jumps, copies
 * and assert instructions. */
#include "op_table.h"

const berth_op_def_t berth_op_def_cond = {"cond", BERTH_OPKIND_COND, 1, -1, -1, 0, NULL, NULL, NULL};
const berth_op_def_t berth_op_def_while_loop = {"while_loop", BERTH_OPKIND_WHILE_LOOP, 0, -1, -1, 0, NULL, NULL, NULL};

static const berth_attr_spec_t scan_attrs[] = {{"carry", BERTH_ATTR_INT, true, 0, 0}};
const berth_op_def_t berth_op_def_scan = {"scan", BERTH_OPKIND_SCAN, 0, -1, -1, 1, scan_attrs, NULL, NULL};

static const berth_attr_spec_t map_attrs[] = {{"mapped", BERTH_ATTR_INT, true, 0, 0}};
const berth_op_def_t berth_op_def_map = {"map", BERTH_OPKIND_MAP, 1, -1, -1, 1, map_attrs, NULL, NULL};

const berth_op_def_t berth_op_def_copy_ = {"copy_", BERTH_OPKIND_COPY_, 2, 2, 0, 0, NULL, NULL, NULL};

/* assert(pred) {message = "..."}: pred is a one-element bool; when it is false the call
 * stops with BERTH_ERR_CHECK_FAILED and the message. No results: it only reads. */
static const berth_attr_spec_t assert_attrs[] = {{"message", BERTH_ATTR_STRING, false, -1, 0}};
const berth_op_def_t berth_op_def_assert = {"assert", BERTH_OPKIND_ASSERT, 1, 1, 0, 1, assert_attrs, NULL, NULL};
