/*
 * The selection: every eligible candidate evaluated on this communicator (Evaluator),
 * the cheapest kept, compared with the module below under auto, and made a plan
 * (fill_plan).  Selection order and ties: mcast_planner.h and planner.cpp's header.
 */
#include "plan/plan_internal.hpp"
#include "plan/plan_evaluator.hpp"

#include <cstdio>

namespace mcplan {


std::string fmt(const char *f, double x)
{
    char b[64];
    std::snprintf(b, sizeof(b), f, x);
    return b;
}

/* edst's lag for a `bytes`-byte message in m blocks (fam_multitree.cpp, "Lag"): a pure
 * function of the plan, the same on every rank. */
int edst_lag(const mcast_plan &p, size_t bytes, uint32_t m)
{
    if (!p.sync || bytes == 0 || m == 0 || p.tree_ptrs.empty()) {
        return 1;
    }
    const int l = mcast_multitree_lag(p.tree_ptrs.data(), int(p.tree_ptrs.size()), bytes, m, &p.family_net,
                                      p.window, p.max_sends);
    return l >= 1 ? l : 1;
}

namespace {

void fill_plan(mcast_plan &p, const mcast_plan_input_t &in, const Candidate &c, TreePtr tree,
               const std::string &selected_by, size_t class_bytes)
{
    p.n = in.n;
    p.root = in.root;
    p.algorithm = c.algorithm;
    p.tree = std::move(tree);
    p.chain = c.chain ? *c.chain : input_chain(in);
    if (in.node_of_rank != nullptr) {
        p.node_of_rank.assign(in.node_of_rank, in.node_of_rank + in.n);
    }
    p.all_local = in.all_local != 0;
    p.net = in.machine->net;
    p.segment_bytes = c.S == std::numeric_limits<size_t>::max() ? 0 : c.S;
    const AlgDesc &d = ALGS[c.algorithm];
    p.k = d.has_k ? c.k : 0;
    p.lambda = c.algorithm == MCAST_ALG_POSTAL ? c.lambda : 0.0;
    p.window = window_of(*in.forced, c.algorithm);
    p.max_sends = in.forced->max_sends;
    p.discipline = in.forced->discipline;
    p.predicted_us = c.t;
    p.selected_by = selected_by;
    p.class_bytes = class_bytes;
    p.transport = d.transport == MCAST_PLAN_MC_IP && in.mcast_transport == MCAST_TRANSPORT_IB
                      ? MCAST_PLAN_MC_IB
                      : d.transport;
    if (d.transport == MCAST_PLAN_SHM) {
        p.shm_slots = in.shm_slots;
        p.shm_slot_bytes = in.shm_slot_bytes;
        p.shm_chunk_bytes = in.shm_chunk_bytes;
        p.shm_fit_ring = shm_fit_ring(in);
    }
    p.family = family_of(c.algorithm);
    if (p.family >= 0) {
        p.level = level_of(c.algorithm, c.variant);
        p.sync = c.sync >= 0 ? c.sync == 1 : family_sync(in, p.family);
        p.family_net = family_net_ours(in, p.family, p.sync);
        p.window = c.window;
        p.max_sends = c.max_sends;
    }
    if (c.algorithm == MCAST_ALG_EDST) {
        p.trees = edst_trees(in);
        p.tree_ptrs = tree_ptrs(p.trees);
        Routes routes(in);
        RouteLatency rl(in, routes);
        p.sync = c.sync == 1;
        p.family_net = p.sync ? edst_sync_net(edst_net(in, p.trees, rl), *in.machine)
                              : edst_net(in, p.trees, rl);
        p.window = c.window;
        p.max_sends = c.max_sends;
        size_t B = 0;
        uint32_t m = 0;
        mcast_plan_blocks(&p, class_bytes, &B, &m);
        p.lag = edst_lag(p, class_bytes, m);
        p.extra = "trees=" + std::to_string(p.trees.size()) + " lag=" + std::to_string(p.lag);
    }
    if (c.algorithm == MCAST_ALG_TWOLEVEL && c.inter >= 0) {
        static const kb_shape_t shapes[3] = {KB_SHAPE_CHAIN, KB_SHAPE_BINOMIAL, KB_SHAPE_LINEAR};
        p.two_level = true;
        p.family = family_of(c.inter);
        p.level = level_of(c.inter, 0);
        p.family_net = family_net_of(in.machine->net);
        p.window = c.window;
        p.max_sends = c.max_sends;
        p.nnodes = in.nnodes;
        if (c.intra == 3) {
            p.intra.family = MCAST_FAM_NODE_SEGMENT;
            p.transport = MCAST_PLAN_PML_SHM;
            p.shm_slots = in.shm_slots;
            p.shm_slot_bytes = in.shm_slot_bytes;
            p.shm_chunk_bytes = in.shm_chunk_bytes;
            p.shm_fit_ring = node_fit_ring(in);
        } else {
            p.intra.family = MCAST_FAM_TREE;
            p.intra.shape = shapes[c.intra];
            p.intra.tree.k = std::max(1, kb_ceil_log2(std::max(2, ranks_per_node(in))));
            p.intra.tree.lambda = 1.0;
        }
    }
    if (c.algorithm == MCAST_ALG_TWOLEVEL) {
        static const char *const intra[] = {"chain", "binomial", "flat", "shm"};
        p.extra = (c.inter >= 0 ? std::string("inter=") + ALGS[c.inter].info.name + " " : std::string()) +
                  std::string("intra=") + intra[c.intra];
    } else if (c.algorithm == MCAST_ALG_POSTAL) {
        p.extra = "lambda=" + fmt("%.3f", c.lambda) +
                  (p.segment_bytes != 0 ? " pipelining=on" : " pipelining=off");
    } else if (c.algorithm == MCAST_ALG_SCATTER_ALLGATHER) {
        p.extra = c.variant == MCAST_SAG_RD ? "allgather=recursive_doubling" : "allgather=ring";
    } else if (c.algorithm == MCAST_ALG_MUTORUS) {
        int r = in.forced->mu_r;
        for (int d = 0; r == 0 && in.torus != nullptr && d < in.torus->ndims; ++d) {
            r = std::max(r, in.torus->dims[d]);
        }
        p.extra = "r=" + std::to_string(r);
    }
}

} // namespace

namespace {

/* The input's own consistency (every rank passes the same; an error names it). */
void check_input(const mcast_plan_input_t &in)
{
    require(in.n >= 1 && in.root >= 0 && in.root < in.n, "planner: bad n or root");
    require(in.machine != nullptr && in.forced != nullptr, "planner: machine and forced needed");
    const mcast_forced_t &f = *in.forced;
    require(f.window >= 0, "planner: window must be >= 0 (0 = auto)");
    require(f.max_sends >= -1, "planner: max_sends must be >= -1");
    require(f.k >= 0 && f.mu_r >= 0 && f.lambda >= 0, "planner: negative k, r or lambda");
    require(f.segment_max_bytes >= std::max<size_t>(1, f.segment_min_bytes),
                "planner: segment bounds");
    require(f.discipline == KB_DISC_FPFS || f.discipline == KB_DISC_FCFS, "planner: discipline");
    if (in.chain != nullptr) {
        std::vector<char> seen(size_t(in.n), 0);
        for (int i = 0; i < in.n; ++i) {
            require(in.chain[i] >= 0 && in.chain[i] < in.n && !seen[size_t(in.chain[i])],
                        "planner: chain is not a permutation");
            seen[size_t(in.chain[i])] = 1;
        }
        require(in.chain[0] == in.root, "planner: chain must start at the root");
    }
}

/* The first rule that matches and names an algorithm that applies here goes into algs
 * (its k and segment into eff, by = "rules:LINE"); "auto" hands the size back to the
 * model; unknown names are skipped.  Returns the line of a rule naming the module below
 * (MCAST_RULE_PREVIOUS), else 0. */
int rule_candidates(const mcast_plan_input_t &in, size_t M, mcast_forced_t &eff, std::vector<int> &algs,
                    std::string &by)
{
    kb_rule_t rule;
    int at = 0;
    while (in.rules != nullptr &&
           kb_rules_match_from(in.rules, at, in.n, M, in.all_local ? 1 : 0, &rule, &at) == 1) {
        ++at;
        if (std::strcmp(rule.algorithm, MCAST_RULE_PREVIOUS) == 0) {
            /* the module below serves this class; the model still makes a plan (the
             * verbose line and mcast-inspect show what we would have run) */
            return rule.line;
        }
        const int id = mcast_registry_lookup(rule.algorithm);
        if (id == MCAST_ALG_AUTO) {
            break;
        }
        if (id > MCAST_ALG_AUTO && eligible(id, in)) {
            algs.push_back(id);
            if (rule.k != 0) {
                eff.k = rule.k;
            }
            if (rule.segment_bytes != 0) {
                eff.segment_bytes = rule.segment_bytes;
            }
            by = "rules:" + std::to_string(rule.line);
            break;
        }
    }
    return 0;
}

/* Open MPI's own choice on a network the built-in model does not describe (tuned's fixed
 * decision for MPI_Bcast, libnbc's for MPI_Ibcast: whole messages, copies all at once) as
 * one of our algorithms on rank order; eff gets its parameters. */
int unmodelled_candidate(int n, size_t M, bool libnbc, mcast_forced_t &eff)
{
    eff.segment_bytes = SIZE_MAX;
    eff.max_sends = n;
    if (libnbc) {
        return libnbc_ibcast_algorithm(n);
    }
    const int prev = tuned_bcast_algorithm(n, M);
    switch (prev) {
    case 1: return MCAST_ALG_LINEAR;
    case 2:
    case 3: return MCAST_ALG_CHAIN;
    case 6: return MCAST_ALG_BINOMIAL;
    case 7: eff.k = 4; return MCAST_ALG_KNOMIAL;
    case 8:
    case 9:
        eff.allgather = (prev == 8 ? MCAST_SAG_RD : MCAST_SAG_RING) + 1;
        eff.segment_bytes = 0;
        return MCAST_ALG_SCATTER_ALLGATHER;
    default: eff.k = 2; return MCAST_ALG_KBINOMIAL;
    }
}

/* The model's time of an unmodelled candidate (in.forced points to its parameters). */
double unmodelled_time(const mcast_plan_input_t &in, size_t M, int alg, const mcast_forced_t &eff)
{
    Evaluator ev(in, M);
    ev.block_max = eff.segment_max_bytes;
    Candidate c;
    ev.evaluate(alg, c);
    return c.t;
}

/* Every candidate under auto: the algorithms of the input's component whose descriptors
 * say auto evaluates them, where they apply, in registry order (the unsegmented binomial
 * and linear are covered by kbinomial and postal, chain is kbinomial k = 1); then, for
 * coll/pathmc, those of coll/kbinomial it compares with. */
std::vector<int> auto_candidates(const mcast_plan_input_t &in)
{
    std::vector<int> algs;
    for (int pass = 0; pass < 2; ++pass) {
        for (int a = 1; a < MCAST_ALG_COUNT; ++a) {
            const AlgDesc &d = ALGS[a];
            const bool own = (d.info.component & in.component) != 0;
            if ((pass == 0) == own && (d.auto_for & in.component) != 0 && applies_here(a, in)) {
                algs.push_back(a);
            }
        }
    }
    return algs;
}

} // namespace

void select(const mcast_plan_input_t &in, mcast_plan &out)
{
    check_input(in);
    const mcast_forced_t &f = *in.forced;
    const int cls = mcast_size_class(in.bytes);
    const size_t M = in.exact_bytes != 0 ? in.bytes : mcast_class_bytes(cls);

    mcast_forced_t eff = f;
    if (eff.segment_min_bytes == 0) {
        /* auto (mcast_planner.h, mcast_forced_t.segment_min_bytes) */
        const bool spans_nodes = in.all_local == 0 && in.nnodes > 1;
        const size_t net_min = in.machine->net_segment_min_bytes != 0
                                   ? in.machine->net_segment_min_bytes
                                   : PLAN_NET_SEGMENT_MIN;
        eff.segment_min_bytes = std::min(eff.segment_max_bytes,
                                         spans_nodes ? net_min : PLAN_SEGMENT_MIN);
    }
    /* Over TCP between nodes, on a model of the network: blocks the planner cuts (auto's
     * and a forced algorithm's without a forced segment) stay eager (header, "Eager blocks
     * over TCP") */
    if (f.segment_bytes == 0 && in.nodes_over_tcp != 0 &&
        in.unmodelled_network == 0 && in.all_local == 0 && in.nnodes > 1 &&
        in.machine->net.eager_bytes > 0) {
        /* (an eager size under the margin: the smallest block the search may take) */
        const size_t eager = size_t(in.machine->net.eager_bytes);
        const size_t tcp_block_max = std::max<size_t>(
            eff.segment_min_bytes, eager > PLAN_TCP_BLOCK_MARGIN ? eager - PLAN_TCP_BLOCK_MARGIN : 0);
        eff.segment_max_bytes = std::min(eff.segment_max_bytes, tcp_block_max);
    }
    mcast_plan_input_t in2 = in;
    in2.forced = &eff;
    std::string by = "model";
    int previous_rule = 0;
    std::vector<int> algs;
    if (f.algorithm != MCAST_ALG_AUTO) {
        require(f.algorithm > 0 && f.algorithm < MCAST_ALG_COUNT, "planner: unknown algorithm");
        require((ALGS[f.algorithm].info.component & in.component) != 0,
                    "planner: algorithm of another component");
        algs.push_back(f.algorithm);
        by = in.selected_by != nullptr ? in.selected_by : "forced";
    } else {
        previous_rule = rule_candidates(in, M, eff, algs, by);
        if (algs.empty() && in.unmodelled_network != 0 && in.n >= 2 && M > 0) {
            /* The built-in model does not describe this network (mcast_planner.h,
             * "Unmodelled networks"): Open MPI's own choice, deferred to the module below
             * where it can serve, else our copy of it (unmodelled_candidate). */
            const mcast_forced_t asked = eff;
            algs.push_back(unmodelled_candidate(in.n, M, false, eff));
            in2.chain = nullptr; /* rank order from the root */
            by = "unmodelled";
            if (in.nonblocking != 0) {
                /* a nonblocking call (never handed down): of Open MPI's two choices,
                 * tuned's and libnbc's, the one the model predicts faster, libnbc's on a
                 * tie; whole-message trees on rank order, whose order the model gets
                 * right where it misses TCP's numbers (E-TCP-6) */
                mcast_forced_t nb = asked;
                const int alg_nb = unmodelled_candidate(in.n, M, true, nb);
                const mcast_forced_t tuned = eff;
                const double t_tuned = unmodelled_time(in2, M, algs[0], eff);
                eff = nb;
                if (unmodelled_time(in2, M, alg_nb, eff) > t_tuned) {
                    eff = tuned;
                } else {
                    algs[0] = alg_nb;
                }
            }
        }
        if (algs.empty()) {
            algs = auto_candidates(in);
        }
    }
    Evaluator ev(in2, M);
    /* the families' blocks are segments too: at most segment_max_bytes (mcast_forced_t),
     * over TCP the eager limit's (above) */
    ev.block_max = eff.segment_max_bytes;
    /* scatter + recursive doubling's blocks are each rank's share, not messages (its
     * rounds carry many): the floor between nodes does not apply to them */
    ev.sag_segment_min = f.segment_min_bytes != 0 ? f.segment_min_bytes
                                                  : std::min(eff.segment_max_bytes, PLAN_SEGMENT_MIN);
    /* each algorithm's best, then the cheapest of them (earlier on ties) and the runner-up:
     * the cheapest of another algorithm (mcast_decide_runner_up) */
    Candidate best, second;
    int best_alg = MCAST_ALG_AUTO, second_alg = MCAST_ALG_AUTO;
    for (int a : algs) {
        Candidate c;
        ev.evaluate(a, c);
        if (better(c.t, best.t)) {
            second = best;
            second_alg = best_alg;
            best = c;
            best_alg = a;
        } else if (better(c.t, second.t)) {
            second = c;
            second_alg = a;
        }
    }
    require(best.algorithm != MCAST_ALG_AUTO, "planner: no candidate applies");
    TreePtr tree = has_tree(best) ? build_tree(in2, ev.chain, best) : TreePtr();
    fill_plan(out, in2, best, std::move(tree), by, M);
    if (f.algorithm == MCAST_ALG_AUTO && by == "model" && second_alg != MCAST_ALG_AUTO &&
        std::isfinite(second.t)) {
        out.runner_up = second_alg;
        out.runner_up_us = second.t;
    }
    if (in.component == MCAST_COMP_PATHMC && (ALGS[best.algorithm].info.component & MCAST_COMP_PATHMC) == 0) {
        out.defer = true;
    }
    if (previous_rule != 0) {
        out.defer = true;
        out.selected_by = "previous:rules:" + std::to_string(previous_rule);
    } else if (by == "unmodelled" && f.compare_previous != 0 &&
               (M < UNMODELLED_COPY_MIN ||
                (best.algorithm != MCAST_ALG_LINEAR && best.algorithm != MCAST_ALG_CHAIN))) {
        out.defer = true; /* the module below runs it (this plan shows what it is) */
        out.selected_by = "previous:unmodelled";
    } else if (f.algorithm == MCAST_ALG_AUTO && by == "model" && in.component == MCAST_COMP_KBINOMIAL &&
               f.compare_previous != 0 && in.n >= 2 && M > 0) {
        /* the module below serves the class unless our plan is predicted faster */
        out.previous_us = previous_time(in2, M, &out.previous);
        if (out.previous_us <= best.t * (1.0 + PREVIOUS_MARGIN)) {
            out.defer = true;
            out.selected_by = "previous";
        }
    }
}

} // namespace mcplan
