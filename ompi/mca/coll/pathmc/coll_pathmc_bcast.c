/*
 * coll/pathmc MPI_Bcast / MPI_Ibcast: where the torus comes from, and the planner's
 * input.  On a periodic Cartesian communicator every rank knows every rank's torus
 * coordinates (Cartesian ranks are row-major), so the torus schedules of Oral & George
 * are built without communication; files and fabric coordinates need the host names of
 * the discovery.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_pathmc.h"
#include "ompi/mca/common/mcast/mcast_fabric.h"
#include "ompi/mca/common/mcast/mcast_topo_cache.h"
#include "ompi/mca/common/mcast/mcast_status_mpi.h"
#include "opal/runtime/opal_progress.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/topo/base/base.h"
#include "opal/mca/base/mca_base_var.h"
#include "pathmc.h"

/* Torus shape and every rank's coordinates of a periodic Cartesian communicator
 * (Cartesian ranks are row-major by the MPI standard). */
static bool cart_torus(struct ompi_communicator_t *comm, mca_coll_pathmc_state_t *st)
{
    if (!OMPI_COMM_IS_CART(comm) || NULL == comm->c_topo || NULL == comm->c_topo->mtc.cart) {
        return false;
    }
    const mca_topo_base_comm_cart_2_2_0_t *cart = comm->c_topo->mtc.cart;
    const int n = ompi_comm_size(comm);
    if (cart->ndims < 1 || cart->ndims > PM_MAX_DIMS) {
        return false;
    }
    for (int d = 0; d < cart->ndims; d++) {
        if (!cart->periods[d] || cart->dims[d] < 2) {
            return false;
        }
        st->shape.dims[d] = cart->dims[d];
    }
    st->shape.ndims = cart->ndims;
    st->shape.wrap = 1;
    st->shape.bidir = 1;
    st->coords = malloc(sizeof(int) * (size_t) n * (size_t) cart->ndims);
    if (NULL == st->coords) {
        return false;
    }
    for (int r = 0; r < n; r++) {
        int rest = r;
        for (int d = cart->ndims - 1; d >= 0; d--) {
            st->coords[r * cart->ndims + d] = rest % cart->dims[d];
            rest /= cart->dims[d];
        }
    }
    st->source = "cart";
    return true;
}

/* Every rank's coordinates from a torus topology that names its host; err says why not. */
static bool topo_torus(struct ompi_communicator_t *comm, mca_coll_pathmc_state_t *st,
                       const pm_topology_t *topo, char *err, size_t errlen)
{
    const int n = ompi_comm_size(comm);
    if (PM_TOPO_TORUS != pm_topology_kind(topo) ||
        PM_OK != pm_topology_torus_shape(topo, &st->shape.ndims, st->shape.dims, PM_MAX_DIMS,
                                         &st->shape.wrap, &st->shape.bidir)) {
        snprintf(err, errlen, "not a torus or mesh");
        return false;
    }
    st->coords = malloc(sizeof(int) * (size_t) n * (size_t) st->shape.ndims);
    if (NULL == st->coords) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (int r = 0; r < n; r++) {
        if (PM_OK != pm_topology_host_coords(topo, st->locality->hosts[r],
                                             st->coords + r * st->shape.ndims, st->shape.ndims)) {
            snprintf(err, errlen, "host %s (rank %d) not in it", st->locality->hosts[r], r);
            free(st->coords);
            st->coords = NULL;
            return false;
        }
    }
    return true;
}

/* A torus topology file (`source` names the parameter).  The host names come from
 * the discovery allgather, so every rank decides alike. */
