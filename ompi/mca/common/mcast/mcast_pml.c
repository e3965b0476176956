/*
 * PML transport and drivers (see mcast_pml.h for the contract).
 *
 *   post(op)          isend / irecv of the op's bytes into slot's request
 *   poll              every active slot: completed?  -> length check, unpack,
 *                                                       mcast_engine_complete(slot)
 *   idle (1024 polls  probe: last message of a peer where more was expected -> cancel
 *   without progress)        its receives, mcast_engine_peer_ended; extra messages of a
 *                            peer whose last we await -> drain them
 *   last receive      also a sentinel: a receive of the stream's other tag from the
 *   from a peer       same peer, cancelled once the last message came; matched, the
 *                    peer sent more than we expect (instead of a probe, whose
 *                    opal_progress delayed every small call's completion)
 *   blocking          poll / opal_progress until the engine is done
 *   nonblocking       a progress function polls every active Ibcast; the request
 *                     completes when its engine is done
 *   no memory         a rank that cannot set its call up (slots, engine, request) runs
 *                     its schedule without data (void_run): its peers end with
 *                     MPI_ERR_TRUNCATE where they depend on it, never wait for it
 */
#include "mcast_pml.h"

#include <assert.h>
#include "mcast_glue.h"
#include "mcast_status_mpi.h"
#include "mcast_dtio.h"
#include "mcast_trace.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ompi/constants.h"
#include "opal/sys/atomic.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/message/message.h"
#include "opal/runtime/opal_progress.h"
#include "ompi/mca/common/mcast/mcast_compat.h"

#define MCAST_IDLE_PROBE 1024 /* polls without progress between two probes */
#define MCAST_VOID_POSTED 1024 /* void_run's requests of a kind (coll_kbinomial_window's bound) */

typedef struct mcast_slot {
    ompi_request_t *req;
    bool active;
    int kind;      /* mcast_op_kind_t */
    int peer;
    size_t off, len;
    unsigned flags;
    int err;       /* a local failure to report at completion */
    unsigned long seq; /* post order */
    char *stage;   /* staging (non-contiguous datatypes) */
    size_t stage_cap;
    void *sink;    /* a receive without memory for it: its message's room (mcast_pages_map) */
    /* a last receive's sentinel (xport_post; NULL: none, then the probe) */
    ompi_request_t *sentinel;
} mcast_slot_t;

/* A message taken off the queue and dropped once it arrived: its buffer, malloc'ed
 * (maplen 0) or mapped (mcast_pages_map). */
typedef struct {
    char *p;
    size_t maplen;
} mcast_sinkbuf_t;

typedef struct mcast_call {
    mcast_engine_t *engine;
    bool own_engine;
    mcast_sched_t *sched;
    mcast_sched_ref_t *sched_ref; /* sched is shared with a memo (NULL: the call's own) */
    mcast_engine_params_t ep;
    struct ompi_communicator_t *comm;
    int tag, tag_last;
    char *base;          /* contiguous: the packed stream in place */
    bool staged;
    void *buf;
    int count;
    struct ompi_datatype_t *dtype;
    int nslots;
    mcast_slot_t *slots; /* room for slots_cap of them */
    int slots_cap;
    long idle;
    unsigned long posts;
    int *drain;          /* peers sending more than we expect */
    int ndrain;
    /* messages taken off a peer that sent more than expected, still arriving: polled,
     * never waited for (a wait inside Open MPI's progress engine cannot progress under
     * MPI_THREAD_MULTIPLE) */
    ompi_request_t **sinks;
    mcast_sinkbuf_t *sink_bufs;
    int nsinks, sinks_cap;
    uint64_t trace;      /* the call's number in the timeline (mcast_trace.h), 0: off */
    bool traced_end;
    mcast_dtio_t io;     /* staged: ranges through the convertor (last: call_setup) */
} mcast_call_t;

bool mcast_signature_bytes(int count, struct ompi_datatype_t *dtype, size_t *bytes)
{
    size_t tsize = 0;
    if (count < 0) {
        return false;
    }
    ompi_datatype_type_size(dtype, &tsize);
    if (0 != tsize && (size_t) count > SIZE_MAX / tsize) {
        return false;
    }
    *bytes = tsize * (size_t) count;
    return true;
}

/* (mcast_pml.h) Room for a whole message this rank must take although it has no memory
 * for it (a local failure: the message is consumed and dropped): address space mapped on
 * demand, whose pages exist only once written.  Never a buffer shorter than the message:
 * Open MPI 5.0.7's single-copy path (smsc/cma) writes a truncated message's full length
 * past a short receive buffer (docs/evidence.md E-OMPI5-3).  NULL: not even that. */
