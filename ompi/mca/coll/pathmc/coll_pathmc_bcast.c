/*
 * coll/pathmc MPI_Bcast: the registry (generated from the pathmc core's torus
 * registry) and the plan builder.  On a periodic Cartesian communicator every rank
 * knows every rank's torus coordinates (Cartesian ranks are row-major), so the
 * torus schedules of Oral & George are built without communication.
 */
#include "ompi_config.h"

#include <stdio.h>

#include "coll_pathmc.h"
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

/* Torus shape and every rank's coordinates of a periodic Cartesian communicator. */
static int cart_coords(struct ompi_communicator_t *comm, pm_torus_shape_t *shape, int **coords)
{
    const mca_topo_base_comm_cart_2_2_0_t *cart = comm->c_topo->mtc.cart;
    const int n = ompi_comm_size(comm);
    if (cart->ndims < 1 || cart->ndims > PM_MAX_DIMS) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    shape->ndims = cart->ndims;
    shape->wrap = 1;
    shape->bidir = 1;
    for (int d = 0; d < cart->ndims; d++) {
        shape->dims[d] = cart->dims[d];
    }
    int *c = malloc(sizeof(int) * (size_t) n * (size_t) cart->ndims);
    if (NULL == c) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int r = 0; r < n; r++) {
        int rest = r;
        for (int d = cart->ndims - 1; d >= 0; d--) {
            c[r * cart->ndims + d] = rest % cart->dims[d];
            rest /= cart->dims[d];
        }
    }
    *coords = c;
    return OMPI_SUCCESS;
}

int mca_coll_pathmc_plan_build(mcast_module_t *module, struct ompi_communicator_t *comm,
                               int algorithm, int root, size_t bytes, mcast_plan_t **out)
{
    const mca_coll_pathmc_component_t *c = &mca_coll_pathmc_component;
    const int n = ompi_comm_size(comm);
    pm_torus_shape_t shape;
    pm_torus_stats_t stats;
    pm_torus_model_t model;
    int *coords = NULL;
    (void) module;

    if (c->window < 1 || c->mu_r < 0 || algorithm < 0 || algorithm >= mca_coll_pathmc_nalgorithms) {
        return OMPI_ERR_BAD_PARAM;
    }
    int rc = cart_coords(comm, &shape, &coords);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    mcast_plan_t *plan = mcast_plan_new(root, algorithm, bytes);
    if (NULL == plan) {
        free(coords);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    pm_torus_model_default(&model);
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
    free(coords);
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
             "torus=%s r=%d phases=%d depth=%d segment_bytes=%zu window=%d ordering=dor "
             "predicted_us=%.1f%s",
             dims, PM_TORUS_MUTORUS == alg ? r_eff : 0, stats.phases, stats.depth, seg,
             c->window, predicted, PMC_ALG_AUTO == algorithm ? " selected_by=auto" : "");
    mcast_plan_set_local(plan, ompi_comm_rank(comm), seg, c->window, MCAST_DISC_FPFS);
    *out = plan;
    return OMPI_SUCCESS;
}