static bool file_torus(struct ompi_communicator_t *comm, mca_coll_pathmc_state_t *st,
                       const char *path, const char *source)
{
    char err[256] = "";
    const pm_topology_t *topo = NULL; /* parsed once per process, shared: not freed here */
    bool ok = OMPI_SUCCESS == mcast_locality_discover(st->locality, comm, "pathmc", st->discovery_file) &&
              NULL != (topo = mcast_topo_cache_get(path, NULL, err, sizeof(err))) &&
              topo_torus(comm, st, topo, err, sizeof(err));
    if (ok) {
        st->source = source;
        if (0 == strcmp(source, "topology_file")) {
            st->net_topo = topo; /* topo_torus checked every rank's host */
        }
    } else if (0 == ompi_comm_rank(comm) && mca_coll_pathmc_component.common.verbose >= 1) {
        fprintf(stderr, "coll:pathmc: comm=%u: %s %s not used: %s\n", mcast_comm_id(comm),
                source, path, err);
    }
    return ok;
}

/* An irregular switch network (topology_file) that names every rank's host: pathlg
 * renders its worms there.  Host names from the discovery allgather: every rank alike. */
static bool file_switch_net(struct ompi_communicator_t *comm, mca_coll_pathmc_state_t *st,
                            const char *path)
{
    char err[256] = "";
    const pm_topology_t *topo = NULL;
    if (OMPI_SUCCESS != mcast_locality_discover(st->locality, comm, "pathmc", st->discovery_file) ||
        NULL == (topo = mcast_topo_cache_get(path, NULL, err, sizeof(err))) ||
        PM_TOPO_GRAPH != pm_topology_kind(topo)) {
        return false;
    }
    const int nh = pm_topology_nhosts(topo);
    for (int r = 0; r < ompi_comm_size(comm); r++) {
        bool found = false;
        for (int h = 0; h < nh && !found; h++) {
            found = 0 == strcmp(pm_topology_host_name(topo, h), st->locality->hosts[r]);
        }
        if (!found) {
            if (0 == ompi_comm_rank(comm) && mca_coll_pathmc_component.common.verbose >= 1) {
                fprintf(stderr, "coll:pathmc: comm=%u: topology_file %s not used for pathlg: host "
                                "%s (rank %d) not in it\n",
                        mcast_comm_id(comm), path, st->locality->hosts[r], r);
            }
            return false;
        }
    }
    st->switch_net = topo;
    st->net_topo = topo;
    return true;
}

/* The resource manager's fabric coordinates (PMIx), found by discovery: across nodes
 * and where PMIx can give them (both the same on every rank, so no rank pays for a
 * discovery the others skip). */
static bool pmix_torus(struct ompi_communicator_t *comm, mca_coll_pathmc_state_t *st)
{
    char err[256] = "";
    mcast_locality_t *loc = st->locality;
    if (loc->all_local || !mcast_fabric_available() || OMPI_SUCCESS != mcast_locality_discover(loc, comm, "pathmc", st->discovery_file) || NULL == loc->topo ||
        NULL == loc->network || 0 != strcmp(loc->network, "pmix")) {
        return false;
    }
    if (!topo_torus(comm, st, loc->topo, err, sizeof(err))) {
        return false;
    }
    st->source = "pmix";
    st->net_topo = loc->topo;
    return true;
}

/* Where coll/kbinomial's parameter `name` holds its value (the type it registered), or
 * NULL when that component is not there.  pathmc takes several of kbinomial's parameters
 * for its own (one setting for both components). */
static const void *kbinomial_value(const char *name)
{
    const int idx = mca_base_var_find("ompi", "coll", "kbinomial", name);
    const void *value = NULL;
    if (idx < 0 || OPAL_SUCCESS != mca_base_var_get_value(idx, &value, NULL, NULL)) {
        return NULL;
    }
    return value;
}

/* A string parameter of coll/kbinomial (the machine file is one shared parameter), or
 * NULL when that component is not there. */
static const char *kbinomial_string(const char *name)
{
    const char *const *value = kbinomial_value(name);
    return NULL != value ? *value : NULL;
}

/* coll/kbinomial's algorithm forced to something else than auto?  Read once per process,
 * as coll/kbinomial reads its own: a lookup by name costs more than a small MPI_Ibcast,
 * which asks on every call before the communicator settles (E-IBC-1).  (Two threads may
 * both read it: the same value.) */