void *mcast_pages_map(size_t len)
{
    if (0 == len) {
        return NULL;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return MAP_FAILED == p ? NULL : p;
}

void mcast_pages_unmap(void *p, size_t len)
{
    if (NULL != p) {
        munmap(p, len);
    }
}

static bool grow(char **p, size_t *cap, size_t want)
{
    if (*cap >= want) {
        return true;
    }
    char *q = realloc(*p, want);
    if (NULL == q) {
        return false;
    }
    *p = q;
    *cap = want;
    return true;
}

/* ---- the transport -------------------------------------------------------- */

static int unpack_range(mcast_call_t *c, mcast_slot_t *s)
{
    return mcast_dtio_unpack(&c->io, s->off, s->len, s->stage);
}

static void finish_slot(mcast_call_t *c, int i);

/* A slot whose completion asks the PML for a longer stream (finish_slot): a last receive.
 * Its probe (no sentinel) runs opal_progress; a sentinel's cancel does not in ob1 and
 * ucx but may in a PML that waits for a cancel to be confirmed (cm's MTLs): either way
 * not inside a nonblocking call's start. */
static bool probes_at_finish(const mcast_slot_t *s)
{
    return MCAST_OP_RECV == s->kind && (s->flags & MCAST_XF_LAST);
}

/* The sentinel's datatype: two bytes with a gap between them.  ob1 reads a message above
 * its eager size straight into a contiguous receive buffer, all of it, also beyond a
 * shorter buffer; into a buffer with gaps it goes through the convertor, which stops at
 * the buffer's end.  ucx truncates without writing past a buffer and builds a generic
 * datatype of its own for one with gaps, which costs per call: there the sentinel is 0
 * contiguous bytes (E-PROBE-1).  Made at the first use, kept to mcast_pml_fini; NULL:
 * could not be made (then the probe). */
static opal_mutex_t sentinel_lock = OPAL_MUTEX_STATIC_INIT;
static ompi_datatype_t *sentinel_type = NULL;
static bool sentinel_tried = false;
static char sentinel_room[3];

static ompi_datatype_t *sentinel_datatype(void)
{
    /* made once: later calls read it without the lock (the flag is stored after it) */
    if (__atomic_load_n(&sentinel_tried, __ATOMIC_ACQUIRE)) {
        return sentinel_type;
    }
    OPAL_THREAD_LOCK(&sentinel_lock);
    if (!sentinel_tried) {
        const int len[2] = {1, 1}, disp[2] = {0, 2};
        ompi_datatype_t *t = NULL;
        if (OMPI_SUCCESS == ompi_datatype_create_indexed(2, len, disp, &ompi_mpi_byte.dt, &t)) {
            if (OMPI_SUCCESS == ompi_datatype_commit(&t)) {
                sentinel_type = t;
            } else {
                ompi_datatype_destroy(&t);
            }
        }
        __atomic_store_n(&sentinel_tried, true, __ATOMIC_RELEASE);
    }
    ompi_datatype_t *t = sentinel_type;
    OPAL_THREAD_UNLOCK(&sentinel_lock);
    return t;
}

/* The sentinel of a last receive from s->peer: a receive of c->tag posted after every
 * receive of ours with that tag from the peer.  The peer's messages match in the order
 * it sent them, so once its last message (c->tag_last) came, a message of c->tag it sent
 * before that one and we did not expect has matched the sentinel (or waits in the queue,
 * where a sentinel posted later takes it).  A probe answered the same but runs
 * opal_progress when nothing matches: on the TCP BTL one more turn of the event loop
 * before every small call returned (E-PROBE-1).  Tags differ per call, so the sentinel
 * never takes a later call's message. */
static void sentinel_post(mcast_call_t *c, mcast_slot_t *s)
{
    const bool contiguous = mcast_pml_ucx();
    ompi_datatype_t *t = contiguous ? &ompi_mpi_byte.dt : sentinel_datatype();
    ompi_request_t *r = MPI_REQUEST_NULL;
    const int rc = NULL != t ? MCA_PML_CALL(irecv(sentinel_room, contiguous ? 0 : 1, t, s->peer,
                                                  c->tag, c->comm, &r))
                             : OMPI_ERROR;
    s->sentinel = OMPI_SUCCESS == rc ? r : NULL; /* (none: the probe instead) */
}

/* Cancels and frees s's sentinel; true when it had matched (a message we did not expect).
 * A PML completes a cancelled receive at once (ob1, ucx); one still open after the cancel
 * had matched, and the PML frees it once its message is in (its room is static: what
 * it writes there is never read). */
static bool sentinel_settle(mcast_slot_t *s)
{
    if (NULL == s->sentinel) {
        return false;
    }
    ompi_request_cancel(s->sentinel);
    const bool matched = !REQUEST_COMPLETE(s->sentinel) || !s->sentinel->req_status._cancelled;
    ompi_request_free(&s->sentinel);
    s->sentinel = NULL;
    return matched;
}

static int xport_post(void *ctx, int slot, mcast_op_kind_t kind, int peer, size_t off, size_t len,
                      unsigned flags)
{
    mcast_call_t *c = ctx;
    mcast_slot_t *s = &c->slots[slot];
    static char nothing[1];
    const int tag = (flags & MCAST_XF_LAST) ? c->tag_last : c->tag;
    char *data = nothing;
    s->kind = kind;
    s->peer = peer;
    s->off = off;
    s->len = len;
    s->flags = flags;
    s->err = OMPI_SUCCESS;
    s->seq = c->posts++;
    s->sentinel = NULL;
    if (0 != c->trace) {
        mcast_trace(MCAST_OP_SEND == kind ? MCAST_TR_POST_SEND : MCAST_TR_POST_RECV,
                    mcast_comm_id(c->comm), ompi_comm_rank(c->comm), c->trace, slot, peer, off,
                    len, 0);
    }
    if (len > (size_t) INT_MAX) {
        s->err = MPI_ERR_COUNT;
        len = 0; /* keep the peer in step: an empty message it will reject */
    } else if (flags & MCAST_XF_VOID) {
        /* error mode: `nothing` (below) */
    } else if (len > 0 && !c->staged) {
        data = c->base + off;
    } else if (len > 0 && MCAST_OP_SEND == kind) {
        size_t packed = 0;
        const int prc = grow(&s->stage, &s->stage_cap, len)
                            ? mcast_dtio_pack(&c->io, off, len, len, s->stage, &packed)
                            : OMPI_ERR_OUT_OF_RESOURCE;
        if (OMPI_SUCCESS == prc) {
            data = s->stage;
        } else {
            s->err = prc;
            len = 0; /* the receiver sees the length mismatch */
        }
    } else if (len > 0) {
        if (grow(&s->stage, &s->stage_cap, len)) {
            data = s->stage;
        } else {
            /* consume the message anyway, into room of its size (else it truncates) */
            s->err = OMPI_ERR_OUT_OF_RESOURCE;
            s->sink = mcast_pages_map(len);
            if (NULL != s->sink) {
                data = s->sink;
            } else {
                len = 0;
            }
        }
    }
    /* An empty receive (a notice, or one the error paths above emptied) takes a longer
     * message as the sentinel does, truncated without writing past its room; an error
     * mode's send never sends the buffer's bytes (one byte in place of a notice). */
    ompi_datatype_t *rtype = &ompi_mpi_byte.dt;
    int rcount = (int) len;
    if (flags & MCAST_XF_VOID) {
        data = nothing;
    } else if (MCAST_OP_RECV == kind && 0 == len) {
        data = sentinel_room;
        if (!mcast_pml_ucx() && NULL != sentinel_datatype()) {
            rtype = sentinel_datatype();
            rcount = 1;
        }
    }
    int rc = (MCAST_OP_SEND == kind)
                 ? MCA_PML_CALL(isend(data, (int) len, MPI_BYTE, peer, tag,
                                      (flags & MCAST_XF_SYNC) ? MCA_PML_BASE_SEND_SYNCHRONOUS
                                                              : MCA_PML_BASE_SEND_STANDARD,
                                      c->comm, &s->req))
                 : MCA_PML_CALL(irecv(data, rcount, rtype, peer, tag, c->comm, &s->req));
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    s->active = true;
    if (MCAST_OP_RECV == kind && (flags & MCAST_XF_LAST)) {
        sentinel_post(c, s);
    }
    if (REQUEST_COMPLETE(s->req) && !(probes_at_finish(s) && mcast_calltime())) {
        /* done inside the PML's call (an eager send written out, a receive whose message
         * had come): the engine's next op goes now, not a progress turn later, when
         * a rank yielding when idle may lose its core for a scheduler turn (issue 48).
         * Not a last receive inside a nonblocking call's start: its completion probes
         * the PML, which progresses (mcast_calltime); the first progress turn takes it. */
        finish_slot(c, slot);
    }
    return 0;
}

/* A finished request: its error, with a length mismatch as truncation. */
static int finish_request(mcast_call_t *c, mcast_slot_t *s)
{
    int st = s->req->req_status.MPI_ERROR;
    if (OMPI_SUCCESS == st && MCAST_OP_RECV == s->kind && 0 == s->err &&
        s->req->req_status._ucount != s->len) {
        st = MPI_ERR_TRUNCATE; /* the sender's message was shorter */
    }
    ompi_request_free(&s->req);
    s->req = MPI_REQUEST_NULL;
    mcast_pages_unmap(s->sink, s->len);
    s->sink = NULL;
    if (OMPI_SUCCESS == st && MCAST_OP_RECV == s->kind && c->staged && s->len > 0 && 0 == s->err) {
        st = unpack_range(c, s);
    }
    return (OMPI_SUCCESS != s->err) ? s->err : st;
}

static bool probe(mcast_call_t *c, int peer, int tag);
static void add_drain(mcast_call_t *c, int peer);

/* Slot i's request completed: hand its status to the engine. */
static void finish_slot(mcast_call_t *c, int i)
{
    mcast_slot_t *s = &c->slots[i];
    int st = finish_request(c, s);
    /* Our last message from this peer came: had the peer more to send (its
     * signature is longer), those messages are already here (matching is ordered per
     * peer), unmatched.  Then this block is not the peer's block at our index: fail
     * it before it is forwarded, and drain the peer (also when the last message
     * already failed by its length: the peer's earlier, longer stream must not be
     * left unmatched, or its sends never complete). */
    if (MCAST_OP_RECV == s->kind && (s->flags & MCAST_XF_LAST) &&
        (NULL != s->sentinel ? sentinel_settle(s) : probe(c, s->peer, c->tag))) {
        st = MPI_ERR_TRUNCATE;
        add_drain(c, s->peer);
    }
    s->active = false;
    if (0 != c->trace) {
        mcast_trace(MCAST_TR_DONE, mcast_comm_id(c->comm), ompi_comm_rank(c->comm),
                    c->trace, i, s->peer, s->off, s->len, st);
    }
    mcast_engine_complete(c->engine, i, st);
}

/* quiet: inside a nonblocking call's start (mcast_calltime): the slots whose completion
 * probes wait for a progress turn. */
static int poll_slots(mcast_call_t *c, bool quiet)
{
    int progressed = 0;
    for (int i = 0; i < c->nslots; i++) {
        mcast_slot_t *s = &c->slots[i];
        if (!s->active || !REQUEST_COMPLETE(s->req) || (quiet && probes_at_finish(s))) {
            continue;
        }
        finish_slot(c, i);
        progressed++;
    }
    return progressed;
}

static void sinkbuf_free(mcast_sinkbuf_t *b)
{
    if (0 != b->maplen) {
        mcast_pages_unmap(b->p, b->maplen);
    } else {
        free(b->p);
    }
    b->p = NULL;
}

/* Takes one message of (peer, tag) off the queue, if one is there: received into a buffer
 * of its own and dropped once it arrived (poll_sinks). */
static bool take_message(mcast_call_t *c, int peer, int tag)
{
    int matched = 0;
    ompi_message_t *msg = NULL;
    ompi_status_public_t st;
    mcast_noyield_begin(); /* as in probe() */
    const int rc = MCA_PML_CALL(improbe(peer, tag, c->comm, &matched, &msg, &st));
    mcast_noyield_end();
    if (OMPI_SUCCESS != rc || !matched) {
        return false;
    }
    size_t len = st._ucount > INT_MAX ? 0 : st._ucount;
    size_t maplen = 0;
    char *buf = malloc(len > 0 ? len : 1);
    if (NULL == buf && NULL != (buf = mcast_pages_map(len))) {
        maplen = len;
    }
    if (NULL == buf) {
        len = 0; /* truncates: still consumed */
    }
    if (c->nsinks == c->sinks_cap) {
        const int cap = c->sinks_cap ? 2 * c->sinks_cap : 8;
        ompi_request_t **r = realloc(c->sinks, sizeof(*r) * (size_t) cap);
        if (NULL != r) {
            c->sinks = r;
        }
        mcast_sinkbuf_t *b = realloc(c->sink_bufs, sizeof(*b) * (size_t) cap);
        if (NULL != b) {
            c->sink_bufs = b;
        }
        if (NULL != r && NULL != b) {
            c->sinks_cap = cap;
        }
    }
    ompi_request_t *req = MPI_REQUEST_NULL;
    static char none[1];
    if (OMPI_SUCCESS != MCA_PML_CALL(imrecv(NULL != buf ? buf : none, (int) len, MPI_BYTE, &msg,
                                            &req))) {
        mcast_sinkbuf_t b = {buf, maplen};
        sinkbuf_free(&b);
        return true;
    }
    if (c->nsinks == c->sinks_cap) {
        /* no room to keep it: the request goes, the PML completes it on its own, into buf,
         * which therefore stays (a leak on a path that had no memory anyway) */
        ompi_request_free(&req);
        return true;
    }
    c->sinks[c->nsinks] = req;
    c->sink_bufs[c->nsinks++] = (mcast_sinkbuf_t){buf, maplen};
    return true;
}

/* Drops the taken messages that arrived; true when none is left. */
static bool poll_sinks(mcast_call_t *c)
{
    for (int k = 0; k < c->nsinks; k++) {
        if (REQUEST_COMPLETE(c->sinks[k])) {
            ompi_request_free(&c->sinks[k]);
            sinkbuf_free(&c->sink_bufs[k]);
            c->sinks[k] = c->sinks[--c->nsinks];
            c->sink_bufs[k--] = c->sink_bufs[c->nsinks];
        }
    }
    return 0 == c->nsinks;
}

/* The PML's probes run opal_progress once when nothing matches, and opal_progress
 * yields the CPU when it found no event and the job is oversubscribed
 * (mpi_yield_when_idle): a probe whose answer is almost always "no" would then give
 * the core away after every last receive (4 ranks on 2 cores: 13-17 us per 8-byte
 * bcast instead of 1.4).  The probe itself must not yield. */
static bool probe(mcast_call_t *c, int peer, int tag)
{
    int flag = 0;
    ompi_status_public_t st;
    mcast_noyield_begin();
    const bool ok = OMPI_SUCCESS == MCA_PML_CALL(iprobe(peer, tag, c->comm, &flag, &st)) && flag;
    mcast_noyield_end();
    return ok;
}

/* A peer's stream ended before ours: its last message came where we expected more. */
static void peer_ended(mcast_call_t *c, int peer)
{
    take_message(c, peer, c->tag_last);
    /* first tell the engine (it posts nothing more from this peer), then cancel what is
     * posted */
    mcast_engine_peer_ended(c->engine, peer, MPI_ERR_TRUNCATE);
    for (int i = 0; i < c->nslots; i++) {
        mcast_slot_t *s = &c->slots[i];
        if (!s->active || MCAST_OP_RECV != s->kind || s->peer != peer) {
            continue;
        }
        ompi_request_cancel(s->req);
        if (!REQUEST_COMPLETE(s->req)) {
            /* it had matched: its data are arriving, and it completes (truncated) then */
            s->err = MPI_ERR_TRUNCATE;
            continue;
        }
        ompi_request_free(&s->req);
        s->req = MPI_REQUEST_NULL;
        s->active = false;
        (void) sentinel_settle(s); /* (a shorter stream: nothing matched it) */
        /* cancelled (or, had it matched meanwhile, still a mismatched stream) */
        mcast_engine_complete(c->engine, i, MPI_ERR_TRUNCATE);
    }
}

/* The oldest posted receive from `peer` (receives from one peer match in post order). */
static int oldest_recv(const mcast_call_t *c, int peer)
{
    int best = -1;
    for (int i = 0; i < c->nslots; i++) {
        const mcast_slot_t *s = &c->slots[i];
        if (s->active && MCAST_OP_RECV == s->kind && s->peer == peer &&
            (best < 0 || s->seq < c->slots[best].seq)) {
            best = i;
        }
    }
    return best;
}

/* Nothing progressed for a while: look for peers whose stream differs from ours.
 *   our next receive from P is not its last, and P's last message waits unmatched with
 *   no other message of P: if that receive is still unmatched (a cancel succeeds), P
 *   sent fewer messages than we expect: P's stream ended;
 *   our last receive from P is open and another message of P waits: P sends more than
 *   we expect (our earlier receives from P all completed before the last was posted):
 *   drain P. */
static void idle_probe(mcast_call_t *c)
{
    for (int i = 0; i < c->nslots; i++) {
        mcast_slot_t *s = &c->slots[i];
        if (!s->active || MCAST_OP_RECV != s->kind || REQUEST_COMPLETE(s->req)) {
            continue;
        }
        const int peer = s->peer;
        if (s->flags & MCAST_XF_LAST) {
            if (probe(c, peer, c->tag)) {
                s->err = MPI_ERR_TRUNCATE;
                add_drain(c, peer);
            }
            continue;
        }
        if (!probe(c, peer, c->tag_last) || probe(c, peer, c->tag)) {
            continue;
        }
        const int o = oldest_recv(c, peer);
        mcast_slot_t *os = &c->slots[o];
        ompi_request_cancel(os->req);
        if (!REQUEST_COMPLETE(os->req)) {
            return; /* it had matched: its data are arriving, an ordinary completion follows */
        }
        const ompi_status_public_t st = os->req->req_status;
        int rc = st.MPI_ERROR;
        ompi_request_free(&os->req);
        os->req = MPI_REQUEST_NULL;
        os->active = false;
        if (st._cancelled) {
            mcast_engine_complete(c->engine, o, MPI_ERR_TRUNCATE);
            peer_ended(c, peer);
            return;
        }
        /* it had matched after all: an ordinary completion */
        if (OMPI_SUCCESS == rc && 0 == os->err && st._ucount != os->len) {
            rc = MPI_ERR_TRUNCATE;
        }
        if (OMPI_SUCCESS == rc && c->staged && os->len > 0 && 0 == os->err) {
            rc = unpack_range(c, os);
        }
        mcast_engine_complete(c->engine, o, OMPI_SUCCESS != os->err ? os->err : rc);
        return;
    }
}

static void add_drain(mcast_call_t *c, int peer)
{
    for (int k = 0; k < c->ndrain; k++) {
        if (c->drain[k] == peer) {
            return;
        }
    }
    int *d = realloc(c->drain, sizeof(int) * (size_t) (c->ndrain + 1));
    if (NULL != d) {
        c->drain = d;
        c->drain[c->ndrain++] = peer;
    }
}

static void drain_step(mcast_call_t *c)
{
    for (int k = 0; k < c->ndrain; k++) {
        while (take_message(c, c->drain[k], c->tag)) {
        }
        bool waiting = false; /* our last receive from it still open? */
        for (int i = 0; i < c->nslots; i++) {
            waiting = waiting || (c->slots[i].active && MCAST_OP_RECV == c->slots[i].kind &&
                                  c->slots[i].peer == c->drain[k]);
        }
        if (!waiting) {
            c->drain[k--] = c->drain[--c->ndrain];
        }
    }
}

/* One round of progress; true when the engine is done. */
static bool call_progress(mcast_call_t *c)
{
    const bool quiet = mcast_calltime(); /* (no probe: the PML's probes progress) */
    if (poll_slots(c, quiet) > 0) {
        c->idle = 0;
    } else if (!quiet && ++c->idle % MCAST_IDLE_PROBE == 0) {
        idle_probe(c);
    }
    if (!quiet && c->ndrain > 0) {
        drain_step(c);
    }
    const bool done = poll_sinks(c) && mcast_engine_done(c->engine);
    if (done && 0 != c->trace && !c->traced_end) {
        c->traced_end = true;
        mcast_trace(MCAST_TR_END, mcast_comm_id(c->comm), ompi_comm_rank(c->comm), c->trace,
                    -1, -1, 0, 0, mcast_engine_status(c->engine));
    }
    return done;
}

/* ---- calls ---------------------------------------------------------------- */

static _Thread_local int calltime_depth;

void mcast_calltime_begin(void)
{
    calltime_depth++;
}

void mcast_calltime_end(void)
{
    calltime_depth--;
}

bool mcast_calltime(void)
{
    return calltime_depth > 0;
}

int mcast_calltime_suspend(void)
{
    const int saved = calltime_depth;
    calltime_depth = 0;
    return saved;
}

void mcast_calltime_resume(int saved)
{
    calltime_depth = saved;
}

void mcast_tags_init(mcast_tags_t *t, int lane)
{
    t->low = MCAST_TAGS_LOW + (int32_t) lane * MCAST_TAGS_LANE_SPAN;
    t->high = t->low + MCAST_TAGS_LANE_SPAN - 1;
    t->next = t->high;
}

/* two consecutive tags (tag, tag - 1), counting down, wrapping inside the lane; atomic for
 * MPI_THREAD_MULTIPLE programs (their calls on one communicator are ordered by the
 * application, as MPI requires of collectives) */
int mcast_tags_take(mcast_tags_t *t)
{
    int32_t tag, old;
    do {
        tag = old = t->next;
        if (tag - 2 < t->low) {
            tag = t->high;
        }
    } while (!OPAL_ATOMIC_COMPARE_EXCHANGE_STRONG_32(&t->next, &old, tag - 2));
    return tag;
}

void *mcast_spare_take(mcast_spares_t *s)
{
    void *p = NULL;
    OPAL_THREAD_LOCK(&s->lock);
    if (s->n > 0) {
        p = s->item[--s->n];
    }
    OPAL_THREAD_UNLOCK(&s->lock);
    return p;
}

void *mcast_spare_give(mcast_spares_t *s, void *p)
{
    OPAL_THREAD_LOCK(&s->lock);
    if (NULL != p && s->n < MCAST_SPARES) {
        s->item[s->n++] = p;
        p = NULL;
    }
    OPAL_THREAD_UNLOCK(&s->lock);
    return p;
}

/* Engines of finished calls that had none of their own to use (nonblocking ones), kept
 * for the next: an engine keeps its buffers' room across calls (mcast_engine_start
 * resets it, as a blocking call's reused engine shows), so a call's start allocates
 * nothing there. */
static mcast_spares_t spare_engines = MCAST_SPARES_INIT;

static mcast_engine_t *engine_take(void)
{
    mcast_engine_t *e = mcast_spare_take(&spare_engines);
    return NULL != e ? e : mcast_engine_create();
}

static void engine_give(mcast_engine_t *e)
{
    mcast_engine_destroy(mcast_spare_give(&spare_engines, e));
}

/* Calls of mcast_pml_call_start that ended, with their slots' room, kept for the next
 * (a nonblocking call's start then allocates nothing: E-IBC-2). */
static mcast_spares_t spare_calls = MCAST_SPARES_INIT;

/* reuse: c is a call that ended (call_cleanup with keep_room), whose room for slots the
 * new call takes where it is large enough; otherwise c's contents are undefined. */
static int call_setup(mcast_call_t *c, const mcast_plan_t *plan, mcast_sched_memo_t *memo,
                      mcast_engine_t *engine, void *buf, int count,
                      struct ompi_datatype_t *dtype, size_t bytes,
                      struct ompi_communicator_t *comm, int tag, bool reuse)
{
    mcast_slot_t *room = reuse ? c->slots : NULL;
    const int room_cap = reuse && NULL != room ? c->slots_cap : 0;
    /* (the convertors' room only where they are used: mcast_dtio_init) */
    memset(c, 0, offsetof(mcast_call_t, io));
    memset(c->io.ready, 0, sizeof(c->io.ready)); /* (what mcast_dtio_fini reads) */
    c->slots = room; /* (the cleanup frees it, also after a failure below) */
    c->slots_cap = room_cap;
    const int rank = ompi_comm_rank(comm);
    /* two tags per broadcast, the same on every rank: taken by the module at the MPI call
     * (mcast_tags_take), also for a call that starts later or fails further on */
    assert(0 != tag);
    c->tag = tag;
    c->tag_last = c->tag - 1;
    c->comm = comm;
    c->buf = buf;
    c->count = count;
    c->dtype = dtype;
    if (NULL != memo && NULL != memo->ref && memo->bytes == bytes) {
        c->sched_ref = mcast_sched_ref_take(memo->ref);
        c->sched = c->sched_ref->sched;
        c->ep = memo->ep;
    } else {
        int st = mcast_plan_engine_params(plan, rank, bytes, &c->ep);
        if (KB_OK == st) {
            st = mcast_plan_schedule(plan, rank, bytes, &c->sched);
        }
        if (KB_OK != st) {
            c->sched = NULL;
            return mcast_status_to_mpi(st);
        }
        mcast_engine_params_fit(&c->ep, c->sched); /* (slots for what the call can use) */
        mcast_sched_ref_t *ref = NULL != memo ? malloc(sizeof(*ref)) : NULL;
        if (NULL != ref) { /* (without one the schedule stays the call's own) */
            ref->sched = c->sched;
            ref->holders = 2; /* the memo and this call */
            mcast_sched_ref_release(memo->ref);
            memo->ref = ref;
            memo->bytes = bytes;
            memo->ep = c->ep;
            c->sched_ref = ref;
        }
    }
    c->nslots = c->ep.window + c->ep.max_sends;
    if (NULL != c->slots && c->slots_cap >= c->nslots) {
        memset(c->slots, 0, (size_t) c->nslots * sizeof(*c->slots));
    } else {
        free(c->slots);
        c->slots = calloc((size_t) c->nslots, sizeof(*c->slots));
        c->slots_cap = NULL != c->slots ? c->nslots : 0;
    }
    c->engine = engine;
    if (NULL == c->engine) {
        c->engine = engine_take();
        c->own_engine = true;
    }
    if (NULL == c->slots || NULL == c->engine) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (ompi_datatype_is_contiguous_memory_layout(dtype, count)) {
        ptrdiff_t true_lb = 0, true_extent = 0;
        ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
        c->base = (char *) buf + true_lb;
    } else {
        c->staged = true;
        mcast_dtio_init(&c->io, buf, count, dtype);
    }
    return OMPI_SUCCESS;
}

/* A rank that cannot run its engine (no memory for its slots, its engine or its request)
 * still owes its peers its schedule: it takes every message they send it (into nothing:
 * consumed, truncated) and sends each of its own empty (its receivers see the length
 * mismatch, as from an engine in error mode, and pass the error on), in list order, with
 * at most the engine's window of receives and max_sends of sends posted, so it waits for
 * no peer longer than its engine would.  Its requests live on the stack: nothing here
 * allocates. */
static void void_run(const mcast_sched_t *sched, const mcast_engine_params_t *ep,
                     struct ompi_communicator_t *comm, int tag, int tag_last)
{
    static char none[1];
    ompi_request_t *req[2][MCAST_VOID_POSTED];
    void *sink[MCAST_VOID_POSTED];      /* each receive's room (mcast_pages_map), or NULL */
    size_t sink_len[MCAST_VOID_POSTED];
    const size_t count[2] = {mcast_sched_count(sched, MCAST_OP_RECV),
                             mcast_sched_count(sched, MCAST_OP_SEND)};
    const int want[2] = {ep->window, ep->max_sends};
    size_t next[2] = {0, 0};
    int cap[2], posted = 0;
    for (int k = 0; k < 2; k++) {
        cap[k] = want[k] < 1 ? 1 : want[k] > MCAST_VOID_POSTED ? MCAST_VOID_POSTED : want[k];
        for (int i = 0; i < cap[k]; i++) {
            req[k][i] = MPI_REQUEST_NULL;
        }
    }
    for (int i = 0; i < cap[0]; i++) {
        sink[i] = NULL;
        sink_len[i] = 0;
    }
    while (next[0] < count[0] || next[1] < count[1] || posted > 0) {
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < cap[k]; i++) {
                if (MPI_REQUEST_NULL != req[k][i] && REQUEST_COMPLETE(req[k][i])) {
                    ompi_request_free(&req[k][i]); /* (a receive's truncation is expected) */
                    req[k][i] = MPI_REQUEST_NULL;
                    posted--;
                    if (MCAST_OP_RECV == k) {
                        mcast_pages_unmap(sink[i], sink_len[i]);
                        sink[i] = NULL;
                    }
                }
                mcast_op_t op;
                if (MPI_REQUEST_NULL != req[k][i] || next[k] >= count[k] ||
                    KB_OK != mcast_sched_op(sched, (mcast_op_kind_t) k, next[k]++, &op)) {
                    continue;
                }
                const int t = op.last ? tag_last : tag;
                if (MCAST_OP_RECV == k) { /* the message whole, where room can be mapped */
                    size_t off = 0, len = 0;
                    mcast_op_range(ep, &op, &off, &len);
                    sink_len[i] = len <= (size_t) INT_MAX ? len : 0;
                    sink[i] = mcast_pages_map(sink_len[i]);
                    if (NULL == sink[i]) {
                        sink_len[i] = 0;
                    }
                }
                /* an empty receive (a notice's) as xport_post takes it; a notice's send is
                 * the one byte of error mode, every other send empty */
                ompi_datatype_t *rt = &ompi_mpi_byte.dt;
                int rcount = (int) sink_len[i];
                if (MCAST_OP_RECV == k && 0 == sink_len[i] && !mcast_pml_ucx() &&
                    NULL != sentinel_datatype()) {
                    rt = sentinel_datatype();
                    rcount = 1;
                }
                const int rc = (MCAST_OP_RECV == k)
                                   ? MCA_PML_CALL(irecv(NULL != sink[i] ? sink[i] : sentinel_room,
                                                        rcount, rt, op.peer, t, comm, &req[k][i]))
                                   : MCA_PML_CALL(isend(none, 0 == op.nblocks ? 1 : 0, MPI_BYTE,
                                                        op.peer, t, MCA_PML_BASE_SEND_STANDARD,
                                                        comm, &req[k][i]));
                if (OMPI_SUCCESS == rc) {
                    posted++;
                } else {
                    req[k][i] = MPI_REQUEST_NULL;
                    if (MCAST_OP_RECV == k) {
                        mcast_pages_unmap(sink[i], sink_len[i]);
                        sink[i] = NULL;
                    }
                }
            }
        }
        opal_progress();
    }
}

