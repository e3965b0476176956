/* Shared module: see mcast_module.h. */
#include "mcast_module.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/communicator/communicator.h"
#include "mcast_pml.h"
#include "mcast_shmseg.h"

static void mcast_module_construct(mcast_module_t *m)
{
    m->ops = NULL;
    m->previous_bcast = NULL;
    m->previous_bcast_module = NULL;
    m->previous_ibcast = NULL;
    m->previous_ibcast_module = NULL;
    memset(&m->plans, 0, sizeof(m->plans));
    m->engine = NULL;
    m->state = MCAST_STATE_NEW;
    m->use_rules = m->use_topology = false;
    m->comm_state = NULL;
    m->comm_state_free = NULL;
    m->fallback_warned = false;
    m->chain = NULL;
    m->shm = NULL;
}

static void mcast_module_destruct(mcast_module_t *m)
{
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
    m->ops = ops;
    /* Only bcast and ibcast: every other collective stays with the module below. */
    m->super.coll_module_enable = mcast_module_enable;
    m->super.coll_bcast = bcast_fn;
    m->super.coll_ibcast = ibcast_fn;
    return m;
}

/* A rank that could not set the module up (no memory, a failed discovery) tells the others
 * in an agreement: then every rank leaves the communicator to the module below (this call
 * included), instead of that rank failing alone while the others run plans it takes no
 * part in. */
static void set_up_failed(mcast_module_t *m, struct ompi_communicator_t *comm, const char *what)
{
    m->state = MCAST_STATE_PASS;
    if (0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:%s: comm=%u: a rank could not set up %s: the module below serves "
                        "this communicator on every rank\n",
                m->ops->name, ompi_comm_get_cid(comm), what);
    }
}

/* First call on the communicator: agree on the inputs, then let the component prepare. */
static int first_call(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    mcast_digests_t d = {0, 0, 0};
    m->ops->digests(m, &d);
    /* what the module keeps from here on, taken before the agreement so that a rank
     * without memory for it says so there */
    if (NULL == m->chain) {
        m->chain = malloc(sizeof(int) * (size_t) ompi_comm_size(comm));
    }
    if (NULL == m->plans.decisions) {
        m->plans.decisions = calloc(MCAST_MAX_CLASSES, sizeof(mcast_decision_t));
    }
    const uint64_t short_of_memory = NULL == m->chain || NULL == m->plans.decisions;
    /* one allreduce: max of each digest and of its complement (= ~min), and whether some
     * rank is short of memory */
    uint64_t v[7] = {d.params, ~d.params, d.rules, ~d.rules, d.topology, ~d.topology,
                     short_of_memory};
    uint64_t r[7];
    int rc = comm->c_coll->coll_allreduce(v, r, 7, MPI_UINT64_T, MPI_MAX, comm,
                                          comm->c_coll->coll_allreduce_module);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (0 != r[6]) {
        set_up_failed(m, comm, "the module's state (no memory)");
        return OMPI_SUCCESS;
    }
    const bool same_params = r[0] == d.params && ~r[1] == d.params;
    m->use_rules = r[2] == d.rules && ~r[3] == d.rules;
    m->use_topology = r[4] == d.topology && ~r[5] == d.topology;
    const int rank = ompi_comm_rank(comm);
    if (!same_params) {
        m->state = MCAST_STATE_DISABLED;
        if (0 == rank) {
            fprintf(stderr, "coll:%s: comm=%u: the ranks hold different coll_%s_* parameters "
                            "(or machine files): the module below serves this communicator on "
                            "every rank; give every rank the same values\n",
                    m->ops->name, ompi_comm_get_cid(comm), m->ops->name);
        }
        return OMPI_SUCCESS;
    }
    if (0 == rank && !m->use_rules) {
        fprintf(stderr, "coll:%s: comm=%u: ranks hold different rules (or none): the rules file "
                        "is not used on this communicator\n", m->ops->name, ompi_comm_get_cid(comm));
    }
    if (0 == rank && !m->use_topology) {
        fprintf(stderr, "coll:%s: comm=%u: ranks read different topology/coordinates files (or "
                        "none): not used on this communicator\n", m->ops->name,
                ompi_comm_get_cid(comm));
    }
    rc = m->ops->prepare(m, comm, m->use_rules, m->use_topology);
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
    if (!all[1]) {
        set_up_failed(m, comm, "its locality");
        return OMPI_SUCCESS;
    }
    m->state = all[0] ? MCAST_STATE_READY : MCAST_STATE_PASS;
    return OMPI_SUCCESS;
}

