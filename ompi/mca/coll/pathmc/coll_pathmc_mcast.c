/*
 * coll/pathmc hardware multicast: opening the communicator's multicast group and running
 * `mcast` plans on it (the reliable protocol of pm_mcproto.h over IP multicast or
 * InfiniBand UD, mcast_mc.h), blocking (MPI_Bcast) and not (MPI_Ibcast, MPI_Start).
 *
 * Opening is collective and happens once per communicator at its first broadcast, when
 * coll_pathmc_mcast_transport is not `none` (every rank holds the same value: the
 * parameter digest is agreed first).  It never waits: mcast_mc_open_start/test, moved on
 * from the module's preparation (a blocking call's loop, or Open MPI's progress engine
 * when the first call is an MPI_Ibcast), so a nonblocking first call gets the group too.
 * Every rank gets the same answer (the open agrees on it), so every rank gives the
 * planner the same input.
 *
 * The queue.  The handle runs one broadcast at a time and numbers them (epochs), so every
 * rank must start them in the same order: the calls' order, which MPI makes the same on
 * every rank.  Each call's op joins the communicator's FIFO at its place (the module
 * makes sure every earlier call took its own: mcast_module.h "Order"); whoever drives the
 * queue (the progress function, for any of the queued Ibcasts; a blocking MPI_Bcast,
 * which joins the queue and drives it until its own op is done) starts the head op, polls
 * it and, when it ended, starts the next.  Requests complete in any order the
 * application waits for them; the ops never overtake one another.
 *
 *    MPI_Ibcast A   MPI_Ibcast B   MPI_Bcast C           queue: A(running) -> B -> C
 *    MPI_Wait(B) ... drives A to its end, starts B, drives B; C's call drives the rest
 *
 * Threads: q_lock guards the queue and the handle; a driver that finds it taken leaves
 * the work to its holder (MPI_Test returns, a blocking call progresses and retries), and
 * q_busy stops a drive from re-entering itself where the lock is a no-op (no threads).
 *
 * A call runs on contiguous packed bytes: a contiguous datatype is sent from (and
 * received into) the user buffer in place; any other is packed by the root at the call
 * into a temporary buffer with Open MPI's convertor and unpacked by every other rank when
 * its op ends.  A rank without memory for that buffer, or whose root cannot pack, takes
 * its part without data (mcast_mc_start_failed: its peers end with an error at once, the
 * epochs stay in step) and returns MPI_ERR_NO_MEM / MPI_ERR_INTERN; the others return the
 * protocol's error (mcast_status_to_mpi: MPI_ERR_TRUNCATE for a size that differs between
 * root and receiver, MPI_ERR_OTHER for an abort or a dead peer).
 */
#include "ompi_config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_pathmc.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/common/mcast/mcast_mc.h"
#include "ompi/mca/common/mcast/mcast_pml.h"
#include "ompi/mca/common/mcast/mcast_status_mpi.h"
#include "ompi/mca/common/mcast/mcast_udp.h"
#include "mcast_build_config.h"
#if MCAST_HAVE_VERBS
#include "ompi/mca/common/mcast/mcast_ib.h"
#endif
#include "opal/datatype/opal_convertor.h"
#include "opal/runtime/opal_progress.h"
#include "opal/sys/atomic.h"

const char *const mca_coll_pathmc_transport_names[] = {"none", "ip", "ib", "auto", NULL};

static void open_params(mcast_mc_params_t *p)
{
    const mca_coll_pathmc_component_t *c = &mca_coll_pathmc_component;
    mcast_mc_params_default(p);
    if (NULL != c->mcast_group_range && '\0' != c->mcast_group_range[0]) {
        p->group_range = c->mcast_group_range;
    }
    p->port = c->mcast_port;
    p->interface = c->mcast_interface;
    p->ttl = c->mcast_ttl;
    p->auth = c->mcast_auth;
    p->verbose = c->common.verbose >= 2 ? 1 : 0;
}

/* Starts the open over transport `which` (MCA_COLL_PATHMC_MC_IB / _IP); false when it
 * cannot start on this rank (why in st->mc_why). */
