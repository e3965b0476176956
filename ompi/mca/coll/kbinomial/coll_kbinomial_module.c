/* coll/kbinomial module: comm_query hands out the shared mcast module. */
#include "ompi_config.h"

#include "coll_kbinomial.h"
#include "ompi/communicator/communicator.h"

int mca_coll_kbinomial_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    (void) enable_progress_threads;
    (void) enable_mpi_threads;
    return OMPI_SUCCESS;
}

mca_coll_base_module_t *mca_coll_kbinomial_comm_query(struct ompi_communicator_t *comm,
                                                      int *priority)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    if (OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2 || c->common.priority < 0) {
        return NULL;
    }
    mcast_module_t *m = mcast_module_new(&mca_coll_kbinomial_ops, mcast_module_bcast,
                                         mcast_module_ibcast);
    if (NULL == m) {
        return NULL;
    }
    m->comm_state = mcast_locality_new(comm); /* discovery proper: at the first bcast */
    m->comm_state_free = mcast_locality_free;
    if (NULL == m->comm_state) {
        OBJ_RELEASE(m);
        return NULL;
    }
    *priority = c->common.priority;
    return &m->super;
}
