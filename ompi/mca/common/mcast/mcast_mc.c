/*
 * Multicast transport driver (see mcast_mc.h): the core's protocol state machine over a
 * datagram backend, the PML repair channel, the stash of early messages, the probe round.
 *
 *   progress:  group datagrams  --backend recv-->  pm_mc_on_datagram
 *              PML irecvs (ANY_SOURCE, MCAST_MC_TAG)   -->  pm_mc_on_p2p, reposted
 *              pm_mc_next:  SEND_GROUP -> backend send (would block: kept, retried first)
 *                           SEND_P2P   -> PML isend from a free send buffer
 *                           DELIVER    -> nothing (the bytes are in place)
 *                           COMPLETE / ERROR -> done
 * pm_mc_next is only called with a free send buffer and no blocked datagram, so the
 * state machine never produces more than the backend and the PML can take.  Messages of
 * a later collective (a peer already in the next bcast) are stashed and replayed at the
 * next start; the state machine drops everything else that is not ours.
 */
#include "mcast_mc.h"
#include "mcast_status_mpi.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/mca/common/mcast/mcast_compat.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/request/request.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/proc.h"

#define STASH_MAX_ENTRIES 8192
#define STASH_MAX_BYTES (64u << 20)

typedef struct stash_ent {
    bool p2p;
    int src;
    size_t len;
    uint8_t *data;
} stash_ent_t;

