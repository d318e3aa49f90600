/* latscope validation harness: ten periodic tasks on the real FreeRTOS kernel. The task
 * bodies never execute here: the Python driver (run.py) plays them, calling the kernel's
 * own functions at the instants the tasks and the tick interrupt would. */
#include "FreeRTOS.h"
#include "task.h"

#define NTASKS 10

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

void harness_init( void )
{
    harness_trace_init();
    static const char names[ NTASKS ][ 2 ] = { "A", "B", "C", "D", "E", "F", "G", "H", "I", "J" };
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
