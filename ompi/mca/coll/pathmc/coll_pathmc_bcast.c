/*
 * coll/pathmc MPI_Bcast: the registry (generated from the pathmc core's torus
 * registry) and the plan builder.  On a periodic Cartesian communicator every rank
 * knows every rank's torus coordinates (Cartesian ranks are row-major), so the
 * torus schedules of Oral & George are built without communication.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_pathmc.h"
#include "ompi/mca/common/mcast/mcast_fabric.h"
#include "ompi/mca/common/mcast/mcast_topo_cache.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/topo/base/base.h"
#include "pathmc.h"

mcast_alg_info_t mca_coll_pathmc_registry[PMC_ALG_MAX];
int mca_coll_pathmc_nalgorithms = 0;

int mca_coll_pathmc_registry_init(void)
{
    int n = pm_torus_algorithm_count();
    if (n < 1 || n + 1 > PMC_ALG_MAX) {
        return OPAL_ERROR;
    }
    mca_coll_pathmc_registry[0] = (mcast_alg_info_t){
        PMC_ALG_AUTO, "auto", "chosen per message size by the torus latency model"};
    for (int i = 0; i < n; i++) {
        const pm_torus_algorithm_t *a = pm_torus_algorithm_get(i);
        if (NULL == a) {
            return OPAL_ERROR;
        }
        mca_coll_pathmc_registry[i + 1] = (mcast_alg_info_t){1 + a->id, a->name, a->description};
    }
    mca_coll_pathmc_nalgorithms = n + 1;
    return OPAL_SUCCESS;
}

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
    bool ok = OMPI_SUCCESS == mcast_locality_discover(st->locality, comm, "pathmc", NULL) &&
              NULL != (topo = mcast_topo_cache_get(path, NULL, err, sizeof(err))) &&
              topo_torus(comm, st, topo, err, sizeof(err));
    if (ok) {
        st->source = source;
    } else if (0 == ompi_comm_rank(comm) && mca_coll_pathmc_component.common.verbose >= 1) {
        fprintf(stderr, "coll:pathmc: comm=%u: %s %s not used: %s\n", ompi_comm_get_cid(comm),
                source, path, err);
    }
    return ok;
}

/* The resource manager's fabric coordinates (PMIx), found by discovery: across nodes
 * and where PMIx can give them (both the same on every rank, so no rank pays for a
 * discovery the others skip). */
static bool pmix_torus(struct ompi_communicator_t *comm, mca_coll_pathmc_state_t *st)
{
    char err[256] = "";
    mcast_locality_t *loc = st->locality;
    if (loc->all_local || !mcast_fabric_available() || OMPI_SUCCESS != mcast_locality_discover(loc, comm, "pathmc", NULL) || NULL == loc->topo ||
        NULL == loc->network || 0 != strcmp(loc->network, "pmix")) {
        return false;
    }
    if (!topo_torus(comm, st, loc->topo, err, sizeof(err))) {
        return false;
    }
    st->source = "pmix";
    return true;
}

int mca_coll_pathmc_plan_build(mcast_module_t *module, struct ompi_communicator_t *comm,
                               int algorithm, int root, size_t bytes, mcast_plan_t **out)
{
    const mca_coll_pathmc_component_t *c = &mca_coll_pathmc_component;
    const int n = ompi_comm_size(comm);
    pm_torus_shape_t shape;
    pm_torus_stats_t stats;
    pm_torus_model_t model;
    mca_coll_pathmc_state_t *st = module->comm_state;

    if (c->window < 1 || c->mu_r < 0 || algorithm < 0 || algorithm >= mca_coll_pathmc_nalgorithms) {
        return OMPI_ERR_BAD_PARAM;
    }
    if (st->applies < 0) { /* first bcast: every rank is here */
        st->applies = (NULL != c->topology_file && '\0' != c->topology_file[0] &&
                       file_torus(comm, st, c->topology_file, "topology_file")) ||
                      cart_torus(comm, st) ||
                      (NULL != c->coords_file && '\0' != c->coords_file[0] &&
                       file_torus(comm, st, c->coords_file, "coords_file")) ||
                      pmix_torus(comm, st);
    }
    if (!st->applies) {
        return OMPI_ERR_NOT_AVAILABLE; /* no torus here: the module below serves */
    }
    shape = st->shape;
    const int *coords = st->coords;
    int rc;
    mcast_plan_t *plan = mcast_plan_new(root, algorithm, bytes);
    if (NULL == plan) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    pm_torus_model_default(&model);
    model.o_us = c->o_us;
    model.beta_us_per_byte = c->beta_ns_per_byte * 1e-3;
    if (NULL != c->t_process_us) { /* "a,b,c,d,e" in registry order; missing values keep the default */
        const char *p = c->t_process_us;
        for (int i = 0; i < PM_TORUS_NALGS && NULL != p && '\0' != *p; i++) {
            char *end = NULL;
            double v = strtod(p, &end);
            if (end == p || v < 0.0) {
                break;
            }
            model.t_process_us[i] = v;
            p = (',' == *end) ? end + 1 : NULL;
        }
    }
    pm_torus_alg_t alg;
    double predicted = -1.0;
    if (PMC_ALG_AUTO == algorithm) {
        rc = pm_torus_choose(&shape, n, coords, root, bytes, &model, &alg, &predicted);
    } else {
        alg = (pm_torus_alg_t) (algorithm - 1);
        rc = PM_OK;
    }
    if (PM_OK == rc) {
        rc = pm_torus_build(alg, &shape, n, coords, root, c->mu_r, &plan->tree, &stats);
    }
    if (PM_OK != rc) {
        mcast_plan_free(plan);
        return (PM_ERR_NOMEM == rc) ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_ERR_BAD_PARAM;
    }
    if (predicted < 0.0) {
        predicted = pm_torus_predict_us(alg, &stats, n, bytes, &model);
    }
    size_t seg = (0 != c->segment_bytes) ? c->segment_bytes : bytes;
    if (bytes > 0 && seg > bytes) {
        seg = bytes;
    }
    if (0 == seg) {
        seg = 1;
    }
    plan->name = mca_coll_pathmc_registry[1 + alg].name;
    int r_eff = c->mu_r;
    for (int d = 0; 0 == c->mu_r && d < shape.ndims; d++) {
        r_eff = shape.dims[d] > r_eff ? shape.dims[d] : r_eff; /* the core's r = 0 rule */
    }
    char dims[64];
    int used = 0;
    for (int d = 0; d < shape.ndims && used < (int) sizeof(dims); d++) {
        used += snprintf(dims + used, sizeof(dims) - (size_t) used, "%s%d", d ? "x" : "",
                         shape.dims[d]);
    }
    snprintf(plan->desc, sizeof(plan->desc),
             "torus=%s source=%s r=%d phases=%d depth=%d segment_bytes=%zu window=%d "
             "ordering=dor predicted_us=%.1f%s",
             dims, st->source, PM_TORUS_MUTORUS == alg ? r_eff : 0, stats.phases, stats.depth, seg,
             c->window, predicted, PMC_ALG_AUTO == algorithm ? " selected_by=auto" : "");
    mcast_plan_set_local(plan, ompi_comm_rank(comm), seg, c->window, 0, MCAST_DISC_FPFS);
    *out = plan;
    return OMPI_SUCCESS;
}