static char *dup_str(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    if (NULL != d) {
        strcpy(d, s);
    }
    return d;
}

/* The class's decision: the planner on root 0's chain, once per communicator.  NULL when
 * this rank had no memory for it (nothing kept: a later call decides again; a decision
 * that differs from the other ranks' would send this rank down another path for good). */
static mcast_decision_t *decide(mcast_module_t *m, struct ompi_communicator_t *comm, int cls)
{
    mcast_decision_t *d = &m->plans.decisions[cls];
    if (d->made) {
        return d;
    }
    mcast_plan_input_t in;
    mcast_forced_t forced;
    char why[256] = "";
    m->ops->input(m, comm, 0, mcast_class_bytes(cls), &in, &forced, m->chain);
    mcast_plan_t *p = NULL;
    const int rc = mcast_plan_select(&in, &p, why, sizeof(why));
    if (KB_ERR_NOMEM == rc) {
        return NULL;
    }
    d->made = true;
    if (KB_OK != rc) {
        d->failed = true;
        d->why = dup_str('\0' != why[0] ? why : "no plan for these parameters");
        return d;
    }
    mcast_plan_info_t info;
    mcast_plan_get_info(p, &info);
    d->algorithm = info.algorithm;
    d->defer = info.defer;
    d->k = info.k;
    d->segment_bytes = (0 == info.segment_bytes) ? SIZE_MAX : info.segment_bytes;
    d->lambda = info.lambda;
    d->selected_by = dup_str(info.selected_by);
    d->allgather = MCAST_ALG_SCATTER_ALLGATHER == info.algorithm ? info.variant + 1 : 0;
    if (d->defer && m->ops->params->verbose >= 1 && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:%s: comm=%u size=%d class_bytes=%zu: the module below serves this "
                        "size class (selected_by=%s; our plan would be algorithm=%s)\n",
                m->ops->name, ompi_comm_get_cid(comm), ompi_comm_size(comm), mcast_class_bytes(cls),
                info.selected_by, info.name);
        fflush(stderr);
    }
    mcast_plan_free(p);
    return d;
}

/* The plan of (class, root); NULL with *why set when there is none, NULL with *defer
 * set when the class's decision is the module below's, NULL with *no_memory set when this
 * rank had no memory to build it (a local failure: the caller must not decide on it). */
