/* coll/pathmc module: offers bcast only where a torus applies. */
#include "ompi_config.h"

#include "coll_pathmc.h"
#include "ompi/mca/common/mcast/mcast_mc.h"
#include "ompi/communicator/communicator.h"
#include <stdlib.h>

int mca_coll_pathmc_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    (void) enable_progress_threads;
    (void) enable_mpi_threads;
    return OMPI_SUCCESS;
}

static void pathmc_state_free(void *state)
{
    mca_coll_pathmc_state_t *st = state;
    if (NULL != st) {
        mca_coll_pathmc_mcast_fini(st);
        OBJ_DESTRUCT(&st->q_lock);
        if (NULL != st->mc) {
            mcast_mc_close(st->mc); /* every rank frees the communicator: every rank closes */
        }
        mcast_locality_free(st->locality);
        free(st->coords);
        free(st);
    }
}

/*
 * Open MPI 4.1 attaches a Cartesian topology to a new communicator only after the
 * coll selection (topo_base_cart_create enables the communicator first), so whether
 * a torus applies cannot be known here.  pathmc therefore stands on every
 * intra-communicator and decides at the first bcast (pathmc_prepare in coll_pathmc_bcast.c):
 * where no torus applies it hands every call to the module below it (kbinomial),
 * which costs one indirect call.
 */
mca_coll_base_module_t *mca_coll_pathmc_comm_query(struct ompi_communicator_t *comm, int *priority)
{
    const mca_coll_pathmc_component_t *c = &mca_coll_pathmc_component;
    if (OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2 || c->common.priority < 0) {
        return NULL;
    }
    mcast_module_t *m = mcast_module_new(&mca_coll_pathmc_ops, mcast_module_bcast,
                                         mcast_module_ibcast);
    if (NULL == m) {
        return NULL;
    }
    mca_coll_pathmc_state_t *st = calloc(1, sizeof(*st));
    if (NULL == st || NULL == (st->locality = mcast_locality_new(comm))) {
        free(st);
        OBJ_RELEASE(m);
        return NULL;
    }
    OBJ_CONSTRUCT(&st->q_lock, opal_mutex_t);
    m->comm_state = st;
    m->comm_state_free = pathmc_state_free;
    *priority = c->common.priority;
    return &m->super;
}
