/* The engine's timeline: see mcast_trace.h. */
#include "mcast_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "opal/sys/atomic.h"

#define TRACE_MAX (1u << 20)

typedef struct {
    uint64_t t_ns, call;
    size_t off, len;
    unsigned cid;
    int rank, slot, peer, status;
    uint8_t ev;
} trace_rec_t;

static int state = -1; /* -1 unread, 0 off, 1 on */
static const char *prefix;
static trace_rec_t *recs;
static volatile int32_t used;
static uint64_t dropped;
static volatile int64_t calls;

static void flush(void)
{
    if (NULL == recs) {
        return;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s.%ld.csv", prefix, (long) getpid());
    FILE *f = fopen(path, "w");
    if (NULL != f) {
        static const char *const names[] = {"begin", "post_send", "post_recv", "done", "end"};
        fprintf(f, "t_ns,cid,rank,call,event,slot,peer,off,len,status\n");
        const int n = used < (int32_t) TRACE_MAX ? used : (int32_t) TRACE_MAX;
        for (int i = 0; i < n; i++) {
            const trace_rec_t *r = &recs[i];
            fprintf(f, "%llu,%u,%d,%llu,%s,%d,%d,%zu,%zu,%d\n", (unsigned long long) r->t_ns,
                    r->cid, r->rank, (unsigned long long) r->call, names[r->ev], r->slot, r->peer,
                    r->off, r->len, r->status);
        }
        if (dropped > 0) {
            fprintf(f, "# %llu events dropped (buffer full)\n", (unsigned long long) dropped);
        }
        fclose(f);
    }
}

bool mcast_trace_on(void)
{
    if (state < 0) {
        prefix = getenv("MCAST_TRACE");
        state = NULL != prefix && '\0' != prefix[0] &&
                NULL != (recs = malloc(sizeof(*recs) * TRACE_MAX));
        if (state) {
            atexit(flush);
        }
    }
    return 1 == state;
}

uint64_t mcast_trace_call(void)
{
    return mcast_trace_on() ? (uint64_t) opal_atomic_add_fetch_64(&calls, 1) : 0;
}

void mcast_trace(mcast_trace_event_t ev, unsigned cid, int rank, uint64_t call, int slot, int peer,
                 size_t off, size_t len, int status)
{
    if (!mcast_trace_on()) {
        return;
    }
    const int32_t i = opal_atomic_add_fetch_32(&used, 1) - 1;
    if (i >= (int32_t) TRACE_MAX) {
        dropped++;
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    recs[i] = (trace_rec_t){(uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec, call,
                            off, len, cid, rank, slot, peer, status, (uint8_t) ev};
}
