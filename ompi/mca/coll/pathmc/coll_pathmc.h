/*
 * coll/pathmc: topology-aware broadcast: torus multicast (separate addressing,
 * U-torus, S-torus, Md-torus, Mu-torus; Oral & George) on communicators that live on
 * a torus (periodic Cartesian communicators or a coordinates file).  Elsewhere it
 * passes every bcast to the module below it: coll/kbinomial, or Open MPI's own.
 */
#ifndef MCA_COLL_PATHMC_H
#define MCA_COLL_PATHMC_H

#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/mca/common/mcast/mcast_compat.h"
#include "ompi/mca/common/mcast/mcast_glue.h"
#include "ompi/mca/common/mcast/mcast_module.h"
#include "ompi/mca/common/mcast/mcast_locality.h"
#include "pathmc.h"

BEGIN_C_DECLS

/* The registry is generated from the pathmc core's torus registry at parameter
 * registration: id 0 is "auto", id 1 + t is core algorithm t (pm_torus_alg_t). */
#define PMC_ALG_AUTO 0
#define PMC_ALG_MAX 16

extern mcast_alg_info_t mca_coll_pathmc_registry[PMC_ALG_MAX];
extern int mca_coll_pathmc_nalgorithms;
int mca_coll_pathmc_registry_init(void);


typedef struct mca_coll_pathmc_component_t {
    mcast_coll_component_t super;
    mcast_common_params_t common;
    char *topology_file;    /* network topology (a torus file gives coordinates) */
    char *coords_file;      /* torus coordinates per host */
    int mu_r;               /* Mu-torus partition length, 0 = model */
    size_t segment_bytes;   /* 0 = unsegmented */
    int window;
    double o_us;            /* torus model (seed 002 eqs. 8-12): send/receive overhead */
    char *t_process_us;     /* per-algorithm processing time, in registry order */
    double beta_ns_per_byte;/* bandwidth term per serialised send */
} mca_coll_pathmc_component_t;

OMPI_MODULE_DECLSPEC extern mca_coll_pathmc_component_t mca_coll_pathmc_component;

/* Per communicator: whether a torus applies (-1 not yet known) and its geometry. */
typedef struct mca_coll_pathmc_state {
    int applies;
    const char *source;         /* "topology_file", "cart" or "coords_file" */
    pm_torus_shape_t shape;
    int *coords;                /* [n * ndims] router coordinates of each rank */
    mcast_locality_t *locality; /* host names, for the coordinates file */
} mca_coll_pathmc_state_t;

int mca_coll_pathmc_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_pathmc_comm_query(struct ompi_communicator_t *comm,
                                                   int *priority);
int mca_coll_pathmc_plan_build(mcast_module_t *module, struct ompi_communicator_t *comm,
                               int algorithm, int root, size_t bytes, mcast_plan_t **out);

END_C_DECLS
#endif /* MCA_COLL_PATHMC_H */