static bool open_begin(struct ompi_communicator_t *comm, mca_coll_pathmc_state_t *st, int which)
{
    mcast_mc_params_t p;
    open_params(&p);
    mcast_mc_setup_fn setup = mcast_udp_setup_fn;
    if (MCA_COLL_PATHMC_MC_IB == which) {
#if MCAST_HAVE_VERBS
        setup = mcast_ib_setup_fn;
#else
        snprintf(st->mc_why, sizeof(st->mc_why), "InfiniBand: built without rdma-core "
                                                 "(libibverbs-dev, librdmacm-dev)");
        return false;
#endif
    }
    st->mc_opening = which;
    if (OMPI_SUCCESS != mcast_mc_open_start(comm, &p, setup, &st->mc_opener)) {
        /* (a local failure: the peers may wait for this rank, docs/local-failures.md) */
        snprintf(st->mc_why, sizeof(st->mc_why), "no memory for the open");
        return false;
    }
    return true;
}

static void open_report(struct ompi_communicator_t *comm, const mca_coll_pathmc_state_t *st)
{
    const mca_coll_pathmc_component_t *c = &mca_coll_pathmc_component;
    if (0 != ompi_comm_rank(comm) || c->common.verbose < 1) {
        return;
    }
    if (NULL != st->mc) {
        pm_mc_stats_t ps;
        mcast_mc_xstats_t xs;
        mcast_mc_stats(st->mc, &ps, &xs);
        fprintf(stderr, "coll:pathmc: comm=%u multicast: transport=%s group %s chunk_bytes=%u "
                        "window_bytes=%llu probe_rounds=%u\n",
                mcast_comm_id(comm), mcast_mc_transport(st->mc), xs.group, xs.chunk_bytes,
                (unsigned long long) xs.window_bytes, xs.probe_rounds);
    } else {
        fprintf(stderr, "coll:pathmc: comm=%u multicast not used (coll_pathmc_mcast_transport=%s): "
                        "%s\n",
                mcast_comm_id(comm), mca_coll_pathmc_transport_names[c->mcast_transport],
                st->mc_why);
    }
}

int mca_coll_pathmc_mcast_open(struct ompi_communicator_t *comm, mca_coll_pathmc_state_t *st)
{
    const int want = mca_coll_pathmc_component.mcast_transport;
    if (st->mc_tried) {
        return OMPI_SUCCESS;
    }
    if (NULL == st->mc_opener) {
        st->mc = NULL;
        st->mc_transport = MCAST_TRANSPORT_NONE;
        st->mc_why[0] = '\0';
        if (MCA_COLL_PATHMC_MC_NONE == want) {
            st->mc_tried = true;
            return OMPI_SUCCESS;
        }
        const bool ib = MCA_COLL_PATHMC_MC_IB == want || MCA_COLL_PATHMC_MC_AUTO == want;
        /* (both decisions below are on agreed parameters and the open's agreed outcome) */
        if (!(ib && open_begin(comm, st, MCA_COLL_PATHMC_MC_IB)) &&
            !(MCA_COLL_PATHMC_MC_IB != want && open_begin(comm, st, MCA_COLL_PATHMC_MC_IP))) {
            st->mc_tried = true;
            open_report(comm, st);
            return OMPI_SUCCESS;
        }
    }
    char why[256] = "";
    const int rc = mcast_mc_open_test(st->mc_opener, &st->mc, why, sizeof(why));
    if (MCAST_AGAIN == rc) {
        return MCAST_AGAIN;
    }
    mcast_mc_open_free(st->mc_opener);
    st->mc_opener = NULL;
    if (OMPI_SUCCESS == rc) {
        st->mc_transport = MCA_COLL_PATHMC_MC_IB == st->mc_opening ? MCAST_TRANSPORT_IB
                                                                   : MCAST_TRANSPORT_IP;
    } else {
        const size_t used = strlen(st->mc_why);
        snprintf(st->mc_why + used, sizeof(st->mc_why) - used, "%s%s: %s", used ? "; " : "",
                 MCA_COLL_PATHMC_MC_IB == st->mc_opening ? "InfiniBand" : "IP", why);
        if (MCA_COLL_PATHMC_MC_IB == st->mc_opening && MCA_COLL_PATHMC_MC_AUTO == want &&
            open_begin(comm, st, MCA_COLL_PATHMC_MC_IP)) {
            return MCAST_AGAIN; /* auto: IP after InfiniBand (every rank, the outcome agreed) */
        }
    }
    st->mc_tried = true;
    open_report(comm, st);
    return OMPI_SUCCESS;
}

size_t mca_coll_pathmc_mcast_chunk(const mca_coll_pathmc_state_t *st)
{
    if (NULL == st->mc) {
        return 0;
    }
    pm_mc_stats_t ps;
    mcast_mc_xstats_t xs;
    mcast_mc_stats(st->mc, &ps, &xs);
    return xs.chunk_bytes;
}

