/* Shared module: see mcast_module.h. */
#include "mcast_module.h"
#include "mcast_status_mpi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ompi/communicator/communicator.h"
#include "ompi/mca/pml/pml.h"
#include "opal/runtime/opal_progress.h"
#include "mcast_calib.h"
#include "mcast_pml.h"
#include "mcast_shmseg.h"
#include "mcast_shm.h"

static void mcast_module_construct(mcast_module_t *m)
{
    m->ops = NULL;
    m->previous_bcast = NULL;
    m->previous_bcast_module = NULL;
    m->previous_ibcast = NULL;
    m->previous_ibcast_module = NULL;
#if MCAST_HAVE_BCAST_INIT
    m->previous_bcast_init = NULL;
    m->previous_bcast_init_module = NULL;
#endif
    memset(&m->plans, 0, sizeof(m->plans));
    m->engine = NULL;
    m->calibrated = m->calib_reused = m->calib_tried = false;
    m->state = MCAST_STATE_NEW;
    m->use_rules = m->use_topology = false;
    m->comm_state = NULL;
    m->comm_state_free = NULL;
    m->fallback_warned = false;
    m->chain = NULL;
    m->shm = NULL;
    OBJ_CONSTRUCT(&m->lock, opal_mutex_t);
    memset(&m->xchg, 0, sizeof(m->xchg));
    m->nb_state = MCAST_STATE_NEW;
    m->nb_error = OMPI_SUCCESS;
    memset(&m->nb_plans, 0, sizeof(m->nb_plans));
    m->nb_chain = NULL;
    m->seq_next = m->seq_done = 0;
    m->nb_next = m->nb_started = 0;
    m->seq_ahead = NULL;
    m->nseq_ahead = m->seq_ahead_cap = 0;
    memset(m->nb_vcount, 0, sizeof(m->nb_vcount));
    m->nb_trials = 0;
    m->nbv = NULL;
    memset(&m->nb_other, 0, sizeof(m->nb_other));
}

static void exchange_drain(mcast_module_t *m);
static void exchange_free(mcast_exchange_t *x);
static void watch_forget(mcast_module_t *m);

static void mcast_module_destruct(mcast_module_t *m)
{
    watch_forget(m); /* (a predefined communicator's, destroyed at MPI_Finalize) */
    if (m->xchg.p2p) { /* started by a call whose communicator is being freed: every rank
                          started it, so it completes (rank 0 still sends the records back) */
        exchange_drain(m);
    }
    exchange_free(&m->xchg);
    mcast_plan_cache_clear(&m->nb_plans);
    mcast_plan_cache_clear(&m->nb_other);
    free(m->nbv);
    free(m->nb_chain);
    free(m->seq_ahead);
    OBJ_DESTRUCT(&m->lock);
    mcast_plan_cache_clear(&m->plans);
    mcast_engine_destroy(m->engine);
    free(m->chain);
    mcast_shm_free(m->shm);
    if (NULL != m->comm_state_free) {
        m->comm_state_free(m->comm_state);
    }
    if (NULL != m->previous_bcast_module) {
        OBJ_RELEASE(m->previous_bcast_module);
    }
    if (NULL != m->previous_ibcast_module) {
        OBJ_RELEASE(m->previous_ibcast_module);
    }
#if MCAST_HAVE_BCAST_INIT
    if (NULL != m->previous_bcast_init_module) {
        OBJ_RELEASE(m->previous_bcast_init_module);
    }
#endif
}

OBJ_CLASS_INSTANCE(mcast_module_t, mca_coll_base_module_t, mcast_module_construct,
                   mcast_module_destruct);

static int mcast_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    mcast_module_t *m = (mcast_module_t *) module;
    /* Modules are enabled from the lowest priority up: comm->c_coll holds what serves
     * bcast / ibcast below us, which is where passed-on calls go. */
    m->previous_bcast = comm->c_coll->coll_bcast;
    m->previous_bcast_module = comm->c_coll->coll_bcast_module;
    m->previous_ibcast = comm->c_coll->coll_ibcast;
    m->previous_ibcast_module = comm->c_coll->coll_ibcast_module;
    if (NULL == m->previous_bcast || NULL == m->previous_bcast_module) {
        return OMPI_ERR_NOT_FOUND;
    }
    OBJ_RETAIN(m->previous_bcast_module);
    if (NULL != m->previous_ibcast_module) {
        OBJ_RETAIN(m->previous_ibcast_module);
    }
#if MCAST_HAVE_BCAST_INIT
    m->previous_bcast_init = comm->c_coll->coll_bcast_init;
    m->previous_bcast_init_module = comm->c_coll->coll_bcast_init_module;
    if (NULL != m->previous_bcast_init_module) {
        OBJ_RETAIN(m->previous_bcast_init_module);
    }
#endif
    return OMPI_SUCCESS;
}

mcast_module_t *mcast_module_new(const mcast_component_ops_t *ops,
                                 mca_coll_base_module_bcast_fn_t bcast_fn,
                                 mca_coll_base_module_ibcast_fn_t ibcast_fn)
{
    mcast_module_t *m = OBJ_NEW(mcast_module_t);
    if (NULL == m) {
        return NULL;
    }
    /* This process's locality record, made once: at MPI_COMM_WORLD's selection inside
     * MPI_Init rather than inside a communicator's first MPI_Ibcast (its PMIx lookups:
     * E-FIRST-1); later modules find it made. */
    mcast_locality_record_t self;
    mcast_locality_record_self(&self);
    m->ops = ops;
    mcast_tags_init(&m->tags, MCAST_COMP_PATHMC == ops->component ? 1 : 0);
    /* Only bcast, ibcast (and bcast_init where the API has it): every other collective
     * stays with the module below. */
    m->super.coll_module_enable = mcast_module_enable;
    m->super.coll_bcast = bcast_fn;
    m->super.coll_ibcast = ibcast_fn;
#if MCAST_HAVE_BCAST_INIT
    m->super.coll_bcast_init = mcast_module_bcast_init;
#endif
    return m;
}

/* ---- the exchange (header) ------------------------------------------------ */

/* b when it is one of our modules (the other component's), else NULL.  Both components
 * build this file: the class is known by its name. */
static mcast_module_t *as_ours(const mca_coll_base_module_t *b)
{
    if (NULL == b || NULL == b->super.obj_class || NULL == b->super.obj_class->cls_name ||
        0 != strcmp(b->super.obj_class->cls_name, "mcast_module_t")) {
        return NULL;
    }
    return (mcast_module_t *) b;
}

/* The module below for MPI_Ibcast (and the exchange, the segments) when it is ours. */
static mcast_module_t *below_ours(const mcast_module_t *m)
{
    return as_ours(m->previous_ibcast_module);
}

/* This rank ends a call without knowing its plan (no memory for it: a local failure).
 * Had the others run it on a shared segment, its next call there would take that call's
 * chunks for its own and report success with them: the segments the call could have
 * used (m's, and those of our modules below, to which m may hand calls) are abandoned,
 * so that every later call on them ends with an error on every rank instead
 * (mcast_shm_abandon; docs/local-failures.md). */
static void abandon_segments(mcast_module_t *m)
{
    for (mcast_module_t *x = m; NULL != x; x = below_ours(x)) {
        mcast_shm_seg_abandon(x->shm);
    }
}

/* The nonblocking exchange runs over the PML with the module's tags (mcast_pml.h), not
 * as Open MPI's iallgather: libnbc takes that one's tag from the communicator's counter,
 * which MPI_Comm_idup draws from inside the progress engine, so with an idup under way
 * the ranks' iallgathers had other tags and met the idup's messages (MPICH's idup_nb:
 * MPI_ERR_TRUNCATE in libnbc; comm_idup_nb: records of another operation, "different
 * parameters").  Every rank sends its record to every other and receives theirs, all
 * posted at the call: nothing is left for a later step to start, so a module freed with
 * its exchange in flight only waits (2 (n - 1) messages a rank, once per communicator). */
static int exchange_post(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    mcast_exchange_t *x = &m->xchg;
    const int n = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    const int one = (int) sizeof(*x->mine);
    int rc = OMPI_SUCCESS;
    x->all[me] = *x->mine;
    for (int k = 1; k < n && OMPI_SUCCESS == rc; k++) {
        const int from = (me - k + n) % n;
        rc = MCA_PML_CALL(irecv(&x->all[from], one, MPI_BYTE, from, x->tag, comm,
                                &x->reqs[x->nreq]));
        x->nreq += OMPI_SUCCESS == rc;
    }
    for (int k = 1; k < n && OMPI_SUCCESS == rc; k++) {
        rc = MCA_PML_CALL(isend(x->mine, one, MPI_BYTE, (me + k) % n, x->tag,
                                MCA_PML_BASE_SEND_STANDARD, comm, &x->reqs[x->nreq]));
        x->nreq += OMPI_SUCCESS == rc;
    }
    return rc;
}

/* True once the exchange's messages are done (their first error in x->rc); wait: block
 * on them (the destructor). */
static bool exchange_step(mcast_module_t *m, bool wait)
{
    mcast_exchange_t *x = &m->xchg;
    if (!x->p2p) {
        return true;
    }
    for (int i = 0; i < x->nreq; i++) {
        if (wait) {
            const int rc = ompi_request_wait(&x->reqs[i], MPI_STATUS_IGNORE);
            x->rc = OMPI_SUCCESS == x->rc ? rc : x->rc;
        } else if (!REQUEST_COMPLETE(x->reqs[i])) {
            return false;
        }
    }
    for (int i = 0; i < x->nreq; i++) {
        if (MPI_REQUEST_NULL != x->reqs[i]) {
            x->rc = OMPI_SUCCESS == x->rc ? x->reqs[i]->req_status.MPI_ERROR : x->rc;
            ompi_request_free(&x->reqs[i]);
        }
    }
    x->nreq = 0;
    x->p2p = false;
    return true;
}

static void exchange_drain(mcast_module_t *m)
{
    (void) exchange_step(m, true);
}

/* The requests' table of a nonblocking exchange among n ranks. */
static size_t exchange_nreqs(int n)
{
    return n > 1 ? 2 * (size_t) (n - 1) : 1;
}

/* The exchange's room: its records and, for a nonblocking one, its requests' table
 * (x->reqs NULL otherwise).  false: the heap refused them (see below). */
static bool exchange_room(mcast_exchange_t *x, int n, bool blocking)
{
    const size_t nreqs = blocking ? 0 : exchange_nreqs(n);
    x->mine = calloc(1, sizeof(*x->mine));
    x->all = calloc((size_t) n, sizeof(*x->all));
    x->reqs = blocking ? NULL : malloc(sizeof(*x->reqs) * nreqs);
    if (NULL != x->mine && NULL != x->all && (blocking || NULL != x->reqs)) {
        return true;
    }
    /* Without them this rank could not take part in the exchange, and its next call would
     * join this call's exchange, a call behind its peers for good (its segment's chunks,
     * the module below's messages: the wrong call's data).  Fresh pages hold them instead;
     * the caller's record then says "short of memory", so every rank leaves the
     * communicator to the module below. */
    free(x->mine);
    free(x->all);
    free(x->reqs);
    x->paged_n = n;
    x->mine = mcast_pages_map(sizeof(*x->mine));
    x->all = mcast_pages_map(sizeof(*x->all) * (size_t) n);
    x->reqs = mcast_pages_map(sizeof(*x->reqs) * nreqs); /* (NULL for 0 bytes) */
    return false;
}

static void exchange_free(mcast_exchange_t *x)
{
    if (x->paged_n > 0) {
        const int n = x->paged_n;
        mcast_pages_unmap(x->mine, sizeof(*x->mine));
        mcast_pages_unmap(x->all, sizeof(*x->all) * (size_t) n);
        mcast_pages_unmap(x->reqs, sizeof(*x->reqs) * exchange_nreqs(n));
    } else {
        free(x->mine);
        free(x->all);
        free(x->reqs);
    }
    x->mine = x->all = NULL;
    x->reqs = NULL;
    x->paged_n = 0;
}

