/* latscope validation harness: ten periodic tasks on the real FreeRTOS kernel. The task
 * bodies never execute here: the Python driver (run.py) plays them, calling the kernel's
 * own functions at the instants the tasks and the tick interrupt would.
 *
 * Built with -DHARNESS_SET_ISR it is the second set instead: four of the Table 1 tasks and
 * a handler task released by a peripheral interrupt (harness_irq) through a task
 * notification. Without it the code is exactly that of the ten-task build. */
#include "FreeRTOS.h"
#include "task.h"

#ifdef HARNESS_SET_ISR
#define NTASKS 5
#else
#define NTASKS 10
#endif

volatile uint32_t harness_yield_pending;
volatile uint32_t harness_asserts;
static volatile UBaseType_t uxCriticalNesting = 0xaaaaaaaa;

void harness_assert_failed( void ) { harness_asserts++; }

void vPortEnterCritical( void )
{
    portDISABLE_INTERRUPTS();
    uxCriticalNesting++;
}

void vPortExitCritical( void )
{
    uxCriticalNesting--;
    if( uxCriticalNesting == 0 ) { portENABLE_INTERRUPTS(); }
}

StackType_t * pxPortInitialiseStack( StackType_t * pxTopOfStack, TaskFunction_t pxCode, void * pvParameters )
{
    ( void ) pxCode;
    ( void ) pvParameters;
    return pxTopOfStack - 16;
}

BaseType_t xPortStartScheduler( void )
{
    uxCriticalNesting = 0;
    return pdTRUE;
}

void vPortEndScheduler( void ) {}

/* Filled in by the driver before harness_init. */
volatile uint32_t harness_period_ticks[ NTASKS ];
volatile uint32_t harness_priority[ NTASKS ];
static TickType_t last_wake[ NTASKS ];
static StaticTask_t tcbs[ NTASKS ];
static StackType_t stacks[ NTASKS ][ configMINIMAL_STACK_SIZE ];
TaskHandle_t harness_handles[ NTASKS ];

static void task_body( void * p ) { ( void ) p; for( ;; ) {} }

/* Hooks for a trace recorder built into the harness (validation/freertos/tracerecorder/,
 * systemview/): its own source file defines them; without one they do nothing. */
__attribute__( ( weak ) ) void harness_trace_init( void ) {}
__attribute__( ( weak ) ) void harness_isr_enter( void ) {}
__attribute__( ( weak ) ) void harness_isr_exit( void ) {}

/* The tick interrupt as the driver plays it with --tick-fn harness_tick: the recorder's ISR
 * entry, the kernel's tick, the ISR exit (the plain driver calls xTaskIncrementTick). */
BaseType_t harness_tick( void )
{
    harness_isr_enter();
    BaseType_t r = xTaskIncrementTick();
    harness_isr_exit();
    return r;
}

#ifdef HARNESS_SET_ISR
/* The peripheral interrupt's hooks for a recorder, as harness_isr_enter/exit for the tick. */
__attribute__( ( weak ) ) void harness_irq_enter( void ) {}
__attribute__( ( weak ) ) void harness_irq_exit( void ) {}

/* The peripheral interrupt as the driver plays it: the recorder's ISR entry, a notification
 * to the handler task (the last task), the ISR exit, then the yield a Cortex-M handler asks
 * for when it woke a more urgent task (portYIELD_FROM_ISR). Returns whether it did. */
BaseType_t harness_irq( void )
{
    BaseType_t woken = pdFALSE;
    harness_irq_enter();
    vTaskNotifyGiveFromISR( harness_handles[ NTASKS - 1 ], &woken );
    harness_irq_exit();
    portYIELD_FROM_ISR( woken );
    return woken;
}

/* The handler task's wait for the next interrupt (the end of its job). The driver stops
 * this call at its yield and resumes it, on the task's own stack, when the kernel switches
 * the task back in: the rest of ulTaskNotifyTake (taking the notification) runs then, as
 * on a real CPU. */
void harness_notify_take( void )
{
    ( void ) ulTaskNotifyTake( pdTRUE, portMAX_DELAY );
}
#endif

void harness_init( void )
{
    harness_trace_init();
#ifdef HARNESS_SET_ISR
    static const char names[ NTASKS ][ 8 ] = { "A", "B", "C", "D", "Handler" };
#else
    static const char names[ NTASKS ][ 2 ] = { "A", "B", "C", "D", "E", "F", "G", "H", "I", "J" };
#endif
    for( int i = 0; i < NTASKS; i++ )
    {
        harness_handles[ i ] = xTaskCreateStatic( task_body, names[ i ], configMINIMAL_STACK_SIZE,
                                                  ( void * ) i, harness_priority[ i ], stacks[ i ], &tcbs[ i ] );
        last_wake[ i ] = 0;
    }
    vTaskStartScheduler();
}

/* Task i's job ends: block until its next release (what the task body would call). */
void harness_delay_until( uint32_t i )
{
    ( void ) xTaskDelayUntil( &last_wake[ i ], harness_period_ticks[ i ] );
}

/* The number of the ten tasks that are blocked (not counted as kernel cost). */
uint32_t harness_blocked( void )
{
    uint32_t n = 0;
    for( int i = 0; i < NTASKS; i++ )
    {
        if( eTaskGetState( harness_handles[ i ] ) == eBlocked ) { n++; }
    }
    return n;
}

int main( void ) { for( ;; ) {} }
void _start( void ) { main(); }
