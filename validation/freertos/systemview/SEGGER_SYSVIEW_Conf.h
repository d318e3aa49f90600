/* latscope validation harness: SystemView configuration for the SEGGER target sources
 * (written for this harness; found before the crate's lib/Config/SEGGER_SYSVIEW_Conf.h).
 * Timestamps are the Cortex-M cycle counter, which run.py serves from its own clock; the
 * interrupt id is the one the harness's tick wrapper sets (the emulator has no ICSR). */
#ifndef SEGGER_SYSVIEW_CONF_H
#define SEGGER_SYSVIEW_CONF_H

#ifndef SV_BUFFER_SIZE
#define SV_BUFFER_SIZE 131072
#endif
#define SEGGER_SYSVIEW_RTT_BUFFER_SIZE     SV_BUFFER_SIZE
#define SEGGER_SYSVIEW_RTT_CHANNEL         1
/* Task ids are TCB addresses: RAM base subtracted and shifted right by 2 (TCBs are word
 * aligned), which the INIT packet tells the host. */
#define SEGGER_SYSVIEW_ID_BASE             0x20000000u
#define SEGGER_SYSVIEW_ID_SHIFT            2
#define SEGGER_SYSVIEW_TIMESTAMP_BITS      32
#define SEGGER_SYSVIEW_GET_TIMESTAMP()     ( *( volatile unsigned long * ) 0xE0001004uL )
extern volatile unsigned sv_interrupt_id;
#define SEGGER_SYSVIEW_GET_INTERRUPT_ID()  ( sv_interrupt_id )

#endif