/* Starts the exchange (every rank at the same call).  blocking: the allgather runs to
 * completion here. */
static int exchange_start(mcast_module_t *m, struct ompi_communicator_t *comm, bool blocking)
{
    const int n = ompi_comm_size(comm);
    mcast_exchange_t *x = &m->xchg;
    const bool heap = exchange_room(x, n, blocking);
    if (NULL == x->mine || NULL == x->all || (!blocking && NULL == x->reqs)) {
        exchange_free(x);
        return OMPI_ERR_OUT_OF_RESOURCE; /* (nothing started: this rank's part is missing) */
    }
    /* what the module keeps from here on, taken before the exchange so that a rank without
     * memory for it says so in its record (every rank then leaves the communicator to the
     * module below, instead of this rank failing alone) */
    m->chain = malloc(sizeof(int) * (size_t) n);
    m->nb_chain = malloc(sizeof(int) * (size_t) n);
    m->plans.decisions = calloc(MCAST_MAX_CLASSES, sizeof(mcast_decision_t *));
    int slots = 0;
    size_t slot_bytes = 0;
    if (NULL != m->ops->segment && m->ops->segment(m, &slots, &slot_bytes) && NULL == m->shm) {
        m->shm = mcast_shm_seg_new(n); /* the segment's setup state: its steps allocate nothing */
        x->mine->short_of_memory = NULL == m->shm;
    }
    x->mine->short_of_memory = x->mine->short_of_memory || !heap || NULL == m->chain ||
                               NULL == m->nb_chain || NULL == m->plans.decisions ||
                               !mcast_locality_reserve(m->ops->locality(m));
    m->ops->digests(m, &x->mine->digests);
    x->mine->calib = m->ops->params->self_calibrate ? mcast_calib_known(NULL) : 0;
    mcast_locality_record_self(&x->mine->loc);
    /* the segment setup's tags, reserved now by every rank whatever comes of it */
    m->xtags[0] = mcast_tags_take(&m->tags);
    m->xtags[1] = m->xtags[0] - 1;
    m->xtags[2] = mcast_tags_take(&m->tags);
    int rc;
    if (blocking) {
        rc = comm->c_coll->coll_allgather(x->mine, (int) sizeof(*x->mine), MPI_BYTE, x->all,
                                          (int) sizeof(*x->mine), MPI_BYTE, comm,
                                          comm->c_coll->coll_allgather_module);
    } else {
        x->tag = mcast_tags_take(&m->tags); /* (every rank, at this call) */
        x->nreq = 0;
        x->p2p = true;
        rc = exchange_post(m, comm);
        if (OMPI_SUCCESS != rc) {
            x->rc = rc; /* (what is posted still completes: exchange_finish waits for it) */
        }
        return OMPI_SUCCESS;
    }
    if (OMPI_SUCCESS != rc) {
        x->finished = true;
        x->rc = rc;
    }
    return OMPI_SUCCESS;
}

/* With m->lock held: true once the exchange's outcome is known (never waits). */
static bool exchange_finish(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    mcast_exchange_t *x = &m->xchg;
    if (x->finished) {
        return true;
    }
    if (!exchange_step(m, false)) {
        return false;
    }
    x->finished = true;
    if (OMPI_SUCCESS != x->rc) {
        return true;
    }
    const int n = ompi_comm_size(comm);
    const mcast_digests_t *d = &x->mine->digests;
    x->same_params = true;
    m->use_rules = m->use_topology = true;
    bool same_calib = 0 != x->mine->calib;
    for (int r = 0; r < n; r++) {
        x->short_of_memory = x->short_of_memory || 0 != x->all[r].short_of_memory;
        x->same_params = x->same_params && x->all[r].digests.params == d->params;
        m->use_rules = m->use_rules && x->all[r].digests.rules == d->rules;
        m->use_topology = m->use_topology && x->all[r].digests.topology == d->topology;
        same_calib = same_calib && x->all[r].calib == x->mine->calib;
    }
    /* every rank holds the job's measured model: this communicator plans with it, measuring
     * nothing (the job's model never changes once set, so the copy is the one compared) */
    if (same_calib && x->same_params && !m->calibrated) {
        m->calibrated = mcast_calib_known(&m->calib) == x->mine->calib;
        m->calib_reused = m->calibrated;
    }
    /* (the room for them was reserved before the exchange: a rank without it said so, and
     * then no rank needs them) */
    if (!x->short_of_memory) {
        x->rc = mcast_locality_set_records(m->ops->locality(m), &x->all[0].loc, sizeof(x->all[0]));
    }
    const unsigned cid = mcast_comm_id(comm);
    if (0 == ompi_comm_rank(comm) && OMPI_SUCCESS == x->rc) {
        if (x->short_of_memory) {
            fprintf(stderr, "coll:%s: comm=%u: a rank had no memory for the module's state: the "
                            "module below serves this communicator's MPI_Bcast on every rank\n",
                    m->ops->name, cid);
        } else if (!x->same_params) {
            fprintf(stderr, "coll:%s: comm=%u: the ranks hold different coll_%s_* parameters "
                            "(or machine files): the module below serves this communicator on "
                            "every rank; give every rank the same values\n",
                    m->ops->name, cid, m->ops->name);
        } else {
            if (!m->use_rules) {
                fprintf(stderr, "coll:%s: comm=%u: ranks hold different rules (or none): the "
                                "rules file is not used on this communicator\n", m->ops->name, cid);
            }
            if (!m->use_topology) {
                fprintf(stderr, "coll:%s: comm=%u: ranks read different topology/coordinates "
                                "files (or none): not used on this communicator\n", m->ops->name,
                        cid);
            }
            if (m->calib_reused && m->ops->params->verbose >= 1 &&
                !m->ops->locality(m)->all_local) {
                fprintf(stderr, "coll:%s: comm=%u size=%d: the job's model, measured on an "
                                "earlier communicator: %s\n",
                        m->ops->name, cid, n, m->calib.source);
            }
        }
    }
    return true;
}

/* The verification's trials on this communicator: the parameter, or where it is
 * MCAST_VERIFY_TRIALS_AUTO, MCAST_VERIFY_AUTO_TRIALS where every rank is on one node and
 * each has a core (Open MPI does not yield when idle), else off: there the trials judged
 * as a benchmark loop does, with more ranks than cores and across TCP hosts they did not
 * (E-VERIFY-3, E-VERIFY-1, E-VERIFY-2).  Every rank reaches the same value: one node and
 * Open MPI's yielding (on some rank) are the exchange's (mcast_locality.h). */
static int verify_trials_of(mcast_module_t *m, const mcast_common_params_t *par)
{
    if (MCAST_VERIFY_TRIALS_AUTO != par->verify_trials) {
        return par->verify_trials;
    }
    const mcast_locality_t *loc = m->ops->locality(m);
    return NULL != loc && loc->all_local && !loc->oversubscribed ? MCAST_VERIFY_AUTO_TRIALS : 0;
}

/* With m->lock held, once the exchange finished: the preparation that never waits (also
 * what the nonblocking decision uses; a component's setup that communicates, a multicast
 * group's open, runs here step by step: prepare returns MCAST_AGAIN until it is over),
 * then the segment's setup where the component offers one.  Once per module. */
static void nb_prepare(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    if (MCAST_STATE_NEW != m->nb_state) {
        return;
    }
    if (m->xchg.short_of_memory) {
        m->nb_state = MCAST_STATE_DISABLED;
        return; /* (every rank knows: the minimal plan, nb_plan) */
    }
    m->nb_state = MCAST_STATE_DISABLED;
    bool failed_alone = false; /* this rank's preparation failed (its peers' may not have) */
    if (m->xchg.same_params) {
        const int rc = m->ops->prepare(m, comm, m->use_rules, m->use_topology, true);
        if (MCAST_AGAIN == rc) {
            m->nb_state = MCAST_STATE_NEW; /* a setup under way (a multicast group): again */
            return;
        }
        m->nb_error = rc;
        m->nb_state = OMPI_SUCCESS == m->nb_error ? MCAST_STATE_READY : MCAST_STATE_PASS;
        if (OMPI_ERR_NOT_AVAILABLE == m->nb_error) {
            m->nb_error = OMPI_SUCCESS; /* (declined on inputs every rank shares) */
        }
        failed_alone = OMPI_SUCCESS != m->nb_error;
    }
    int slots = 0;
    size_t slot_bytes = 0;
    m->nb_trials = verify_trials_of(m, m->ops->params); /* (nbv: read once) */
    mcast_locality_t *loc = m->ops->locality(m);
    if ((failed_alone || MCAST_STATE_READY == m->nb_state) && NULL != m->shm &&
        (loc->all_local || (NULL != loc->records && NULL != loc->node_of)) &&
        NULL != m->ops->segment &&
        m->ops->segment(m, &slots, &slot_bytes)) {
        if (!failed_alone) {
            (void) mcast_shm_setup_start(m->shm, slots, slot_bytes,
                                         loc->all_local ? NULL : loc->node_of, comm, m->xtags);
        } else {
            /* its peers start the setup and wait for this rank's flag: it declines, so the
             * segment fails on every rank (the blocking call then agrees on the
             * preparation: settle); the nodes from the exchanged records, as discovery
             * would have them */
            if (!loc->all_local) {
                (void) mcast_locality_nodes_of(loc->records, loc->n, loc->node_of);
            }
            (void) mcast_shm_setup_decline(m->shm, loc->all_local ? NULL : loc->node_of, comm,
                                           m->xtags);
        }
    }
}

/* With m->lock held: the exchange finished, the preparation made and the segment set up
 * (or failed, on every rank).  Never waits. */
static bool nb_ready(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    if (!exchange_finish(m, comm)) {
        return false;
    }
    if (OMPI_SUCCESS == m->xchg.rc) {
        nb_prepare(m, comm);
        if (MCAST_STATE_NEW == m->nb_state) {
            return false;
        }
    }
    return NULL == m->shm || mcast_shm_setup_test(m->shm);
}

/* A blocking call in state NEW or PENDING: the exchange (started here or waited for), the
 * agreement and the component's preparation.  The module's lock is never held while
 * Open MPI progresses (a nonblocking step may call MPI_Ibcast on this communicator from
 * there). */
static int settle(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    if (MCAST_STATE_NEW == m->state) {
        const int rc = exchange_start(m, comm, true);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    for (;;) {
        OPAL_THREAD_LOCK(&m->lock);
        const bool ready = nb_ready(m, comm);
        OPAL_THREAD_UNLOCK(&m->lock);
        if (ready) {
            break;
        }
        opal_progress();
    }
    int rc = m->xchg.rc;
    m->state = MCAST_STATE_PASS; /* unless all goes well below */
    if (OMPI_SUCCESS != rc || m->xchg.short_of_memory) {
        return rc;
    }
    if (!m->xchg.same_params) {
        m->state = MCAST_STATE_DISABLED;
        return OMPI_SUCCESS;
    }
    /* what needs communication (a multicast group), without the lock */
    rc = m->ops->prepare(m, comm, m->use_rules, m->use_topology, false);
    /* The preparation's outcome is local where it fails (no memory for the discovery on
     * one rank): the ranks agree on it.  {prepared, prepared or declined}: a preparation
     * declines (OMPI_ERR_NOT_AVAILABLE) on inputs every rank shares. */
    int mine[2] = {OMPI_SUCCESS == rc, OMPI_SUCCESS == rc || OMPI_ERR_NOT_AVAILABLE == rc};
    int all[2] = {0, 0};
    rc = comm->c_coll->coll_allreduce(mine, all, 2, MPI_INT, MPI_MIN, comm,
                                      comm->c_coll->coll_allreduce_module);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (!all[1] && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:%s: comm=%u: a rank could not prepare the communicator: the "
                        "module below serves it on every rank\n",
                m->ops->name, mcast_comm_id(comm));
    }
    m->state = all[0] ? MCAST_STATE_READY : MCAST_STATE_PASS;
    return OMPI_SUCCESS;
}

