/*
 * The evaluation of candidates on one communicator and size: the input's chain,
 * locality, routes, link loads and route latency, computed once per decision, and the
 * cost of each kind of candidate (trees, schedule families, edst, the shared segment,
 * hardware multicast).  Which algorithm is which kind: the descriptors
 * (plan_algorithms.cpp).
 */
#ifndef MCAST_PLAN_EVALUATOR_HPP
#define MCAST_PLAN_EVALUATOR_HPP

#include "plan/plan_internal.hpp"
#include "plan/plan_routes.hpp"

namespace mcplan {

class Evaluator {
public:
    const mcast_plan_input_t &in;
    std::vector<int> chain;
    Locality loc;
    size_t M;
    size_t sag_segment_min = PLAN_SEGMENT_MIN; /* scatter + recursive doubling's block floor */
    size_t block_max = 0; /* families' largest block (0 = none): segment_max_bytes, over
                             TCP the eager blocks' */
    mutable Routes routes;
    mutable LinkLoad links;
    mutable RouteLatency rlat;
    mutable bool twotree_placed = false;                           /* placement computed */
    mutable std::shared_ptr<const std::vector<int>> twotree_chain; /* twotree_placement's, if
                                                                      not the ordering */
    Evaluator(const mcast_plan_input_t &i, size_t bytes)
        : in(i), chain(input_chain(i)), M(bytes), routes(i), links(i, routes), rlat(i, routes)
    {
        loc.node = i.node_of_rank;
        loc.all_local = i.all_local != 0;
    }
    double time(const kb_tree_t *t, size_t S, const std::vector<double> *share = nullptr) const;
    /* Best S (from the grid) for a fixed tree; the candidate gets S and t. */
    void best_segment(const kb_tree_t *t, Candidate &c, const std::vector<size_t> &grid) const;
    /* A schedule family: every variant the forced parameters allow, sends in flight 1 or
     * 2 (max_sends = -1), the best block count (or the forced segment). */
    void evaluate_family(int alg, Candidate &best) const;
    /* (variant, chain) pairs a family is evaluated on: the ordering, and for the two-tree
     * its placement where that differs (header, "Two-tree placement"; the faster
     * prediction wins) */
    std::vector<std::pair<int, std::shared_ptr<const std::vector<int>>>>
    family_runs(int alg, const std::vector<int> &variants) const;
    /* The links' bound on a family's prediction (header, "Link sharing"): t becomes
     * max(t, bound), own the time before it; on a switch network the two-tree's stream is
     * stretched by what a link carries beyond M, and its blocks made finer while their
     * time stays under the bound (header, "Two-tree placement", "Blocks under the links'
     * bound"). */
    void family_links(int fam, const mcast_level_t &l, const std::vector<int> &ch, uint64_t cap,
                      int fw, int ms, const mcast_loggp_t &g, double round_alpha, size_t &B,
                      uint32_t &nb, int &w, double &t, double &own) const;
    void evaluate_family(int alg, bool sy, Candidate &best) const;
    /* twolevel with a family between the node leaders (circulant, two-tree) and a chain,
     * binomial or flat tree inside every node, both levels overlapping per block
     * (mcast_two_level_predict_us); the block count is the inter level's best. */
    void evaluate_two_level_families(Candidate &best) const;
    /* twolevel with the node's segment inside every node (the model in mcast_planner.h):
     * the leaders' level, then the last chunk through the segment, or the segment's own
     * pipeline, whichever ends later. */
    double node_segment_predict(const mcast_level_t &li, int nodes, int ppn, uint32_t nb,
                                const mcast_loggp_t &g, int w, int ms) const;
    /* Hardware multicast (the model in mcast_planner.h). */
    void evaluate_mcast(Candidate &best) const;
    /* edst: the four trees' pipeline (mcast_families.h, "Several trees at once"), every
     * block size of the grid (or the forced one), sends in flight as forced (auto: 1),
     * the links' bound of the trees' routes (a quarter of the message on each edge). */
    void evaluate_edst(Candidate &best) const;
    /* The shared segment of a one-node communicator (mcast_shm.h). */
    void evaluate_shm(Candidate &best) const;
    /* A tree candidate (its tree built) at its best segment of grid, under the links'
     * bound; replaces best when better. */
    void consider_tree(Candidate c, const std::vector<size_t> &grid, Candidate &best) const;
    /* All candidates of one algorithm with the forced parameters applied (its
     * descriptor's evaluation). */
    void evaluate(int alg, Candidate &best) const;
};

} // namespace mcplan

#endif
