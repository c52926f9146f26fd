/* What the startup code (cortex_m_startup.c) offers the program: the stack's bounds and its
 * measurement. The stack is painted with a pattern at reset; stack_paint() paints it again
 * below the caller's frame, and stack_high_water() returns the lowest address written since. */
#ifndef BERTH_CORTEX_M_BOARD_H
#define BERTH_CORTEX_M_BOARD_H

#include <stddef.h>
#include <stdint.h>

void stack_paint(void);
uintptr_t stack_high_water(void);
size_t stack_size(void);
uintptr_t stack_top(void);

#endif