static bool kbinomial_forced(void)
{
    static int forced = -1;
    if (forced < 0) {
        const int *value = kbinomial_value("algorithm");
        forced = NULL != value && MCAST_ALG_AUTO != *value ? 1 : 0;
    }
    return 1 == forced;
}

/* coll/kbinomial's self-calibration parameters, which are pathmc's too (one setting for
 * both components, as the machine file; without coll/kbinomial: off), into pathmc's common
 * parameters, where the module's call reads them.  Read once per process, before the first
 * exchange's digest (two threads may both copy them: the same values). */
static void kbinomial_calibration_params(void)
{
    static volatile int known = 0;
    if (known) {
        return;
    }
    mca_coll_pathmc_component_t *c = &mca_coll_pathmc_component;
    const int *on = kbinomial_value("self_calibrate");
    const size_t *from = kbinomial_value("self_calibrate_from");
    const bool both = NULL != on && NULL != from;
    c->common.self_calibrate = both ? *on : 0;
    c->common.self_calibrate_from = both ? *from : 0;
    known = 1;
}

/* coll/kbinomial's shared segment (its parameters shm_chunk_bytes, shm_max_chunk_bytes,
 * shm_slots; no segment without that component, or where it has none).  Under auto the
 * planner compares pathmc's plans with kbinomial's, its segment plans included: on one
 * node a periodic Cartesian communicator's torus plans over the PML lost to kbinomial's
 * segment at every size (E-CART-1).  Read once per process, before the first
 * exchange's digest (two threads may both read them: the same values). */
typedef struct {
    size_t chunk_bytes, max_chunk_bytes;
    int slots;
} kbinomial_segment_t;

static const kbinomial_segment_t *kbinomial_segment(void)
{
    static kbinomial_segment_t seg;
    static volatile int known = 0;
    if (!known) {
        const size_t *chunk = kbinomial_value("shm_chunk_bytes");
        const size_t *max = kbinomial_value("shm_max_chunk_bytes");
        const int *slots = kbinomial_value("shm_slots");
        const bool all = NULL != chunk && NULL != max && NULL != slots;
        seg.chunk_bytes = all && !OPAL_CUDA_SUPPORT ? *chunk : 0; /* (kbinomial_input) */
        seg.max_chunk_bytes = all ? *max : 0;
        seg.slots = all ? *slots : 0;
        known = 1;
    }
    return &seg;
}

static mcast_forced_t forced_params(void)
{
    mcast_forced_t f = mca_coll_pathmc_component.forced;
    f.algorithm = mca_coll_pathmc_component.common.algorithm;
    return f;
}

static void pathmc_digests(mcast_module_t *m, mcast_digests_t *d)
{
    const mca_coll_pathmc_component_t *c = &mca_coll_pathmc_component;
    (void) m;
    kbinomial_calibration_params();
    const mcast_forced_t f = forced_params();
    uint64_t h = mcast_forced_digest(&f, mcast_machine_of("pathmc", kbinomial_string("machine_file"), false));
    h = mcast_digest_bytes(h, &c->common.fallback, sizeof(c->common.fallback));
    h = mcast_digest_bytes(h, &c->common.priority, sizeof(c->common.priority));
    h = mcast_digest_bytes(h, &c->common.unparsed, sizeof(c->common.unparsed));
    h = mcast_digest_bytes(h, &c->common.self_calibrate, sizeof(c->common.self_calibrate));
    h = mcast_digest_bytes(h, &c->common.self_calibrate_from, sizeof(c->common.self_calibrate_from));
    const int kb_forced = kbinomial_forced() ? 1 : 0;
    h = mcast_digest_bytes(h, &kb_forced, sizeof(kb_forced));
    const kbinomial_segment_t *seg = kbinomial_segment();
    const uint64_t segd[3] = {seg->chunk_bytes, seg->max_chunk_bytes, (uint64_t) seg->slots};
    h = mcast_digest_bytes(h, segd, sizeof(segd));
    /* multicast: what every rank must agree on (the interface may differ per host) */
    const int mc[4] = {c->mcast_transport, c->mcast_port, c->mcast_ttl, c->mcast_auth};
    h = mcast_digest_bytes(h, mc, sizeof(mc));
    const char *range = NULL != c->mcast_group_range ? c->mcast_group_range : "";
    d->params = mcast_digest_bytes(h, range, strlen(range));
    d->rules = 0;
    const uint64_t files[2] = {mcast_topo_file_digest(c->topology_file),
                               mcast_topo_file_digest(c->coords_file)};
    d->topology = (0 == files[0] && 0 == files[1])
                      ? 0
                      : mcast_digest_bytes(1469598103934665603ull, files, sizeof(files));
}

