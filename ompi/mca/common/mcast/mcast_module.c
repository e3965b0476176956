/* Shared module: see mcast_module.h. */
#include "mcast_module.h"

#include "ompi/communicator/communicator.h"
#include "mcast_exec.h"

#include <stdio.h>

static void mcast_module_construct(mcast_module_t *m)
{
    m->ops = NULL;
    m->previous_bcast = NULL;
    m->previous_bcast_module = NULL;
    m->plans.head = NULL;
    m->plans.count = 0;
    m->comm_state = NULL;
    m->comm_state_free = NULL;
    m->fallback_warned = false;
}

static void mcast_module_destruct(mcast_module_t *m)
{
    mcast_plan_cache_clear(&m->plans);
    if (NULL != m->comm_state_free) {
        m->comm_state_free(m->comm_state);
    }
    if (NULL != m->previous_bcast_module) {
        OBJ_RELEASE(m->previous_bcast_module);
    }
}

OBJ_CLASS_INSTANCE(mcast_module_t, mca_coll_base_module_t, mcast_module_construct,
                   mcast_module_destruct);

static int mcast_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    mcast_module_t *m = (mcast_module_t *) module;
    /* Modules are enabled from the lowest priority up: comm->c_coll holds what serves
     * bcast below us, which is where declined calls go. */
    m->previous_bcast = comm->c_coll->coll_bcast;
    m->previous_bcast_module = comm->c_coll->coll_bcast_module;
    if (NULL == m->previous_bcast || NULL == m->previous_bcast_module) {
        return OMPI_ERR_NOT_FOUND;
    }
    OBJ_RETAIN(m->previous_bcast_module);
    return OMPI_SUCCESS;
}

mcast_module_t *mcast_module_new(const mcast_component_ops_t *ops,
                                 mca_coll_base_module_bcast_fn_t bcast_fn)
{
    mcast_module_t *m = OBJ_NEW(mcast_module_t);
    if (NULL == m) {
        return NULL;
    }
    m->ops = ops;
    /* Only bcast: every other collective stays with the module that already serves it. */
    m->super.coll_module_enable = mcast_module_enable;
    m->super.coll_bcast = bcast_fn;
    return m;
}

int mcast_module_bcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                       struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mcast_module_t *m = (mcast_module_t *) module;
    const mcast_component_ops_t *ops = m->ops;
    const int algorithm = ops->params->algorithm;
    size_t bytes = 0;

    if (!mcast_signature_bytes(count, dtype, &bytes)) {
        return MPI_ERR_COUNT;
    }
    mcast_plan_t *plan = mcast_plan_cache_find(&m->plans, root, algorithm, bytes);
    if (NULL == plan) {
        int rc = ops->build(m, comm, algorithm, root, bytes, &plan);
        if (OMPI_ERR_NOT_AVAILABLE == rc) { /* the component does not apply here */
            return m->previous_bcast(buf, count, dtype, root, comm, m->previous_bcast_module);
        }
        if (OMPI_SUCCESS != rc) {
            if (!mcast_fallback_allowed(ops->name, ops->params->fallback, comm,
                                        OMPI_ERR_NOT_SUPPORTED == rc
                                            ? "algorithm does not apply to this communicator"
                                            : "no plan for these parameters",
                                        &m->fallback_warned)) {
                return MPI_ERR_UNSUPPORTED_OPERATION;
            }
            return m->previous_bcast(buf, count, dtype, root, comm, m->previous_bcast_module);
        }
        mcast_plan_cache_insert(&m->plans, plan);
        if (ops->params->verbose >= 1 && ompi_comm_rank(comm) == root) {
            mcast_print_plan(ops->name, comm, root, bytes, plan->name, plan->desc);
            if (ops->params->verbose >= 2 && NULL != plan->chain) {
                fprintf(stderr, "coll:%s: comm=%u root=%d chain=", ops->name,
                        ompi_comm_get_cid(comm), root);
                for (int i = 0; i < ompi_comm_size(comm); i++) {
                    fprintf(stderr, "%s%d", i ? "," : "", plan->chain[i]);
                }
                fprintf(stderr, "\n");
            }
        }
    }
    return mcast_exec_bcast(buf, count, dtype, &plan->local, comm);
}
