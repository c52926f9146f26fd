/* Reset and fault handling for a Cortex-M4 with the FPU (the vector table, the C run-time
 * set-up), and the stack measurement: the reset handler paints the stack with a pattern, and
 * stack_high_water() later finds the deepest word that changed. */
#include "cortex_m_board.h"
#include "semihost.h"

#include <stdint.h>

/* From the linker script (mps2_an386.ld). */
extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint32_t __stack_limit[], __stack_top[];

int main(void);

#define STACK_PAINT 0xdeadbeefu

static inline uintptr_t current_sp(void) {
  uintptr_t sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

void stack_paint(void) {
  /* Every word below the caller's frame; this leaf function keeps its own state in registers. */
  for (volatile uint32_t *p = __stack_limit; (uintptr_t)p < current_sp() - 16; p++) *p = STACK_PAINT;
}

uintptr_t stack_high_water(void) {
  const uint32_t *p = __stack_limit;
  while (p < __stack_top && *p == STACK_PAINT) p++;
  return (uintptr_t)p;
}

size_t stack_size(void) { return (size_t)((uintptr_t)__stack_top - (uintptr_t)__stack_limit); }
uintptr_t stack_top(void) { return (uintptr_t)__stack_top; }

/* noinline: kept apart from the reset handler's first lines, which turn the FPU on. */
__attribute__((noinline)) static void c_runtime_init(void) {
  const uint32_t *src = __data_load;
  for (uint32_t *dst = __data_start; dst < __data_end;) *dst++ = *src++;
  for (uint32_t *dst = __bss_start; dst < __bss_end;) *dst++ = 0;
}

_Noreturn void Reset_Handler(void) {
  /* CPACR: full access to coprocessors 10 and 11 (the FPU); -mfloat-abi=hard code traps
   * (NOCP usage fault) without it. */
  *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
  /* CCR: trap every unaligned access (UNALIGN_TRP) and integer division by zero (DIV_0_TRP),
   * which the core would otherwise do silently (giving 0 for x / 0): the runtime must do
   * neither, and this run proves it for the code it executes. */
  *(volatile uint32_t *)0xE000ED14u |= (1u << 3) | (1u << 4);
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  stack_paint();
  c_runtime_init();
  semihost_exit(main() == 0);
}

static _Noreturn void Fault_Handler(void) {
  semihost_puts("berth-m4: fault (hard fault, memory, bus or usage fault, or an unexpected interrupt)\n", true);
  semihost_exit(false);
}

/* The 16 system vectors of ARMv7-M; the board's interrupts stay disabled. */
typedef void (*vector_t)(void);
__attribute__((section(".vectors"), used)) static const vector_t vectors[16] = {
    (vector_t)(uintptr_t)__stack_top, /* initial main stack pointer */
    Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
    0, 0, 0, 0,
    Fault_Handler, /* SVCall */
    Fault_Handler, /* DebugMonitor */
    0,
    Fault_Handler, /* PendSV */
    Fault_Handler, /* SysTick */
};
