/*
 * coll/kbinomial MPI_Bcast: the one registry of algorithms and the plan builder
 * behind it (lookup, fallback and execution are mcast_module_bcast's).
 * The registry generates the MCA enum and its help text (coll_kbinomial_algorithm),
 * names the verbose plan line and drives dispatch below.
 *
 *   auto       decision rules (coll_kbinomial_rules_file) where one matches, else the
 *              cost model: the faster of k-binomial with (k, S) minimising
 *              (L1 + (m-1)k)(alpha + beta S) (across nodes unsegmented when the same
 *              model with o_send + o_recv in every step prefers one segment) and the
 *              unsegmented postal tree
 *              (completion(n, lambda) * per-copy time), with the model of the
 *              communicator's locality (one node: shm_* parameters, receiver-side
 *              single copy above shm_single_copy_bytes)
 *   kbinomial  k-binomial tree, FPFS pipeline (k, segment from the model unless forced)
 *   postal     Bar-Noy/Kipnis optimal tree for lambda(S), multi-send of each segment
 *   binomial   binomial tree (segmented only when segment_bytes is set)
 *   linear     the root sends to every rank (separate addressing)
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_kbinomial.h"
#include "kbinomial.h"
#include "ompi/communicator/communicator.h"

const mcast_alg_info_t mca_coll_kbinomial_registry[KBC_ALG_COUNT] = {
    {KBC_ALG_AUTO, "auto", "chosen per message size by the cost model"},
    {KBC_ALG_KBINOMIAL, "kbinomial", "pipelined k-binomial tree with FPFS forwarding"},
    {KBC_ALG_POSTAL, "postal", "postal-model optimal tree for lambda, multi-send"},
    {KBC_ALG_BINOMIAL, "binomial", "binomial tree"},
    {KBC_ALG_LINEAR, "linear", "root sends to every rank"},
};

/* The step-time model of this communicator: inside one node or across nodes. */
static kb_linear_model_t linear_model(const mcast_locality_t *loc)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    kb_linear_model_t m = {.alpha_us = loc->all_local ? c->shm_alpha_us : c->alpha_us,
                           .beta_ns_per_byte = loc->all_local ? c->shm_beta_ns_per_byte
                                                              : c->beta_ns_per_byte};
    return m;
}

/* Postal model for one copy of `per_copy` bytes (see gap_ns_per_byte's help). */
static kb_postal_model_t postal_model(const mcast_locality_t *loc, size_t per_copy)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    const kb_linear_model_t lm = linear_model(loc);
    double gap = c->gap_ns_per_byte;
    if (gap < 0.0) {
        gap = (loc->all_local && per_copy > c->shm_single_copy_bytes) ? 0.0 : lm.beta_ns_per_byte;
    }
    kb_postal_model_t pm = {.o_send_us = c->o_send_us, .o_recv_us = c->o_recv_us,
                            .alpha_us = lm.alpha_us, .beta_ns_per_byte = lm.beta_ns_per_byte,
                            .gap_ns_per_byte = gap};
    return pm;
}

/* Segment forced by a decision rule, else by coll_kbinomial_segment_bytes (0: none). */
static size_t forced_segment(const kb_rule_t *rule)
{
    return (NULL != rule && 0 != rule->segment_bytes) ? rule->segment_bytes
                                                      : mca_coll_kbinomial_component.segment_bytes;
}

/* Segment used by algorithms whose segment is the user's choice (0 = whole message). */
static size_t forced_or_whole(size_t bytes, const kb_rule_t *rule)
{
    size_t s = forced_segment(rule);
    return (0 != s) ? s : (bytes > 0 ? bytes : 1);
}

/* Once per communicator, when a rules file is set: every rank must hold the same
 * table (one allreduce of its checksum), else nobody uses it. */
static int rules_agree(struct ompi_communicator_t *comm)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    if (NULL == c->rules_file || '\0' == c->rules_file[0]) {
        return 0;
    }
    const uint64_t mine = (NULL != c->rules) ? kb_rules_checksum(c->rules) : 0;
    uint64_t v[2] = {mine, ~mine}, r[2] = {0, 0}; /* max and ~min in one call */
    int rc = comm->c_coll->coll_allreduce(v, r, 2, MPI_UINT64_T, MPI_MAX, comm,
                                          comm->c_coll->coll_allreduce_module);
    const bool same = OMPI_SUCCESS == rc && 0 != mine && r[0] == mine && ~r[1] == mine;
    if (!same && 0 == ompi_comm_rank(comm) && NULL != c->rules) {
        fprintf(stderr, "coll:kbinomial: comm=%u: ranks hold different rules (or none): "
                "%s not used on this communicator\n", ompi_comm_get_cid(comm), c->rules_file);
    }
    return same ? 1 : 0;
}

