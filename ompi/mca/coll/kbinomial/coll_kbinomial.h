/*
 * coll/kbinomial: pipelined broadcast on k-binomial trees with First-Packet-First-
 * Served forwarding (Kesavan & Panda), postal-model optimal trees for multi-send
 * (Bar-Noy & Kipnis; Buntinas et al.), two-level trees for many ranks per node, and
 * binomial / linear / chain for reference; MPI_Bcast and MPI_Ibcast.
 * Thin C glue: the registry, the planner, the schedules and the engine are the cores';
 * transport, agreement and caching are ompi/mca/common/mcast's.
 */
#ifndef MCA_COLL_KBINOMIAL_H
#define MCA_COLL_KBINOMIAL_H

#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/mca/common/mcast/mcast_compat.h"
#include "ompi/mca/common/mcast/mcast_glue.h"
#include "ompi/mca/common/mcast/mcast_module.h"
#include "ompi/mca/common/mcast/mcast_locality.h"

BEGIN_C_DECLS

typedef struct mca_coll_kbinomial_component_t {
    mcast_coll_component_t super;
    mcast_common_params_t common;
    mcast_forced_t forced;      /* algorithm parameters (common.algorithm is copied in) */
    char *machine_file;         /* machine model (docs/machine-model.md); NULL = built in */
    char *topology_file;        /* network topology naming the hosts (pathmc core parsers) */
    char *rules_file;           /* decision rules overriding auto (kb_rules_*) */
    struct kb_rules *rules;     /* loaded at open; NULL when none or unusable */
    size_t shm_chunk_bytes;     /* one node: the smallest chunk (0 = no shared segment) */
    size_t shm_max_chunk_bytes; /* the segment's slot: the largest chunk */
    int shm_slots;              /* its ring of slots */
    int shm_max_segments;       /* segments a process maps at most */
    int idle_spin_us;           /* blocking waits where Open MPI yields when idle: */
    int idle_sleep_us;          /* spin this long, then sleep this long per poll */
} mca_coll_kbinomial_component_t;
/* (the start the other component of ours reads: mcast_component_head_t) */
_Static_assert(offsetof(mca_coll_kbinomial_component_t, common) ==
                   offsetof(mcast_component_head_t, common),
               "mcast_component_head_t must describe the component's start");

MCAST_MODULE_DECLSPEC extern mca_coll_kbinomial_component_t mca_coll_kbinomial_component;

int mca_coll_kbinomial_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_kbinomial_comm_query(struct ompi_communicator_t *comm,
                                                      int *priority);

/* The component's part of the shared module (coll_kbinomial_bcast.c). */
extern const mcast_component_ops_t mca_coll_kbinomial_ops;

END_C_DECLS
#endif /* MCA_COLL_KBINOMIAL_H */
