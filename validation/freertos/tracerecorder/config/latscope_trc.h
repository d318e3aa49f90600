/* latscope: included at the end of the harness's FreeRTOSConfig.h
 * (-DLATSCOPE_TRACE_CONFIG='"latscope_trc.h"'): turns on the kernel's trace facility and
 * pulls in Percepio TraceRecorder's hooks, as the recorder's manual asks of FreeRTOSConfig.h. */
#undef configUSE_TRACE_FACILITY
#define configUSE_TRACE_FACILITY 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#ifndef __ASSEMBLER__
#include "trcRecorder.h"
#endif