/* The failure path of a call that could not start: its schedule without data when it has
 * one (without, its peers cannot be told: see mcast_pml.h); the caller then frees it. */
static void call_abandon(mcast_call_t *c)
{
    if (NULL != c->sched) {
        void_run(c->sched, &c->ep, c->comm, c->tag, c->tag_last);
    }
}

static int call_start(mcast_call_t *c)
{
    c->trace = mcast_trace_call();
    if (0 != c->trace) {
        size_t bytes = 0;
        mcast_signature_bytes(c->count, c->dtype, &bytes);
        mcast_trace(MCAST_TR_BEGIN, mcast_comm_id(c->comm), ompi_comm_rank(c->comm), c->trace,
                    -1, -1, 0, bytes, 0);
    }
    const mcast_xport_t x = {c, xport_post};
    return mcast_status_to_mpi(mcast_engine_start(c->engine, c->sched, &c->ep, &x));
}

/* keep_room: c's room for slots stays with it (call_setup's reuse), else it is freed. */
static void call_cleanup(mcast_call_t *c, bool keep_room)
{
    for (int i = 0; NULL != c->slots && i < c->nslots; i++) {
        (void) sentinel_settle(&c->slots[i]); /* (none left open by a finished call) */
        free(c->slots[i].stage);
        mcast_pages_unmap(c->slots[i].sink, c->slots[i].len);
    }
    if (!keep_room) {
        free(c->slots);
        c->slots = NULL;
        c->slots_cap = 0;
    }
    mcast_dtio_fini(&c->io);
    if (NULL != c->sched_ref) {
        mcast_sched_ref_release(c->sched_ref);
    } else {
        mcast_sched_free(c->sched);
    }
    c->sched_ref = NULL;
    if (c->own_engine) {
        engine_give(c->engine);
    }
    free(c->drain);
    for (int k = 0; k < c->nsinks; k++) { /* (a call ends only once they arrived) */
        ompi_request_free(&c->sinks[k]);
        sinkbuf_free(&c->sink_bufs[k]);
    }
    free(c->sinks);
    free(c->sink_bufs);
    c->sched = NULL;
    c->engine = NULL;
}