static int pathmc_prepare(mcast_module_t *m, struct ompi_communicator_t *comm, bool use_rules,
                          bool use_topology, bool nonblocking)
{
    const mca_coll_pathmc_component_t *c = &mca_coll_pathmc_component;
    mca_coll_pathmc_state_t *st = m->comm_state;
    (void) use_rules;
    if (MCAST_ALG_AUTO == c->common.algorithm && kbinomial_forced()) {
        return OMPI_ERR_NOT_AVAILABLE; /* the user chose a kbinomial algorithm */
    }
    /* the multicast group: collective, opened step by step (every rank reaches it at the
     * same call, the first after the exchange: all conditions above are agreed
     * parameters); the nonblocking preparation comes first, and is asked again while the
     * open runs; a blocking one finds it over (settle waits for it) or waits for it */
    int rc;
    while (MCAST_AGAIN == (rc = mca_coll_pathmc_mcast_open(comm, st)) && !nonblocking) {
        opal_progress();
    }
    if (MCAST_AGAIN == rc) {
        return MCAST_AGAIN;
    }
    if (!st->net_tried) { /* no communication: the records came with the exchange */
        st->net_tried = true;
        const bool files = use_topology;
        /* the chain from the topology file (agreed), as coll/kbinomial makes it from the
         * same file: pathmc's plans and the kbinomial plans it compares with run on it */
        st->discovery_file = files ? c->topology_file : NULL;
        const bool torus =
            (files && NULL != c->topology_file && '\0' != c->topology_file[0] &&
             file_torus(comm, st, c->topology_file, "topology_file")) ||
            cart_torus(comm, st) ||
            (files && NULL != c->coords_file && '\0' != c->coords_file[0] &&
             file_torus(comm, st, c->coords_file, "coords_file")) ||
            pmix_torus(comm, st);
        st->has_net = torus || (files && NULL != c->topology_file &&
                                '\0' != c->topology_file[0] &&
                                file_switch_net(comm, st, c->topology_file));
    }
    if (!st->has_net && NULL == st->mc && MCAST_ALG_MCAST != c->common.algorithm &&
        MCAST_ALG_PATHLG != c->common.algorithm) {
        return OMPI_ERR_NOT_AVAILABLE; /* no torus, switch network or group: the module below */
    }
    /* (forced mcast or pathlg without what they need goes on: the planner refuses them
     * with its reason and coll_pathmc_fallback decides, so fallback=error fails loudly) */
    /* the chain and the nodes, for comparing with coll/kbinomial's plans */
    return mcast_locality_discover(st->locality, comm, "pathmc", st->discovery_file);
}

/* Whether, by this rank's parameters, anything here could apply (pathmc_prepare finds
 * nothing otherwise: no torus, switch network or group). */
static bool pathmc_may_apply(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    const mca_coll_pathmc_component_t *c = &mca_coll_pathmc_component;
    const mca_coll_pathmc_state_t *st = m->comm_state;
    if (MCAST_ALG_AUTO == c->common.algorithm && kbinomial_forced()) {
        return false;
    }
    return MCAST_ALG_MCAST == c->common.algorithm || MCAST_ALG_PATHLG == c->common.algorithm ||
           MCA_COLL_PATHMC_MC_NONE != c->mcast_transport ||
           (NULL != c->topology_file && '\0' != c->topology_file[0]) ||
           (NULL != c->coords_file && '\0' != c->coords_file[0]) || OMPI_COMM_IS_CART(comm) ||
           (!st->locality->all_local && mcast_fabric_available());
}