/* ---- the segment's call sequence (mcast_module.h) ----------------------------- */

/* A slot for a call (at the call). */
static int64_t seq_take(mcast_module_t *m)
{
    OPAL_THREAD_LOCK(&m->lock);
    const int64_t k = m->seq_next++;
    OPAL_THREAD_UNLOCK(&m->lock);
    return k;
}

/* With m->lock held: slot k's op started, or it has none. */
static void seq_resolve_locked(mcast_module_t *m, int64_t k)
{
    if (k != m->seq_done) {
        if (m->nseq_ahead == m->seq_ahead_cap) {
            const int cap = m->seq_ahead_cap ? 2 * m->seq_ahead_cap : 16;
            int64_t *a = realloc(m->seq_ahead, sizeof(int64_t) * (size_t) cap);
            if (NULL == a) {
                return; /* the later ops wait; an op's start then waits for this slot */
            }
            m->seq_ahead = a;
            m->seq_ahead_cap = cap;
        }
        m->seq_ahead[m->nseq_ahead++] = k;
        return;
    }
    m->seq_done++;
    for (bool moved = true; moved;) {
        moved = false;
        for (int i = 0; i < m->nseq_ahead; i++) {
            if (m->seq_ahead[i] == m->seq_done) {
                m->seq_ahead[i] = m->seq_ahead[--m->nseq_ahead];
                m->seq_done++;
                moved = true;
            }
        }
    }
}

static void seq_resolve(mcast_module_t *m, int64_t k)
{
    OPAL_THREAD_LOCK(&m->lock);
    seq_resolve_locked(m, k);
    OPAL_THREAD_UNLOCK(&m->lock);
}

/* Whether slot k's op may start (every earlier slot resolved). */
static bool seq_turn(mcast_module_t *m, int64_t k)
{
    OPAL_THREAD_LOCK(&m->lock);
    const bool turn = m->seq_done == k;
    OPAL_THREAD_UNLOCK(&m->lock);
    return turn;
}

/* Whether every call's op so far has started (no earlier call waits for its turn). */
static bool seq_idle(mcast_module_t *m)
{
    OPAL_THREAD_LOCK(&m->lock);
    const bool idle = m->seq_done == m->seq_next;
    OPAL_THREAD_UNLOCK(&m->lock);
    return idle;
}

/* A module that serves none of its communicator's calls: settled so (PASS, DISABLED are
 * for good once a blocking call settled the module). */
static bool serves_none(const mcast_module_t *m)
{
    return MCAST_STATE_PASS == m->state || MCAST_STATE_DISABLED == m->state;
}

static bool uses_segment(const mcast_plan_info_t *info)
{
    return MCAST_PLAN_SHM == info->transport_kind || MCAST_PLAN_PML_SHM == info->transport_kind;
}

static char *dup_str(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    if (NULL != d) {
        strcpy(d, s);
    }
    return d;
}

/* The planner's input as this module discovered it (mcast_input_fn_t). */
typedef struct {
    mcast_module_t *m;
    struct ompi_communicator_t *comm;
    int compare_previous; /* the parameter as the input had it */
} module_input_ctx_t;

/* A plan input without a segment: shm and twolevel's intra=shm are no candidates. */
static void no_segment(mcast_plan_input_t *in)
{
    in->shm_slot_bytes = 0;
    in->shm_chunk_bytes = 0;
    in->shm_slots = 0;
}

static int module_input(void *ctx, int root, size_t bytes, mcast_plan_input_t *in,
                        mcast_forced_t *f)
{
    module_input_ctx_t *c = ctx;
    c->m->ops->input(c->m, c->comm, root, bytes, in, f, c->m->chain);
    if (NULL == c->m->ops->segment && NULL == as_ours(c->m->previous_bcast_module)) {
        no_segment(in); /* (pathmc: the segment it defers to is our module's below it) */
    }
    c->compare_previous = f->compare_previous;
    return KB_OK;
}

/* The class's decision (mcast_decide_class), once per communicator.  NULL when this rank
 * had no memory for it (nothing kept: a later call decides again; a decision that differs
 * from the other ranks' would send this rank down another path for good). */
static mcast_decision_t *decide_now(mcast_module_t *m, struct ompi_communicator_t *comm, int cls);

static inline mcast_decision_t *decide(mcast_module_t *m, struct ompi_communicator_t *comm, int cls)
{
    mcast_decision_t *d = m->plans.decisions[cls];
    return NULL != d && d->made ? d : decide_now(m, comm, cls);
}

/* The order of a verified class's trial calls: by the machine model's eager size inside a
 * node (mcast_verify_order; E-VERIFY-7).  chain: the input's scratch of the caller's path
 * (m->chain for blocking calls, m->nb_chain for nonblocking ones). */
static void verify_order(mcast_module_t *m, struct ompi_communicator_t *comm, int cls,
                         int *chain, mcast_verify_t *v)
{
    mcast_plan_input_t in;
    mcast_forced_t forced;
    m->ops->input(m, comm, 0, mcast_class_bytes(cls), &in, &forced, chain);
    if (NULL != in.machine) {
        mcast_verify_order(v, mcast_class_bytes(cls), in.machine->shm.eager_bytes);
    }
}

/* (out of line: a settled call's decide is a load, without this one's frame; E-CALL-1) */
static __attribute__((noinline)) mcast_decision_t *
decide_now(mcast_module_t *m, struct ompi_communicator_t *comm, int cls)
{
    mcast_decision_t *d = mcast_plan_cache_decision(&m->plans, cls);
    if (NULL == d) {
        return NULL; /* (no memory: decided again at a later call) */
    }
    module_input_ctx_t ctx = {m, comm, 0};
    char why[256] = "";
    mcast_plan_t *p = NULL;
    const int rc = mcast_decide_class(module_input, &ctx, mcast_class_bytes(cls), &d->choice, &p,
                                      why, sizeof(why));
    if (KB_ERR_NOMEM == rc) {
        return NULL;
    }
    if (KB_OK != rc) {
        d->made = true;
        d->failed = true;
        d->why = dup_str('\0' != why[0] ? why : "no plan for these parameters");
        return d;
    }
    mcast_plan_info_t info;
    mcast_plan_get_info(p, &info);
    const mcast_common_params_t *par = m->ops->params;
    /* (compare_previous false: our plan always, nothing to verify against) */
    const int trials = verify_trials_of(m, par);
    if (trials > 0 && 0 != ctx.compare_previous && ompi_comm_size(comm) >= 2 &&
        mcast_verify_applies(d->choice.selected_by)) {
        /* ours chosen by a small margin: our runner-up is a candidate too (a decision on
         * root 0's agreed input, as the choice: every rank has it or none) */
        const int ru = mcast_decide_runner_up(module_input, &ctx, p, par->verify_runner_up,
                                              &d->runner_up, why, sizeof(why));
        if (KB_ERR_NOMEM == ru) {
            mcast_plan_free(p);
            return NULL; /* (nothing kept: decided again at a later call) */
        }
        mcast_verify_init(&d->verify, trials, par->verify_margin,
                          (uint64_t) (par->verify_recheck > 0 ? par->verify_recheck : 0));
        d->has_runner_up = 1 == ru && mcast_verify_add_runner_up(&d->verify);
        verify_order(m, comm, cls, m->chain, &d->verify);
        d->verifying = true;
    }
    d->made = true;
    if (d->choice.defer && m->ops->params->verbose >= 1 && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:%s: comm=%u size=%d class_bytes=%zu: the module below serves this "
                        "size class (selected_by=%s; our plan would be algorithm=%s)\n",
                m->ops->name, mcast_comm_id(comm), ompi_comm_size(comm), mcast_class_bytes(cls),
                info.selected_by, info.name);
        fflush(stderr);
    }
    mcast_plan_free(p);
    return d;
}

/* Which candidate a call runs: the class's decision, or (a verified class) ours, the
 * module below's or our runner-up. */
enum { WANT_DECISION = -1, WANT_OURS = 0, WANT_BELOW = 1, WANT_RUNNER_UP = 2 };

/* A verified class's candidate (MCAST_VERIFY_*) as what the call runs. */
static int want_of_candidate(const mcast_decision_t *d, int cand)
{
    if (MCAST_VERIFY_RUNNER_UP == cand) {
        return d->has_runner_up ? WANT_RUNNER_UP : WANT_OURS;
    }
    return (0 != d->choice.defer) != (MCAST_VERIFY_OTHER == cand) ? WANT_BELOW : WANT_OURS;
}

/* The runner-up's plans share the cache with the class's own under a key of their own. */
static inline int runner_up_key(int cls)
{
    return MCAST_MAX_CLASSES + cls;
}

/* What a call of a verified class runs (mcast_planner.h, "Verification on live calls"):
 * a blocking MPI_Bcast takes its turn in the trials (`trial`), any other call follows the
 * verdict once there is one, the class's choice until then.  WANT_DECISION for a class
 * that is not verified (or not decided yet: plan_for decides it). */
static int want_of(const mcast_module_t *m, int cls, bool trial)
{
    if (NULL == m->plans.decisions) {
        return WANT_DECISION;
    }
    const mcast_decision_t *d = m->plans.decisions[cls];
    if (NULL == d || !d->made || d->failed || !d->verifying) {
        return WANT_DECISION;
    }
    const int cand = trial ? mcast_verify_pick(&d->verify)
                           : (d->verify.settled ? d->verify.verdict : MCAST_VERIFY_CHOSEN);
    return want_of_candidate(d, cand);
}

/* The plan of (class, root): the class's decision built on this root's chain
 * (mcast_plan_on_root); under WANT_OURS our plan of a deferred choice (the planner's plan
 * it stood against), under WANT_RUNNER_UP the class's runner-up, under WANT_BELOW none.
 * NULL with *why set when there is none, NULL with *defer set when the call goes to the
 * module below, NULL with *no_memory set when this rank had no memory to build it (a local
 * failure: the caller must not decide on it). */
static mcast_cached_plan_t *plan_build(mcast_module_t *m, struct ompi_communicator_t *comm,
                                       const mcast_class_choice_t *choice, int key, int cls,
                                       int root, const char **why, bool *no_memory);

static mcast_cached_plan_t *plan_for(mcast_module_t *m, struct ompi_communicator_t *comm, int cls,
                                     int root, int want, const char **why, bool *defer,
                                     bool *no_memory)
{
    const mcast_decision_t *d = decide(m, comm, cls);
    if (NULL == d) {
        *no_memory = true;
        return NULL;
    }
    if (d->failed) {
        *why = d->why;
        return NULL;
    }
    if (WANT_BELOW == want || (WANT_DECISION == want && d->choice.defer)) {
        *defer = true;
        return NULL;
    }
    const bool runner = WANT_RUNNER_UP == want && d->has_runner_up;
    const int key = runner ? runner_up_key(cls) : cls;
    mcast_cached_plan_t *e = mcast_plan_cache_find(&m->plans, key, root);
    return NULL != e ? e
                     : plan_build(m, comm, runner ? &d->runner_up : &d->choice, key, cls, root,
                                  why, no_memory);
}

/* (out of line: a cached plan's call does not pay this one's frame; E-CALL-1) */
static __attribute__((noinline)) mcast_cached_plan_t *
plan_build(mcast_module_t *m, struct ompi_communicator_t *comm, const mcast_class_choice_t *choice,
           int key, int cls, int root, const char **why, bool *no_memory)
{
    mcast_cached_plan_t *e = NULL;
    module_input_ctx_t ctx = {m, comm, 0};
    mcast_plan_t *p = NULL;
    static _Thread_local char err[256]; /* (*why outlives the call; one per thread) */
    mcast_class_choice_t ours = *choice;
    if (ours.defer) {
        ours.defer = 0; /* a verified class's trial of our plan */
        snprintf(ours.selected_by, sizeof(ours.selected_by), "%.50s+verify",
                 choice->selected_by);
    }
    const int rc = mcast_plan_on_root(&ours, module_input, &ctx, root,
                                      mcast_class_bytes(cls), &p, err, sizeof(err));
    if (KB_OK != rc) {
        *no_memory = KB_ERR_NOMEM == rc;
        *why = err;
        return NULL;
    }
    e = mcast_plan_cache_insert(&m->plans, key, root, p);
    if (NULL == e) {
        *no_memory = true;
    }
    return e;
}

