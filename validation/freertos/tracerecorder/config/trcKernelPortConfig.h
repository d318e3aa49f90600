/* latscope: TraceRecorder FreeRTOS kernel-port configuration (written for this harness). */
#ifndef TRC_KERNEL_PORT_CONFIG_H
#define TRC_KERNEL_PORT_CONFIG_H

/* FreeRTOS-Kernel V11.2.0: "v11.1.0 or later" in the recorder's list. */
#define TRC_CFG_FREERTOS_VERSION TRC_FREERTOS_VERSION_11_1_0
#define TRC_CFG_INCLUDE_EVENT_GROUP_EVENTS 0
#define TRC_CFG_INCLUDE_TIMER_EVENTS 0
#define TRC_CFG_INCLUDE_PEND_FUNC_CALL_EVENTS 0
#define TRC_CFG_INCLUDE_STREAM_BUFFER_EVENTS 0
#define TRC_CFG_ACKNOWLEDGE_QUEUE_SET_SEND 0
#define TRC_CFG_KERNEL_PORT_TASK_MONITOR_TLS_INDEX 0

#endif
