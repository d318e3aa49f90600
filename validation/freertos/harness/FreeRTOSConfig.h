/* latscope validation harness: FreeRTOS configuration (written for this harness). */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configUSE_PREEMPTION                    1
#ifndef configUSE_PORT_OPTIMISED_TASK_SELECTION
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#endif
#define configUSE_TICKLESS_IDLE                 0
#define configCPU_CLOCK_HZ                      84000000
#define configTICK_RATE_HZ                      1000
#define configMAX_PRIORITIES                    12
#define configMINIMAL_STACK_SIZE                64
#define configMAX_TASK_NAME_LEN                 8
#define configTICK_TYPE_WIDTH_IN_BITS           TICK_TYPE_WIDTH_32_BITS
#define configIDLE_SHOULD_YIELD                 1
#define configUSE_TIME_SLICING                  1
#ifdef HARNESS_SET_ISR
/* The second set's handler task waits for a notification from the peripheral interrupt. */
#define configUSE_TASK_NOTIFICATIONS            1
#else
#define configUSE_TASK_NOTIFICATIONS            0
#endif
#define configUSE_MUTEXES                       0
#define configUSE_RECURSIVE_MUTEXES             0
#define configUSE_COUNTING_SEMAPHORES           0
#define configQUEUE_REGISTRY_SIZE               0
#define configSUPPORT_STATIC_ALLOCATION         1
#define configSUPPORT_DYNAMIC_ALLOCATION        0
#define configUSE_IDLE_HOOK                     0
#define configUSE_TICK_HOOK                     0
#define configCHECK_FOR_STACK_OVERFLOW          0
#define configUSE_MALLOC_FAILED_HOOK            0
#define configUSE_TIMERS                        0
#define configUSE_CO_ROUTINES                   0
#define configUSE_TRACE_FACILITY                0
#define configUSE_STATS_FORMATTING_FUNCTIONS    0
#define configKERNEL_PROVIDED_STATIC_MEMORY     1

#define INCLUDE_xTaskDelayUntil                 1
#define INCLUDE_vTaskDelay                      1
#define INCLUDE_eTaskGetState                   1
#define INCLUDE_vTaskSuspend                    0

extern void harness_assert_failed( void );
#define configASSERT( x )    do { if( ( x ) == 0 ) { harness_assert_failed(); } } while( 0 )

/* A trace recorder's configuration, when one is built in (-DLATSCOPE_TRACE_CONFIG='"x.h"'):
 * it may redefine configUSE_TRACE_FACILITY and include the recorder's header. */
#ifdef LATSCOPE_TRACE_CONFIG
#include LATSCOPE_TRACE_CONFIG
#endif

#endif
