/* Output and exit through ARM semihosting: the debugger (here QEMU with
 * -semihosting-config enable=on,target=native) services `bkpt 0xab`. No stdio, no heap. */
#ifndef BERTH_SEMIHOST_H
#define BERTH_SEMIHOST_H

#include <stdbool.h>

/* Writes the NUL-terminated string to the host's stdout (toerr: stderr). */
void semihost_puts(const char *s, bool toerr);
/* Ends the program: QEMU exits with 0 when ok, else with 1. */
_Noreturn void semihost_exit(bool ok);

#endif
