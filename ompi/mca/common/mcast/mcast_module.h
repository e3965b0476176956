/*
 * The module both components instantiate: it serves MPI_Bcast only, keeps the bcast
 * of the module below it for declined calls, and owns the plan cache.  A component
 * describes itself with an mcast_component_ops_t (name, parameters and plan
 * builder; its registry names the plans); mcast_module_bcast() does lookup, build, verbose line, fallback
 * and execution the same way for both.
 */
#ifndef MCAST_MODULE_H
#define MCAST_MODULE_H

#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"
#include "mcast_glue.h"
#include "mcast_plan.h"

struct mcast_module;

/* Build the plan of `algorithm` for (root, bytes) as seen by this rank; the module
 * is passed for per-communicator state (topology, ordering).  OMPI_SUCCESS;
 * OMPI_ERR_NOT_AVAILABLE when the component does not apply to this communicator at
 * all (the module below serves, no fallback message); any other error declines
 * the call under the fallback policy. */
typedef int (*mcast_plan_build_fn_t)(struct mcast_module *module, struct ompi_communicator_t *comm,
                                     int algorithm, int root, size_t bytes, mcast_plan_t **out);

typedef struct mcast_component_ops {
    const char *name;                 /* "kbinomial" */
    const mcast_common_params_t *params;
    mcast_plan_build_fn_t build;
} mcast_component_ops_t;

typedef struct mcast_module {
    mca_coll_base_module_t super;
    const mcast_component_ops_t *ops;
    mca_coll_base_module_bcast_fn_t previous_bcast;
    mca_coll_base_module_t *previous_bcast_module;
    mcast_plan_cache_t plans;
    void *comm_state;                 /* component-owned per-communicator data */
    void (*comm_state_free)(void *);
    bool fallback_warned;
} mcast_module_t;
OBJ_CLASS_DECLARATION(mcast_module_t);

/* A new module serving bcast with `bcast_fn` for the component described by ops. */
mcast_module_t *mcast_module_new(const mcast_component_ops_t *ops,
                                 mca_coll_base_module_bcast_fn_t bcast_fn);

/* The whole bcast path for a component (see the header comment). */
int mcast_module_bcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                       struct ompi_communicator_t *comm, mca_coll_base_module_t *module);

#endif /* MCAST_MODULE_H */
