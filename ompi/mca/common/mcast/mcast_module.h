/*
 * The module both components instantiate: it serves MPI_Bcast and MPI_Ibcast, keeps the
 * module below it for calls it passes on, and owns the plan cache.  A component describes
 * itself with an mcast_component_ops_t (name, parameters, how to prepare a communicator
 * and fill the planner's input); mcast_module_bcast / _ibcast do the rest the same way for
 * both:
 *
 *   first call on a communicator (collective: every rank is in it)
 *       one allreduce of this rank's digests of every decision input (parameters,
 *       machine model, rules, topology files): a parameter set differently on some ranks
 *       disables the module on every rank (a warning from rank 0; the module below
 *       serves), differing rules or topology files are ignored on every rank; then the
 *       component's preparation (discovery)
 *   every call
 *       size class and root -> cached plan (mcast_plan.h), else the planner; a plan that
 *       cannot be built follows the fallback policy (same outcome on every rank: the
 *       inputs are agreed); the engine runs it over the PML (mcast_pml.h)
 */
#ifndef MCAST_MODULE_H
#define MCAST_MODULE_H

#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"
#include "mcast_glue.h"
#include "mcast_plan.h"

struct mcast_module;

/* Digests of this rank's decision inputs (0 = none). */
typedef struct mcast_digests {
    uint64_t params;   /* parameters and machine model: must agree, else the module is off */
    uint64_t rules;    /* decision rules: used only where every rank holds the same */
    uint64_t topology; /* topology / coordinates files: idem */
} mcast_digests_t;

typedef struct mcast_component_ops {
    const char *name;                    /* "kbinomial" */
    int component;                       /* MCAST_COMP_* */
    const mcast_common_params_t *params; /* priority, verbose, algorithm, fallback */
    void (*digests)(struct mcast_module *m, mcast_digests_t *d);
    /* After the agreement, collectively: discovery and component state.  use_rules /
     * use_topology say whether every rank holds the same rules / topology files.
     * OMPI_SUCCESS; OMPI_ERR_NOT_AVAILABLE: the component does not apply to this
     * communicator (every call goes to the module below, silently). */
    int (*prepare)(struct mcast_module *m, struct ompi_communicator_t *comm, bool use_rules,
                   bool use_topology);
    /* The planner input for (root, bytes); `chain` has room for n ranks; `forced` is
     * filled from the parameters. */
    void (*input)(struct mcast_module *m, struct ompi_communicator_t *comm, int root, size_t bytes,
                  mcast_plan_input_t *in, mcast_forced_t *forced, int *chain);
    /* What the plan line adds about the communicator ("ordering=poc nodes=4"). */
    void (*context)(struct mcast_module *m, char *buf, size_t len);
    /* Runs a plan whose transport is not the PML (mcast_plan_info_t.transport != "pml":
     * hardware multicast); NULL when the component has none. */
    int (*run)(struct mcast_module *m, const mcast_plan_info_t *info, void *buf, int count,
               struct ompi_datatype_t *dtype, size_t bytes, int root,
               struct ompi_communicator_t *comm);
} mcast_component_ops_t;

typedef enum {
    MCAST_STATE_NEW = 0,   /* first call not yet made */
    MCAST_STATE_READY,     /* plans run here */
    MCAST_STATE_PASS,      /* the component does not apply: the module below serves */
    MCAST_STATE_DISABLED   /* inputs differ between ranks: the module below serves */
} mcast_state_t;

typedef struct mcast_module {
    mca_coll_base_module_t super;
    const mcast_component_ops_t *ops;
    mca_coll_base_module_bcast_fn_t previous_bcast;
    mca_coll_base_module_t *previous_bcast_module;
    mca_coll_base_module_ibcast_fn_t previous_ibcast;
    mca_coll_base_module_t *previous_ibcast_module;
    mcast_plan_cache_t plans;
    mcast_engine_t *engine;           /* reused by blocking calls */
    mcast_state_t state;
    bool use_rules, use_topology;
    void *comm_state;                 /* component-owned per-communicator data */
    void (*comm_state_free)(void *);
    bool fallback_warned;
    int *chain;                       /* [n] scratch for the planner input */
    struct mcast_shm_seg *shm;        /* one node: the shared segment (mcast_shmseg.h) */
} mcast_module_t;
OBJ_CLASS_DECLARATION(mcast_module_t);

/* A new module serving bcast and ibcast for the component described by ops. */
mcast_module_t *mcast_module_new(const mcast_component_ops_t *ops,
                                 mca_coll_base_module_bcast_fn_t bcast_fn,
                                 mca_coll_base_module_ibcast_fn_t ibcast_fn);

int mcast_module_bcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                       struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mcast_module_ibcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                        struct ompi_communicator_t *comm, ompi_request_t **request,
                        mca_coll_base_module_t *module);

#endif /* MCAST_MODULE_H */