/* Per-message software overhead that decides whether to segment at all: across nodes
 * o_send + o_recv (kb_choose_k_segment_ov); inside a node the shm model's alpha was
 * fitted with its overheads, so 0. */
static double message_overhead_us(const mcast_locality_t *loc)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    const double o = c->o_send_us + c->o_recv_us;
    return (loc->all_local || !(o >= 0.0)) ? 0.0 : o;
}

/* k-binomial: (k, S) from the model unless forced (by a rule, else by the
 * parameters); returns the predicted time. */
static double kbinomial_params(int n, size_t bytes, const kb_linear_model_t *lm, double overhead_us,
                               const kb_rule_t *rule, int *k, size_t *seg)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    if (KB_OK != kb_choose_k_segment_ov(n, bytes, lm, overhead_us, c->segment_min_bytes,
                                        c->segment_max_bytes, k, seg)) {
        return -1.0;
    }
    const size_t forced = forced_segment(rule);
    if (0 != forced) {
        *seg = forced;
        long m = (long) ((bytes + *seg - 1) / *seg); /* Theorem 3 for the forced S */
        *k = kb_optimal_k(n, m < 1 ? 1 : m);
    }
    if (NULL != rule && 0 != rule->k) {
        *k = rule->k;
    } else if (0 != c->k) {
        *k = c->k;
    }
    return kb_predict_us(n, bytes, *k, *seg, lm);
}

/* Postal: lambda for the per-copy size; predicted time of the unsegmented tree
 * (completion in units of the per-copy send time, Bar-Noy & Kipnis). */
static double postal_params(int n, const mcast_locality_t *loc, size_t per_copy, double *lambda)
{
    const kb_postal_model_t pm = postal_model(loc, per_copy);
    *lambda = mca_coll_kbinomial_component.lambda;
    if (*lambda <= 0.0) {
        *lambda = kb_postal_lambda(per_copy, &pm);
    }
    double t = kb_postal_completion(n, *lambda);
    return (t < 0.0 || *lambda < 1.0) ? -1.0 : t * (pm.o_send_us + per_copy * pm.gap_ns_per_byte * 1e-3);
}

