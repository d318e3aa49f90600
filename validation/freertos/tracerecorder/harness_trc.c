/* latscope: the harness's recorder hooks for Percepio TraceRecorder (see harness.c): start
 * the recorder before the tasks are created, and mark the tick interrupt as the ISR
 * "SysTick" around xTaskIncrementTick (and, in the second set, -DHARNESS_SET_ISR, the
 * peripheral interrupt as the ISR "Periph" around its vTaskNotifyGiveFromISR). */
#include "FreeRTOS.h"
#include "task.h"

static TraceISRHandle_t systick;
#ifdef HARNESS_SET_ISR
static TraceISRHandle_t periph;
#endif

void harness_trace_init( void )
{
    ( void ) xTraceInitialize();
    ( void ) xTraceEnable( TRC_START );
    /* Priority as the recorder stores it (only shown in Tracealyzer). */
    ( void ) xTraceISRRegister( "SysTick", 1, &systick );
#ifdef HARNESS_SET_ISR
    ( void ) xTraceISRRegister( "Periph", 2, &periph );
#endif
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

#ifdef HARNESS_SET_ISR
void harness_irq_enter( void )
{
    ( void ) xTraceISRBegin( periph );
}

/* As for the tick: no pending switch is passed (the wrapper yields after this), so the
 * recorder writes the return to the interrupted task here and the switch follows as its
 * own event. Application code passes its xHigherPriorityTaskWoken; the recorder then
 * writes no ISR end, and latscope closes the handler at the switch that follows. */
void harness_irq_exit( void )
{
    ( void ) xTraceISREnd( 0 );
}
#endif
