/*
 * A timeline of the engine's point-to-point ops, for finding where a broadcast waits
 * (perf/README.md, "Traces").  Off unless the environment names a file prefix:
 *
 *   MCAST_TRACE=/tmp/tr mpirun ...     each process writes /tmp/tr.<pid>.csv at exit:
 *     t_ns,cid,rank,call,event,slot,peer,off,len,status
 *   event: begin (call posted: len = message bytes), post_send, post_recv, done (the op
 *   completed: status its MPI error), end (the call's engine is done)
 *
 * Times are CLOCK_MONOTONIC (comparable between the processes of one machine, which is
 * where the emulated cluster runs).  Events go to a buffer of 2^20 per process (the rest
 * are counted and dropped); writing happens at exit, never while a call runs.
 */
#ifndef MCAST_TRACE_H
#define MCAST_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    MCAST_TR_BEGIN = 0,
    MCAST_TR_POST_SEND,
    MCAST_TR_POST_RECV,
    MCAST_TR_DONE,
    MCAST_TR_END
} mcast_trace_event_t;

/* Whether tracing is on (read once). */
bool mcast_trace_on(void);
/* A new call's number (0 when tracing is off). */
uint64_t mcast_trace_call(void);
void mcast_trace(mcast_trace_event_t ev, unsigned cid, int rank, uint64_t call, int slot, int peer,
                 size_t off, size_t len, int status);

#endif /* MCAST_TRACE_H */