static void print_plan(mcast_module_t *m, struct ompi_communicator_t *comm, mcast_cached_plan_t *e,
                       int root, size_t bytes, int kind)
{
    if (m->ops->params->verbose < 1 || ompi_comm_rank(comm) != root || e->printed[kind]) {
        return;
    }
    e->printed[kind] = true;
    char desc[400];
    const mcast_plan_info_t *info = &e->info;
    mcast_plan_describe(e->plan, desc, sizeof(desc));
    char ctx[200] = "";
    m->ops->context(m, ctx, sizeof(ctx));
    static const char *const kinds[3] = {"", "ibcast ", "bcast_init "};
    fprintf(stderr, "coll:%s: %scomm=%u size=%d root=%d bytes=%zu algorithm=%s %s %s\n",
            m->ops->name, kinds[kind], mcast_comm_id(comm), ompi_comm_size(comm),
            root, bytes, info->name, desc, ctx);
    if (m->ops->params->verbose >= 2 && NULL != info->chain) {
        fprintf(stderr, "coll:%s: comm=%u root=%d chain=", m->ops->name, mcast_comm_id(comm),
                root);
        for (int i = 0; i < info->n; i++) {
            fprintf(stderr, "%s%d", i ? "," : "", info->chain[i]);
        }
        fprintf(stderr, "\n");
    }
    fflush(stderr);
}

/* A call of 0 bytes has nothing to move, but where the communicator's smallest messages go
 * through the shared segment (forced shm, or the one-node plan of the smallest class) it
 * goes through it too, as one empty chunk (*plan set): whether a rank passes 0 is its own
 * business (an erroneous program passes 0 on one rank while the root sends more), and
 * only the segment tells it what the root sent.  Such a rank then meets the root's chunks,
 * reports MPI_ERR_TRUNCATE and takes them off the ring, so its next call is clean; a
 * receiver that expects bytes from a 0-byte root meets the empty chunk.  (MPI_Bcast and
 * MPI_Ibcast with count 0 never reach a coll component in Open MPI 4.1: this is the
 * zero-size datatype's case.)  Any other plan, or none: nothing to do. */
