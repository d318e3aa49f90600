/* latscope validation harness: SEGGER SystemView built into the FreeRTOS harness (written
 * for this harness). Defines the harness's recorder hooks (harness_trace_init,
 * harness_isr_enter/exit) and the functions the trace macros of sv_trace_config.h call.
 *
 * Recording starts at harness_trace_init (as SEGGER_SYSVIEW_Start() on the target does
 * when recording from reset), into the RTT up-buffer of channel 1, which run.py dumps at
 * the end. With -DSV_DRAIN_BYTES=N a "probe" reads at most N bytes out of that buffer at
 * each tick into sv_host[] (a J-Link with a limited bandwidth): a small buffer then
 * overflows and SystemView writes real overflow packets. */
#include "FreeRTOS.h"
#include "task.h"
#include "SEGGER_SYSVIEW.h"
#include "SEGGER_RTT.h"

volatile unsigned sv_interrupt_id;

#define SV_MAX_TASKS 16
static SEGGER_SYSVIEW_TASKINFO sv_tasks[ SV_MAX_TASKS ];
static unsigned sv_ntasks;

#ifdef SV_DRAIN_BYTES
#ifndef SV_HOST_SIZE
#define SV_HOST_SIZE 262144
#endif
unsigned char sv_host[ SV_HOST_SIZE ];
volatile unsigned sv_host_len;
#endif

static void sv_send_task_list( void )
{
    for( unsigned i = 0; i < sv_ntasks; i++ )
    {
        SEGGER_SYSVIEW_SendTaskInfo( &sv_tasks[ i ] );
    }
}

static void sv_send_sys_desc( void )
{
    SEGGER_SYSVIEW_SendSysDesc( "N=latscope FreeRTOS harness,O=FreeRTOS,D=Cortex-M3" );
    SEGGER_SYSVIEW_SendSysDesc( "I#15=SysTick" );
#ifdef HARNESS_SET_ISR
    SEGGER_SYSVIEW_SendSysDesc( "I#21=Periph" );
#endif
}

static const SEGGER_SYSVIEW_OS_API sv_os_api = { 0, sv_send_task_list };

void harness_trace_init( void )
{
    SEGGER_SYSVIEW_Init( configCPU_CLOCK_HZ, configCPU_CLOCK_HZ, &sv_os_api, sv_send_sys_desc );
    SEGGER_SYSVIEW_Start();
}

void harness_isr_enter( void )
{
#ifdef SV_DRAIN_BYTES
    unsigned room = SV_HOST_SIZE - sv_host_len;
    unsigned n = room < SV_DRAIN_BYTES ? room : SV_DRAIN_BYTES;
    sv_host_len += SEGGER_RTT_ReadUpBufferNoLock( SEGGER_SYSVIEW_RTT_CHANNEL, &sv_host[ sv_host_len ], n );
#endif
    sv_interrupt_id = 15; /* SysTick */
    SEGGER_SYSVIEW_RecordEnterISR();
}

void harness_isr_exit( void )
{
    SEGGER_SYSVIEW_RecordExitISR();
    sv_interrupt_id = 0;
}

#ifdef HARNESS_SET_ISR
/* The second set's peripheral interrupt: external interrupt 5, exception number 21. */
void harness_irq_enter( void )
{
    sv_interrupt_id = 21;
    SEGGER_SYSVIEW_RecordEnterISR();
}

void harness_irq_exit( void )
{
    SEGGER_SYSVIEW_RecordExitISR();
    sv_interrupt_id = 0;
}
#endif

void sv_task_create( void * tcb, const char * name, unsigned long prio, void * stack )
{
    SEGGER_SYSVIEW_OnTaskCreate( ( U32 ) tcb );
    if( sv_ntasks < SV_MAX_TASKS )
    {
        SEGGER_SYSVIEW_TASKINFO * t = &sv_tasks[ sv_ntasks++ ];
        t->TaskID = ( U32 ) tcb;
        t->sName = name;
        t->Prio = ( U32 ) prio;
        t->StackBase = ( U32 ) stack;
        t->StackSize = configMINIMAL_STACK_SIZE * sizeof( StackType_t );
        t->StackUsage = 0;
        SEGGER_SYSVIEW_SendTaskInfo( t );
    }
}

void sv_task_ready( void * tcb )
{
    SEGGER_SYSVIEW_OnTaskStartReady( ( U32 ) tcb );
}

void sv_task_stop_ready( void * tcb, unsigned cause )
{
    SEGGER_SYSVIEW_OnTaskStopReady( ( U32 ) tcb, cause );
}

void sv_task_switched_in( void * tcb, void * idle )
{
    if( tcb == idle )
    {
        SEGGER_SYSVIEW_OnIdle();
    }
    else
    {
        SEGGER_SYSVIEW_OnTaskStartExec( ( U32 ) tcb );
    }
}
