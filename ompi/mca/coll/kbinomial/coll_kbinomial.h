/*
 * coll/kbinomial: pipelined broadcast on k-binomial trees with First-Packet-First-
 * Served forwarding (Kesavan & Panda), postal-model optimal trees for multi-send
 * (Bar-Noy & Kipnis; Buntinas et al.), and binomial/linear for reference.
 * Thin C glue: trees and models come from the coll_kbinomial core, execution from
 * ompi/mca/common/mcast.
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

/* The one registry of this component's algorithms (coll_kbinomial_algorithms.c). */
typedef enum {
    KBC_ALG_AUTO = 0,
    KBC_ALG_KBINOMIAL,
    KBC_ALG_POSTAL,
    KBC_ALG_BINOMIAL,
    KBC_ALG_LINEAR,
    KBC_ALG_COUNT
} kbc_algorithm_t;

extern const mcast_alg_info_t mca_coll_kbinomial_registry[KBC_ALG_COUNT];

typedef struct mca_coll_kbinomial_component_t {
    mcast_coll_component_t super;
    mcast_common_params_t common;
    int k;                      /* 0 = optimal from the model */
    size_t segment_bytes;       /* 0 = model (kbinomial/postal) or unsegmented (binomial/linear) */
    size_t segment_min_bytes;   /* model search bounds */
    size_t segment_max_bytes;
    int window;
    int max_sends;              /* -1 auto, 0 window*children, >= 1 */
    int discipline;             /* mcast_discipline_t */
    double alpha_us;
    double beta_ns_per_byte;
    double lambda;              /* 0 = model */
    bool postal_pipelining;
    double o_send_us;
    double o_recv_us;
    double gap_ns_per_byte;     /* < 0: auto (see the parameter's help) */
    double shm_alpha_us;        /* model on communicators inside one node */
    double shm_beta_ns_per_byte;
    size_t shm_single_copy_bytes;
    char *topology_file;        /* network topology naming the hosts (pathmc core parsers) */
    char *rules_file;           /* decision rules overriding auto (kb_rules_*) */
    struct kb_rules *rules;     /* loaded at open; NULL when none or unusable */
} mca_coll_kbinomial_component_t;

OMPI_MODULE_DECLSPEC extern mca_coll_kbinomial_component_t mca_coll_kbinomial_component;

int mca_coll_kbinomial_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_kbinomial_comm_query(struct ompi_communicator_t *comm,
                                                      int *priority);

/* Plan builder behind the registry (coll_kbinomial_bcast.c). */
int mca_coll_kbinomial_plan_build(mcast_module_t *module, struct ompi_communicator_t *comm,
                                  int algorithm, int root, size_t bytes, mcast_plan_t **out);

END_C_DECLS
#endif /* MCA_COLL_KBINOMIAL_H */
