/* latscope validation harness: RTT configuration (written for this harness). SEGGER's own
 * configuration (the crate's lib/Config/SEGGER_RTT_Conf.h) with one change: its Cortex-M3
 * lock saves and sets BASEPRI, a register the emulator's CPU model does not have. The
 * driver runs every call to completion (no interrupt can arrive inside one), so the lock
 * here masks interrupts with cpsid/cpsie as the harness port does, at a similar cost. */
#ifndef LATSCOPE_SEGGER_RTT_CONF_H
#define LATSCOPE_SEGGER_RTT_CONF_H
#include_next "SEGGER_RTT_Conf.h"
#undef SEGGER_RTT_LOCK
#undef SEGGER_RTT_UNLOCK
#define SEGGER_RTT_LOCK()    { __asm volatile ( "cpsid i" ::: "memory" );
#define SEGGER_RTT_UNLOCK()  __asm volatile ( "cpsie i" ::: "memory" ); }
#endif
