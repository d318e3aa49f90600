/* latscope: the harness's recorder hooks for Percepio TraceRecorder (see harness.c): start
 * the recorder before the tasks are created, and mark the tick interrupt as the ISR
 * "SysTick" around xTaskIncrementTick. */
#include "FreeRTOS.h"
#include "task.h"

static TraceISRHandle_t systick;

void harness_trace_init( void )
{
    ( void ) xTraceInitialize();
    ( void ) xTraceEnable( TRC_START );
    /* Priority as the recorder stores it (only shown in Tracealyzer). */
    ( void ) xTraceISRRegister( "SysTick", 1, &systick );
}

void harness_isr_enter( void )
{
    ( void ) xTraceISRBegin( systick );
}

/* The wrapper does not pass xTaskIncrementTick's result, so the recorder is told that no
 * switch is pending: it records the return to the interrupted task at the ISR's end, and
 * the switch PendSV would make follows as its own event (vTaskSwitchContext). */
void harness_isr_exit( void )
{
    ( void ) xTraceISREnd( 0 );
}