int mca_coll_kbinomial_plan_build(mcast_module_t *module, struct ompi_communicator_t *comm,
                                  int algorithm, int root, size_t bytes, mcast_plan_t **out)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    mcast_locality_t *loc = module->comm_state;
    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    const kb_linear_model_t lm = linear_model(loc);
    kb_tree_params_t tp = {.k = 1, .lambda = 1.0};
    kb_shape_t shape;
    char head[128];
    size_t seg = 0;
    int rc = KB_ERR_ARG;
    int chosen = algorithm;
    double predicted = -1.0;

    if (c->window < 1 || c->k < 0) {
        return OMPI_ERR_BAD_PARAM;
    }
    if (!loc->discovered) { /* first bcast on this communicator: every rank is here */
        rc = mcast_locality_discover(loc, comm, "kbinomial", c->topology_file);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        if (c->common.verbose >= 2 && 0 == rank) {
            mcast_print_chain("kbinomial", comm, loc);
        }
    }
    if (loc->rules_agreed < 0) { /* idem */
        loc->rules_agreed = rules_agree(comm);
    }
    mcast_plan_t *plan = mcast_plan_new(root, algorithm, bytes);
    if (NULL == plan) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }

    kb_rule_t rule_buf, *rule = NULL; /* a decision rule in force */
    if (KBC_ALG_AUTO == algorithm && 1 == loc->rules_agreed &&
        1 == kb_rules_match(c->rules, size, bytes, loc->all_local ? 1 : 0, &rule_buf)) {
        const int id = mcast_alg_id(mca_coll_kbinomial_registry, KBC_ALG_COUNT, rule_buf.algorithm);
        if (id > KBC_ALG_AUTO) { /* "auto" leaves the size to the model */
            chosen = id;
            rule = &rule_buf;
        }
    }
    if (KBC_ALG_AUTO == algorithm && NULL == rule) {
        /* The cost model decides: pipelined k-binomial against the postal tree. */
        int k;
        double lambda;
        double t_kb = kbinomial_params(size, bytes, &lm, message_overhead_us(loc), NULL, &k, &seg);
        double t_postal = postal_params(size, loc, bytes > 0 ? bytes : 1, &lambda);
        chosen = (t_postal >= 0.0 && (t_kb < 0.0 || t_postal < t_kb)) ? KBC_ALG_POSTAL
                                                                       : KBC_ALG_KBINOMIAL;
    }

    switch (chosen) {
    case KBC_ALG_KBINOMIAL:
        predicted = kbinomial_params(size, bytes, &lm, message_overhead_us(loc), rule, &tp.k, &seg);
        if (predicted < 0.0) {
            goto fail;
        }
        shape = KB_SHAPE_KBINOMIAL;
        snprintf(head, sizeof(head), "k=%d", tp.k);
        break;
    case KBC_ALG_POSTAL: {
        /* Without pipelining (and under auto) each copy is the whole message. */
        /* (a rule that gives segment_bytes asks for pipelining) */
        const bool pipelined = c->postal_pipelining &&
                               (KBC_ALG_AUTO != algorithm ||
                                (NULL != rule && 0 != rule->segment_bytes));
        if (!pipelined) {
            seg = bytes > 0 ? bytes : 1;
        } else if (0 != forced_segment(rule)) {
            seg = forced_segment(rule);
        } else {
            int k_unused = 0;
            if (kbinomial_params(size, bytes, &lm, 0.0, NULL, &k_unused, &seg) < 0.0) {
                goto fail;
            }
        }
        size_t per_copy = (bytes > 0 && seg > bytes) ? bytes : (seg > 0 ? seg : 1);
        predicted = postal_params(size, loc, per_copy, &tp.lambda);
        shape = KB_SHAPE_POSTAL;
        snprintf(head, sizeof(head), "lambda=%.3f pipelining=%s", tp.lambda,
                 pipelined ? "on" : "off");
        break;
    }
    case KBC_ALG_BINOMIAL:
    case KBC_ALG_LINEAR:
        shape = (KBC_ALG_BINOMIAL == chosen) ? KB_SHAPE_BINOMIAL : KB_SHAPE_LINEAR;
        seg = forced_or_whole(bytes, rule);
        head[0] = '\0';
        break;
    default:
        goto fail;
    }

    if (bytes > 0 && seg > bytes) {
        seg = bytes; /* one segment: the plan line says so */
    }
    if (0 == seg) {
        seg = 1;
    }
    plan->chain = malloc(sizeof(int) * (size_t) size);
    if (NULL == plan->chain) {
        rc = KB_ERR_NOMEM;
        goto fail;
    }
    if (OMPI_SUCCESS != mcast_locality_chain(loc, root, plan->chain)) {
        goto fail;
    }
    rc = kb_tree_build(shape, size, root, plan->chain, &tp, &plan->tree);
    if (KB_OK != rc) {
        goto fail;
    }
    plan->name = mca_coll_kbinomial_registry[chosen].name;
    char pred[48] = "";
    if (predicted >= 0.0) {
        snprintf(pred, sizeof(pred), " predicted_us=%.1f", predicted);
    }
    const int max_sends = (c->max_sends >= 0) ? c->max_sends : (loc->all_local ? 0 : 1);
    char sel[48] = "";
    if (NULL != rule) {
        snprintf(sel, sizeof(sel), " selected_by=rules:%d", rule->line);
    } else if (KBC_ALG_AUTO == algorithm) {
        snprintf(sel, sizeof(sel), " selected_by=auto");
    }
    snprintf(plan->desc, sizeof(plan->desc),
             "%s%ssegment_bytes=%zu window=%d max_sends=%d discipline=%s ordering=%s nodes=%d%s%s",
             head, '\0' != head[0] ? " " : "", seg, c->window, max_sends,
             MCAST_DISC_FCFS == c->discipline ? "fcfs" : "fpfs", loc->ordering_name, loc->nnodes,
             pred, sel);
    mcast_plan_set_local(plan, rank, seg, c->window, max_sends,
                         (mcast_discipline_t) c->discipline);
    *out = plan;
    return OMPI_SUCCESS;

fail:
    mcast_plan_free(plan);
    return (KB_ERR_NOMEM == rc) ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_ERR_BAD_PARAM;
}
