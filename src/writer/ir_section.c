/* The IR section codec (ir_section.h). Compiler side. */
#include "writer/ir_section.h"

#include "base/byte_reader.h"
#include "base/checked.h"
#include "format/read_program.h"

#include <stdlib.h>
#include <string.h>

static void store_le32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static void store_le64(uint8_t *p, uint64_t v) {
  for (int k = 0; k < 8; k++) p[k] = (uint8_t)(v >> (8 * k));
}

berth_status_t berth_ir_section_encode(const berth_ir_program_t *p, const berth_plan_options_t *opt, uint8_t **out,
                                       size_t *out_len, berth_diag_t *diag) {
  char *text = berth_ir_print(p);
  if (!text) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory printing the IR");
  berth_plan_options_t po = opt ? *opt : berth_plan_options_default();
  size_t pools_len = po.pools ? strlen(po.pools) : 0, text_len = strlen(text);
  if (pools_len > UINT32_MAX) {
    free(text);
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "pool rules too long");
  }
  size_t len = BERTH_FORMAT_IR_HEADER_SIZE + pools_len + text_len;
  uint8_t *b = calloc(1, len);
  if (!b) {
    free(text);
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  store_le32(b + BERTH_IR_SECTION_ALGO, (uint32_t)po.algo);
  store_le32(b + BERTH_IR_SECTION_STRATEGY, (uint32_t)po.strategy);
  store_le32(b + BERTH_IR_SECTION_ALIGNMENT, po.alignment);
  store_le32(b + BERTH_IR_SECTION_ALLOC_INPUTS, (uint32_t)po.alloc_inputs);
  store_le32(b + BERTH_IR_SECTION_ALLOC_OUTPUTS, (uint32_t)po.alloc_outputs);
  store_le32(b + BERTH_IR_SECTION_FIT, (uint32_t)po.fit);
  store_le64(b + BERTH_IR_SECTION_BUDGET, (uint64_t)(po.budget_work > 0 ? po.budget_work : po.budget_ms));
  store_le32(b + BERTH_IR_SECTION_BUDGET_UNIT, po.budget_work > 0 ? BERTH_FORMAT_IR_BUDGET_WORK : BERTH_FORMAT_IR_BUDGET_MS);
  store_le64(b + BERTH_IR_SECTION_SEED, po.seed);
  store_le32(b + BERTH_IR_SECTION_POOLS_LEN, (uint32_t)pools_len);
  store_le64(b + BERTH_IR_SECTION_TEXT_LEN, text_len);
  if (pools_len) memcpy(b + BERTH_FORMAT_IR_HEADER_SIZE, po.pools, pools_len);
  memcpy(b + BERTH_FORMAT_IR_HEADER_SIZE + pools_len, text, text_len);
  free(text);
  *out = b;
  *out_len = len;
  return BERTH_OK;
}

berth_status_t berth_ir_section_decode(const uint8_t *ir, uint64_t ir_size, berth_plan_options_t *opt, char *pools_buf,
                                       size_t pools_cap, const char **text, size_t *text_len, berth_diag_t *diag) {
  if (!ir || ir_size < BERTH_FORMAT_IR_HEADER_SIZE || !opt || !text || !text_len)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "no IR section");
  berth_plan_options_t o = berth_plan_options_default();
  uint32_t algo = berth_load_le32(ir + BERTH_IR_SECTION_ALGO), strategy = berth_load_le32(ir + BERTH_IR_SECTION_STRATEGY);
  uint32_t fit = berth_load_le32(ir + BERTH_IR_SECTION_FIT);
  o.alignment = berth_load_le32(ir + BERTH_IR_SECTION_ALIGNMENT);
  o.alloc_inputs = berth_u32_to_i32(berth_load_le32(ir + BERTH_IR_SECTION_ALLOC_INPUTS));
  o.alloc_outputs = berth_u32_to_i32(berth_load_le32(ir + BERTH_IR_SECTION_ALLOC_OUTPUTS));
  int64_t budget = berth_u64_to_i64(berth_load_le64(ir + BERTH_IR_SECTION_BUDGET));
  uint32_t budget_unit = berth_load_le32(ir + BERTH_IR_SECTION_BUDGET_UNIT);
  if (budget_unit == BERTH_FORMAT_IR_BUDGET_WORK) o.budget_work = budget;
  else o.budget_ms = budget;
  o.seed = berth_load_le64(ir + BERTH_IR_SECTION_SEED);
  uint32_t pools_len = berth_load_le32(ir + BERTH_IR_SECTION_POOLS_LEN);
  uint64_t tlen = berth_load_le64(ir + BERTH_IR_SECTION_TEXT_LEN), total;
  if (!berth_add_u64(pools_len, tlen, &total) || total != ir_size - BERTH_FORMAT_IR_HEADER_SIZE)
    return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "section ir: lengths do not add up");
  if (algo > BERTH_ALLOC_EXACT || strategy > BERTH_STRATEGY_REGIONS || fit > BERTH_ALLOC_FIT_BEST ||
      !berth_is_pow2(o.alignment) || o.alignment > BERTH_FORMAT_MAX_ALIGNMENT || o.alloc_inputs < -1 ||
      o.alloc_inputs > 1 || o.alloc_outputs < -1 || o.alloc_outputs > 1 || budget_unit > BERTH_FORMAT_IR_BUDGET_WORK ||
      budget < 0)
    return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "section ir: a recorded planner option is out of range");
  o.algo = (berth_alloc_algo_t)algo;
  o.strategy = (berth_strategy_t)strategy;
  o.fit = (int)fit;
  o.pools = NULL;
  if (pools_len > 0) {
    if (!pools_buf || pools_len >= pools_cap)
      return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "section ir: pool rules of %u bytes do not fit",
                        (unsigned)pools_len);
    memcpy(pools_buf, ir + BERTH_FORMAT_IR_HEADER_SIZE, pools_len);
    pools_buf[pools_len] = '\0';
    if (strlen(pools_buf) != pools_len)
      return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "section ir: pool rules contain a NUL byte");
    o.pools = pools_buf;
  }
  *opt = o;
  *text = (const char *)ir + BERTH_FORMAT_IR_HEADER_SIZE + pools_len;
  *text_len = (size_t)tlen;
  return BERTH_OK;
}
