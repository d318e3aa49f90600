/* latscope: TraceRecorder RingBuffer stream-port configuration (written for this harness). */
#ifndef TRC_STREAM_PORT_CONFIG_H
#define TRC_STREAM_PORT_CONFIG_H

#define TRC_STREAM_PORT_RINGBUFFER_MODE_STOP_WHEN_FULL      ( 0U )
#define TRC_STREAM_PORT_RINGBUFFER_MODE_OVERWRITE_WHEN_FULL ( 1U )

/* Bytes of event buffer: run.sh passes a size that holds the whole run (nothing lost), and
 * a small one for the run that loses events on purpose. */
#ifndef TRC_CFG_STREAM_PORT_BUFFER_SIZE
#define TRC_CFG_STREAM_PORT_BUFFER_SIZE 10240
#endif

/* Stop when full: events that do not fit are counted as dropped (the recorder's own
 * counter, which the importer reports as lost), not silently overwritten. */
#define TRC_CFG_STREAM_PORT_RINGBUFFER_MODE TRC_STREAM_PORT_RINGBUFFER_MODE_STOP_WHEN_FULL

#endif
