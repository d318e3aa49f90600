/* latscope validation harness: the FreeRTOS trace macro that drives a GPIO pin at every
 * switch-in (written for this harness; included at the end of FreeRTOSConfig.h through
 * LATSCOPE_TRACE_CONFIG). Task A (the highest priority, 5 ms period) owns the "Task" pin:
 * high while A runs, as a task toggling a pin around its work would show it on a logic
 * analyzer. The tick ISR's pin is set in harness_gpio.c. */
#ifndef GPIO_CONFIG_H
#define GPIO_CONFIG_H

extern void harness_gpio_switched_in( char first_letter_of_name );

#define traceTASK_SWITCHED_IN()    harness_gpio_switched_in( pxCurrentTCB->pcTaskName[ 0 ] )

#endif
