/* latscope validation harness: GPIO pins for a logic-analyzer capture of the real kernel
 * (written for this harness). The pins are bits of an STM32F1-style GPIO port's set/reset
 * register (GPIOB_BSRR, 0x40010C10: writing bit n sets pin n, bit n+16 clears it, so no
 * read-modify-write races the ISR). run.py --gpio records every write with the cycle
 * counter and writes the pins as a sigrok session.
 *   pin 0  IRQ      driven by run.py: the tick timer's compare output (rises when the tick
 *                   interrupt is requested, falls half a tick later)
 *   pin 1  SysTick  high from the tick handler's entry to its exit
 *   pin 2  Task     high while task A runs (set at its switch-in, cleared at any other) */
#include <stdint.h>

#define GPIO_BSRR      ( *( volatile uint32_t * ) 0x40010C10u )
#define PIN_SYSTICK    ( 1u << 1 )
#define PIN_TASK       ( 1u << 2 )

void harness_isr_enter( void ) { GPIO_BSRR = PIN_SYSTICK; }
void harness_isr_exit( void ) { GPIO_BSRR = PIN_SYSTICK << 16; }

void harness_gpio_switched_in( char first_letter_of_name )
{
    GPIO_BSRR = ( first_letter_of_name == 'A' ) ? PIN_TASK : ( PIN_TASK << 16 );
}