/* Packs (send) or unpacks (!send) the whole message between the user buffer and `bytes`
 * contiguous bytes. */
static int convert_whole(void *buf, int count, struct ompi_datatype_t *dtype, char *bytes,
                         size_t len, bool send)
{
    opal_convertor_t cv;
    OBJ_CONSTRUCT(&cv, opal_convertor_t);
    int rc = send ? opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor,
                                                             &dtype->super, count, buf, 0, &cv)
                  : opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor,
                                                             &dtype->super, count, buf, 0, &cv);
    if (OMPI_SUCCESS == rc) {
        struct iovec iov = {.iov_base = bytes, .iov_len = len};
        uint32_t iov_count = 1;
        size_t max_data = len;
        rc = (send ? opal_convertor_pack(&cv, &iov, &iov_count, &max_data)
                   : opal_convertor_unpack(&cv, &iov, &iov_count, &max_data)) < 0 || max_data != len
                 ? OMPI_ERROR
                 : OMPI_SUCCESS;
    }
    OBJ_DESTRUCT(&cv);
    return rc;
}

/* ---- the group's queue (header) ---------------------------------------------- */

typedef struct mca_coll_pathmc_mc_op {
    struct mca_coll_pathmc_mc_op *next;
    mca_coll_pathmc_state_t *st;
    void *buf;
    int count;
    struct ompi_datatype_t *dtype;
    size_t bytes;
    int root;
    bool is_root;
    char *data;              /* what the group carries: the user buffer, or tmp */
    char *tmp;               /* a non-contiguous datatype's packed bytes */
    int local_err;           /* this rank takes its part without data, and returns this */
    bool started;
    volatile bool done;      /* set (under q_lock) once status is final */
    int status;
    bool orphan;             /* released before its end: the queue frees it */
} mc_op_t;

/* The op of a call: its bytes ready (the root's packed now). */
static void op_init(mc_op_t *op, mca_coll_pathmc_state_t *st, void *buf, int count,
                    struct ompi_datatype_t *dtype, size_t bytes, int root,
                    struct ompi_communicator_t *comm)
{
    memset(op, 0, sizeof(*op));
    op->st = st;
    op->buf = buf;
    op->count = count;
    op->dtype = dtype;
    op->bytes = bytes;
    op->root = root;
    op->is_root = ompi_comm_rank(comm) == root;
    op->status = OMPI_SUCCESS;
    if (ompi_datatype_is_contiguous_memory_layout(dtype, count)) {
        ptrdiff_t true_lb = 0, true_extent = 0;
        ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
        op->data = (char *) buf + true_lb;
        return;
    }
    op->tmp = malloc(bytes > 0 ? bytes : 1);
    if (NULL == op->tmp) {
        op->local_err = MPI_ERR_NO_MEM;
    } else if (op->is_root && OMPI_SUCCESS != convert_whole(buf, count, dtype, op->tmp, bytes, true)) {
        /* never the root's unpacked bytes as if they were data */
        op->local_err = MPI_ERR_INTERN;
    }
    op->data = op->tmp;
}

/* q_lock held. */
static void q_push(mca_coll_pathmc_state_t *st, mc_op_t *op)
{
    op->next = NULL;
    if (NULL == st->q_tail) {
        st->q_head = op;
    } else {
        st->q_tail->next = op;
    }
    st->q_tail = op;
}

/* q_lock held: the head op ended with `status`. */
static void q_finish_head(mca_coll_pathmc_state_t *st, int status)
{
    mc_op_t *op = st->q_head;
    st->q_head = op->next;
    if (NULL == st->q_head) {
        st->q_tail = NULL;
    }
    if (OMPI_SUCCESS == status && NULL != op->tmp && !op->is_root &&
        OMPI_SUCCESS != convert_whole(op->buf, op->count, op->dtype, op->tmp, op->bytes, false)) {
        status = MPI_ERR_INTERN;
    }
    free(op->tmp);
    op->tmp = NULL;
    op->status = status;
    if (op->orphan) {
        free(op);
        return;
    }
    opal_atomic_wmb();
    op->done = true;
}

/* Moves the queue on without waiting: starts the head op, polls it, starts the next when
 * it ended.  Returns whether anything moved.  Leaves the work to another driver when
 * the queue is taken. */
