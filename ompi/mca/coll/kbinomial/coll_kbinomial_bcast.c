/*
 * coll/kbinomial MPI_Bcast: the one registry of algorithms and the plan builder
 * behind it (lookup, fallback and execution are mcast_module_bcast's).
 * The registry generates the MCA enum and its help text (coll_kbinomial_algorithm),
 * names the verbose plan line and drives dispatch below.
 *
 *   auto       cost model: k-binomial with (k, S) minimising (L1 + (m-1)k)(alpha + beta S)
 *   kbinomial  k-binomial tree, FPFS pipeline (k, segment from the model unless forced)
 *   postal     Bar-Noy/Kipnis optimal tree for lambda(S), multi-send of each segment
 *   binomial   binomial tree (segmented only when segment_bytes is set)
 *   linear     the root sends to every rank (separate addressing)
 */
#include "ompi_config.h"

#include <stdio.h>

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

static kb_linear_model_t linear_model(void)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    kb_linear_model_t m = {.alpha_us = c->alpha_us, .beta_ns_per_byte = c->beta_ns_per_byte};
    return m;
}

/* Segment used by algorithms whose segment is the user's choice (0 = whole message). */
static size_t forced_or_whole(size_t bytes)
{
    size_t s = mca_coll_kbinomial_component.segment_bytes;
    return (0 != s) ? s : (bytes > 0 ? bytes : 1);
}

int mca_coll_kbinomial_plan_build(mcast_module_t *module, struct ompi_communicator_t *comm,
                                  int algorithm, int root, size_t bytes, mcast_plan_t **out)
{
    const mca_coll_kbinomial_component_t *c = &mca_coll_kbinomial_component;
    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    const kb_linear_model_t lm = linear_model();
    kb_tree_params_t tp = {.k = 1, .lambda = 1.0};
    kb_shape_t shape;
    char head[96];
    size_t seg = 0;
    int rc = KB_ERR_ARG;
    (void) module;

    if (c->window < 1 || c->k < 0) {
        return OMPI_ERR_BAD_PARAM;
    }
    mcast_plan_t *plan = mcast_plan_new(root, algorithm, bytes);
    if (NULL == plan) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }

    switch (algorithm) {
    case KBC_ALG_AUTO:
    case KBC_ALG_KBINOMIAL: {
        int k = 0;
        rc = kb_choose_k_segment(size, bytes, &lm, c->segment_min_bytes, c->segment_max_bytes, &k,
                                 &seg);
        if (KB_OK != rc) {
            goto fail;
        }
        if (0 != c->segment_bytes) {
            seg = c->segment_bytes;
            /* optimal k for the forced segment count (Theorem 3) */
            long m = (long) ((bytes + seg - 1) / seg);
            k = kb_optimal_k(size, m < 1 ? 1 : m);
        }
        tp.k = (0 != c->k) ? c->k : k;
        shape = KB_SHAPE_KBINOMIAL;
        snprintf(head, sizeof(head), "k=%d", tp.k);
        break;
    }
    case KBC_ALG_POSTAL:
        if (!c->postal_pipelining) {
            seg = bytes > 0 ? bytes : 1; /* the whole message per copy */
        } else if (0 != c->segment_bytes) {
            seg = c->segment_bytes;
        } else {
            int k_unused = 0;
            rc = kb_choose_k_segment(size, bytes, &lm, c->segment_min_bytes,
                                     c->segment_max_bytes, &k_unused, &seg);
            if (KB_OK != rc) {
                goto fail;
            }
        }
        tp.lambda = c->lambda;
        if (tp.lambda <= 0.0) {
            const kb_postal_model_t pm = {.o_send_us = c->o_send_us, .o_recv_us = c->o_recv_us,
                                          .alpha_us = c->alpha_us,
                                          .beta_ns_per_byte = c->beta_ns_per_byte,
                                          .gap_ns_per_byte = c->gap_ns_per_byte};
            size_t per_copy = (bytes > 0 && seg > bytes) ? bytes : (seg > 0 ? seg : 1);
            tp.lambda = kb_postal_lambda(per_copy, &pm);
        }
        shape = KB_SHAPE_POSTAL;
        snprintf(head, sizeof(head), "lambda=%.3f pipelining=%s", tp.lambda,
                 c->postal_pipelining ? "on" : "off");
        break;
    case KBC_ALG_BINOMIAL:
    case KBC_ALG_LINEAR:
        shape = (KBC_ALG_BINOMIAL == algorithm) ? KB_SHAPE_BINOMIAL : KB_SHAPE_LINEAR;
        seg = forced_or_whole(bytes);
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
    rc = kb_tree_build(shape, size, root, NULL, &tp, &plan->tree);
    if (KB_OK != rc) {
        goto fail;
    }
    plan->name = mca_coll_kbinomial_registry[KBC_ALG_AUTO == algorithm ? KBC_ALG_KBINOMIAL
                                                                       : algorithm].name;
    snprintf(plan->desc, sizeof(plan->desc),
             "%s%ssegment_bytes=%zu window=%d discipline=%s ordering=identity%s", head,
             '\0' != head[0] ? " " : "", seg, c->window,
             MCAST_DISC_FCFS == c->discipline ? "fcfs" : "fpfs",
             KBC_ALG_AUTO == algorithm ? " selected_by=auto" : "");
    mcast_plan_set_local(plan, rank, seg, c->window, (mcast_discipline_t) c->discipline);
    *out = plan;
    return OMPI_SUCCESS;

fail:
    mcast_plan_free(plan);
    return (KB_ERR_NOMEM == rc) ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_ERR_BAD_PARAM;
}