static mcast_locality_t *pathmc_locality(mcast_module_t *m)
{
    const mca_coll_pathmc_state_t *st = m->comm_state;
    return st->locality;
}

static void pathmc_input(mcast_module_t *m, struct ompi_communicator_t *comm, int root,
                         size_t bytes, mcast_plan_input_t *in, mcast_forced_t *forced, int *chain)
{
    const mca_coll_pathmc_state_t *st = m->comm_state;
    const mcast_locality_t *loc = st->locality;
    (void) comm;
    *forced = forced_params();
    mcast_locality_input(loc, MCAST_COMP_PATHMC, root, bytes, in, chain);
    const kbinomial_segment_t *seg = kbinomial_segment();
    if (0 != seg->chunk_bytes) {
        mcast_locality_segment_input(loc, seg->chunk_bytes, seg->max_chunk_bytes, seg->slots, in);
    }
    in->torus = NULL != st->coords ? &st->shape : NULL;
    in->torus_coords = st->coords;
    in->mcast_transport = st->mc_transport;
    in->switch_net = st->switch_net;
    in->topology = st->net_topo;
    in->hosts = NULL != st->net_topo ? (const char *const *) st->locality->hosts : NULL;
    in->mcast_chunk_bytes = mca_coll_pathmc_mcast_chunk(st);
    /* between nodes without a machine file: measured from self_calibrate_from, as
     * kbinomial's plans (E-SIM-5); the built-in model over TCP: Open MPI's own choice */
    mcast_module_machine_input(
        m, loc, mcast_machine_of("pathmc", kbinomial_string("machine_file"), loc->oversubscribed),
        bytes, in);
    in->forced = forced;
}

/* Measure the network as coll/kbinomial does (its parameters: kbinomial_calibration_params):
 * the torus, path and multicast plans are priced with the model too (E-SIM-5). */
static bool pathmc_calibrate_wanted(mcast_module_t *m, struct ompi_communicator_t *comm)
{
    const mca_coll_pathmc_state_t *st = m->comm_state;
    (void) comm;
    return mcast_module_calibrate_wanted(
        m, st->locality,
        mcast_machine_of("pathmc", kbinomial_string("machine_file"), st->locality->oversubscribed));
}

static void pathmc_context(mcast_module_t *m, char *buf, size_t len)
{
    const mca_coll_pathmc_state_t *st = m->comm_state;
    int used = snprintf(buf, len, "torus=");
    if (NULL == st->coords) {
        snprintf(buf, len, "torus=none source=%s nodes=%d",
                 NULL != st->switch_net ? "topology_file(graph)" : (NULL != st->mc ? "multicast" : "-"),
                 st->locality->nnodes);
        return;
    }
    for (int d = 0; d < st->shape.ndims && used >= 0 && (size_t) used < len; d++) {
        used += snprintf(buf + used, len - (size_t) used, "%s%d", d ? "x" : "", st->shape.dims[d]);
    }
    if (used >= 0 && (size_t) used < len) {
        snprintf(buf + used, len - (size_t) used, " source=%s ordering=dor nodes=%d", st->source,
                 st->locality->nnodes);
    }
}

const mcast_component_ops_t mca_coll_pathmc_ops = {
    .name = "pathmc",
    .component = MCAST_COMP_PATHMC,
    .params = &mca_coll_pathmc_component.common,
    .digests = pathmc_digests,
    .prepare = pathmc_prepare,
    .locality = pathmc_locality,
    .may_apply = pathmc_may_apply,
    .input = pathmc_input,
    .calibrate_wanted = pathmc_calibrate_wanted,
    .context = pathmc_context,
    .run = mca_coll_pathmc_mcast_run,
    .irun = mca_coll_pathmc_mcast_irun,
};
