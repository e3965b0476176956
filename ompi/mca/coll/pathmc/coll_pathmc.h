/*
 * coll/pathmc: the torus multicast family of Oral & George (separate addressing, U-, S-,
 * Md-, Mu-torus) for MPI_Bcast and MPI_Ibcast on communicators whose ranks sit on a
 * torus or mesh (a periodic Cartesian communicator, a topology or coordinates file, the
 * resource manager's fabric coordinates).  The algorithms are rows of the core's one
 * registry; under auto the core planner compares them with what coll/kbinomial (the
 * module below) would run and passes the call down when that is faster.
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

typedef struct mca_coll_pathmc_component_t {
    mcast_coll_component_t super;
    mcast_common_params_t common;
    mcast_forced_t forced;  /* mu_r, segment_bytes, window (the rest: defaults) */
    char *topology_file;    /* network topology (a torus file gives coordinates) */
    char *coords_file;      /* torus coordinates per host */
    /* hardware multicast (coll_pathmc_mcast.c) */
    int mcast_transport;    /* MCA_COLL_PATHMC_MC_* */
    char *mcast_group_range;
    int mcast_port;
    char *mcast_interface;
    int mcast_ttl;
    int mcast_auth;         /* 1: datagrams authenticated (pm_mcproto.h) */
} mca_coll_pathmc_component_t;
/* (the start the other component of ours reads: mcast_component_head_t) */
_Static_assert(offsetof(mca_coll_pathmc_component_t, common) ==
                   offsetof(mcast_component_head_t, common),
               "mcast_component_head_t must describe the component's start");

enum { MCA_COLL_PATHMC_MC_NONE = 0, MCA_COLL_PATHMC_MC_IP, MCA_COLL_PATHMC_MC_IB, MCA_COLL_PATHMC_MC_AUTO };
extern const char *const mca_coll_pathmc_transport_names[];

MCAST_MODULE_DECLSPEC extern mca_coll_pathmc_component_t mca_coll_pathmc_component;

/* Per communicator: the torus, where it came from, every rank's coordinates. */
typedef struct mca_coll_pathmc_state {
    const char *source;         /* "topology_file", "cart", "coords_file" or "pmix" */
    pm_torus_shape_t shape;
    int *coords;                /* [n * ndims] router coordinates of each rank */
    mcast_locality_t *locality; /* host names, chain, nodes */
    const char *discovery_file;      /* topology_file for the chain (agreed), or NULL */
    const pm_topology_t *net_topo;   /* the topology_file's network when it names every
                                        rank's host (torus or graph), or NULL: the model
                                        charges link sharing on it */
    const pm_topology_t *switch_net; /* an irregular switch network naming every rank's
                                        host (topology_file), or NULL: pathlg */
    struct mcast_mc *mc;        /* the communicator's multicast group, or NULL */
    int mc_transport;           /* MCAST_TRANSPORT_* of mc */
    bool mc_tried;              /* the group's open ended (with mc, or without) */
    struct mcast_mc_opener *mc_opener; /* the open under way (mca_coll_pathmc_mcast_open) */
    int mc_opening;             /* MCA_COLL_PATHMC_MC_IB / _IP: the transport it tries */
    char mc_why[256];           /* why a transport it tried is not used */
    /* The group's queue: its broadcasts in call order (coll_pathmc_mcast.c), the first
     * one running on mc; q_lock guards the queue and mc, q_busy a drive under way. */
    opal_mutex_t q_lock;
    struct mca_coll_pathmc_mc_op *q_head, *q_tail;
    bool q_busy;
    bool net_tried;             /* the torus / switch network was looked for */
    bool has_net;               /* and found */
} mca_coll_pathmc_state_t;

/* Collective, without waiting: opens the multicast group when coll_pathmc_mcast_transport
 * asks for one (st->mc stays NULL otherwise or when it cannot be opened; every rank
 * alike).  Every rank calls it at the same point of the communicator's collectives and
 * again until it returns OMPI_SUCCESS (MCAST_AGAIN before: from the progress engine, or
 * a blocking call's loop). */
int mca_coll_pathmc_mcast_open(struct ompi_communicator_t *comm, mca_coll_pathmc_state_t *st);
/* What is left of the group at the communicator's end (an open under way, the queue). */
void mca_coll_pathmc_mcast_fini(mca_coll_pathmc_state_t *st);
/* Its datagram payload (0 without a group). */
size_t mca_coll_pathmc_mcast_chunk(const mca_coll_pathmc_state_t *st);
/* Runs an mcast plan (mcast_component_ops_t.run): its op joins the group's queue and the
 * call drives the queue until its op is done (earlier Ibcasts' ops first). */
int mca_coll_pathmc_mcast_run(mcast_module_t *m, const mcast_plan_info_t *info, void *buf,
                              int count, struct ompi_datatype_t *dtype, size_t bytes, int root,
                              struct ompi_communicator_t *comm);
/* The same without waiting (mcast_component_ops_t.irun): its op joins the queue now. */
int mca_coll_pathmc_mcast_irun(mcast_module_t *m, const mcast_plan_info_t *info, void *buf,
                               int count, struct ompi_datatype_t *dtype, size_t bytes, int root,
                               struct ompi_communicator_t *comm, const struct mcast_runner **runner,
                               void **state);

int mca_coll_pathmc_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_pathmc_comm_query(struct ompi_communicator_t *comm,
                                                   int *priority);

extern const mcast_component_ops_t mca_coll_pathmc_ops;

END_C_DECLS
#endif /* MCA_COLL_PATHMC_H */
