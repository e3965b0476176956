/* coll/pathmc module: offers bcast only where a torus applies. */
#include "ompi_config.h"

#include "coll_pathmc.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/topo/base/base.h"

static const mcast_component_ops_t pathmc_ops = {
    .name = "pathmc",
    .params = &mca_coll_pathmc_component.common,
    .build = mca_coll_pathmc_plan_build,
};

int mca_coll_pathmc_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    (void) enable_progress_threads;
    (void) enable_mpi_threads;
    return OMPI_SUCCESS;
}

/* A periodic Cartesian communicator: every dimension wraps around. */
static bool comm_is_torus(struct ompi_communicator_t *comm)
{
    if (!OMPI_COMM_IS_CART(comm) || NULL == comm->c_topo || NULL == comm->c_topo->mtc.cart) {
        return false;
    }
    const mca_topo_base_comm_cart_2_2_0_t *cart = comm->c_topo->mtc.cart;
    if (cart->ndims < 1) {
        return false;
    }
    for (int d = 0; d < cart->ndims; d++) {
        if (!cart->periods[d]) {
            return false;
        }
    }
    return true;
}

mca_coll_base_module_t *mca_coll_pathmc_comm_query(struct ompi_communicator_t *comm, int *priority)
{
    const mca_coll_pathmc_component_t *c = &mca_coll_pathmc_component;
    if (OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2 || c->common.priority < 0 ||
        !comm_is_torus(comm)) {
        return NULL;
    }
    mcast_module_t *m = mcast_module_new(&pathmc_ops, mcast_module_bcast);
    if (NULL == m) {
        return NULL;
    }
    *priority = c->common.priority;
    return &m->super;
}
