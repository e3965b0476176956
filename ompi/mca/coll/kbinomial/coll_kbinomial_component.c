/* coll/kbinomial component: parameters, open, close. */
#include "ompi_config.h"

#include "coll_kbinomial.h"

#include <stdio.h>
#include <string.h>

#include "kbinomial.h"
#include "ompi/mca/common/mcast/mcast_pml.h"
#include "ompi/mca/common/mcast/mcast_shmseg.h"
#include "opal/util/output.h"
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
static const char *const allgather_names[] = {"auto", "ring", "recursive_doubling", NULL};

static int kbinomial_register(void)
{
    mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    int rc = mcast_register_common_params(&c->super.collm_version, MCAST_COMP_KBINOMIAL, 40,
                                          &c->common);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    /* Defaults (the core's), then the table that documents and registers them. */
    mcast_forced_t *f = &c->forced;
    mcast_forced_default(f);
    c->machine_file = NULL;
    c->topology_file = NULL;
    c->rules_file = NULL;
    c->rules = NULL;
    c->shm_chunk_bytes = 32768;
    c->shm_max_chunk_bytes = 262144;
    c->shm_slots = 8;
    c->shm_max_segments = 64;
    c->idle_spin_us = MCAST_IDLE_SPIN_US_DEFAULT;
    c->idle_sleep_us = MCAST_IDLE_SLEEP_US_DEFAULT;
    /* on one node with a core per rank only: elsewhere its trials misjudge (E-VERIFY-3) */
    c->common.verify_trials = MCAST_VERIFY_TRIALS_AUTO;
    /* on from self_calibrate_from: a refused fit keeps the rule (E-CAL-3 (11), (13)) */
    c->common.self_calibrate = 1;
    /* below it stock's eager trees return before their data arrives, which a completion
     * model does not rank (E-CAL-3 (12)) */
    c->common.self_calibrate_from = 65536;
    c->common.verify_margin = 0.05;
    c->common.verify_recheck = 10000;
    c->common.verify_runner_up = 0.1; /* (E-VERIFY-5) */
    const mcast_var_t vars[] = {
        {"k", "k-binomial fan-out bound k, 1..64 (knomial: the radix, 2..64); 0 = the planner's optimal k (default 0)",
         MCA_BASE_VAR_TYPE_INT, &f->k, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"segment_bytes", "Segment (block) size in bytes of the packed type signature; 0 = chosen "
         "by the planner for kbinomial/postal/knomial/chain/twolevel, whole message for binomial/linear. "
         "A message is never cut into more than 65536 blocks (a smaller segment is raised)",
         MCA_BASE_VAR_TYPE_SIZE_T, &f->segment_bytes, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"segment_min_bytes", "Smallest segment the planner may choose (bytes; 0 = auto: 8192 "
                              "where the communicator spans nodes, 1024 on one node)",
         MCA_BASE_VAR_TYPE_SIZE_T, &f->segment_min_bytes, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"segment_max_bytes", "Largest segment the planner may choose (bytes, >= segment_min_bytes; "
         "default 1 MiB)",
         MCA_BASE_VAR_TYPE_SIZE_T, &f->segment_max_bytes, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"window", "Segments a rank keeps receives posted for ahead, 0..1024; 0 (default) = auto: 1 for the circulant, the two-tree's depth in rounds + 2, 4 for the others",
         MCA_BASE_VAR_TYPE_INT, &f->window, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"max_sends", "Sends a rank keeps in flight, -1..1024: 1 sends the copies of a segment one "
         "after the other (the FPFS model; a network link serialises them anyway), 0 posts "
         "window*children at once (receivers that pull the data in shared memory copy in "
         "parallel), -1 = auto: 1 for a rank with children on other nodes, else 0; the families "
         "1 or 2 by the model, the two-tree's synchronous sends (sync_sends) as many as cover a "
         "send's delivery (default -1)",
         MCA_BASE_VAR_TYPE_INT, &f->max_sends, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"sync_sends", "Synchronous sends between nodes (the PML's synchronous mode: a send "
         "completes when its receiver has matched it, so max_sends bounds what a rank has on the "
         "wire for eager sizes too): -1 = the circulant pipeline's (its rounds otherwise overlap "
         "and share links, docs/families.md), and the two-tree's where the machine model's "
         "flows share a link (net.shared_flows 1) and its model says they are faster (under "
         "max_sends -1 with ceil(slot / pace) + 2 in flight, at most 16), 0 = none, 1 = every schedule family's "
         "(circulant, twotree, scatter_allgather); the planner's model follows (default -1)",
         MCA_BASE_VAR_TYPE_INT, &f->sync_sends, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"lambda", "Postal model lambda >= 1 (latency / per-copy send time); 0 = the planner's "
         "choice per segment size: the machine model's lambda or a half-integer up to twice "
         "it, whichever it predicts fastest (default 0)",
         MCA_BASE_VAR_TYPE_DOUBLE, &f->lambda, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"postal_pipelining", "Postal trees: forward segment by segment at intermediate nodes "
         "(true) or the whole message at once (false)",
         MCA_BASE_VAR_TYPE_BOOL, &f->postal_pipelining, OPAL_INFO_LVL_5,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"compare_previous", "Under algorithm=auto, when the cost model decides: also predict "
         "what the module below would run (Open MPI 4.1's tuned fixed decision, modelled on the "
         "same machine model) and hand the call to it unless our best plan is predicted more "
         "than 5% faster (the verbose line then says selected_by=previous; the plan line shows "
         "previous=ALG previous_us=T). false = always run our plan (default true)",
         MCA_BASE_VAR_TYPE_BOOL, &f->compare_previous, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"verify_trials", "Under algorithm=auto, a size class the model decided (ours or "
         "the module below, selected_by model, previous, unmodelled) is checked on the "
         "application's first blocking MPI_Bcast calls of that class: they run the chosen "
         "plan and the other one in turn (and our runner-up: verify_runner_up), one warm-up "
         "call and this many timed calls each, then the ranks agree "
         "on the slowest rank's median time of each and keep the fastest (another one "
         "only if faster by more than verify_margin), 0..8; 0 (or compare_previous false) "
         "= off, the model's choice always; -1 = 4 on a communicator whose ranks share one "
         "node and each have a core (Open MPI does not yield when idle), off elsewhere: "
         "with more ranks than cores and across hosts its trials misjudged the plans that "
         "win in a benchmark loop (default -1; docs/parameters.md)",
         MCA_BASE_VAR_TYPE_INT, &c->common.verify_trials, OPAL_INFO_LVL_5,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"self_calibrate", "Under algorithm=auto, on a communicator that spans nodes without "
         "a machine file (any network: TCP, UCX, InfiniBand): 1 = measure the network at its first blocking MPI_Bcast "
         "of at least self_calibrate_from bytes (ping-pongs between up to 8 pairs of nodes spread over the "
         "communicator, at once, agreed among the ranks; the verbose line says what was "
         "measured and what it cost) and plan those size classes with it (coll/pathmc too, "
         "with this parameter and the next, for its own plans); later communicators "
         "whose ranks all hold that model take it without measuring; a measurement too noisy "
         "to fit keeps the built-in model; 0 = the built-in model (over TCP its rule: Open "
         "MPI's own choice below 1 MiB and our copy of it above) (default 1, "
         "docs/parameters.md)",
         MCA_BASE_VAR_TYPE_INT, &c->common.self_calibrate, OPAL_INFO_LVL_5,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"self_calibrate_from", "Self-calibration measures the network at the first "
         "blocking MPI_Bcast of at least this many bytes and plans the size classes from "
         "there on with it; smaller ones keep the built-in model (over TCP its rule) "
         "(default 65536, Open MPI's TCP eager limit: below it its trees' sends complete "
         "before the data arrives)",
         MCA_BASE_VAR_TYPE_SIZE_T, &c->common.self_calibrate_from, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"verify_margin", "How much faster (a fraction, 0 .. 0.99) the other candidate must "
         "be measured to replace the model's choice (default 0.05)",
         MCA_BASE_VAR_TYPE_DOUBLE, &c->common.verify_margin, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"verify_recheck", "Calls of a size class after a verdict before its trials run "
         "again (the interval doubles each time); 0 = never (default 10000)",
         MCA_BASE_VAR_TYPE_INT, &c->common.verify_recheck, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"verify_runner_up", "Where verification runs and the model chose our plan: our "
         "best plan of another algorithm is a third candidate in the trials when it is "
         "predicted within this fraction of the choice (0 .. 10; 0 = never; default 0.1; "
         "docs/parameters.md)",
         MCA_BASE_VAR_TYPE_DOUBLE, &c->common.verify_runner_up, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"machine_file", "Machine model the planner predicts with (LogGP parameters across nodes "
         "and inside a node, with provenance; format in docs/machine-model.md); empty = the "
         "built-in model. coll/pathmc uses the same file",
         MCA_BASE_VAR_TYPE_STRING, &c->machine_file, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"topology_file", "Network topology (ibnetdiscover output, Slurm topology.conf or the "
         "native torus/graph format) naming the hosts of the ranks: the trees "
         "are then built on its contention-free chain (DOR on tori, fat-tree "
         "labels, POC on up*/down*) instead of the node hierarchy",
         MCA_BASE_VAR_TYPE_STRING, &c->topology_file, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"rules_file", "Decision rules that replace the cost model's choice under algorithm=auto: "
         "lines 'RANKS BYTES ALGORITHM [k=K] [segment_bytes=S] [where=node|net|any]' "
         "(RANKS, BYTES: *, N, A-B or A-; k/m suffixes; first match wins; BYTES match the "
         "size class (four per power of two); ALGORITHM auto leaves the size to the model, "
         "previous hands it to the module below (Open MPI's own choice); an "
         "unknown algorithm skips its line with a warning). contrib/mcast-rules writes one from "
         "perf/bcast-compare results. Every rank must read the same table (checked "
         "once per communicator; otherwise the model decides)",
         MCA_BASE_VAR_TYPE_STRING, &c->rules_file, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"shm_chunk_bytes", "Smallest chunk copied through a node's shared segment (the shm "
         "algorithm on one node, twolevel's intra=shm across nodes; the root or node leader copies a chunk in while the others copy the last one out; "
         "a call's chunk is its size / shm_slots within [shm_chunk_bytes, "
         "shm_max_chunk_bytes]), 512 .. 16 MiB; 0 = no shared segment (neither is then "
         "chosen) (default 32768)",
         MCA_BASE_VAR_TYPE_SIZE_T, &c->shm_chunk_bytes, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"shm_max_chunk_bytes", "The shared segment's slot where a node's ranks outnumber "
         "its cores, the largest chunk, >= shm_chunk_bytes, up to 16 MiB (where every rank has "
         "a core the slot is shm_chunk_bytes). The segment (shm_slots slots: 2 MiB by default "
         "with more ranks than cores, else 256 KiB) is created per node at the communicator's "
         "first plan using it and lives as long as it (default 262144)",
         MCA_BASE_VAR_TYPE_SIZE_T, &c->shm_max_chunk_bytes, OPAL_INFO_LVL_6,
         MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"shm_slots", "One node: slots in the shared segment's ring, 2..64 (default 8)",
         MCA_BASE_VAR_TYPE_INT, &c->shm_slots, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_ALL_EQ},
        {"shm_max_segments", "One node: shared segments (one per communicator that runs shm, "
         "2 MiB each by default) a process maps at most, 0..65536; a communicator whose first "
         "shm plan finds a rank at the limit gets PML plans on every rank (default 64)",
         MCA_BASE_VAR_TYPE_INT, &c->shm_max_segments, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_LOCAL},
        {"idle_sleep_us", "Where Open MPI yields the core when idle (mpi_yield_when_idle: a node "
         "with more ranks than cores, or set by the user), a rank waiting inside a blocking "
         "broadcast over the PML that found nothing for idle_spin_us sleeps this many "
         "microseconds between polls instead of yielding, so the ranks whose data arrived "
         "get the cores (a busy core otherwise stalls pipelines for a scheduler turn per "
         "block); 0 = yield as Open MPI does; coll/pathmc uses the same value (default 50)",
         MCA_BASE_VAR_TYPE_INT, &c->idle_sleep_us, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_LOCAL},
        {"idle_spin_us", "How long such a rank polls without sleeping first, microseconds "
         "(default 200)",
         MCA_BASE_VAR_TYPE_INT, &c->idle_spin_us, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_LOCAL},
    };
    rc = mcast_register_vars(&c->super.collm_version, vars, sizeof(vars) / sizeof(vars[0]),
                             &c->common);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    rc = mcast_register_enum_param(&c->super.collm_version, "allgather",
                                   "scatter_allgather's allgather phase: auto (the planner's "
                                   "model chooses per size class), ring (n - 1 steps of one "
                                   "block: long messages) or recursive_doubling (log2 n steps "
                                   "of doubling ranges; non-powers of two add fix-up steps)",
                                   allgather_names, &f->allgather, MCA_BASE_VAR_SCOPE_ALL_EQ,
                                   &c->common);
    if (OPAL_SUCCESS != rc) {
        return rc;
    }
    return mcast_register_enum_param(&c->super.collm_version, "discipline",
                                     "Forwarding discipline: fpfs (each segment to all children, "
                                     "then the next segment) or fcfs (all segments to child 1, "
                                     "then child 2, ...)",
                                     discipline_names, &f->discipline, MCA_BASE_VAR_SCOPE_ALL_EQ,
                                     &c->common);
}

