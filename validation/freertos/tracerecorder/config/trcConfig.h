/* latscope: TraceRecorder configuration for the real-FreeRTOS harness (written for this
 * harness; the recorder's own config/trcConfig.h documents every setting). */
#ifndef TRC_CONFIG_H
#define TRC_CONFIG_H

/* The harness has no CMSIS device header: the two things the Cortex-M hardware port takes
 * from it (the core number, the PRIMASK accessors) are defined here. unicorn runs the
 * Thumb code on an A-profile core, which has no PRIMASK (`mrs rN, primask` is undefined
 * there): the mask is the CPSR I bit that cpsid/cpsie set (harness/portmacro.h uses them
 * too), read with the encoding of `mrs r0, apsr`, which the A-profile core executes as
 * `mrs r0, cpsr`. On a real Cortex-M, include the device's CMSIS header instead. */
#define __CORTEX_M 3
static inline unsigned long __get_PRIMASK( void )
{
    register unsigned long r __asm( "r0" );
    __asm volatile ( ".inst.w 0xf3ef8000" : "=r" ( r ) );
    return ( r >> 7 ) & 1UL;
}
static inline void __set_PRIMASK( unsigned long m )
{
    if( m != 0UL ) { __asm volatile ( "cpsid i" ::: "memory" ); }
    else { __asm volatile ( "cpsie i" ::: "memory" ); }
}

/* Timestamps from DWT_CYCCNT, which the driver (run.py) serves from its own clock. */
#define TRC_CFG_HARDWARE_PORT TRC_HARDWARE_PORT_ARM_Cortex_M
#define TRC_CFG_SCHEDULING_ONLY 0
#define TRC_CFG_INCLUDE_MEMMANG_EVENTS 0
#define TRC_CFG_INCLUDE_USER_EVENTS 0
#define TRC_CFG_INCLUDE_ISR_TRACING 1
#define TRC_CFG_INCLUDE_READY_EVENTS 1
#define TRC_CFG_INCLUDE_OSTICK_EVENTS 1
#define TRC_CFG_ENTRY_SLOTS 32
#define TRC_CFG_ENTRY_SYMBOL_MAX_LENGTH 28
#define TRC_CFG_ENABLE_TASK_MONITOR 0
#define TRC_CFG_TASK_MONITOR_MAX_TASKS 10
#define TRC_CFG_ENABLE_STACK_MONITOR 0
#define TRC_CFG_STACK_MONITOR_MAX_TASKS 10
#define TRC_CFG_STACK_MONITOR_MAX_REPORTS 1
/* The recorder's control task (TzCtrl) runs at the idle priority: the driver never plays
 * its body, so at priority 1 it would share time slices with task J and change the
 * schedule; at 0 it only alternates with idle when nothing else is ready. */
#define TRC_CFG_CTRL_TASK_PRIORITY 0
#define TRC_CFG_CTRL_TASK_DELAY 10
#define TRC_CFG_CTRL_TASK_STACK_SIZE 64
#define TRC_CFG_RECORDER_BUFFER_ALLOCATION TRC_RECORDER_BUFFER_ALLOCATION_STATIC
#define TRC_CFG_MAX_ISR_NESTING 8
#define TRC_CFG_ISR_TAILCHAINING_THRESHOLD 0
#define TRC_CFG_RECORDER_DATA_INIT 1
#define TRC_CFG_RECORDER_DATA_ATTRIBUTE
#define TRC_CFG_USE_TRACE_ASSERT 0

#endif