static int zero_bytes_plan(mcast_module_t *m, struct ompi_communicator_t *comm, int root,
                           mcast_cached_plan_t **plan)
{
    const char *why = NULL;
    bool defer = false, no_memory = false;
    mcast_cached_plan_t *e = plan_for(m, comm, mcast_size_class(1), root,
                                      want_of(m, mcast_size_class(1), false), &why, &defer,
                                      &no_memory);
    if (no_memory) {
        abandon_segments(m);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (NULL != e && !e->info.defer && MCAST_PLAN_SHM == e->info.transport_kind) {
        *plan = e;
    }
    return OMPI_SUCCESS;
}

/* A call in state READY / PASS / DISABLED (cls: mcast_size_class(bytes)): what it does.
 * OMPI_SUCCESS with *plan set: run the plan; OMPI_SUCCESS with *pass: hand the call to the
 * module below; OMPI_SUCCESS with neither: nothing to do (0 bytes); otherwise the call's
 * error (an OMPI code or MPI class). */
static int route(mcast_module_t *m, struct ompi_communicator_t *comm, size_t bytes, int cls,
                 int root, int kind, int want, mcast_cached_plan_t **plan, bool *pass)
{
    *plan = NULL;
    *pass = false;
    if (MCAST_STATE_READY != m->state) {
        *pass = true;
        return OMPI_SUCCESS;
    }
    if (0 == bytes) {
        return zero_bytes_plan(m, comm, root, plan);
    }
    const char *why = NULL;
    bool defer = false, no_memory = false;
    mcast_cached_plan_t *e = plan_for(m, comm, cls, root,
                                      WANT_DECISION != want ? want : want_of(m, cls, false),
                                      &why, &defer, &no_memory);
    if (defer) {
        *pass = true; /* the module below has the better plan */
        return OMPI_SUCCESS;
    }
    if (no_memory) {
        /* This rank alone cannot follow the plan the others run: it reports the error
         * (the fallback policy is for plans that do not apply on every rank).  Its peers
         * may wait for it over the PML (docs/local-failures.md: what is not covered). */
        abandon_segments(m);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (NULL == e) {
        if (!mcast_fallback_allowed(m->ops->name, m->ops->params->fallback, comm,
                                    NULL != why ? why : "no plan", &m->fallback_warned)) {
            return MPI_ERR_UNSUPPORTED_OPERATION;
        }
        *pass = true;
        return OMPI_SUCCESS;
    }
    const mcast_plan_info_t *info = &e->info;
    if (info->defer) {
        *pass = true; /* the module below has the better plan */
        return OMPI_SUCCESS;
    }
    print_plan(m, comm, e, root, bytes, kind);
    *plan = e;
    return OMPI_SUCCESS;
}

static int begin_nonblocking(mcast_module_t *m, struct ompi_communicator_t *comm);

bool mcast_module_passes_now(mcast_module_t *m, struct ompi_communicator_t *comm, size_t bytes,
                             int root)
{
    if (MCAST_STATE_NEW == m->state) {
        (void) begin_nonblocking(m, comm); /* (what fails here fails again at the start) */
    }
    if (MCAST_STATE_NEW == m->state || MCAST_STATE_PENDING == m->state) {
        return false; /* decided at the first start, as MPI_Ibcast does */
    }
    mcast_cached_plan_t *e = NULL;
    bool pass = false;
    return OMPI_SUCCESS == route(m, comm, bytes, mcast_size_class(bytes), root, 2,
                                 WANT_DECISION, &e, &pass) &&
           pass;
}

/* ---- the nonblocking decision (header) --------------------------------------- */

/* MCAST_AGAIN, MCAST_NOTHING: mcast_status_mpi.h */

/* The module below when it is ours and its exchange was started (at m's first call). */
static mcast_module_t *below_started(const mcast_module_t *m)
{
    mcast_module_t *b = below_ours(m);
    return NULL != b && NULL != b->xchg.mine ? b : NULL;
}

/* ---- verification of nonblocking calls on one node ("nbv") --------------------------
 * Where a communicator's ranks share one node with a core each, its blocking calls are
 * verified (verify_trials_of); a program that only calls MPI_Ibcast would keep the
 * model's choice, the segment, which loses where the application broadcasts the same
 * bytes again and again (E-DATA-1).  So the nonblocking calls of a size class the model
 * gives the segment, above the eager size inside a node, are verified too (E-VERIFY-4),
 * against the best plan without it (a plan of ours
 * over the PML: both start from Open MPI's progress engine, where the module below's
 * MPI_Ibcast cannot be started).  A call's index in its class, taken at the call (the same
 * on every rank), names its candidate (mcast_verify_pick_at); a trial call starts once
 * every rank has reached it (the board's gate, mcast_shm_seg_gate: no message), each rank
 * times it from there to the completion its progress sees and, once all are in, puts its
 * least time per candidate on the segment's board (mcast_shm_seg_board_put; timed from
 * each rank's own start, the ranks' skew favoured the segment, whose root does not wait
 * for its receivers: E-VERIFY-6; the least time, because a plan's first calls at a size
 * can still be slow: E-VERIFY-6); the calls after the trials start only once every
 * rank's times are there, and every rank concludes from the same numbers (the slowest
 * rank's).  A class takes a board key at its first
 * verified call (classes first appear in the same order everywhere); classes beyond the
 * board's keys keep the model's choice.  One round: the verdict holds (no recheck). */
#define NBV_NONE (-2) /* this class is not verified */
typedef struct mcast_nbv {
    int8_t key_of[MCAST_MAX_CLASSES]; /* -1: not seen yet, NBV_NONE, or its board key */
    int nkeys;
    mcast_verify_t v[MCAST_SHM_BOARD_KEYS];
} mcast_nbv_t;

static double now_s(void);

/* The best plan of (class, root) without the segment (m->lock held), or NULL; NULL too
 * where the class is no larger than the machine model's eager size inside a node
 * (shm.eager_bytes): there Open MPI copies a message in and out as the segment does, and
 * E-DATA-1's difference, its single copy reading clean lines, does not arise; trials of
 * sub-microsecond calls interleaved with the other candidate's misjudged them (E-VERIFY-4).
 * OMPI_ERR_OUT_OF_RESOURCE: this rank had no memory for it (the others may have one). */
static int nbv_other_plan(mcast_module_t *m, struct ompi_communicator_t *comm, int cls, int root,
                          mcast_cached_plan_t **out)
{
    *out = mcast_plan_cache_find(&m->nb_other, cls, root);
    if (NULL != *out) {
        return OMPI_SUCCESS;
    }
    mcast_plan_input_t in;
    mcast_forced_t forced;
    m->ops->input(m, comm, root, mcast_class_bytes(cls), &in, &forced, m->nb_chain);
    in.nonblocking = 1;
    if (NULL == in.machine || mcast_class_bytes(cls) <= in.machine->shm.eager_bytes) {
        return OMPI_SUCCESS;
    }
    no_segment(&in);
    forced.compare_previous = 0;
    mcast_plan_t *p = NULL;
    char why[256];
    const int st = mcast_plan_select(&in, &p, why, sizeof(why));
    if (KB_OK != st) {
        /* (none for every rank alike, unless this rank had no memory for it) */
        return KB_ERR_NOMEM == st ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    }
    mcast_plan_info_t info;
    mcast_plan_get_info(p, &info);
    if (MCAST_PLAN_PML != info.transport_kind) {
        mcast_plan_free(p);
        return OMPI_SUCCESS;
    }
    *out = mcast_plan_cache_insert(&m->nb_other, cls, root, p);
    return NULL != *out ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
}

/* The candidate of a nonblocking call of class cls with index vidx whose plan is *e (m's,
 * m->lock held): *e becomes the other candidate's plan where that runs; *key the call's
 * board key where it is a trial call (its time counts), else -1.  MCAST_AGAIN: a call
 * after the trials and the ranks' times are not all on the board yet. */
static int nbv_pick(mcast_module_t *m, struct ompi_communicator_t *comm, int cls, int root,
                    int64_t vidx, mcast_cached_plan_t **e, int *key_out)
{
    *key_out = -1;
    const mcast_common_params_t *par = m->ops->params;
    const int trials = m->nb_trials;
    if (vidx < 0 || trials <= 0 || ompi_comm_size(comm) < 2) {
        return OMPI_SUCCESS;
    }
    int key = NULL != m->nbv ? m->nbv->key_of[cls] : -1;
    if (-1 == key) { /* the class's first call here */
        mcast_plan_info_t info;
        mcast_plan_get_info((*e)->plan, &info);
        if (MCAST_PLAN_SHM != info.transport_kind || !mcast_verify_applies(info.selected_by)) {
            return OMPI_SUCCESS; /* (a class's plans all take the same transport) */
        }
        if (NULL == m->nbv) {
            m->nbv = calloc(1, sizeof(*m->nbv));
            if (NULL == m->nbv) {
                return OMPI_ERR_OUT_OF_RESOURCE; /* (docs/local-failures.md) */
            }
            memset(m->nbv->key_of, -1, sizeof(m->nbv->key_of));
        }
        key = NBV_NONE; /* (a class first seen after its first call: not verified) */
        mcast_cached_plan_t *o = NULL;
        if (0 == vidx && m->nbv->nkeys < MCAST_SHM_BOARD_KEYS &&
            OMPI_SUCCESS != nbv_other_plan(m, comm, cls, root, &o)) {
            return OMPI_ERR_OUT_OF_RESOURCE; /* (docs/local-failures.md) */
        }
        if (NULL != o) {
            key = m->nbv->nkeys++;
            mcast_verify_init(&m->nbv->v[key], trials, par->verify_margin, 0);
            verify_order(m, comm, cls, m->nb_chain, &m->nbv->v[key]);
        }
        m->nbv->key_of[cls] = (int8_t) key;
    }
    mcast_nbv_t *b = m->nbv;
    if (key < 0) {
        return OMPI_SUCCESS;
    }
    if (mcast_shm_seg_abandoned(m->shm)) {
        /* (a rank lost a call: its candidates may no longer be the others', and one over
         * the PML would wait for it; on the segment every call ends so anyway) */
        return MPI_ERR_OTHER;
    }
    mcast_verify_t *v = &b->v[key];
    int cand = mcast_verify_pick_at(v, vidx);
    if (cand < 0) {
        double agreed[MCAST_VERIFY_CANDIDATES] = {-1.0, -1.0, -1.0}; /* (the board: two) */
        const int got = mcast_shm_seg_board_max(m->shm, key, agreed);
        if (0 == got) {
            /* (a rank that lost a call may never put its times: docs/local-failures.md) */
            return mcast_shm_seg_abandoned(m->shm) ? MPI_ERR_OTHER : MCAST_AGAIN;
        }
        cand = mcast_verify_conclude(v, 1 == got ? agreed : NULL);
        if (par->verbose >= 1 && 0 == ompi_comm_rank(comm)) {
            mcast_plan_info_t info;
            mcast_plan_get_info((*e)->plan, &info);
            fprintf(stderr, "coll:%s: comm=%u size=%d class_bytes=%zu: MPI_Ibcast verified (%d "
                            "calls each, slowest rank's least times): chosen (ours, %s) %.1f us, "
                            "other (ours without the segment) %.1f us: %s runs this size class\n",
                    m->ops->name, mcast_comm_id(comm), ompi_comm_size(comm), mcast_class_bytes(cls),
                    v->trials, info.name, 1e6 * v->agreed[0], 1e6 * v->agreed[1],
                    MCAST_VERIFY_OTHER == cand ? "the plan without the segment" : "the segment");
            fflush(stderr);
        }
    }
    if (MCAST_VERIFY_OTHER == cand) {
        mcast_cached_plan_t *o = NULL;
        if (OMPI_SUCCESS != nbv_other_plan(m, comm, cls, root, &o) || NULL == o) {
            return OMPI_ERR_OUT_OF_RESOURCE; /* (it was built for the class's first call) */
        }
        *e = o;
    }
    if (vidx < 2 * (int64_t) (v->trials + 1)) {
        *key_out = key;
    }
    return OMPI_SUCCESS;
}

/* The plan of the nonblocking decision for (bytes, root): never the module below, nor a
 * multicast group; the segment where it is set up.  With *owner the module whose decision
 * it is (m, or the module below when it is ours and m would pass the call down); on
 * success (*owner)->lock is held, so that the plan stays in its cache while the caller
 * starts the call.  vidx: the call's index in its size class; a verified class's plan is
 * its candidate's (nbv_pick), *vkey the board key of a trial call (else -1).  MCAST_AGAIN,
 * or an MPI error class. */
static int nb_plan(mcast_module_t *m, struct ompi_communicator_t *comm, size_t bytes, int root,
                   int64_t vidx, mcast_cached_plan_t **plan, mcast_module_t **owner, int *vkey)
{
    if (OPAL_THREAD_TRYLOCK(&m->lock)) {
        return MCAST_AGAIN;
    }
    int rc = OMPI_SUCCESS;
    bool delegate = false;
    if (!nb_ready(m, comm)) {
        rc = MCAST_AGAIN;
        goto out;
    }
    if (OMPI_SUCCESS != (rc = m->xchg.rc) || OMPI_SUCCESS != (rc = m->nb_error)) {
        goto out;
    }
    const int cls = mcast_size_class(0 != bytes ? bytes : 1); /* 0 bytes: the smallest class's */
    mcast_cached_plan_t *e = mcast_plan_cache_find(&m->nb_plans, cls, root);
    if (NULL == e && m->xchg.short_of_memory) {
        /* A rank had no memory for the module's state (every rank knows): a binomial tree
         * on rank order from the built-in model, which needs none of it. */
        mcast_plan_input_t in;
        mcast_forced_t forced;
        memset(&in, 0, sizeof(in));
        mcast_forced_default(&forced);
        forced.algorithm = MCAST_ALG_BINOMIAL;
        forced.compare_previous = 0;
        mcast_machine_default(&m->nb_machine);
        in.component = MCAST_COMP_KBINOMIAL;
        in.n = ompi_comm_size(comm);
        in.root = root;
        in.bytes = mcast_class_bytes(cls);
        in.all_local = m->ops->locality(m)->all_local;
        in.nnodes = in.all_local ? 1 : in.n;
        in.machine = &m->nb_machine;
        in.forced = &forced;
        mcast_plan_t *p = NULL;
        const int st = mcast_plan_select(&in, &p, NULL, 0);
        if (KB_OK != st) {
            rc = mcast_status_to_mpi(st);
            goto out;
        }
        e = mcast_plan_cache_insert(&m->nb_plans, cls, root, p);
        if (NULL == e) {
            rc = OMPI_ERR_OUT_OF_RESOURCE;
            goto out;
        }
    }
    if (NULL == e) {
        const bool fallback = MCAST_STATE_READY != m->nb_state;
        if (fallback && NULL != below_started(m)) {
            delegate = true; /* where m passes the call down */
            goto out;
        }
        mcast_plan_input_t in;
        mcast_forced_t forced;
        m->ops->input(m, comm, root, mcast_class_bytes(cls), &in, &forced, m->nb_chain);
        in.nonblocking = 1; /* (over TCP without a model: libnbc's choice a candidate, E-TCP-6) */
        /* (a component without a segment of its own, pathmc, offers the module below's
         * as a candidate it defers to: its input's, from parameters every rank shares,
         * where that module is ours and serves its nonblocking calls) */
        if (fallback ||
            (NULL != m->ops->segment ? NULL == m->shm || mcast_shm_failed(m->shm)
                                     : NULL == below_started(m))) {
            no_segment(&in);
        }
        forced.compare_previous = 0;
        if (fallback) { /* the module below is Open MPI's: our default plan in its place */
            in.mcast_transport = MCAST_TRANSPORT_NONE;
            mcast_forced_default(&forced);
            forced.compare_previous = 0;
            mcast_machine_default(&m->nb_machine);
            in.machine = &m->nb_machine;
            in.rules = NULL;
            in.topology = NULL;
            in.hosts = NULL;
            in.switch_net = NULL;
            in.torus = NULL;
            in.torus_coords = NULL;
        }
        char why[256] = "";
        mcast_plan_t *p = NULL;
        const int st = mcast_plan_select(&in, &p, why, sizeof(why));
        if (KB_ERR_NOMEM == st) {
            rc = OMPI_ERR_OUT_OF_RESOURCE; /* (this rank alone: not a plan that cannot run) */
            goto out;
        }
        if (KB_OK != st) {
            /* a forced algorithm this decision cannot run (a multicast group, ...) */
            if (!mcast_fallback_allowed(m->ops->name, m->ops->params->fallback, comm, why,
                                        &m->fallback_warned)) {
                rc = MPI_ERR_UNSUPPORTED_OPERATION;
                goto out;
            }
            if (NULL != below_started(m)) {
                delegate = true;
                goto out;
            }
            mcast_forced_default(&forced);
            forced.compare_previous = 0;
            in.rules = NULL;
            const int st2 = mcast_plan_select(&in, &p, why, sizeof(why));
            if (KB_OK != st2) {
                rc = KB_ERR_NOMEM == st2 ? OMPI_ERR_OUT_OF_RESOURCE : MPI_ERR_INTERN;
                goto out;
            }
        }
        e = mcast_plan_cache_insert(&m->nb_plans, cls, root, p);
        if (NULL == e) {
            rc = OMPI_ERR_OUT_OF_RESOURCE;
            goto out;
        }
    }
    if (e->info.defer && MCAST_COMP_PATHMC == m->ops->component && NULL != below_started(m) &&
        0 == (mcast_registry_get(e->info.algorithm)->component & MCAST_COMP_PATHMC)) {
        /* coll/kbinomial's algorithm: its own decision (the deferral is cached with the
         * class's plan: deciding again at every call cost a planner's run, E-CART-1) */
        delegate = true;
        goto out;
    }
    if (MCAST_STATE_READY == m->nb_state && !m->xchg.short_of_memory) {
        rc = nbv_pick(m, comm, cls, root, vidx, &e, vkey);
        if (OMPI_SUCCESS != rc) {
            goto out;
        }
        if (*vkey >= 0 && mcast_verify_counts_at(&m->nbv->v[*vkey], vidx)) {
            mcast_shm_seg_warm(m->shm, bytes); /* (a counted trial call: E-SHM-3) */
        }
    }
    *plan = e;
    *owner = m;
    return OMPI_SUCCESS; /* m->lock held */
out:
    OPAL_THREAD_UNLOCK(&m->lock);
    if (delegate) {
        return nb_plan(below_started(m), comm, bytes, root, vidx, plan, owner, vkey);
    }
    return rc;
}

/* An MPI_Ibcast whose start may come later than its call: its tags and its slot in the
 * segment's sequence are taken at the call; its plan is made once the exchange is in
 * (the nonblocking decision), or was made at the call (a READY plan waiting for its turn
 * on the segment: plan set). */
typedef struct nb_call {
    mcast_module_t *m;
    mcast_module_t *seg_m;  /* the module in whose sequence `slot` is, or NULL */
    int64_t slot;
    struct ompi_communicator_t *comm;
    void *buf;
    int count;
    struct ompi_datatype_t *dtype;
    size_t bytes;
    int root;
    int tag;
    mcast_call_t *call;         /* a PML plan's call */
    const mcast_runner_t *sub;  /* a segment plan's runner */
    void *sub_state;
    bool done;
    int status;
    int kind;                   /* of the verbose plan line: 1 ibcast, 2 bcast_init */
    mcast_module_t *mc_m;       /* the module in whose sequence `mc_slot` is (its own, for */
    int64_t mc_slot;            /* the multicast group's order), or NULL */
    int64_t ticket;             /* m->nb_next at the call */
    bool counted;               /* m->nb_started counts it (started, or ended without) */
    int64_t vidx;               /* its index in its size class (nbv; -1: 0 bytes) */
    mcast_module_t *vowner;     /* a trial call: the module whose trials it is, */
    int vkey;                   /* its board key (-1: not a trial call), */
    double t0;                  /* and its start */
} nb_call_t;

/* nb_call_t of finished calls, kept for the next (E-IBC-1, E-SHM-3) */
static mcast_spares_t spare_calls = MCAST_SPARES_INIT;

/* Whether every earlier nonblocking call of c's module started (or ended). */
static bool nb_turn(nb_call_t *c)
{
    if (c->counted) {
        return true;
    }
    OPAL_THREAD_LOCK(&c->m->lock);
    const bool turn = c->m->nb_started == c->ticket;
    OPAL_THREAD_UNLOCK(&c->m->lock);
    return turn;
}

/* c started, or ends without an op: the next call's turn. */
static void nb_count(nb_call_t *c)
{
    if (!c->counted) {
        OPAL_THREAD_LOCK(&c->m->lock);
        c->m->nb_started++;
        OPAL_THREAD_UNLOCK(&c->m->lock);
        c->counted = true;
    }
}

static void resolve_one(mcast_module_t **sm, int64_t slot, mcast_module_t *held)
{
    if (NULL != *sm) {
        if (*sm == held) {
            seq_resolve_locked(*sm, slot);
        } else {
            seq_resolve(*sm, slot);
        }
        *sm = NULL;
    }
}

/* The call's slots are resolved (held: a module whose lock the caller holds, or NULL).
 * The multicast slot only in the held module or with no lock held (nb_test resolves it
 * after unlocking): locks are taken in the order module, module below, never back. */
static void nb_resolve(nb_call_t *c, mcast_module_t *held)
{
    resolve_one(&c->seg_m, c->slot, held);
    if (NULL == held || c->mc_m == held) {
        resolve_one(&c->mc_m, c->mc_slot, held);
    }
}

/* A multicast plan's op takes its place in the group's queue (owner->lock held): once
 * every earlier call on the module resolved its slot (MCAST_AGAIN before). */
static int nb_begin_mc(nb_call_t *c, mcast_module_t *owner, mcast_cached_plan_t *e,
                       const mcast_plan_info_t *info)
{
    mcast_module_t *sm = NULL != c->mc_m ? c->mc_m : c->seg_m;
    const int64_t slot = NULL != c->mc_m ? c->mc_slot : c->slot;
    if (sm != owner || NULL == owner->ops->irun) {
        return MPI_ERR_INTERN; /* (a multicast plan is made only by the module that has one) */
    }
    if (owner->seq_done != slot) {
        return MCAST_AGAIN;
    }
    print_plan(owner, c->comm, e, c->root, c->bytes, c->kind);
    int rc = owner->ops->irun(owner, info, c->buf, c->count, c->dtype, c->bytes, c->root, c->comm,
                              &c->sub, &c->sub_state);
    if (OMPI_SUCCESS != rc) {
        /* no memory for its op: this rank's part now, in its place (inside the progress
         * engine, which is better than leaving the group's epochs out of step) */
        c->sub = NULL;
        const int calltime = mcast_calltime_suspend(); /* (blocking: it progresses) */
        rc = owner->ops->run(owner, info, c->buf, c->count, c->dtype, c->bytes, c->root, c->comm);
        mcast_calltime_resume(calltime);
        nb_resolve(c, owner);
        return OMPI_SUCCESS == rc ? MCAST_NOTHING : rc;
    }
    nb_resolve(c, owner);
    return OMPI_SUCCESS;
}

/* Starts the call on plan e of module owner (owner->lock held by the caller); MCAST_AGAIN
 * when it uses owner's segment and an earlier call's op has not started yet. */
static int nb_begin(nb_call_t *c, mcast_module_t *owner, mcast_cached_plan_t *e)
{
    if (0 == c->bytes && MCAST_PLAN_SHM != e->info.transport_kind) {
        nb_resolve(c, owner); /* as route's zero_bytes_plan: only the segment carries 0 bytes */
        return MCAST_NOTHING;
    }
    if (MCAST_PLAN_PML == e->info.transport_kind) {
        nb_resolve(c, owner);
        print_plan(owner, c->comm, e, c->root, c->bytes, c->kind);
        return mcast_pml_call_start(e->plan, &e->memo, NULL, c->buf, c->count, c->dtype, c->bytes,
                                    c->comm, c->tag, &c->call);
    }
    const mcast_plan_info_t *info = &e->info;
    if (!uses_segment(info)) {
        return nb_begin_mc(c, owner, e, info);
    }
    if (c->seg_m != owner || owner->seq_done != c->slot) {
        return c->seg_m != owner ? MPI_ERR_INTERN : MCAST_AGAIN;
    }
    print_plan(owner, c->comm, e, c->root, c->bytes, c->kind);
    const bool twolevel = MCAST_PLAN_PML_SHM == info->transport_kind;
    int rc = mcast_shm_begin(&owner->shm, twolevel ? e->plan : NULL, info, c->buf, c->count,
                             c->dtype, c->bytes, c->root, c->comm, c->tag, &c->sub, &c->sub_state);
    nb_resolve(c, owner);
    return MCAST_SHM_PASS == rc ? MPI_ERR_INTERN : rc; /* the decision saw the segment */
}

/* A trial call is over (status): its time counts; the last one puts this rank's least
 * times on the board. */
static void nbv_record(nb_call_t *c, int status)
{
    if (c->vkey < 0) {
        return;
    }
    mcast_module_t *o = c->vowner;
    const double t = OMPI_SUCCESS == status && c->t0 > 0.0 ? now_s() - c->t0 : -1.0;
    OPAL_THREAD_LOCK(&o->lock);
    mcast_verify_t *v = &o->nbv->v[c->vkey];
    if (mcast_verify_record_at(v, c->vidx, t)) {
        double local[MCAST_VERIFY_CANDIDATES];
        mcast_verify_least(v, local);
        (void) mcast_shm_seg_board_put(o->shm, c->vkey, local);
    }
    OPAL_THREAD_UNLOCK(&o->lock);
    c->vkey = -1;
}

static bool nb_test(void *state, int *status)
{
    nb_call_t *c = state;
    if (c->done) {
        *status = c->status;
        return true;
    }
    int rc = OMPI_SUCCESS;
    if (NULL == c->call && NULL == c->sub) {
        if (!nb_turn(c)) {
            return false; /* an earlier call has not started yet */
        }
        mcast_cached_plan_t *e = NULL;
        mcast_module_t *owner = NULL;
        int vkey = -1;
        rc = nb_plan(c->m, c->comm, c->bytes, c->root, c->vidx, &e, &owner, &vkey);
        if (MCAST_AGAIN == rc) {
            return false;
        }
        if (OMPI_ERR_OUT_OF_RESOURCE == rc) {
            abandon_segments(c->m); /* (no plan: this rank cannot follow the call) */
        }
        if (OMPI_SUCCESS == rc) {
            if (vkey >= 0) {
                /* a trial call starts once every rank has reached it, and counts from
                 * there (the board's gate: without it, a rank's time carried the skew of
                 * the ranks' starts, less for the segment than for a plan whose sender
                 * waits for its receiver: E-VERIFY-6) */
                if (0 == mcast_shm_seg_gate(owner->shm, vkey, (uint64_t) c->vidx + 1)) {
                    OPAL_THREAD_UNLOCK(&owner->lock);
                    return false;
                }
                c->vowner = owner;
                c->vkey = vkey;
                c->t0 = now_s();
            }
            rc = nb_begin(c, owner, e);
            if (MCAST_AGAIN == rc) {
                c->vkey = -1; /* (started again later) */
            }
            if (OMPI_ERR_OUT_OF_RESOURCE == rc && uses_segment(&e->info)) {
                abandon_segments(c->m); /* (its chunks left on the ring: no later call's) */
            }
            OPAL_THREAD_UNLOCK(&owner->lock);
            if (MCAST_AGAIN == rc) {
                return false;
            }
            nb_resolve(c, NULL); /* (a slot in a module whose lock was not held) */
            nb_count(c);
            if (MCAST_NOTHING == rc) {
                c->done = true;
                *status = c->status = OMPI_SUCCESS;
                nbv_record(c, OMPI_SUCCESS);
                return true;
            }
        }
        if (OMPI_SUCCESS != rc) {
            nb_resolve(c, NULL);
            nb_count(c);
            c->done = true;
            *status = c->status = rc;
            nbv_record(c, rc);
            return true;
        }
    }
    if (NULL != c->sub ? !c->sub->test(c->sub_state, &rc) : !mcast_pml_call_progress(c->call)) {
        return false;
    }
    c->done = true;
    *status = c->status = NULL != c->sub ? rc : mcast_pml_call_status(c->call);
    nbv_record(c, c->status);
    return true;
}

static void nb_release(void *state)
{
    nb_call_t *c = state;
    nb_resolve(c, NULL); /* (not started: it no longer holds the line) */
    nb_count(c);
    if (NULL != c->sub) {
        c->sub->release(c->sub_state);
    }
    mcast_pml_call_free(c->call);
    free(mcast_spare_give(&spare_calls, c));
}

static const mcast_runner_t nb_runner = {nb_test, nb_release};

/* seg_m / slot: the sequence slot the call holds (seg_m NULL: none); mc_m / mc_slot: its
 * slot for the multicast group's order (mc_m NULL: none). */
static int nb_ibcast(mcast_module_t *m, mcast_module_t *seg_m, int64_t slot, mcast_module_t *mc_m,
                     int64_t mc_slot, void *buf, int count, struct ompi_datatype_t *dtype,
                     size_t bytes, int root, struct ompi_communicator_t *comm,
                     ompi_request_t **request, int kind)
{
    const int tag = mcast_tags_take(&m->tags);
    /* its index in its size class (nbv), taken also by a call that fails here for want of
     * memory: the next calls' indices stay those of the other ranks */
    const int cls = mcast_size_class(0 != bytes ? bytes : 1);
    OPAL_THREAD_LOCK(&m->lock);
    const int64_t vidx = 0 != bytes ? m->nb_vcount[cls] : -1;
    if (0 != bytes && m->nb_vcount[cls] < UINT8_MAX) {
        m->nb_vcount[cls]++;
    }
    OPAL_THREAD_UNLOCK(&m->lock);
    nb_call_t *c = mcast_spare_take(&spare_calls); /* (every field set below) */
    if (NULL == c) {
        c = malloc(sizeof(*c));
    }
    ompi_request_t *req = NULL;
    if (NULL == c || OMPI_SUCCESS != mcast_ireq_runner_new(comm, dtype, &req)) {
        /* (its peers may wait for its part: docs/local-failures.md) */
        abandon_segments(m);
        free(mcast_spare_give(&spare_calls, c));
        resolve_one(&seg_m, slot, NULL);
        resolve_one(&mc_m, mc_slot, NULL);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    OPAL_THREAD_LOCK(&m->lock);
    const int64_t ticket = m->nb_next++;
    OPAL_THREAD_UNLOCK(&m->lock);
    *c = (nb_call_t){m,    seg_m, slot, comm,         buf,  count,   dtype, bytes,
                     root, tag,   NULL, NULL,         NULL, false,   OMPI_SUCCESS,
                     kind, mc_m,  mc_slot, ticket, false, vidx, NULL, -1, 0.0};
    int status;
    /* the exchange may be in already: start now; a call over at once (a root's small
     * message), behind no request of ours, hands back a completed one (E-IBC-1) */
    if (nb_test(c, &status) && OMPI_SUCCESS == status && mcast_ireq_none_active()) {
        mcast_ireq_runner_discard(req);
        nb_release(c);
        *request = &ompi_request_empty;
        return OMPI_SUCCESS;
    }
    mcast_ireq_runner_start(req, &nb_runner, c);
    *request = req;
    return OMPI_SUCCESS;
}

/* No segment on some rank (every rank knows): decide again without it. */
static void forget_shm_plans(mcast_module_t *m)
{
    mcast_plan_cache_forget(&m->plans);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* The communicator's first blocking broadcast of a size class the model would plan with
 * it: measure the network where the component wants it (every rank is here, on agreed
 * inputs); the outcome is agreed too. */
/* Every rank holds the job's model, measured after this communicator's exchange (on
 * another communicator, or by the other component of ours on this one): plan with it,
 * measuring nothing.  One allreduce of the digest, at a call every rank makes. */
static bool take_job_model(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    mcast_machine_t model;
    const uint64_t d = mcast_calib_known(&model);
    uint64_t v[2] = {d, ~d}; /* (the largest of both: every rank's is d) */
    if (OMPI_SUCCESS != comm->c_coll->coll_allreduce(MPI_IN_PLACE, v, 2, MPI_UINT64_T, MPI_MAX,
                                                     comm, comm->c_coll->coll_allreduce_module) ||
        0 == d || v[0] != d || v[1] != ~d) {
        return false;
    }
    m->calib = model;
    m->calibrated = m->calib_reused = true;
    if (m->ops->params->verbose >= 1 && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:%s: comm=%u size=%d: the job's model, measured on an earlier "
                        "communicator or by the other component: %s\n",
                m->ops->name, mcast_comm_id(comm), ompi_comm_size(comm), m->calib.source);
        fflush(stderr);
    }
    return true;
}

static void calibrate(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    if (take_job_model(m, comm)) {
        return;
    }
    char why[160] = "";
    double cost_us = 0.0;
    /* (the topology as the plans take it: mcast_locality_input) */
    const mcast_locality_t *loc = m->ops->locality(m);
    const int rc = mcast_calib_run(comm, loc->node_of, loc->topo, mcast_locality_topo_hosts(loc),
                                   &m->calib, &cost_us, why, sizeof(why));
    m->calibrated = OMPI_SUCCESS == rc;
    if (m->calibrated) {
        mcast_calib_remember(&m->calib); /* (the job's, if it is the first) */
    }
    if (m->ops->params->verbose >= 1 && 0 == ompi_comm_rank(comm)) {
        if (m->calibrated) {
            fprintf(stderr, "coll:%s: comm=%u size=%d: %s, measured in %.1f ms\n", m->ops->name,
                    mcast_comm_id(comm), ompi_comm_size(comm), m->calib.source, 1e-3 * cost_us);
        } else {
            fprintf(stderr, "coll:%s: comm=%u size=%d: self-calibration not used (%s; %.1f ms): "
                            "the built-in model%s\n",
                    m->ops->name, mcast_comm_id(comm), ompi_comm_size(comm), why, 1e-3 * cost_us,
                    loc->tcp ? "'s rule for TCP" : "");
        }
        fflush(stderr);
    }
}

bool mcast_module_calibrate_wanted(const mcast_module_t *m, const mcast_locality_t *loc,
                                   const mcast_machine_t *model)
{
    const mcast_common_params_t *p = m->ops->params;
    return 0 != p->self_calibrate && MCAST_ALG_AUTO == p->algorithm &&
           mcast_locality_across_builtin(loc, model);
}

void mcast_module_machine_input(const mcast_module_t *m, const mcast_locality_t *loc,
                                const mcast_machine_t *model, size_t bytes,
                                mcast_plan_input_t *in)
{
    const bool across = mcast_locality_across_builtin(loc, model);
    in->machine = model;
    in->unmodelled_network = across && loc->tcp;
    in->nodes_over_tcp = loc->tcp; /* (agreed in the exchange) */
    if (m->calibrated && across && bytes >= m->ops->params->self_calibrate_from) {
        in->machine = &m->calib;
        in->unmodelled_network = 0;
    }
}

/* A verified class's blocking call is over: its time counts in the trials; after the
 * last trial call the ranks agree on the slowest rank's medians and every rank concludes
 * alike (every rank reaches this call: the class and the call count are the same on every
 * rank). */
static void verify_after(mcast_module_t *m, struct ompi_communicator_t *comm, int cls,
                         mcast_decision_t *d, int cand, int rc, double seconds)
{
    if (!mcast_verify_record(&d->verify, cand, OMPI_SUCCESS == rc ? seconds : -1.0)) {
        return;
    }
    double t[MCAST_VERIFY_CANDIDATES];
    mcast_verify_local(&d->verify, t);
    /* (the same count on every rank: the runner-up is decided on agreed inputs) */
    const int arc = comm->c_coll->coll_allreduce(MPI_IN_PLACE, t, d->verify.candidates, MPI_DOUBLE,
                                                 MPI_MAX, comm, comm->c_coll->coll_allreduce_module);
    const int verdict = mcast_verify_conclude(&d->verify, OMPI_SUCCESS == arc ? t : NULL);
    if (m->ops->params->verbose >= 1 && 0 == ompi_comm_rank(comm)) {
        const int want = want_of_candidate(d, verdict);
        char runner[120] = "";
        const mcast_alg_info_t *ru = mcast_registry_get(d->runner_up.algorithm);
        if (d->has_runner_up && NULL != ru) {
            snprintf(runner, sizeof(runner), ", runner-up (ours, %s) %.1f us", ru->name,
                     1e6 * d->verify.agreed[MCAST_VERIFY_RUNNER_UP]);
        }
        fprintf(stderr, "coll:%s: comm=%u size=%d class_bytes=%zu: verified (round %d, %d "
                        "calls each, slowest rank's medians): chosen %s %.1f us, other %.1f us%s: "
                        "%s runs this size class (the trials took about %.1f us more than it "
                        "would have)\n",
                m->ops->name, mcast_comm_id(comm), ompi_comm_size(comm), mcast_class_bytes(cls),
                d->verify.rounds, d->verify.trials, d->choice.defer ? "(the module below)" : "(ours)",
                1e6 * d->verify.agreed[0], 1e6 * d->verify.agreed[1], runner,
                WANT_BELOW == want ? "the module below"
                                   : WANT_RUNNER_UP == want ? "our runner-up" : "ours",
                1e6 * mcast_verify_cost(&d->verify));
        fflush(stderr);
    }
}

static int bcast_routed(mcast_module_t *m, struct ompi_communicator_t *comm, int64_t slot, int rc,
                        mcast_cached_plan_t *e, bool pass, void *buf, int count,
                        struct ompi_datatype_t *dtype, size_t bytes, int root);

static int bcast_call(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                      struct ompi_communicator_t *comm, mcast_module_t *m, size_t bytes,
                      int cls);

/* Whether a blocking call of `bytes` (class cls) belongs to a size class settled on the module
 * below: decided so (no verification), or verified and its verdict the module below
 * (*verified: that decision, whose re-check counts the call: the caller records it where
 * it hands the call on, as the call's verify_after would; every rank counts the same
 * calls).  Not where bcast_call would measure the network first (calib_tried). */
static bool settled_below(const mcast_module_t *m, size_t bytes, int cls,
                          mcast_decision_t **verified)
{
    *verified = NULL;
    if (MCAST_STATE_READY != m->state || NULL == m->plans.decisions || 0 == bytes) {
        return false;
    }
    if (!m->calib_tried && mcast_class_bytes(cls) >= m->ops->params->self_calibrate_from) {
        return false; /* (bcast_call measures the network first) */
    }
    mcast_decision_t *d = m->plans.decisions[cls];
    if (NULL == d || !d->made || d->failed) {
        return false;
    }
    if (!d->verifying) {
        return 0 != d->choice.defer;
    }
    if (!d->verify.settled || WANT_BELOW != want_of_candidate(d, d->verify.verdict)) {
        return false;
    }
    *verified = d;
    return true;
}

int mcast_module_bcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                       struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mcast_module_t *m = (mcast_module_t *) module;
    /* a module that serves none of the communicator's calls, or a call of a size class
     * settled on the module below: the module below (which checks the call) at once,
     * unless an earlier nonblocking call of this one has not started yet (its turn comes
     * first; E-CALL-1, E-CALL-2) */
    if (serves_none(m) && seq_idle(m)) {
        return m->previous_bcast(buf, count, dtype, root, comm, m->previous_bcast_module);
    }
    size_t bytes = 0;
    if (!mcast_signature_bytes(count, dtype, &bytes)) {
        return MPI_ERR_COUNT;
    }
    const int cls = mcast_size_class(bytes);
    mcast_decision_t *verified = NULL;
    if (settled_below(m, bytes, cls, &verified) && seq_idle(m)) {
        if (NULL != verified) {
            (void) mcast_verify_record(&verified->verify, verified->verify.verdict, 0.0);
        }
        return m->previous_bcast(buf, count, dtype, root, comm, m->previous_bcast_module);
    }
    return bcast_call(buf, count, dtype, root, comm, m, bytes, cls);
}

/* (out of line: the call above hands on without this one's frame; E-CALL-1) */
static __attribute__((noinline)) int bcast_call(void *buf, int count,
                                                struct ompi_datatype_t *dtype, int root,
                                                struct ompi_communicator_t *comm, mcast_module_t *m,
                                                size_t bytes, int cls)
{
    const int64_t slot = seq_take(m);
    int rc = OMPI_SUCCESS;
    if (MCAST_STATE_NEW == m->state || MCAST_STATE_PENDING == m->state) {
        rc = settle(m, comm);
    }
    /* the earlier calls' ops are all started (any of them on the segment) */
    while (OMPI_SUCCESS == rc && !seq_turn(m, slot)) {
        opal_progress();
    }
    const bool ready = OMPI_SUCCESS == rc && MCAST_STATE_READY == m->state;
    if (ready && !m->calib_tried && bytes > 0) {
        /* whether the network is measured depends on agreed inputs only, fixed once the
         * module is READY: asked once, the measurement at the first call of a class from
         * self_calibrate_from */
        if (m->calibrated || NULL == m->ops->calibrate_wanted ||
            !m->ops->calibrate_wanted(m, comm)) {
            m->calib_tried = true;
        } else if (mcast_class_bytes(cls) >= m->ops->params->self_calibrate_from) {
            m->calib_tried = true;
            calibrate(m, comm);
        }
    }
    /* a verified class: this call's candidate */
    mcast_decision_t *vd = NULL;
    int cand = MCAST_VERIFY_CHOSEN, want = WANT_DECISION;
    if (ready && bytes > 0) {
        vd = decide(m, comm, cls);
        if (NULL != vd && !vd->failed && vd->verifying) {
            cand = mcast_verify_pick(&vd->verify);
            want = want_of_candidate(vd, cand);
        } else {
            vd = NULL; /* (no memory: route says so) */
        }
    }
    mcast_cached_plan_t *e = NULL;
    bool pass = false;
    if (OMPI_SUCCESS == rc) {
        rc = route(m, comm, bytes, cls, root, 0, want, &e, &pass);
    }
    if (NULL == vd) {
        return bcast_routed(m, comm, slot, rc, e, pass, buf, count, dtype, bytes, root);
    }
    /* a trial call starts together on every rank, so that its time is the broadcast's and
     * not how far the ranks ran apart (back-to-back calls let eager sends run ahead, a
     * pipeline's flow control holds its root back: local times of unsynchronised calls
     * favour the first) */
    const bool trial = !vd->verify.settled;
    if (OMPI_SUCCESS == rc && trial) {
        /* (the segment's pages the counted trials' chunks take are written once before
         * the first of them, not at the first call, which is not counted: a communicator
         * used once pays only its call's pages; E-SHM-3) */
        if (mcast_verify_counts(&vd->verify)) {
            mcast_shm_seg_warm(m->shm, bytes);
        }
        rc = comm->c_coll->coll_barrier(comm, comm->c_coll->coll_barrier_module);
    }
    /* (a settled class's call only counts towards the re-check: no clock read) */
    const double t0 = trial ? now_s() : 0.0;
    rc = bcast_routed(m, comm, slot, rc, e, pass, buf, count, dtype, bytes, root);
    verify_after(m, comm, cls, vd, cand, rc, trial ? now_s() - t0 : 0.0);
    return rc;
}

/* The blocking call after route(): the module below, or the plan. */
static int bcast_routed(mcast_module_t *m, struct ompi_communicator_t *comm, int64_t slot, int rc,
                        mcast_cached_plan_t *e, bool pass, void *buf, int count,
                        struct ompi_datatype_t *dtype, size_t bytes, int root)
{
    if (OMPI_SUCCESS == rc && pass) {
        seq_resolve(m, slot);
        return m->previous_bcast(buf, count, dtype, root, comm, m->previous_bcast_module);
    }
    if (OMPI_SUCCESS != rc || NULL == e) {
        seq_resolve(m, slot);
        return rc;
    }
    const mcast_plan_info_t *info = &e->info;
    const bool twolevel = MCAST_PLAN_PML_SHM == info->transport_kind;
    if (twolevel && NULL == m->engine) {
        m->engine = mcast_engine_create();
    }
    if (twolevel || MCAST_PLAN_SHM == info->transport_kind) {
        rc = twolevel ? mcast_shm_twolevel_run(&m->shm, e->plan, &e->memo, m->engine, buf, count,
                                               dtype, bytes, root, comm, mcast_tags_take(&m->tags))
                      : mcast_shm_run(&m->shm, info, buf, count, dtype, bytes, root, comm);
        seq_resolve(m, slot);
        if (MCAST_SHM_PASS != rc) {
            return rc;
        }
        forget_shm_plans(m);
        return m->previous_bcast(buf, count, dtype, root, comm, m->previous_bcast_module);
    }
    seq_resolve(m, slot);
    if (MCAST_PLAN_PML != info->transport_kind) {
        if (NULL == m->ops->run) {
            return MPI_ERR_INTERN;
        }
        return m->ops->run(m, info, buf, count, dtype, bytes, root, comm);
    }
    if (NULL == m->engine) {
        m->engine = mcast_engine_create();
    }
    return mcast_pml_bcast(e->plan, &e->memo, m->engine, buf, count, dtype, bytes, comm,
                           mcast_tags_take(&m->tags));
}

/* An MPI_Ibcast on a multicast plan of a READY module: its op takes its place in the
 * group's queue now (every earlier call's op has: a blocking call waited for the calls
 * before it, later ones take their place at their call), slot resolved. */
static int mc_istart(mcast_module_t *m, int64_t slot, const mcast_plan_info_t *info, void *buf,
                     int count, struct ompi_datatype_t *dtype, size_t bytes, int root,
                     struct ompi_communicator_t *comm, ompi_request_t **request)
{
    if (NULL == m->ops->run || !seq_turn(m, slot)) {
        seq_resolve(m, slot);
        return MPI_ERR_INTERN;
    }
    ompi_request_t *req = NULL;
    const mcast_runner_t *runner = NULL;
    void *state = NULL;
    int rc = mcast_ireq_runner_new(comm, dtype, &req);
    if (OMPI_SUCCESS == rc) {
        rc = m->ops->irun(m, info, buf, count, dtype, bytes, root, comm, &runner, &state);
    }
    seq_resolve(m, slot);
    if (OMPI_SUCCESS != rc) {
        /* No memory for a request or its op: this rank's part now, blocking (a request
         * cannot be handed back; the group's epochs must stay in step), then an empty one. */
        mcast_ireq_runner_discard(req);
        const int calltime = mcast_calltime_suspend(); /* (blocking: it progresses) */
        rc = m->ops->run(m, info, buf, count, dtype, bytes, root, comm);
        mcast_calltime_resume(calltime);
        if (OMPI_SUCCESS == rc) {
            *request = &ompi_request_empty;
        }
        return rc;
    }
    mcast_ireq_runner_start(req, runner, state);
    *request = req;
    return OMPI_SUCCESS;
}

static int pass_ibcast_kind(mcast_module_t *m, void *buf, int count,
                            struct ompi_datatype_t *dtype, int root,
                            struct ompi_communicator_t *comm, ompi_request_t **request, int kind)
{
    if (NULL == m->previous_ibcast) {
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    mcast_module_t *below = below_ours(m);
    if (NULL != below && 1 != kind) { /* (its plan line says what the call is) */
        return mcast_module_istart(buf, count, dtype, root, comm, request, &below->super, kind);
    }
    return m->previous_ibcast(buf, count, dtype, root, comm, request, m->previous_ibcast_module);
}

/* ---- the setup's watch ----------------------------------------------------
 * A setup that a nonblocking call started (the exchange, then the preparation and the
 * segment's setup) is moved on by Open MPI's progress engine until it is over, also
 * when no later call of ours on the communicator looks at it (pathmc handing every call
 * to the module below; one MPI_Ibcast, then MPI_Comm_free): its messages' requests are
 * freed as they complete.  A completed request never freed held its communicator, which
 * MPI_Comm_free then never released: its context id stayed taken on some ranks, and
 * MPI_Comm_idup retried its agreement on ids where Open MPI's interleaved retries may
 * hang (E-IDUP-1).  The watch holds a reference on the
 * communicator, released once the setup is over, outside every lock. */
typedef struct mcast_watch {
    mcast_module_t *m;
    struct ompi_communicator_t *comm;
    struct mcast_watch *next;
} mcast_watch_t;

static opal_mutex_t watch_lock = OPAL_MUTEX_STATIC_INIT;
static mcast_watch_t *watched;
static bool watch_registered;
static volatile bool watch_running; /* (without threads the lock is a no-op) */

static int watch_progress(void)
{
    if (NULL == watched || watch_running || OPAL_THREAD_TRYLOCK(&watch_lock)) {
        return 0;
    }
    watch_running = true;
    mcast_watch_t *over = NULL;
    for (mcast_watch_t **l = &watched; NULL != *l;) {
        mcast_watch_t *w = *l;
        bool done = false;
        if (!OPAL_THREAD_TRYLOCK(&w->m->lock)) { /* (held: a call of ours moves it) */
            done = nb_ready(w->m, w->comm);
            OPAL_THREAD_UNLOCK(&w->m->lock);
        }
        if (done) {
            *l = w->next;
            w->next = over;
            over = w;
        } else {
            l = &w->next;
        }
    }
    watch_running = false;
    OPAL_THREAD_UNLOCK(&watch_lock);
    int n = 0;
    while (NULL != over) { /* the last reference may free the communicator and the module */
        mcast_watch_t *w = over;
        over = w->next;
        OBJ_RELEASE(w->comm);
        free(w);
        n++;
    }
    return n;
}

/* Without memory for the watch the setup moves on only with this module's calls. */
static void watch_add(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    mcast_watch_t *w = malloc(sizeof(*w));
    if (NULL == w) {
        return;
    }
    OBJ_RETAIN(comm);
    w->m = m;
    w->comm = comm;
    OPAL_THREAD_LOCK(&watch_lock);
    w->next = watched;
    watched = w;
    if (!watch_registered) {
        opal_progress_register(watch_progress);
        watch_registered = true;
    }
    OPAL_THREAD_UNLOCK(&watch_lock);
}

static void watch_forget(mcast_module_t *m)
{
    OPAL_THREAD_LOCK(&watch_lock);
    for (mcast_watch_t **l = &watched; NULL != *l;) {
        mcast_watch_t *w = *l;
        if (w->m == m) {
            *l = w->next;
            free(w); /* (its reference went with the communicator) */
        } else {
            l = &w->next;
        }
    }
    OPAL_THREAD_UNLOCK(&watch_lock);
}

void mcast_module_fini(void)
{
    for (void *c; NULL != (c = mcast_spare_take(&spare_calls));) {
        free(c);
    }
    mcast_shmseg_fini();
    if (watch_registered) {
        opal_progress_unregister(watch_progress);
        watch_registered = false;
    }
}

/* A nonblocking call on a new module: the exchange starts here, without waiting (header);
 * a module below of ours starts its own at the same call, for the calls handed to it.
 * OMPI_ERR_NOT_AVAILABLE: no nonblocking exchange here (the module below serves). */
static int begin_nonblocking(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    int rc = exchange_start(m, comm, false);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    m->state = MCAST_STATE_PENDING;
    watch_add(m, comm);
    mcast_module_t *below = below_ours(m);
    if (NULL != below && MCAST_STATE_NEW == below->state &&
        OMPI_SUCCESS == exchange_start(below, comm, false)) {
        below->state = MCAST_STATE_PENDING;
        watch_add(below, comm);
    }
    return OMPI_SUCCESS;
}

int mcast_module_ibcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                        struct ompi_communicator_t *comm, ompi_request_t **request,
                        mca_coll_base_module_t *module)
{
    return mcast_module_istart(buf, count, dtype, root, comm, request, module, 1);
}

static int istart(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                  struct ompi_communicator_t *comm, ompi_request_t **request,
                  mca_coll_base_module_t *module, int kind);

/* (nothing below progresses: mcast_calltime) */
int mcast_module_istart(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                        struct ompi_communicator_t *comm, ompi_request_t **request,
                        mca_coll_base_module_t *module, int kind)
{
    mcast_module_t *m = (mcast_module_t *) module;
    int rc;
    if (serves_none(m)) {
        /* a module that serves none of the communicator's calls: the module below, which
         * checks the call (no earlier call of this one waits: a call starts late only
         * while the module is PENDING, and a blocking call that settled it waited for
         * those) */
        rc = pass_ibcast_kind(m, buf, count, dtype, root, comm, request, kind);
    } else {
        mcast_calltime_begin();
        rc = istart(buf, count, dtype, root, comm, request, module, kind);
        mcast_calltime_end();
    }
    if (OMPI_SUCCESS != rc) {
        /* a failed start leaves no request: a later MPI_Wait on the handle returns at once
         * (Open MPI's binding leaves it untouched, so a program that waits on it anyway
         * would read an uninitialised handle) */
        *request = MPI_REQUEST_NULL;
    }
    return rc;
}

static int istart(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                  struct ompi_communicator_t *comm, ompi_request_t **request,
                  mca_coll_base_module_t *module, int kind)
{
    mcast_module_t *m = (mcast_module_t *) module;
    size_t bytes = 0;
    if (!mcast_signature_bytes(count, dtype, &bytes)) {
        return MPI_ERR_COUNT;
    }
    if (MCAST_STATE_NEW == m->state) {
        int rc = begin_nonblocking(m, comm);
        if (OMPI_ERR_NOT_AVAILABLE == rc) {
            return pass_ibcast_kind(m, buf, count, dtype, root, comm, request, kind);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    if (MCAST_STATE_PENDING == m->state) {
        if (NULL != m->ops->may_apply && !m->ops->may_apply(m, comm)) {
            return pass_ibcast_kind(m, buf, count, dtype, root, comm, request, kind);
        }
        /* a slot in this module's sequence, or in the module below's for a call it may
         * hand down (its segment) */
        mcast_module_t *seg_m = NULL != m->ops->segment ? m : below_started(m);
        const int64_t slot = NULL != seg_m ? seq_take(seg_m) : 0;
        /* and one in this module's for a multicast plan, unless that is the same */
        mcast_module_t *mc_m = NULL != m->ops->irun && seg_m != m ? m : NULL;
        const int64_t mc_slot = NULL != mc_m ? seq_take(mc_m) : 0;
        return nb_ibcast(m, seg_m, slot, mc_m, mc_slot, buf, count, dtype, bytes, root, comm,
                         request, kind);
    }
    const int64_t slot = seq_take(m);
    mcast_cached_plan_t *e = NULL;
    bool pass = false;
    int rc = route(m, comm, bytes, mcast_size_class(bytes), root, kind, WANT_DECISION, &e, &pass);
    if (OMPI_SUCCESS == rc && pass) {
        seq_resolve(m, slot);
        return pass_ibcast_kind(m, buf, count, dtype, root, comm, request, kind);
    }
    if (OMPI_SUCCESS != rc || NULL == e) {
        seq_resolve(m, slot);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        *request = &ompi_request_empty; /* nothing to move: an already completed request */
        return OMPI_SUCCESS;
    }
    const mcast_plan_info_t *info = &e->info;
    if (uses_segment(info)) {
        if (!seq_turn(m, slot)) {
            /* an earlier call's op has not started: never once a blocking call settled the
             * module (it waits for every earlier op, and only calls before it start late) */
            seq_resolve(m, slot);
            return MPI_ERR_INTERN;
        }
        const bool twolevel = MCAST_PLAN_PML_SHM == info->transport_kind;
        rc = twolevel ? mcast_shm_twolevel_irun(&m->shm, e->plan, &e->memo, buf, count, dtype,
                                                bytes, root, comm, mcast_tags_take(&m->tags),
                                                request)
                      : mcast_shm_irun(&m->shm, info, buf, count, dtype, bytes, root, comm,
                                       request);
        seq_resolve(m, slot);
        if (MCAST_SHM_PASS != rc) {
            return rc;
        }
        forget_shm_plans(m);
        return pass_ibcast_kind(m, buf, count, dtype, root, comm, request, kind);
    }
    if (MCAST_PLAN_PML != info->transport_kind && NULL != m->ops->irun) {
        return mc_istart(m, slot, info, buf, count, dtype, bytes, root, comm, request);
    }
    if (MCAST_PLAN_PML != info->transport_kind) {
        /* a transport without a nonblocking driver: the module below's Ibcast serves */
        seq_resolve(m, slot);
        if (!mcast_fallback_allowed(m->ops->name, m->ops->params->fallback, comm,
                                    "MPI_Ibcast: this transport has no nonblocking driver",
                                    &m->fallback_warned)) {
            return MPI_ERR_UNSUPPORTED_OPERATION;
        }
        return pass_ibcast_kind(m, buf, count, dtype, root, comm, request, kind);
    }
    seq_resolve(m, slot);
    return mcast_pml_ibcast(e->plan, &e->memo, buf, count, dtype, bytes, comm,
                            mcast_tags_take(&m->tags), request);
}