/* Values out of range fall back to their defaults (with a message), the same way on
 * every rank. */
static void validate(void)
{
    mcast_forced_t *f = &mca_coll_kbinomial_component.forced;
    mca_coll_kbinomial_component_t *c0 = &mca_coll_kbinomial_component;
    mcast_forced_t d;
    mcast_forced_default(&d);
    mcast_param_range("kbinomial", "k", &f->k, 0, 64, d.k);
    mcast_param_range("kbinomial", "window", &f->window, 0, 1024, d.window);
    mcast_param_range("kbinomial", "max_sends", &f->max_sends, -1, 1024, d.max_sends);
    mcast_param_range("kbinomial", "postal_pipelining", &f->postal_pipelining, 0, 1, 1);
    mcast_param_range("kbinomial", "compare_previous", &f->compare_previous, 0, 1, 1);
    mcast_param_range("kbinomial", "verify_trials", &c0->common.verify_trials,
                      MCAST_VERIFY_TRIALS_AUTO, MCAST_VERIFY_MAX_TRIALS, MCAST_VERIFY_TRIALS_AUTO);
    mcast_param_range("kbinomial", "self_calibrate", &c0->common.self_calibrate, 0, 1, 1);
    mcast_param_range_size("kbinomial", "self_calibrate_from", &c0->common.self_calibrate_from, 1,
                           (size_t) 1 << 40, 65536);
    mcast_param_range("kbinomial", "verify_recheck", &c0->common.verify_recheck, 0,
                      1000000000, 10000);
    if (!(c0->common.verify_margin >= 0.0 && c0->common.verify_margin <= 0.99)) {
        if (0 == OPAL_PROC_MY_NAME.vpid) {
            opal_output(0, "coll:kbinomial: coll_kbinomial_verify_margin=%g is outside "
                           "[0, 0.99]; using 0.05", c0->common.verify_margin);
        }
        c0->common.verify_margin = 0.05;
    }
    if (!(c0->common.verify_runner_up >= 0.0 && c0->common.verify_runner_up <= 10.0)) {
        if (0 == OPAL_PROC_MY_NAME.vpid) {
            opal_output(0, "coll:kbinomial: coll_kbinomial_verify_runner_up=%g is outside "
                           "[0, 10]; using 0.1", c0->common.verify_runner_up);
        }
        c0->common.verify_runner_up = 0.1;
    }
    mcast_param_range("kbinomial", "sync_sends", &f->sync_sends, -1, 1, d.sync_sends);
    mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    mcast_param_range("kbinomial", "shm_slots", &c->shm_slots, 2, 64, 8);
    mcast_param_range("kbinomial", "idle_sleep_us", &c->idle_sleep_us, 0, 1000000,
                      MCAST_IDLE_SLEEP_US_DEFAULT);
    mcast_param_range("kbinomial", "idle_spin_us", &c->idle_spin_us, 0, 10000000,
                      MCAST_IDLE_SPIN_US_DEFAULT);
    mcast_param_range("kbinomial", "shm_max_segments", &c->shm_max_segments, 0, 65536, 64);
    mcast_shmseg_set_max_segments(c->shm_max_segments);
    if (0 != c->shm_chunk_bytes) {
        mcast_param_range_size("kbinomial", "shm_chunk_bytes", &c->shm_chunk_bytes, 512,
                               (size_t) 16 << 20, 32768);
        mcast_param_range_size("kbinomial", "shm_max_chunk_bytes", &c->shm_max_chunk_bytes,
                               c->shm_chunk_bytes, (size_t) 16 << 20,
                               c->shm_chunk_bytes > 262144 ? c->shm_chunk_bytes : 262144);
    }
    mcast_param_range_size("kbinomial", "segment_min_bytes", &f->segment_min_bytes, 0,
                           (size_t) 1 << 30, d.segment_min_bytes);
    mcast_param_range_size("kbinomial", "segment_max_bytes", &f->segment_max_bytes,
                           f->segment_min_bytes > 0 ? f->segment_min_bytes : 1, (size_t) 1 << 30,
                           d.segment_max_bytes < f->segment_min_bytes ? f->segment_min_bytes
                                                                      : d.segment_max_bytes);
    if (f->segment_bytes > 0 && f->segment_bytes < 512 && 0 == OPAL_PROC_MY_NAME.vpid) {
        opal_output(0, "coll:kbinomial: coll_kbinomial_segment_bytes=%zu: every segment is one "
                       "message (about a microsecond each), so a 1 MiB broadcast sends thousands; "
                       "a message is never cut into more than 65536 segments", f->segment_bytes);
    }
    if (!(f->lambda == 0.0 || (f->lambda >= 1.0 && f->lambda <= 1e6))) {
        if (0 == OPAL_PROC_MY_NAME.vpid) {
            opal_output(0, "coll:kbinomial: coll_kbinomial_lambda=%g is neither 0 nor in [1, 1e6]; "
                           "using 0", f->lambda);
        }
        f->lambda = 0.0;
    }
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
            const int id = mcast_registry_lookup(r.algorithm);
            if ((id < 0 || 0 == (mcast_registry_get(id)->component & MCAST_COMP_KBINOMIAL)) &&
                0 != strcmp(r.algorithm, MCAST_RULE_PREVIOUS) && 0 == OPAL_PROC_MY_NAME.vpid) {
                fprintf(stderr, "coll:kbinomial: %s:%d: unknown algorithm '%s': line skipped\n",
                        path, r.line, r.algorithm);
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
    validate();
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
    mcast_pml_fini();
    mcast_module_fini();
    return OMPI_SUCCESS;
}
