/* coll/kbinomial component: parameters, open, close. */
#include "ompi_config.h"

#include "coll_kbinomial.h"

#include <stdio.h>
#include <string.h>

#include "kbinomial.h"
#include "opal/util/proc.h"
#include "mpi.h"

const char *mca_coll_kbinomial_component_version_string =
    "Open MPI kbinomial collective MCA component version " OMPI_VERSION;

static int kbinomial_register(void);
static int kbinomial_open(void);
static int kbinomial_close(void);

mca_coll_kbinomial_component_t mca_coll_kbinomial_component = {
    .super = {
        .collm_version = {
            MCAST_COLL_BASE_VERSION,
            .mca_component_name = "kbinomial",
            MCA_BASE_MAKE_VERSION(component, OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
                                  OMPI_RELEASE_VERSION),
            .mca_open_component = kbinomial_open,
            .mca_close_component = kbinomial_close,
            .mca_register_component_params = kbinomial_register,
        },
        .collm_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT},
        .collm_init_query = mca_coll_kbinomial_init_query,
        .collm_comm_query = mca_coll_kbinomial_comm_query,
    },
};

static const char *const discipline_names[] = {"fpfs", "fcfs", NULL};

static int kbinomial_register(void)
{
    mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    int rc = mcast_register_common_params(&c->super.collm_version, mca_coll_kbinomial_registry,
                                          KBC_ALG_COUNT, 40, &c->common);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    /* Defaults, then the table that documents and registers them. */
    c->k = 0;
    c->segment_bytes = 0;
    c->segment_min_bytes = 1024;
    c->segment_max_bytes = 1 << 20;
    c->window = 4;
    c->max_sends = -1;
    c->discipline = MCAST_DISC_FPFS;
    c->alpha_us = 2.0;
    c->beta_ns_per_byte = 0.1;
    c->lambda = 0.0;
    c->postal_pipelining = true;
    c->o_send_us = 0.5;
    c->o_recv_us = 0.5;
    c->gap_ns_per_byte = -1.0;
    c->shm_alpha_us = 5.0;
    c->shm_beta_ns_per_byte = 0.1;
    c->shm_single_copy_bytes = 4096;
    c->topology_file = NULL;
    c->rules_file = NULL;
    c->rules = NULL;
    const mcast_var_t vars[] = {
        {"k", "k-binomial fan-out bound k >= 1; 0 = optimal k from the cost model (Theorem 3 of "
         "Kesavan & Panda with step time alpha + beta*segment)",
         MCA_BASE_VAR_TYPE_INT, &c->k, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"segment_bytes", "Segment size in bytes of the packed type signature; 0 = chosen by the "
         "cost model for kbinomial/postal, unsegmented for binomial/linear",
         MCA_BASE_VAR_TYPE_SIZE_T, &c->segment_bytes, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"segment_min_bytes", "Smallest segment the cost model may choose (bytes)",
         MCA_BASE_VAR_TYPE_SIZE_T, &c->segment_min_bytes, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"segment_max_bytes", "Largest segment the cost model may choose (bytes)",
         MCA_BASE_VAR_TYPE_SIZE_T, &c->segment_max_bytes, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"window", "Segments a rank keeps receives posted for ahead; >= 1",
         MCA_BASE_VAR_TYPE_INT, &c->window, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_LOCAL},
        {"max_sends", "Sends a rank keeps in flight: 1 sends the copies of a segment one after "
         "the other (the FPFS model; a network link serialises them anyway), 0 "
         "posts window*children at once (receivers that pull the data in shared "
         "memory copy in parallel), -1 = auto (1 across nodes, 0 inside one node)",
         MCA_BASE_VAR_TYPE_INT, &c->max_sends, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_LOCAL},
        {"alpha_us", "Cost model: per-step latency alpha in microseconds (t(S) = alpha + beta*S)",
         MCA_BASE_VAR_TYPE_DOUBLE, &c->alpha_us, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"beta_ns_per_byte", "Cost model: per-byte time beta in nanoseconds per byte",
         MCA_BASE_VAR_TYPE_DOUBLE, &c->beta_ns_per_byte, OPAL_INFO_LVL_5,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"lambda", "Postal model lambda >= 1 (latency / per-copy send time); 0 = from the model "
         "per segment size",
         MCA_BASE_VAR_TYPE_DOUBLE, &c->lambda, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"postal_pipelining", "Postal trees: forward segment by segment at intermediate nodes "
         "(true) or the whole message at once (false)",
         MCA_BASE_VAR_TYPE_BOOL, &c->postal_pipelining, OPAL_INFO_LVL_5,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"o_send_us", "Postal model: sender overhead per copy (microseconds)",
         MCA_BASE_VAR_TYPE_DOUBLE, &c->o_send_us, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"o_recv_us", "Postal model: receiver processing before it can re-send (microseconds)",
         MCA_BASE_VAR_TYPE_DOUBLE, &c->o_recv_us, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"gap_ns_per_byte", "Postal model: sender time per byte per copy (nanoseconds); < 0 = "
         "auto: beta across nodes, and inside one node beta below "
         "shm_single_copy_bytes and 0 above (the receiver pulls the data)",
         MCA_BASE_VAR_TYPE_DOUBLE, &c->gap_ns_per_byte, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"shm_alpha_us", "Cost model on communicators inside one node: alpha (microseconds)",
         MCA_BASE_VAR_TYPE_DOUBLE, &c->shm_alpha_us, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"shm_beta_ns_per_byte", "Cost model inside one node: beta (nanoseconds per byte)",
         MCA_BASE_VAR_TYPE_DOUBLE, &c->shm_beta_ns_per_byte, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"shm_single_copy_bytes", "Inside one node, messages above this size are copied once by "
         "the receiver (CMA/XPMEM), so a send costs the sender only its "
         "overhead (Open MPI's btl_vader_eager_limit)",
         MCA_BASE_VAR_TYPE_SIZE_T, &c->shm_single_copy_bytes, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"topology_file", "Network topology (ibnetdiscover output, Slurm topology.conf or the "
         "native torus/graph format) naming the hosts of the ranks: the trees "
         "are then built on its contention-free chain (DOR on tori, fat-tree "
         "labels, POC on up*/down*) instead of the node hierarchy",
         MCA_BASE_VAR_TYPE_STRING, &c->topology_file, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"rules_file", "Decision rules that replace the cost model's choice under algorithm=auto: "
         "lines 'RANKS BYTES ALGORITHM [k=K] [segment_bytes=S] [where=node|net|any]' "
         "(RANKS, BYTES: *, N, A-B or A-; k/m suffixes; first match wins; ALGORITHM "
         "auto leaves the size to the model). contrib/mcast-rules writes one from "
         "perf/bcast-compare results. Every rank must read the same table (checked "
         "once per communicator; otherwise the model decides)",
         MCA_BASE_VAR_TYPE_STRING, &c->rules_file, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
    };
    rc = mcast_register_vars(&c->super.collm_version, vars, sizeof(vars) / sizeof(vars[0]));
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    return mcast_register_enum_param(&c->super.collm_version, "discipline",
                                     "Forwarding discipline: fpfs (each segment to all children, "
                                     "then the next segment) or fcfs (all segments to child 1, "
                                     "then child 2, ...)",
                                     discipline_names, &c->discipline, MCA_BASE_VAR_SCOPE_ALL_EQ);
}

/* The rules table, its algorithm names checked against the registry; NULL (and the
 * reason on stderr from the first process) when unusable. */
static struct kb_rules *load_rules(const char *path)
{
    char err[512] = "";
    kb_rules_t *rules = NULL;
    if (KB_OK == kb_rules_load(path, &rules, err, sizeof(err))) {
        for (int i = 0; i < kb_rules_count(rules); i++) {
            kb_rule_t r;
            kb_rules_get(rules, i, &r);
            if (mcast_alg_id(mca_coll_kbinomial_registry, KBC_ALG_COUNT, r.algorithm) < 0) {
                snprintf(err, sizeof(err), "%s:%d: unknown algorithm '%s'", path, r.line,
                         r.algorithm);
                kb_rules_free(rules);
                rules = NULL;
                break;
            }
        }
    }
    if (NULL == rules && 0 == OPAL_PROC_MY_NAME.vpid) {
        fprintf(stderr, "coll:kbinomial: rules file not used: %s\n", err);
    }
    return rules;
}

static int kbinomial_open(void)
{
    mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    int rc = mcast_check_runtime_version("kbinomial");
    if (OMPI_SUCCESS == rc && NULL != c->rules_file && '\0' != c->rules_file[0]) {
        c->rules = load_rules(c->rules_file);
    }
    return rc;
}

static int kbinomial_close(void)
{
    kb_rules_free(mca_coll_kbinomial_component.rules);
    mca_coll_kbinomial_component.rules = NULL;
    mcast_locality_cache_fini();
    return OMPI_SUCCESS;
}
