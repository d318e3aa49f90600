/* latscope validation harness: a minimal Cortex-M3 port header (written for this harness).
 * Critical sections mask interrupts with cpsid/cpsie and keep a nesting count, as a
 * Cortex-M port does; a yield only records that a switch is pending (the driver then
 * calls vTaskSwitchContext, as PendSV would). */
#ifndef PORTMACRO_H
#define PORTMACRO_H
#include <stdint.h>

#define portCHAR          char
#define portFLOAT         float
#define portDOUBLE        double
#define portLONG          long
#define portSHORT         short
#define portSTACK_TYPE    uint32_t
#define portBASE_TYPE     long

typedef portSTACK_TYPE   StackType_t;
typedef long             BaseType_t;
typedef unsigned long    UBaseType_t;
typedef uint32_t         TickType_t;
#define portMAX_DELAY              ( TickType_t ) 0xffffffffUL
#define portTICK_TYPE_IS_ATOMIC    1

#define portSTACK_GROWTH      ( -1 )
#define portTICK_PERIOD_MS    ( ( TickType_t ) 1000 / configTICK_RATE_HZ )
#define portBYTE_ALIGNMENT    8
#define portDONT_DISCARD      __attribute__( ( used ) )

extern volatile uint32_t harness_yield_pending;
#define portYIELD()                          do { harness_yield_pending = 1; } while( 0 )
#define portEND_SWITCHING_ISR( x )           do { if( ( x ) != 0 ) { portYIELD(); } } while( 0 )
#define portYIELD_FROM_ISR( x )              portEND_SWITCHING_ISR( x )

#define portDISABLE_INTERRUPTS()             __asm volatile ( "cpsid i" ::: "memory" )
#define portENABLE_INTERRUPTS()              __asm volatile ( "cpsie i" ::: "memory" )
extern void vPortEnterCritical( void );
extern void vPortExitCritical( void );
#define portENTER_CRITICAL()                 vPortEnterCritical()
#define portEXIT_CRITICAL()                  vPortExitCritical()
#define portSET_INTERRUPT_MASK_FROM_ISR()    ( { portDISABLE_INTERRUPTS(); 0; } )
#define portCLEAR_INTERRUPT_MASK_FROM_ISR( x ) do { ( void ) ( x ); portENABLE_INTERRUPTS(); } while( 0 )

#if configUSE_PORT_OPTIMISED_TASK_SELECTION == 1
    #define portRECORD_READY_PRIORITY( uxPriority, uxReadyPriorities )    ( uxReadyPriorities ) |= ( 1UL << ( uxPriority ) )
    #define portRESET_READY_PRIORITY( uxPriority, uxReadyPriorities )     ( uxReadyPriorities ) &= ~( 1UL << ( uxPriority ) )
    #define portGET_HIGHEST_PRIORITY( uxTopPriority, uxReadyPriorities )  uxTopPriority = ( 31UL - ( uint32_t ) __builtin_clz( ( uxReadyPriorities ) ) )
#endif

#define portTASK_FUNCTION_PROTO( vFunction, pvParameters )    void vFunction( void * pvParameters )
#define portTASK_FUNCTION( vFunction, pvParameters )          void vFunction( void * pvParameters )
#define portNOP()
#define portMEMORY_BARRIER()    __asm volatile ( "" ::: "memory" )
#endif
