/* latscope validation harness: FreeRTOS trace macros -> SEGGER SystemView (written for
 * this harness; included at the end of FreeRTOSConfig.h through LATSCOPE_TRACE_CONFIG).
 * The events are the ones SystemView's FreeRTOS integration records: task create (with
 * its name and priority), ready, start of execution (or idle), stop of readiness with a
 * cause (a delay, or in the second set the handler task's wait for a notification); the
 * ISRs' entry and exit come from harness_sysview.c. */
#ifndef SV_TRACE_CONFIG_H
#define SV_TRACE_CONFIG_H

/* Causes sent with TASK_STOP_READY (the host shows them as numbers). */
#define SV_CAUSE_DELAY          1u
#define SV_CAUSE_DELAY_UNTIL    2u
#define SV_CAUSE_NOTIFY_TAKE    3u

extern void sv_task_create( void * tcb, const char * name, unsigned long prio, void * stack );
extern void sv_task_ready( void * tcb );
extern void sv_task_stop_ready( void * tcb, unsigned cause );
extern void sv_task_switched_in( void * tcb, void * idle );

#define traceTASK_CREATE( pxNewTCB ) \
    sv_task_create( ( pxNewTCB ), ( pxNewTCB )->pcTaskName, ( pxNewTCB )->uxPriority, ( pxNewTCB )->pxStack )
#define traceMOVED_TASK_TO_READY_STATE( pxTCB )    sv_task_ready( pxTCB )
#define traceTASK_DELAY_UNTIL( xTimeToWake )       sv_task_stop_ready( pxCurrentTCB, SV_CAUSE_DELAY_UNTIL )
#define traceTASK_DELAY()                          sv_task_stop_ready( pxCurrentTCB, SV_CAUSE_DELAY )
/* The second set's handler task waiting for its interrupt (-DHARNESS_SET_ISR). */
#define traceTASK_NOTIFY_TAKE_BLOCK( uxIndexToWait ) sv_task_stop_ready( pxCurrentTCB, SV_CAUSE_NOTIFY_TAKE )
#define traceTASK_SWITCHED_IN()                    sv_task_switched_in( pxCurrentTCB, xIdleTaskHandles[ 0 ] )

#endif