struct mcast_mc {
    struct ompi_communicator_t *comm;
    int rank, size;
    mcast_mc_params_t params;
    mcast_mc_backend_t be;
    pm_mc_t *sm;
    mcast_mc_ident_t id;
    size_t maxmsg;
    /* p2p */
    int nrecv, nsend;
    ompi_request_t **rreq, **sreq;
    uint8_t **rbuf, **sbuf;
    int *free_send, nfree;
    int gpending;           /* send buffer holding a datagram the backend refused */
    size_t glen;
    /* stash */
    stash_ent_t *stash;
    size_t nstash, stash_cap, stash_bytes;
    /* probe */
    bool probing;
    uint8_t *heard;
    int nheard;
    /* collective */
    uint32_t epoch;         /* collectives that moved data so far (+ id.epoch_base) */
    bool running, done;
    int status;
    bool progressed;
    mcast_mc_xstats_t x;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

void mcast_mc_params_default(mcast_mc_params_t *p)
{
    memset(p, 0, sizeof(*p));
    p->group_range = "239.255.0.0/16";
    p->port = 47470;
    p->interface = NULL;
    p->ttl = 1;
    p->ib_device = NULL;
    p->ib_port = 0;
    p->chunk_bytes = 0;
    p->window_bytes = 2u << 20;
    p->ack_fanin = 8;
    p->repair = PM_MC_REPAIR_RING;
    p->repair_chunks = 11;
    p->bandwidth_Bps = 125e6;
    p->rtt_us = 200;
    p->rate_Bps = 0;
    p->dead_factor = 8;
    p->dead_min_s = 10;
    p->probe_rounds = 8;
    p->probe_wait_us = 2000;
    p->auth = 1;
    p->p2p_recvs = 16;
    p->p2p_sends = 64;
    p->verbose = 0;
}

/* ---------------------------------------------------------------------------
 * Stash of messages for a later collective
 * ------------------------------------------------------------------------- */
static void stash_put(mcast_mc_t *mc, bool p2p, int src, const void *d, size_t len)
{
    if (mc->nstash >= STASH_MAX_ENTRIES || mc->stash_bytes + len > STASH_MAX_BYTES) {
        mc->x.stash_dropped++; /* a datagram: repaired later; a p2p message: retried */
        return;
    }
    if (mc->nstash == mc->stash_cap) {
        size_t cap = mc->stash_cap ? 2 * mc->stash_cap : 64;
        stash_ent_t *s = realloc(mc->stash, cap * sizeof(*s));
        if (NULL == s) {
            mc->x.stash_dropped++;
            return;
        }
        mc->stash = s;
        mc->stash_cap = cap;
    }
    uint8_t *copy = malloc(len ? len : 1);
    if (NULL == copy) {
        mc->x.stash_dropped++;
        return;
    }
    memcpy(copy, d, len);
    mc->stash[mc->nstash++] = (stash_ent_t){p2p, src, len, copy};
    mc->stash_bytes += len;
    mc->x.stashed++;
}

/* Feed the stash to the state machine (in arrival order); keep what is still early. */
static void stash_replay(mcast_mc_t *mc)
{
    size_t keep = 0;
    uint64_t now = now_ns();
    for (size_t i = 0; i < mc->nstash; ++i) {
        stash_ent_t *e = &mc->stash[i];
        pm_mc_rx_t c = e->p2p ? pm_mc_on_p2p(mc->sm, (uint32_t) e->src, e->data, e->len, now)
                              : pm_mc_on_datagram(mc->sm, e->data, e->len, now);
        if (PM_MC_RX_FUTURE_EPOCH == c) {
            mc->stash[keep++] = *e;
        } else {
            mc->stash_bytes -= e->len;
            free(e->data);
        }
    }
    mc->nstash = keep;
}

/* ---------------------------------------------------------------------------
 * Input
 * ------------------------------------------------------------------------- */
static void rx_dgram(mcast_mc_t *mc, const void *d, size_t len)
{
    mc->x.dgram_rcvd++;
    mc->progressed = true;
    if (mc->probing) {
        pm_mc_hdr_t h;
        uint32_t sender;
        if (PM_MC_RX_ACCEPTED == pm_mc_open_group(mc->sm, d, len, &h, &sender) &&
            PM_MC_T_PROBE == h.type && h.job == mc->id.job && h.ctx == mc->id.ctx &&
            h.epoch == mc->id.epoch_base - 1 && h.seq < (uint32_t) mc->size && !mc->heard[h.seq]) {
            mc->heard[h.seq] = 1;
            mc->nheard++;
        }
        return;
    }
    if (PM_MC_RX_FUTURE_EPOCH == pm_mc_on_datagram(mc->sm, d, len, now_ns())) {
        stash_put(mc, false, -1, d, len);
    }
}

static int post_recv(mcast_mc_t *mc, int i)
{
    return MCA_PML_CALL(irecv(mc->rbuf[i], (int) mc->maxmsg, MPI_BYTE, MPI_ANY_SOURCE, MCAST_MC_TAG,
                              mc->comm, &mc->rreq[i]));
}

static void poll_p2p(mcast_mc_t *mc)
{
    for (int i = 0; i < mc->nrecv; ++i) {
        ompi_request_t *req = mc->rreq[i];
        if (MPI_REQUEST_NULL == req || !REQUEST_COMPLETE(req)) {
            continue;
        }
        int src = req->req_status.MPI_SOURCE, err = req->req_status.MPI_ERROR;
        size_t len = req->req_status._ucount;
        ompi_request_free(&mc->rreq[i]);
        mc->progressed = true;
        if (MPI_SUCCESS == err) {
            mc->x.p2p_rcvd++;
            if (PM_MC_RX_FUTURE_EPOCH == pm_mc_on_p2p(mc->sm, (uint32_t) src, mc->rbuf[i], len, now_ns())) {
                stash_put(mc, true, src, mc->rbuf[i], len);
            }
        }
        if (OMPI_SUCCESS != post_recv(mc, i)) {
            mc->rreq[i] = MPI_REQUEST_NULL;
            if (mc->running) pm_mc_abort(mc->sm, PM_MC_ERR_INTERNAL);
        }
    }
    for (int i = 0; i < mc->nsend; ++i) {
        ompi_request_t *req = mc->sreq[i];
        if (MPI_REQUEST_NULL == req || !REQUEST_COMPLETE(req)) {
            continue;
        }
        if (MPI_SUCCESS != req->req_status.MPI_ERROR && mc->running) {
            pm_mc_abort(mc->sm, PM_MC_ERR_INTERNAL);
        }
        ompi_request_free(&mc->sreq[i]);
        mc->sreq[i] = MPI_REQUEST_NULL;
        mc->free_send[mc->nfree++] = i;
        mc->progressed = true;
    }
}

/* ---------------------------------------------------------------------------
 * Output
 * ------------------------------------------------------------------------- */
static void finish(mcast_mc_t *mc, int err)
{
    mc->running = false;
    mc->done = true;
    mc->status = mcast_status_to_mpi(err);
    if (mc->params.verbose >= 2 || (err && mc->params.verbose >= 1)) {
        pm_mc_stats_t st;
        pm_mc_get_stats(mc->sm, &st);
        fprintf(stderr,
                "mcast:%s: comm=%u rank=%d %s%s: data_sent=%llu nacks=%llu(%llu chunks) repairs=%llu "
                "(%llu B) dup=%llu foreign=%llu forged=%llu replayed=%llu kernel_drops=%llu rtt=%.0fus "
                "bw=%.3gB/s peer=%lld (totals)\n",
                mc->be.transport, mc->id.ctx, mc->rank, err ? "error " : "complete",
                err ? pm_mc_strerror(err) : "", (unsigned long long) st.data_sent,
                (unsigned long long) st.nack_sent, (unsigned long long) st.nack_chunks,
                (unsigned long long) st.repair_sent, (unsigned long long) st.repair_bytes_sent,
                (unsigned long long) st.rx[PM_MC_RX_DUPLICATE],
                (unsigned long long) (st.rx[PM_MC_RX_FOREIGN_JOB] + st.rx[PM_MC_RX_FOREIGN_CTX] +
                                      st.rx[PM_MC_RX_BAD_CRC] + st.rx[PM_MC_RX_TRUNCATED]),
                (unsigned long long) st.rx[PM_MC_RX_BAD_AUTH],
                (unsigned long long) st.rx[PM_MC_RX_REPLAY],
                (unsigned long long) (mc->be.drops ? mc->be.drops(mc->be.state) : 0), st.rtt_ns / 1e3,
                st.bandwidth_Bps, (long long) st.error_peer);
    }
}

static void pump(mcast_mc_t *mc)
{
    for (int budget = 256; budget > 0 && mc->running; --budget) {
        if (mc->gpending >= 0) {
            int r = mc->be.send(mc->be.state, mc->sbuf[mc->gpending], mc->glen);
            if (1 == r) {
                mc->x.send_blocked++;
                return;
            }
            if (r < 0) mc->x.send_errors++; /* lost like a dropped datagram: repaired */
            else mc->x.dgram_sent++;
            mc->free_send[mc->nfree++] = mc->gpending;
            mc->gpending = -1;
            mc->progressed = true;
        }
        if (0 == mc->nfree) {
            return;
        }
        int i = mc->free_send[--mc->nfree];
        pm_mc_action_t a;
        if (PM_MC_OK != pm_mc_next(mc->sm, now_ns(), &a, mc->sbuf[i], mc->maxmsg)) {
            mc->free_send[mc->nfree++] = i;
            finish(mc, PM_MC_ERR_INTERNAL);
            return;
        }
        switch (a.kind) {
        case PM_MC_ACT_SEND_GROUP: {
            int r = mc->be.send(mc->be.state, mc->sbuf[i], a.len);
            if (1 == r) {
                mc->gpending = i;
                mc->glen = a.len;
                mc->x.send_blocked++;
                return;
            }
            if (r < 0) mc->x.send_errors++;
            else mc->x.dgram_sent++;
            mc->free_send[mc->nfree++] = i;
            break;
        }
        case PM_MC_ACT_SEND_P2P: {
            int rc = MCA_PML_CALL(isend(mc->sbuf[i], (int) a.len, MPI_BYTE, (int) a.peer, MCAST_MC_TAG,
                                        MCA_PML_BASE_SEND_STANDARD, mc->comm, &mc->sreq[i]));
            if (OMPI_SUCCESS != rc) {
                mc->sreq[i] = MPI_REQUEST_NULL;
                mc->free_send[mc->nfree++] = i;
                pm_mc_abort(mc->sm, PM_MC_ERR_INTERNAL);
            } else {
                mc->x.p2p_sent++;
            }
            break;
        }
        case PM_MC_ACT_DELIVER:
            mc->free_send[mc->nfree++] = i;
            break;
        case PM_MC_ACT_COMPLETE:
        case PM_MC_ACT_ERROR:
            mc->free_send[mc->nfree++] = i;
            finish(mc, PM_MC_ACT_ERROR == a.kind ? a.error : PM_MC_OK);
            return;
        default: /* NONE: nothing before a.wake_ns; the caller keeps calling */
            mc->free_send[mc->nfree++] = i;
            return;
        }
        mc->progressed = true;
    }
}

/* ---------------------------------------------------------------------------
 * Collective API
 * ------------------------------------------------------------------------- */
int mcast_mc_start(mcast_mc_t *mc, int root, void *buf, size_t bytes)
{
    if (NULL == mc || mc->running || root < 0 || root >= mc->size) {
        return OMPI_ERR_BAD_PARAM;
    }
    int rc = pm_mc_start(mc->sm, mc->id.epoch_base + mc->epoch, (uint32_t) root, buf, bytes, now_ns());
    if (PM_MC_OK != rc) {
        return mcast_status_to_mpi(rc);
    }
    if (bytes > 0 && mc->size > 1) {
        mc->epoch++; /* empty collectives do not count (pm_mc_start) */
    }
    mc->running = true;
    mc->done = false;
    mc->status = OMPI_SUCCESS;
    stash_replay(mc);
    return OMPI_SUCCESS;
}

int mcast_mc_poll(mcast_mc_t *mc)
{
    if (NULL == mc || !mc->running) {
        return 1;
    }
    mc->progressed = false;
    int got = mc->be.recv(mc->be.state, mc, rx_dgram, 64);
    if (got < 0 && mc->running) {
        pm_mc_abort(mc->sm, PM_MC_ERR_INTERNAL);
    }
    poll_p2p(mc);
    pump(mc);
    return mc->running ? 0 : 1;
}

bool mcast_mc_progressed(const mcast_mc_t *mc) { return NULL != mc && mc->progressed; }

int mcast_mc_progress(mcast_mc_t *mc)
{
    if (NULL == mc || !mc->running) {
        return 1;
    }
    opal_progress();
    return mcast_mc_poll(mc);
}

bool mcast_mc_done(const mcast_mc_t *mc) { return NULL == mc || !mc->running; }

int mcast_mc_status(const mcast_mc_t *mc) { return mc ? mc->status : OMPI_ERR_BAD_PARAM; }

int mcast_mc_bcast(mcast_mc_t *mc, int root, void *buf, size_t bytes)
{
    int rc = mcast_mc_start(mc, root, buf, bytes);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    while (!mcast_mc_progress(mc)) {
        if (!mc->progressed) {
            sched_yield();
        }
    }
    return mc->status;
}

int mcast_mc_start_failed(mcast_mc_t *mc, int root, size_t bytes)
{
    static uint8_t none[1]; /* never written: the collective ends before any input */
    if (NULL == mc || mc->running || root < 0 || root >= mc->size) {
        return OMPI_ERR_BAD_PARAM;
    }
    if (PM_MC_OK != pm_mc_start(mc->sm, mc->id.epoch_base + mc->epoch, (uint32_t) root, none,
                                bytes, now_ns())) {
        return OMPI_ERR_BAD_PARAM;
    }
    if (bytes > 0 && mc->size > 1) {
        mc->epoch++;
    }
    mc->running = true;
    mc->done = false;
    mc->status = OMPI_SUCCESS;
    (void) pm_mc_abort(mc->sm, PM_MC_ERR_NOMEM); /* ABORT to the peers and the group */
    stash_replay(mc);                             /* this collective's early input: stale */
    return OMPI_SUCCESS;
}

int mcast_mc_bcast_failed(mcast_mc_t *mc, int root, size_t bytes)
{
    if (OMPI_SUCCESS != mcast_mc_start_failed(mc, root, bytes)) {
        return OMPI_ERR_BAD_PARAM;
    }
    while (!mcast_mc_progress(mc)) {
        if (!mc->progressed) {
            sched_yield();
        }
    }
    return OMPI_ERR_OUT_OF_RESOURCE;
}

void mcast_mc_stats(const mcast_mc_t *mc, pm_mc_stats_t *proto, mcast_mc_xstats_t *x)
{
    if (NULL == mc) {
        return;
    }
    if (proto) {
        pm_mc_get_stats(mc->sm, proto);
    }
    if (x) {
        *x = mc->x;
        x->kernel_drops = mc->be.drops ? mc->be.drops(mc->be.state) : 0;
    }
}

const char *mcast_mc_transport(const mcast_mc_t *mc) { return mc ? mc->be.transport : "none"; }

void mcast_mc_close(mcast_mc_t *mc)
{
    if (NULL == mc) {
        return;
    }
    for (int i = 0; mc->rreq && i < mc->nrecv; ++i) {
        if (MPI_REQUEST_NULL != mc->rreq[i]) {
            ompi_request_cancel(mc->rreq[i]);
            ompi_request_wait(&mc->rreq[i], MPI_STATUS_IGNORE);
        }
    }
    /* our sends are eager-sized (<= maxmsg): they complete without the peer; bound the
     * wait anyway so a vanished peer cannot hang the communicator's destruction */
    uint64_t give_up = now_ns() + 2000000000ull;
    for (int i = 0; mc->sreq && i < mc->nsend; ++i) {
        while (MPI_REQUEST_NULL != mc->sreq[i] && !REQUEST_COMPLETE(mc->sreq[i]) && now_ns() < give_up) {
            opal_progress();
        }
        if (MPI_REQUEST_NULL != mc->sreq[i] && REQUEST_COMPLETE(mc->sreq[i])) {
            ompi_request_free(&mc->sreq[i]);
        } else if (MPI_REQUEST_NULL != mc->sreq[i] && mc->params.verbose) {
            fprintf(stderr, "mcast:%s: comm=%u rank=%d: a repair-channel send did not complete at close\n",
                    mc->be.transport, mc->id.ctx, mc->rank);
        }
    }
    if (mc->params.verbose >= 1 && NULL != mc->sm) {
        pm_mc_stats_t st;
        pm_mc_get_stats(mc->sm, &st);
        fprintf(stderr, "mcast:%s: comm=%u rank=%d closed: collectives=%llu failures=%llu "
                        "forged=%llu replayed=%llu bad_peer=%llu foreign=%llu auth=%s\n",
                mc->be.transport, mc->id.ctx, mc->rank, (unsigned long long) st.collectives,
                (unsigned long long) st.failures, (unsigned long long) st.rx[PM_MC_RX_BAD_AUTH],
                (unsigned long long) st.rx[PM_MC_RX_REPLAY], (unsigned long long) st.rx[PM_MC_RX_BAD_PEER],
                (unsigned long long) (st.rx[PM_MC_RX_FOREIGN_JOB] + st.rx[PM_MC_RX_FOREIGN_CTX] +
                                      st.rx[PM_MC_RX_BAD_CRC] + st.rx[PM_MC_RX_TRUNCATED] +
                                      st.rx[PM_MC_RX_BAD_MAGIC] + st.rx[PM_MC_RX_BAD_VERSION] +
                                      st.rx[PM_MC_RX_BAD_TYPE] + st.rx[PM_MC_RX_BAD_LENGTH]),
                mc->params.auth ? "on" : "off");
    }
    if (mc->be.close) {
        mc->be.close(mc->be.state);
    }
    for (int i = 0; mc->rbuf && i < mc->nrecv; ++i) free(mc->rbuf[i]);
    for (int i = 0; mc->sbuf && i < mc->nsend; ++i) free(mc->sbuf[i]);
    for (size_t i = 0; i < mc->nstash; ++i) free(mc->stash[i].data);
    free(mc->stash);
    free(mc->rreq);
    free(mc->sreq);
    free(mc->rbuf);
    free(mc->sbuf);
    free(mc->free_send);
    free(mc->heard);
    pm_mc_destroy(mc->sm);
    free(mc);
}

/* ---------------------------------------------------------------------------
 * Opening: identity, agreement, probe
 * ------------------------------------------------------------------------- */
static uint64_t fnv1a64(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; s && *s; ++s) {
        h ^= (uint8_t) *s;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The open's agreements are allreduces of up to AR_MAX words, each word reduced by MAX or
 * by XOR, over the PML on the communicator: every rank sends its words to rank 0 (tag
 * MCAST_MC_OPEN_TAG), rank 0 reduces and sends the result back (MCAST_MC_OPEN_TAG + 1).
 * Point-to-point on tags of our own, not the communicator's collectives: the open may run
 * from Open MPI's progress engine (a nonblocking call's setup), where a collective started
 * at a moment that differs between ranks could match another collective; one open per
 * communicator and MPI's non-overtaking order keep the successive rounds apart.  The
 * setup's steps are small; rank 0 receives n - 1 messages per round. */
#define AR_MAX 5
enum { AR_OP_MAX = 0, AR_OP_XOR = 1 };
enum { OPEN_IDENT, OPEN_AGREE, OPEN_PROBE_WAIT, OPEN_PROBE_AGREE, OPEN_DONE };

struct mcast_mc_opener {
    struct ompi_communicator_t *comm;
    mcast_mc_params_t params;
    mcast_mc_setup_fn setup;
    int rank, n;
    int step;
    /* the allreduce in flight */
    uint64_t v[AR_MAX];
    uint8_t ops[AR_MAX];
    int nv;
    uint64_t *in;          /* rank 0: [n][AR_MAX] */
    ompi_request_t **reqs; /* [n] */
    int ar_phase;          /* 0 none, 1 gathering (rank 0) / sent and waiting, 2 rank 0 sending back */
    /* the open */
    mcast_mc_ident_t id;
    mcast_mc_setup_t s;
    bool ident_ok;         /* this rank had its random numbers */
    mcast_mc_t *mc;        /* built after the agreement (NULL: no memory; still takes part) */
    bool ok;               /* this rank's endpoint and handle are usable */
    int round;
    uint64_t deadline;
    int rc;
    char why[256];
};

static int ar_start(mcast_mc_opener_t *op, const uint64_t *v, const uint8_t *ops, int nv)
{
    memcpy(op->v, v, sizeof(uint64_t) * (size_t) nv);
    memcpy(op->ops, ops, (size_t) nv);
    op->nv = nv;
    op->ar_phase = 1;
    if (1 == op->n) {
        op->ar_phase = 0;
        return OMPI_SUCCESS;
    }
    if (0 == op->rank) {
        for (int r = 1; r < op->n; ++r) {
            int rc = MCA_PML_CALL(irecv(op->in + (size_t) r * AR_MAX, nv * 8, MPI_BYTE, r, MCAST_MC_OPEN_TAG,
                                        op->comm, &op->reqs[r]));
            if (OMPI_SUCCESS != rc) {
                op->reqs[r] = MPI_REQUEST_NULL;
                return rc;
            }
        }
        return OMPI_SUCCESS;
    }
    int rc = MCA_PML_CALL(isend(op->v, nv * 8, MPI_BYTE, 0, MCAST_MC_OPEN_TAG, MCA_PML_BASE_SEND_STANDARD,
                                op->comm, &op->reqs[0]));
    if (OMPI_SUCCESS != rc) {
        op->reqs[0] = MPI_REQUEST_NULL;
        return rc;
    }
    /* (the result overwrites v only once the send completed: ar_test) */
    rc = MCA_PML_CALL(irecv(op->in, nv * 8, MPI_BYTE, 0, MCAST_MC_OPEN_TAG + 1, op->comm, &op->reqs[1]));
    if (OMPI_SUCCESS != rc) {
        op->reqs[1] = MPI_REQUEST_NULL;
    }
    return rc;
}

/* Whether every request of the round completed (each freed, its error kept in *err). */
static bool reqs_done(mcast_mc_opener_t *op, int from, int to, int *err)
{
    bool all = true;
    for (int r = from; r < to; ++r) {
        if (MPI_REQUEST_NULL == op->reqs[r]) {
            continue;
        }
        if (!REQUEST_COMPLETE(op->reqs[r])) {
            all = false;
            continue;
        }
        if (MPI_SUCCESS != op->reqs[r]->req_status.MPI_ERROR && OMPI_SUCCESS == *err) {
            *err = op->reqs[r]->req_status.MPI_ERROR;
        }
        ompi_request_free(&op->reqs[r]);
        op->reqs[r] = MPI_REQUEST_NULL;
    }
    return all;
}

/* MCAST_AGAIN while the allreduce runs; then OMPI_SUCCESS with op->v the result, or an error. */
static int ar_test(mcast_mc_opener_t *op)
{
    int err = OMPI_SUCCESS;
    if (0 == op->ar_phase) {
        return OMPI_SUCCESS;
    }
    if (0 != op->rank) {
        if (!reqs_done(op, 0, 2, &err)) {
            return MCAST_AGAIN;
        }
        memcpy(op->v, op->in, sizeof(uint64_t) * (size_t) op->nv);
        op->ar_phase = 0;
        return err;
    }
    if (1 == op->ar_phase) {
        if (!reqs_done(op, 1, op->n, &err)) {
            return MCAST_AGAIN;
        }
        for (int r = 1; r < op->n; ++r) {
            for (int i = 0; i < op->nv; ++i) {
                const uint64_t x = op->in[(size_t) r * AR_MAX + i];
                op->v[i] = AR_OP_XOR == op->ops[i] ? op->v[i] ^ x : (x > op->v[i] ? x : op->v[i]);
            }
        }
        for (int r = 1; r < op->n; ++r) {
            int rc = MCA_PML_CALL(isend(op->v, op->nv * 8, MPI_BYTE, r, MCAST_MC_OPEN_TAG + 1,
                                        MCA_PML_BASE_SEND_STANDARD, op->comm, &op->reqs[r]));
            if (OMPI_SUCCESS != rc) {
                op->reqs[r] = MPI_REQUEST_NULL;
                err = OMPI_SUCCESS == err ? rc : err;
            }
        }
        op->ar_phase = 2;
        if (OMPI_SUCCESS != err) {
            (void) reqs_done(op, 1, op->n, &err); /* (what was posted completes later) */
            return err;
        }
    }
    if (!reqs_done(op, 1, op->n, &err)) {
        return MCAST_AGAIN;
    }
    op->ar_phase = 0;
    return err;
}

/* This rank's part of the identity: rank 0's job hash and epoch base (others 0: MAX),
 * every rank's random key bytes (XOR), and 1 + rank where this rank has no random bytes. */
static void ident_words(mcast_mc_opener_t *op, uint64_t v[5])
{
    memset(v, 0, 5 * sizeof(uint64_t));
    if (0 == op->rank) {
        const char *ns = getenv("PMIX_NAMESPACE");
        char fallback[64];
        if (NULL == ns || '\0' == *ns) {
            snprintf(fallback, sizeof fallback, "ompi-job-%u", (unsigned) OPAL_PROC_MY_NAME.jobid);
            ns = fallback;
        }
        v[0] = fnv1a64(ns) | 1; /* never 0 (0 = "not rank 0" in the MAX) */
        uint32_t r = 0;
        int fd = open("/dev/urandom", O_RDONLY);
        if (fd < 0 || read(fd, &r, sizeof r) != (ssize_t) sizeof r) {
            r = (uint32_t) (now_ns() ^ ((uint64_t) getpid() << 16));
        }
        if (fd >= 0) close(fd);
        v[1] = (uint64_t) r | (1ull << 32);
    }
    /* The key of the group's datagrams: the XOR of a random value from every rank, over
     * the PML (the trusted path; it never crosses the group).  Random as long as one
     * rank's value is. */
    uint64_t k[2] = {0, 0};
    op->ident_ok = sizeof k == getrandom(k, sizeof k, 0);
    v[2] = k[0];
    v[3] = k[1];
    memset(k, 0, sizeof k);
    v[4] = op->ident_ok ? 0 : (uint64_t) op->rank + 1;
}

/* The handle over the agreed chunk and window (ok false: this rank's part failed, why says
 * why; the handle may still exist, to take part in the probe's agreement). */
static mcast_mc_t *build_handle(mcast_mc_opener_t *op, uint32_t chunk, uint64_t window, bool *ok)
{
    const mcast_mc_params_t *params = &op->params;
    const mcast_mc_ident_t *id = &op->id;
    char *why = op->why;
    const size_t whylen = sizeof op->why;
    mcast_mc_t *mc = calloc(1, sizeof(*mc));
    *ok = NULL != mc;
    if (NULL == mc) {
        return NULL;
    }
    mc->comm = op->comm;
    mc->rank = op->rank;
    mc->size = op->n;
    mc->params = *params;
    mc->be = op->s.be;
    op->s.be.state = NULL; /* the handle owns the backend now */
    mc->id = *id;
    mc->gpending = -1;
    mc->status = OMPI_SUCCESS;
    mc->x.chunk_bytes = chunk;
    mc->x.window_bytes = window;
    mc->x.job = id->job;
    mc->x.ctx = id->ctx;
    mc->x.epoch_base = id->epoch_base;
    snprintf(mc->x.group, sizeof mc->x.group, "%s", op->s.desc);
    pm_mc_params_t pp;
    pm_mc_params_default(&pp);
    pp.job = id->job;
    pp.ctx = id->ctx;
    pp.rank = (uint32_t) op->rank;
    pp.size = (uint32_t) op->n;
    pp.chunk_bytes = chunk;
    pp.window_bytes = window < chunk ? chunk : window;
    pp.ack_fanin = params->ack_fanin > 0 ? (uint32_t) params->ack_fanin : 8;
    pp.repair = (uint32_t) params->repair;
    pp.repair_chunks = params->repair_chunks > 0 ? (uint32_t) params->repair_chunks : 1;
    pp.bandwidth_Bps = params->bandwidth_Bps;
    pp.rtt_ns = params->rtt_us * 1e3;
    pp.rate_Bps = params->rate_Bps;
    pp.dead_factor = params->dead_factor;
    pp.dead_min_ns = (uint64_t) (params->dead_min_s * 1e9);
    pp.auth = params->auth ? 1 : 0;
    memcpy(pp.auth_key, id->key, sizeof pp.auth_key);
    int err;
    mc->sm = pm_mc_create(&pp, &err);
    memset(pp.auth_key, 0, sizeof pp.auth_key);
    mc->nrecv = params->p2p_recvs > 0 ? params->p2p_recvs : 1;
    mc->nsend = params->p2p_sends > 0 ? params->p2p_sends : 1;
    if (NULL == mc->sm) {
        snprintf(why, whylen, "protocol parameters rejected (%s)", pm_mc_strerror(err));
        *ok = false;
        return mc;
    }
    mc->maxmsg = pm_mc_max_message(mc->sm);
    mc->rreq = calloc((size_t) mc->nrecv, sizeof(*mc->rreq));
    mc->rbuf = calloc((size_t) mc->nrecv, sizeof(*mc->rbuf));
    mc->sreq = calloc((size_t) mc->nsend, sizeof(*mc->sreq));
    mc->sbuf = calloc((size_t) mc->nsend, sizeof(*mc->sbuf));
    mc->free_send = calloc((size_t) mc->nsend, sizeof(int));
    mc->heard = calloc((size_t) mc->size, 1);
    *ok = mc->rreq && mc->rbuf && mc->sreq && mc->sbuf && mc->free_send && mc->heard;
    for (int i = 0; *ok && i < mc->nrecv; ++i) {
        mc->rreq[i] = MPI_REQUEST_NULL;
        *ok = NULL != (mc->rbuf[i] = malloc(mc->maxmsg));
    }
    for (int i = 0; *ok && i < mc->nsend; ++i) {
        mc->sreq[i] = MPI_REQUEST_NULL;
        *ok = NULL != (mc->sbuf[i] = malloc(mc->maxmsg));
        mc->free_send[mc->nfree++] = i;
    }
    for (int i = 0; *ok && i < mc->nrecv; ++i) {
        *ok = OMPI_SUCCESS == post_recv(mc, i);
        if (!*ok) mc->rreq[i] = MPI_REQUEST_NULL;
    }
    if (!*ok) {
        snprintf(why, whylen, "out of memory for the repair channel");
    } else {
        mc->heard[mc->rank] = 1;
        mc->nheard = 1;
        mc->probing = true;
    }
    return mc;
}

/* One probe round's datagram and its wait (only where this rank's part is usable). */
static void probe_send(mcast_mc_opener_t *op)
{
    mcast_mc_t *mc = op->mc;
    uint8_t msg[PM_MC_HDR_BYTES + 4 + PM_MC_AUTH_BYTES];
    uint8_t pl[4] = {0, 0, (uint8_t) (op->round >> 8), (uint8_t) op->round};
    pm_mc_hdr_t h = {PM_MC_VERSION, PM_MC_T_PROBE, mc->id.ctx, mc->id.job, mc->id.epoch_base - 1, 0,
                     (uint32_t) mc->rank, 0, 0, 4};
    size_t len = pm_mc_seal(mc->sm, msg, pm_mc_encode(&h, pl, 4, msg, sizeof msg), sizeof msg);
    for (int t = 0; t < 1000 && 1 == mc->be.send(mc->be.state, msg, len); ++t) {
        usleep(100);
    }
    op->deadline = now_ns() + (uint64_t) op->params.probe_wait_us * 1000ull * (1ull << op->round);
}

int mcast_mc_open_start(struct ompi_communicator_t *comm, const mcast_mc_params_t *params,
                        mcast_mc_setup_fn setup, mcast_mc_opener_t **out)
{
    const int n = ompi_comm_size(comm);
    mcast_mc_opener_t *op = calloc(1, sizeof(*op));
    *out = NULL;
    if (NULL == op || NULL == (op->reqs = calloc((size_t) n, sizeof(*op->reqs))) ||
        NULL == (op->in = calloc((size_t) n * AR_MAX, sizeof(uint64_t)))) {
        if (NULL != op) {
            free(op->reqs);
            free(op);
        }
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int r = 0; r < n; ++r) {
        op->reqs[r] = MPI_REQUEST_NULL;
    }
    op->comm = comm;
    op->params = *params;
    op->setup = setup;
    op->rank = ompi_comm_rank(comm);
    op->n = n;
    op->step = OPEN_IDENT;
    op->rc = OMPI_SUCCESS;
    uint64_t v[5];
    static const uint8_t ops[5] = {AR_OP_MAX, AR_OP_MAX, AR_OP_XOR, AR_OP_XOR, AR_OP_MAX};
    ident_words(op, v);
    int rc = ar_start(op, v, ops, 5);
    memset(v, 0, sizeof v);
    if (OMPI_SUCCESS != rc) {
        mcast_mc_open_free(op);
        return rc;
    }
    *out = op;
    return OMPI_SUCCESS;
}

/* The open failed: every rank's answer (rc) and this rank's reason. */
static int open_fail(mcast_mc_opener_t *op, int rc)
{
    if (NULL != op->mc) {
        mcast_mc_close(op->mc); /* closes the backend too */
        op->mc = NULL;
    } else if (NULL != op->s.be.state && NULL != op->s.be.close) {
        op->s.be.close(op->s.be.state);
    }
    op->s.be.state = NULL;
    op->step = OPEN_DONE;
    op->rc = OMPI_SUCCESS == rc ? OMPI_ERROR : rc;
    if (op->params.verbose >= 1) {
        fprintf(stderr, "mcast:%s: comm=%u rank=%d: multicast declined: %s\n",
                NULL != op->s.be.transport ? op->s.be.transport : "?", op->id.ctx, op->rank, op->why);
    }
    return op->rc;
}

/* Moves the open on without waiting: MCAST_AGAIN, or its outcome (open_test's). */
static int open_step(mcast_mc_opener_t *op)
{
    for (;;) {
        if (OPEN_DONE == op->step) {
            return op->rc;
        }
        if (OPEN_PROBE_WAIT == op->step) {
            mcast_mc_t *mc = op->mc;
            while (now_ns() < op->deadline && mc->nheard < mc->size &&
                   mc->be.recv(mc->be.state, mc, rx_dgram, 64) > 0) {
            }
            if (now_ns() < op->deadline && mc->nheard < mc->size) {
                return MCAST_AGAIN;
            }
            /* MAX of "not ready" over ranks: 0 = everybody heard everybody */
            const uint64_t v = mc->nheard == mc->size ? 0 : 1;
            static const uint8_t ops[1] = {AR_OP_MAX};
            op->step = OPEN_PROBE_AGREE;
            const int rc = ar_start(op, &v, ops, 1);
            if (OMPI_SUCCESS != rc) {
                snprintf(op->why, sizeof op->why, "probe round: point-to-point failed (%d)", rc);
                return open_fail(op, rc);
            }
            continue;
        }
        int rc = ar_test(op);
        if (MCAST_AGAIN == rc) {
            return MCAST_AGAIN;
        }
        if (OMPI_SUCCESS != rc) {
            snprintf(op->why, sizeof op->why, "%s: point-to-point failed (%d)",
                     OPEN_IDENT == op->step ? "identity" : OPEN_AGREE == op->step ? "agreement" : "probe round", rc);
            return open_fail(op, rc);
        }
        switch (op->step) {
        case OPEN_IDENT: {
            op->id.job = op->v[0];
            op->id.epoch_base = (uint32_t) op->v[1];
            op->id.ctx = mcast_comm_id(op->comm);
            memcpy(op->id.key, &op->v[2], sizeof op->id.key);
            const uint64_t no_random = op->v[4];
            memset(op->v, 0, sizeof op->v);
            if (0 != no_random) {
                snprintf(op->why, sizeof op->why, "rank %llu has no random numbers for the group's key",
                         (unsigned long long) (no_random - 1));
                return open_fail(op, OMPI_ERR_NOT_AVAILABLE);
            }
            op->setup(op->comm, &op->params, &op->id, &op->s);
            const bool local_ok = NULL != op->s.be.state;
            uint32_t chunk = op->s.chunk;
            if (op->params.auth && chunk > PM_MC_AUTH_BYTES) {
                chunk -= PM_MC_AUTH_BYTES; /* the trailer rides in the same datagram */
            }
            if (op->params.chunk_bytes > 0 && (uint32_t) op->params.chunk_bytes < chunk) {
                chunk = (uint32_t) op->params.chunk_bytes;
            }
            /* [0] 1 + a failing rank, [1] ~min chunk, [2] ~min window */
            const uint64_t v[3] = {local_ok ? 0 : (uint64_t) op->rank + 1, UINT64_MAX - (local_ok ? chunk : 0),
                                   UINT64_MAX - (local_ok ? op->s.window_cap : 0)};
            static const uint8_t ops[3] = {AR_OP_MAX, AR_OP_MAX, AR_OP_MAX};
            op->step = OPEN_AGREE;
            if (OMPI_SUCCESS != (rc = ar_start(op, v, ops, 3))) {
                snprintf(op->why, sizeof op->why, "agreement: point-to-point failed (%d)", rc);
                return open_fail(op, rc);
            }
            break;
        }
        case OPEN_AGREE: {
            if (0 != op->v[0]) {
                if (NULL == op->s.be.state) {
                    snprintf(op->why, sizeof op->why, "%s", '\0' != op->s.why[0] ? op->s.why : "local setup failed");
                } else {
                    snprintf(op->why, sizeof op->why, "rank %llu could not set up its multicast endpoint",
                             (unsigned long long) (op->v[0] - 1));
                }
                return open_fail(op, OMPI_ERR_NOT_AVAILABLE);
            }
            const uint32_t chunk = (uint32_t) (UINT64_MAX - op->v[1]);
            uint64_t window = op->params.window_bytes;
            if (UINT64_MAX - op->v[2] < window) window = UINT64_MAX - op->v[2];
            op->mc = build_handle(op, chunk, window, &op->ok);
            op->round = 0;
            if (NULL == op->mc && NULL != op->s.be.state && NULL != op->s.be.close) {
                op->s.be.close(op->s.be.state); /* (no handle to own it) */
                op->s.be.state = NULL;
            }
            if (op->ok) {
                probe_send(op);
                op->step = OPEN_PROBE_WAIT;
            } else { /* still takes part in the probe's agreement so the other ranks do not wait */
                const uint64_t v = 1;
                static const uint8_t ops[1] = {AR_OP_MAX};
                op->step = OPEN_PROBE_AGREE;
                if (OMPI_SUCCESS != (rc = ar_start(op, &v, ops, 1))) {
                    return open_fail(op, rc);
                }
            }
            break;
        }
        case OPEN_PROBE_AGREE: {
            const uint64_t agreed = op->v[0];
            op->round++;
            if (0 == agreed && op->ok) {
                mcast_mc_t *mc = op->mc;
                mc->probing = false;
                mc->x.probe_rounds = (uint32_t) op->round;
                if (op->params.verbose >= 1 && 0 == op->rank) {
                    fprintf(stderr, "mcast:%s: comm=%u size=%d group=%s chunk=%u window=%llu probe_rounds=%u: ready\n",
                            mc->be.transport, mc->id.ctx, mc->size, mc->x.group, mc->x.chunk_bytes,
                            (unsigned long long) mc->x.window_bytes, mc->x.probe_rounds);
                }
                op->step = OPEN_DONE;
                op->rc = OMPI_SUCCESS;
                return OMPI_SUCCESS;
            }
            if (op->round >= op->params.probe_rounds || 0 == agreed) {
                /* (0 == agreed and !ok cannot be: this rank said 1) */
                if (!op->ok) {
                    if ('\0' == op->why[0]) snprintf(op->why, sizeof op->why, "out of memory");
                    return open_fail(op, OMPI_ERR_OUT_OF_RESOURCE);
                }
                mcast_mc_t *mc = op->mc;
                int missing = -1;
                for (int r = 0; r < mc->size && missing < 0; ++r)
                    if (!mc->heard[r]) missing = r;
                if (missing >= 0)
                    snprintf(op->why, sizeof op->why,
                             "multicast probe failed after %d rounds: rank %d did not hear rank %d (%d of %d heard)",
                             op->params.probe_rounds, mc->rank, missing, mc->nheard, mc->size);
                else
                    snprintf(op->why, sizeof op->why,
                             "multicast probe failed after %d rounds: another rank did not hear every rank",
                             op->params.probe_rounds);
                return open_fail(op, OMPI_ERR_NOT_AVAILABLE);
            }
            if (op->ok) {
                probe_send(op);
                op->step = OPEN_PROBE_WAIT;
            } else {
                const uint64_t v = 1;
                static const uint8_t ops[1] = {AR_OP_MAX};
                if (OMPI_SUCCESS != (rc = ar_start(op, &v, ops, 1))) {
                    return open_fail(op, rc);
                }
            }
            break;
        }
        default:
            return open_fail(op, OMPI_ERROR);
        }
    }
}

int mcast_mc_open_test(mcast_mc_opener_t *op, mcast_mc_t **mc, char *why, size_t whylen)
{
    const int rc = open_step(op);
    if (MCAST_AGAIN == rc) {
        return rc;
    }
    if (NULL != why && whylen > 0) {
        snprintf(why, whylen, "%s", OMPI_SUCCESS == rc ? "" : op->why);
    }
    *mc = OMPI_SUCCESS == rc ? op->mc : NULL;
    op->mc = NULL; /* (the caller's now) */
    return rc;
}

bool mcast_mc_open_waiting(const mcast_mc_opener_t *op)
{
    return NULL != op && OPEN_PROBE_WAIT == op->step;
}

void mcast_mc_open_free(mcast_mc_opener_t *op)
{
    if (NULL == op) {
        return;
    }
    /* an open given up half-way (its communicator freed): nothing of it stays posted */
    for (int r = 0; NULL != op->reqs && r < op->n; ++r) {
        if (MPI_REQUEST_NULL != op->reqs[r]) {
            if (!REQUEST_COMPLETE(op->reqs[r])) {
                ompi_request_cancel(op->reqs[r]);
            }
            ompi_request_wait(&op->reqs[r], MPI_STATUS_IGNORE);
        }
    }
    if (NULL != op->mc) {
        mcast_mc_close(op->mc);
    } else if (NULL != op->s.be.state && NULL != op->s.be.close) {
        op->s.be.close(op->s.be.state);
    }
    memset(&op->id, 0, sizeof op->id);
    free(op->reqs);
    free(op->in);
    free(op);
}
int mcast_mc_open(struct ompi_communicator_t *comm, const mcast_mc_params_t *params, mcast_mc_setup_fn setup,
                  mcast_mc_t **mc, char *why, size_t whylen)
{
    mcast_mc_opener_t *op = NULL;
    *mc = NULL;
    int rc = mcast_mc_open_start(comm, params, setup, &op);
    if (OMPI_SUCCESS != rc) {
        snprintf(why, whylen, "no memory or point-to-point for the open (%d)", rc);
        return rc;
    }
    while (MCAST_AGAIN == (rc = mcast_mc_open_test(op, mc, why, whylen))) {
        if (mcast_mc_open_waiting(op)) {
            usleep(50); /* the probe's datagrams */
        } else {
            opal_progress();
        }
    }
    mcast_mc_open_free(op);
    return rc;
}