int mcast_pml_bcast(const mcast_plan_t *plan, mcast_sched_memo_t *memo, mcast_engine_t *engine,
                    void *buf, int count,
                    struct ompi_datatype_t *dtype, size_t bytes, struct ompi_communicator_t *comm,
                    int tag)
{
    const int calltime = mcast_calltime_suspend(); /* (blocking: it progresses) */
    mcast_call_t c;
    int rc = call_setup(&c, plan, memo, engine, buf, count, dtype, bytes, comm, tag, false);
    if (OMPI_SUCCESS == rc) {
        rc = call_start(&c);
    }
    if (OMPI_SUCCESS == rc) {
        mcast_idle_t w = {0};
        while (!call_progress(&c)) {
            opal_progress();
            mcast_idle_wait(&w, c.idle);
        }
        rc = mcast_engine_status(c.engine);
    } else {
        call_abandon(&c);
    }
    call_cleanup(&c, false);
    mcast_calltime_resume(calltime);
    return rc;
}

/* ---- one call as an object (the two-level runner drives it beside its segment) ---- */
int mcast_pml_call_start(const mcast_plan_t *plan, mcast_sched_memo_t *memo,
                         mcast_engine_t *engine, void *buf, int count,
                         struct ompi_datatype_t *dtype, size_t bytes,
                         struct ompi_communicator_t *comm, int tag, mcast_call_t **out)
{
    mcast_call_t *c = mcast_spare_take(&spare_calls);
    const bool reuse = NULL != c;
    if (!reuse) {
        c = malloc(sizeof(*c));
    }
    if (NULL == c) {
        /* its part without data, from a call on the stack */
        mcast_call_t tmp;
        (void) call_setup(&tmp, plan, memo, NULL, buf, count, dtype, bytes, comm, tag, false);
        call_abandon(&tmp);
        call_cleanup(&tmp, false);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    int rc = call_setup(c, plan, memo, engine, buf, count, dtype, bytes, comm, tag, reuse);
    if (OMPI_SUCCESS == rc) {
        rc = call_start(c);
    }
    if (OMPI_SUCCESS != rc) {
        call_abandon(c);
        mcast_pml_call_free(c);
        return rc;
    }
    *out = c;
    return OMPI_SUCCESS;
}

bool mcast_pml_call_progress(mcast_call_t *c)
{
    return call_progress(c); /* (also once the engine is done: the drained messages) */
}

int mcast_pml_call_status(const mcast_call_t *c)
{
    return mcast_engine_status(c->engine);
}

size_t mcast_pml_call_held_bytes(mcast_call_t *c)
{
    return mcast_engine_held_bytes(c->engine);
}

void mcast_pml_call_free(mcast_call_t *c)
{
    if (NULL != c) {
        call_cleanup(c, true);
        if (NULL != mcast_spare_give(&spare_calls, c)) {
            free(c->slots);
            free(c);
        }
    }
}

/* ---- nonblocking ---------------------------------------------------------- */
typedef struct mcast_ireq {
    ompi_request_t super;
    mcast_nbc_tail_t nbc; /* written by MPI_Ibcast (mcast_compat.h) */
    mcast_call_t call;
    const mcast_runner_t *runner; /* another runner than the engine (NULL: the engine) */
    void *runner_state;
    struct mcast_ireq *next; /* active list */
    bool freed;              /* MPI_Request_free came before completion */
} mcast_ireq_t;

static void ireq_construct(mcast_ireq_t *r)
{
    memset(&r->nbc, 0, sizeof(r->nbc));
    memset(&r->call, 0, sizeof(r->call));
    r->runner = NULL;
    r->runner_state = NULL;
    r->next = NULL;
    r->freed = false;
}

OBJ_CLASS_INSTANCE(mcast_ireq_t, ompi_request_t, ireq_construct, NULL);

/* in the order of the calls: a progress pass starts and completes them in that order, as
 * Open MPI's libnbc does (Open MPI 4.1's MPI_Comm_idup on an intercommunicator takes its
 * next steps in the order its broadcasts complete: E-IDUP-2) */
static mcast_ireq_t *active = NULL, **active_tail = &active;
static opal_mutex_t active_lock = OPAL_MUTEX_STATIC_INIT;
static bool progress_registered = false;

/* Requests of finished calls kept for the next, their Open MPI request finalised
 * (OMPI_REQUEST_FINI: no Fortran handle left) and made afresh by ireq_new. */
static mcast_spares_t spare_ireqs = MCAST_SPARES_INIT;

static void ireq_release(mcast_ireq_t *r)
{
    OBJ_RELEASE(r->call.dtype);
    OBJ_RELEASE(r->call.comm);
    if (NULL != r->runner) {
        r->runner->release(r->runner_state);
    } else {
        call_cleanup(&r->call, false);
    }
    OMPI_REQUEST_FINI(&r->super);
    /* (only a request nobody else holds) */
    if (1 != ((opal_object_t *) r)->obj_reference_count || NULL != mcast_spare_give(&spare_ireqs, r)) {
        OBJ_RELEASE(r);
    }
}

static int ireq_free(ompi_request_t **request)
{
    mcast_ireq_t *r = (mcast_ireq_t *) *request;
    *request = MPI_REQUEST_NULL;
    OPAL_THREAD_LOCK(&active_lock);
    const bool done = REQUEST_COMPLETE(&r->super);
    if (!done) {
        r->freed = true; /* the progress function releases it when it completes */
    }
    OPAL_THREAD_UNLOCK(&active_lock);
    if (done) {
        ireq_release(r);
    }
    return OMPI_SUCCESS;
}

static int ireq_cancel(ompi_request_t *request, int complete)
{
    (void) request;
    (void) complete;
    return MPI_ERR_REQUEST; /* collective requests cannot be cancelled */
}

void mcast_request_prepare(ompi_request_t *r, bool persistent, ompi_request_free_fn_t free_fn,
                           struct ompi_communicator_t *comm)
{
    OMPI_REQUEST_INIT(r, persistent);
    r->req_mpi_object.comm = comm; /* (MPI_Wait invokes its error handler on an error) */
    if (!persistent) {
        r->req_state = OMPI_REQUEST_ACTIVE;
    }
    r->req_type = OMPI_REQUEST_COLL;
    r->req_free = free_fn;
    r->req_cancel = ireq_cancel;
    r->req_status.MPI_SOURCE = 0;
    r->req_status.MPI_TAG = 0;
    r->req_status.MPI_ERROR = OMPI_SUCCESS;
    r->req_status._cancelled = 0;
    r->req_status._ucount = 0;
}

/* Set while ibcast_progress runs: the PML's probe calls opal_progress, which must not
 * re-enter it (without threads the lock below is a no-op). */
static volatile bool in_progress = false;

static int ibcast_progress(void)
{
    if (NULL == active || in_progress || OPAL_THREAD_TRYLOCK(&active_lock)) {
        return 0;
    }
    in_progress = true;
    int n = 0;
    mcast_ireq_t **link = &active;
    while (NULL != *link) {
        mcast_ireq_t *r = *link;
        int status = OMPI_SUCCESS;
        if (NULL != r->runner ? !r->runner->test(r->runner_state, &status) : !call_progress(&r->call)) {
            link = &r->next;
            continue;
        }
        *link = r->next;
        if (NULL == r->next) {
            active_tail = link;
        }
        n++;
        r->super.req_status.MPI_ERROR = NULL != r->runner ? status : mcast_engine_status(r->call.engine);
        const bool freed = r->freed;
        /* (runs the datatype-release callback MPI_Ibcast may have installed) */
        ompi_request_complete(&r->super, true);
        if (freed) {
            ireq_release(r);
        }
    }
    in_progress = false;
    OPAL_THREAD_UNLOCK(&active_lock);
    return n;
}

/* Room for a request: a spare's or a new object's, nothing of a call set up yet (NULL:
 * no memory).  Given back unused by ireq_room_return. */
static mcast_ireq_t *ireq_room(void)
{
    mcast_ireq_t *r = mcast_spare_take(&spare_ireqs);
    return NULL != r ? r : OBJ_NEW(mcast_ireq_t);
}

static void ireq_room_return(mcast_ireq_t *r)
{
    if (NULL != mcast_spare_give(&spare_ireqs, r)) {
        OBJ_RELEASE(r);
    }
}

/* A request in room r, made afresh for a call on comm. */
static void ireq_make(mcast_ireq_t *r, struct ompi_communicator_t *comm)
{
    ireq_construct(r); /* (its Open MPI part: mcast_request_prepare below) */
    mcast_request_prepare(&r->super, false, ireq_free, comm);
}

static mcast_ireq_t *ireq_new(struct ompi_communicator_t *comm)
{
    mcast_ireq_t *r = ireq_room();
    if (NULL != r) {
        ireq_make(r, comm);
    }
    return r;
}

/* Puts r on the active list (progress function registered); the caller holds active_lock. */
static void ireq_activate(mcast_ireq_t *r, ompi_request_t **request)
{
    if (!progress_registered) {
        opal_progress_register(ibcast_progress);
        progress_registered = true;
    }
    r->next = NULL;
    *active_tail = r;
    active_tail = &r->next;
    *request = &r->super;
}

/* (the room only: a call over at its start gives it back without a request made and
 * unmade, E-CALL-1) */
int mcast_ireq_runner_new(struct ompi_communicator_t *comm, struct ompi_datatype_t *dtype,
                          ompi_request_t **request)
{
    mcast_ireq_t *r = ireq_room();
    if (NULL == r) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    r->call.dtype = dtype; /* (kept for the start) */
    r->call.comm = comm;
    *request = &r->super;
    return OMPI_SUCCESS;
}

void mcast_ireq_runner_start(ompi_request_t *request, const mcast_runner_t *runner, void *state)
{
    mcast_ireq_t *r = (mcast_ireq_t *) request;
    struct ompi_datatype_t *dtype = r->call.dtype;
    struct ompi_communicator_t *comm = r->call.comm;
    ireq_make(r, comm);
    r->call.dtype = dtype;
    r->call.comm = comm;
    OBJ_RETAIN(dtype);
    OBJ_RETAIN(comm);
    ompi_request_t *out;
    r->runner = runner;
    r->runner_state = state;
    OPAL_THREAD_LOCK(&active_lock);
    ireq_activate(r, &out);
    OPAL_THREAD_UNLOCK(&active_lock);
}

bool mcast_ireq_none_active(void)
{
    OPAL_THREAD_LOCK(&active_lock);
    const bool none = NULL == active;
    OPAL_THREAD_UNLOCK(&active_lock);
    return none;
}

void mcast_ireq_runner_discard(ompi_request_t *request)
{
    if (NULL != request) {
        ireq_room_return((mcast_ireq_t *) request); /* (nothing made yet) */
    }
}

int mcast_pml_ibcast(const mcast_plan_t *plan, mcast_sched_memo_t *memo, void *buf, int count,
                     struct ompi_datatype_t *dtype, size_t bytes, struct ompi_communicator_t *comm,
                     int tag, ompi_request_t **request)
{
    mcast_ireq_t *r = ireq_new(comm);
    if (NULL == r) {
        /* No memory for a request: this rank's part now, blocking (a request cannot be
         * handed back; its peers would otherwise wait for it), then an empty one. */
        const int rc = mcast_pml_bcast(plan, memo, NULL, buf, count, dtype, bytes, comm, tag);
        if (OMPI_SUCCESS == rc) {
            *request = &ompi_request_empty;
        }
        return rc;
    }
    int rc = call_setup(&r->call, plan, memo, NULL, buf, count, dtype, bytes, comm, tag, false);
    OBJ_RETAIN(dtype);
    OBJ_RETAIN(comm);
    OPAL_THREAD_LOCK(&active_lock);
    if (OMPI_SUCCESS == rc) {
        rc = call_start(&r->call);
    }
    if (OMPI_SUCCESS != rc) {
        OPAL_THREAD_UNLOCK(&active_lock);
        call_abandon(&r->call); /* (blocking: the peers must not wait for this rank) */
        ireq_release(r);
        return rc;
    }
    ireq_activate(r, request);
    OPAL_THREAD_UNLOCK(&active_lock);
    return OMPI_SUCCESS;
}

void mcast_pml_fini(void)
{
    if (progress_registered) {
        opal_progress_unregister(ibcast_progress);
        progress_registered = false;
    }
    for (mcast_engine_t *e; NULL != (e = mcast_spare_take(&spare_engines));) {
        mcast_engine_destroy(e);
    }
    for (mcast_ireq_t *r; NULL != (r = mcast_spare_take(&spare_ireqs));) {
        OBJ_RELEASE(r);
    }
    for (mcast_call_t *c; NULL != (c = mcast_spare_take(&spare_calls));) {
        free(c->slots);
        free(c);
    }
    if (NULL != sentinel_type) { /* (no call is running: the component closes) */
        ompi_datatype_destroy(&sentinel_type);
        sentinel_type = NULL;
    }
    sentinel_tried = false;
}