static bool q_drive(mca_coll_pathmc_state_t *st)
{
    if (OPAL_THREAD_TRYLOCK(&st->q_lock)) {
        return false;
    }
    if (st->q_busy) { /* (no threads: the lock above is a no-op) */
        OPAL_THREAD_UNLOCK(&st->q_lock);
        return false;
    }
    st->q_busy = true;
    bool moved = false;
    for (mc_op_t *op; NULL != (op = st->q_head);) {
        if (!op->started) {
            op->started = true;
            moved = true;
            const int rc = 0 != op->local_err
                               ? mcast_mc_start_failed(st->mc, op->root, op->bytes)
                               : mcast_mc_start(st->mc, op->root, op->data, op->bytes);
            if (OMPI_SUCCESS != rc) {
                q_finish_head(st, 0 != op->local_err ? op->local_err : rc);
                continue;
            }
        }
        if (!mcast_mc_poll(st->mc)) {
            moved = moved || mcast_mc_progressed(st->mc);
            break;
        }
        moved = true;
        q_finish_head(st, 0 != op->local_err ? op->local_err : mcast_mc_status(st->mc));
    }
    st->q_busy = false;
    OPAL_THREAD_UNLOCK(&st->q_lock);
    return moved;
}

static bool op_done(mc_op_t *op, int *status)
{
    if (!op->done) {
        return false;
    }
    opal_atomic_rmb();
    *status = op->status;
    return true;
}

static bool op_test(void *state, int *status)
{
    mc_op_t *op = state;
    if (!op->done) {
        (void) q_drive(op->st);
    }
    return op_done(op, status);
}

static void op_release(void *state)
{
    mc_op_t *op = state;
    mca_coll_pathmc_state_t *st = op->st;
    OPAL_THREAD_LOCK(&st->q_lock);
    const bool done = op->done;
    op->orphan = !done; /* (requests are released after completion: never in practice) */
    OPAL_THREAD_UNLOCK(&st->q_lock);
    if (done) {
        free(op);
    }
}

static const mcast_runner_t op_runner = {op_test, op_release};

int mca_coll_pathmc_mcast_irun(mcast_module_t *m, const mcast_plan_info_t *info, void *buf,
                               int count, struct ompi_datatype_t *dtype, size_t bytes, int root,
                               struct ompi_communicator_t *comm, const struct mcast_runner **runner,
                               void **state)
{
    (void) info;
    mca_coll_pathmc_state_t *st = m->comm_state;
    if (NULL == st->mc) {
        return MPI_ERR_INTERN; /* the planner offers mcast only with an open group */
    }
    mc_op_t *op = malloc(sizeof(*op));
    if (NULL == op) {
        return OMPI_ERR_OUT_OF_RESOURCE; /* (the caller runs it blocking, in its place) */
    }
    op_init(op, st, buf, count, dtype, bytes, root, comm);
    OPAL_THREAD_LOCK(&st->q_lock);
    q_push(st, op);
    OPAL_THREAD_UNLOCK(&st->q_lock);
    (void) q_drive(st); /* (an empty queue: starts now) */
    *runner = &op_runner;
    *state = op;
    return OMPI_SUCCESS;
}

int mca_coll_pathmc_mcast_run(mcast_module_t *m, const mcast_plan_info_t *info, void *buf,
                              int count, struct ompi_datatype_t *dtype, size_t bytes, int root,
                              struct ompi_communicator_t *comm)
{
    (void) info;
    mca_coll_pathmc_state_t *st = m->comm_state;
    if (NULL == st->mc) {
        return MPI_ERR_INTERN; /* the planner offers mcast only with an open group */
    }
    mc_op_t op;
    op_init(&op, st, buf, count, dtype, bytes, root, comm);
    OPAL_THREAD_LOCK(&st->q_lock);
    q_push(st, &op);
    OPAL_THREAD_UNLOCK(&st->q_lock);
    int status = OMPI_SUCCESS;
    /* earlier Ibcasts' ops first: drive the queue until this op's turn and its end */
    while (!op_done(&op, &status)) {
        const bool moved = q_drive(st);
        if (op_done(&op, &status)) {
            break;
        }
        opal_progress();
        if (!moved) {
            sched_yield();
        }
    }
    return status;
}

void mca_coll_pathmc_mcast_fini(mca_coll_pathmc_state_t *st)
{
    mcast_mc_open_free(st->mc_opener); /* (an open the communicator's end interrupted) */
    st->mc_opener = NULL;
    while (NULL != st->q_head) { /* (never: every request ends before its communicator) */
        mc_op_t *op = st->q_head;
        st->q_head = op->next;
        free(op->tmp);
        if (op->orphan) {
            free(op);
        }
    }
    st->q_tail = NULL;
}