static mcast_cached_plan_t *plan_for(mcast_module_t *m, struct ompi_communicator_t *comm, int cls,
                                     int root, const char **why, bool *defer, bool *no_memory)
{
    mcast_cached_plan_t *e = mcast_plan_cache_find(&m->plans, cls, root);
    if (NULL != e) {
        return e;
    }
    const mcast_decision_t *d = decide(m, comm, cls);
    if (NULL == d) {
        *no_memory = true;
        return NULL;
    }
    if (d->failed) {
        *why = d->why;
        return NULL;
    }
    if (d->defer) {
        *defer = true;
        return NULL;
    }
    mcast_plan_input_t in;
    mcast_forced_t forced;
    m->ops->input(m, comm, root, mcast_class_bytes(cls), &in, &forced, m->chain);
    /* the class's decision, built on this root's chain */
    forced.algorithm = d->algorithm;
    forced.k = d->k;
    forced.segment_bytes = d->segment_bytes;
    forced.lambda = d->lambda;
    if (0 != d->allgather) {
        forced.allgather = d->allgather;
    }
    in.rules = NULL;
    in.selected_by = d->selected_by;
    mcast_plan_t *p = NULL;
    static char err[256];
    const int rc = mcast_plan_select(&in, &p, err, sizeof(err));
    if (KB_OK != rc) {
        *no_memory = KB_ERR_NOMEM == rc;
        *why = err;
        return NULL;
    }
    e = mcast_plan_cache_insert(&m->plans, cls, root, p);
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
    mcast_plan_info_t info;
    char desc[400];
    mcast_plan_get_info(e->plan, &info);
    mcast_plan_describe(e->plan, desc, sizeof(desc));
    char ctx[200] = "";
    m->ops->context(m, ctx, sizeof(ctx));
    fprintf(stderr, "coll:%s: %scomm=%u size=%d root=%d bytes=%zu algorithm=%s %s %s\n",
            m->ops->name, kind ? "ibcast " : "", ompi_comm_get_cid(comm), ompi_comm_size(comm),
            root, bytes, info.name, desc, ctx);
    if (m->ops->params->verbose >= 2 && NULL != info.chain) {
        fprintf(stderr, "coll:%s: comm=%u root=%d chain=", m->ops->name, ompi_comm_get_cid(comm),
                root);
        for (int i = 0; i < info.n; i++) {
            fprintf(stderr, "%s%d", i ? "," : "", info.chain[i]);
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
    mcast_cached_plan_t *e = plan_for(m, comm, mcast_size_class(1), root, &why, &defer, &no_memory);
    if (no_memory) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    mcast_plan_info_t info;
    if (NULL != e && KB_OK == mcast_plan_get_info(e->plan, &info) && !info.defer &&
        0 == strcmp(info.transport, "shm")) {
        *plan = e;
    }
    return OMPI_SUCCESS;
}

/* What a call does: run a plan (*plan set), pass to the module below (MCAST_PASS), or fail. */
#define MCAST_PASS 1

static int route(mcast_module_t *m, struct ompi_communicator_t *comm, int count,
                 struct ompi_datatype_t *dtype, int root, int kind, size_t *bytes,
                 mcast_cached_plan_t **plan)
{
    *plan = NULL;
    if (!mcast_signature_bytes(count, dtype, bytes)) {
        return MPI_ERR_COUNT;
    }
    if (MCAST_STATE_NEW == m->state) {
        int rc = first_call(m, comm);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    if (MCAST_STATE_READY != m->state) {
        return MCAST_PASS;
    }
    if (0 == *bytes) {
        return zero_bytes_plan(m, comm, root, plan);
    }
    const char *why = NULL;
    bool defer = false, no_memory = false;
    mcast_cached_plan_t *e = plan_for(m, comm, mcast_size_class(*bytes), root, &why, &defer,
                                      &no_memory);
    if (defer) {
        return MCAST_PASS; /* the module below has the better plan */
    }
    if (no_memory) {
        /* This rank alone cannot follow the plan the others run: it reports the error
         * (the fallback policy is for plans that do not apply on every rank).  Its peers
         * may wait for it (docs/local-failures.md: what is not covered). */
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (NULL == e) {
        if (!mcast_fallback_allowed(m->ops->name, m->ops->params->fallback, comm,
                                    NULL != why ? why : "no plan", &m->fallback_warned)) {
            return MPI_ERR_UNSUPPORTED_OPERATION;
        }
        return MCAST_PASS;
    }
    mcast_plan_info_t info;
    mcast_plan_get_info(e->plan, &info);
    if (info.defer) {
        return MCAST_PASS; /* the module below has the better plan */
    }
    print_plan(m, comm, e, root, *bytes, kind);
    *plan = e;
    return OMPI_SUCCESS;
}

/* No segment on some rank (every rank knows): decide again without it. */
static void forget_shm_plans(mcast_module_t *m)
{
    mcast_plan_cache_forget(&m->plans);
}

int mcast_module_bcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                       struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mcast_module_t *m = (mcast_module_t *) module;
    size_t bytes = 0;
    mcast_cached_plan_t *e = NULL;
    int rc = route(m, comm, count, dtype, root, 0, &bytes, &e);
    if (MCAST_PASS == rc) {
        return m->previous_bcast(buf, count, dtype, root, comm, m->previous_bcast_module);
    }
    if (OMPI_SUCCESS != rc || NULL == e) {
        return rc;
    }
    mcast_plan_info_t info;
    mcast_plan_get_info(e->plan, &info);
    const bool twolevel = 0 == strcmp(info.transport, "pml+shm");
    if (twolevel && NULL == m->engine) {
        m->engine = mcast_engine_create();
    }
    if (twolevel || 0 == strcmp(info.transport, "shm")) {
        rc = twolevel ? mcast_shm_twolevel_run(&m->shm, e->plan, &e->memo, m->engine, buf, count,
                                               dtype, bytes, root, comm)
                      : mcast_shm_run(&m->shm, &info, buf, count, dtype, bytes, root, comm);
        if (MCAST_SHM_PASS != rc) {
            return rc;
        }
        forget_shm_plans(m);
        return m->previous_bcast(buf, count, dtype, root, comm, m->previous_bcast_module);
    }
    if (0 != strcmp(info.transport, "pml")) {
        if (NULL == m->ops->run) {
            return MPI_ERR_INTERN;
        }
        return m->ops->run(m, &info, buf, count, dtype, bytes, root, comm);
    }
    if (NULL == m->engine) {
        m->engine = mcast_engine_create();
    }
    return mcast_pml_bcast(e->plan, &e->memo, m->engine, buf, count, dtype, bytes, comm);
}

int mcast_module_ibcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                        struct ompi_communicator_t *comm, ompi_request_t **request,
                        mca_coll_base_module_t *module)
{
    mcast_module_t *m = (mcast_module_t *) module;
    size_t bytes = 0;
    mcast_cached_plan_t *e = NULL;
    int rc = route(m, comm, count, dtype, root, 1, &bytes, &e);
    if (MCAST_PASS == rc) {
        if (NULL == m->previous_ibcast) {
            return MPI_ERR_UNSUPPORTED_OPERATION;
        }
        return m->previous_ibcast(buf, count, dtype, root, comm, request, m->previous_ibcast_module);
    }
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (NULL == e) { /* nothing to move: an already completed request */
        *request = &ompi_request_empty;
        return OMPI_SUCCESS;
    }
    mcast_plan_info_t info;
    mcast_plan_get_info(e->plan, &info);
    const bool twolevel = 0 == strcmp(info.transport, "pml+shm");
    if (twolevel || 0 == strcmp(info.transport, "shm")) {
        rc = twolevel ? mcast_shm_twolevel_irun(&m->shm, e->plan, &e->memo, buf, count, dtype,
                                                bytes, root, comm, request)
                      : mcast_shm_irun(&m->shm, &info, buf, count, dtype, bytes, root, comm,
                                       request);
        if (MCAST_SHM_PASS != rc) {
            return rc;
        }
        forget_shm_plans(m);
        if (NULL == m->previous_ibcast) {
            return MPI_ERR_UNSUPPORTED_OPERATION;
        }
        return m->previous_ibcast(buf, count, dtype, root, comm, request, m->previous_ibcast_module);
    }
    if (0 != strcmp(info.transport, "pml")) {
        /* a multicast plan has no nonblocking driver: the module below's Ibcast serves */
        if (!mcast_fallback_allowed(m->ops->name, m->ops->params->fallback, comm,
                                    "MPI_Ibcast: the multicast transport is blocking only",
                                    &m->fallback_warned)) {
            return MPI_ERR_UNSUPPORTED_OPERATION;
        }
        if (NULL == m->previous_ibcast) {
            return MPI_ERR_UNSUPPORTED_OPERATION;
        }
        return m->previous_ibcast(buf, count, dtype, root, comm, request, m->previous_ibcast_module);
    }
    return mcast_pml_ibcast(e->plan, &e->memo, buf, count, dtype, bytes, comm, request);
}
