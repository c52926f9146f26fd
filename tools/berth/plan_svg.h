/* The memory-plan picture of `berth plan --svg` (plan_svg.c). */
#ifndef BERTH_TOOLS_PLAN_SVG_H
#define BERTH_TOOLS_PLAN_SVG_H

#include "cli.h"

#include <stdbool.h>
#include <stdio.h>

/* Writes an SVG document with one panel per method and pool of c. False if out of memory
 * (the caller discards the file). */
bool berth_plan_svg_write(FILE *f, const berth_compilation_t *c);

#endif
