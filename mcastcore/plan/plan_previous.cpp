/*
 * The model of the module below ours: Open MPI 4.1 tuned's fixed decision for MPI_Bcast
 * and its predicted time on this communicator (mcast_planner.h, "The module below").
 */
#include "plan/plan_internal.hpp"
#include "plan/plan_routes.hpp"

namespace mcplan {

/* ---- the module below ours ----------------------------------------------------
 * Open MPI 4.1's tuned component decides MPI_Bcast with a fixed table of algorithm by
 * communicator size and message bytes (coll_tuned_decision_fixed.c,
 * ompi_coll_tuned_bcast_intra_dec_fixed; no segmentation).  Its numbers:
 *   1 basic_linear  2 chain  3 pipeline  4 split_binary_tree  5 binary_tree  6 binomial
 *   7 knomial (radix 4)  8 scatter_allgather (recursive doubling)  9 scatter_allgather_ring
 * The planner models that choice as one of its own plans on rank order (linear, chain,
 * k-binomial with k = 2 for the binary trees, the knomial tree of radix 4, binomial, scatter +
 * allgather with n blocks) to hand a size class to the module below when our best plan is
 * not predicted faster by more than PREVIOUS_MARGIN (our calls cost a little more:
 * plan lookup, the engine's bookkeeping). */

int tuned_bcast_algorithm(int n, size_t M)
{
    struct Row {
        size_t below;
        int alg;
    };
    auto pick = [M](std::initializer_list<Row> rows, int last) {
        for (const Row &r : rows) {
            if (M < r.below) {
                return r.alg;
            }
        }
        return last;
    };
    if (n < 4) {
        return pick({{32, 3}, {256, 5}, {512, 3}, {1024, 7}, {32768, 1}, {131072, 5},
                     {262144, 2}, {524288, 1}, {1048576, 6}}, 5);
    }
    if (n < 8) {
        return pick({{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}}, 2);
    }
    if (n < 16) {
        return pick({{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}}, 1);
    }
    if (n < 32) {
        return pick({{4096, 7}, {1048576, 6}}, 8);
    }
    if (n < 64) {
        return pick({{2048, 6}}, 7);
    }
    if (n < 128) {
        return 7;
    }
    if (n < 256) {
        return pick({{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}}, 7);
    }
    if (n < 1024) {
        return pick({{16384, 7}, {32768, 4}}, 7);
    }
    if (n < 2048) {
        return pick({{524288, 7}}, 8);
    }
    if (n < 4096) {
        return pick({{262144, 7}}, 8);
    }
    return pick({{8192, 7}, {16384, 5}, {262144, 7}}, 8);
}

/* Open MPI's own MPI_Ibcast (libnbc, 4.1 and 5.0 at their defaults: the decision by the
 * communicator's size alone, coll_libnbc_ibcast_skip_dt_decision true and, in 5.0,
 * coll_libnbc_ibcast_algorithm 0): a linear tree up to 4 ranks, a binomial tree above,
 * whole messages, every send of a round posted at once (E-TCP-6).  MCAST_ALG_LINEAR or
 * MCAST_ALG_BINOMIAL. */
int libnbc_ibcast_algorithm(int n)
{
    return n <= 4 ? MCAST_ALG_LINEAR : MCAST_ALG_BINOMIAL;
}

/* Predicted time of the module below (tuned's fixed choice, above) for M bytes: its
 * tree on rank order from the root, every copy posted at once, whole message. */
double previous_time(const mcast_plan_input_t &in, size_t M, const char **name)
{
    static const char *const names[] = {"",         "linear",      "chain",
                                        "pipeline", "split_binary_tree", "binary_tree",
                                        "binomial", "knomial",     "scatter_allgather",
                                        "scatter_allgather_ring"};
    const int alg = tuned_bcast_algorithm(in.n, M);
    *name = names[alg];
    if (M == 0 || in.n < 2) {
        return 0.0;
    }
    mcast_plan_input_t rin = in;
    rin.chain = nullptr; /* rank order from the root */
    if (alg == 8 || alg == 9) {
        const mcast_level_t l = level_of(MCAST_ALG_SCATTER_ALLGATHER, alg == 8 ? MCAST_SAG_RD : MCAST_SAG_RING);
        const mcast_loggp_t g = family_net(in);
        size_t B;
        uint32_t nb;
        family_geometry(MCAST_FAM_SCATTER_ALLGATHER, in.n, M, (M + size_t(in.n) - 1) / size_t(in.n), &B, &nb);
        return mcast_level_predict_us(&l, in.n, M, nb, &g, std::max(2, window_of(*in.forced, MCAST_ALG_AUTO)), 1);
    }
    Candidate c;
    switch (alg) {
    case 1: c.algorithm = MCAST_ALG_LINEAR; break;
    case 2:
    case 3: c.algorithm = MCAST_ALG_CHAIN; c.k = 1; break;
    case 6: c.algorithm = MCAST_ALG_BINOMIAL; break;
    case 7: c.algorithm = MCAST_ALG_KNOMIAL; c.k = 4; break; /* coll_tuned_bcast_knomial_radix */
    default: c.algorithm = MCAST_ALG_KBINOMIAL; c.k = 2; break;
    }
    TreePtr t = build_tree(rin, input_chain(rin), c);
    Locality loc;
    loc.node = in.node_of_rank;
    loc.all_local = in.all_local != 0;
    Routes routes(in);
    LinkLoad links(in, routes);
    RouteLatency rlat(in, routes);
    return std::max(tree_time(t.t, M, 0, 0, 1, loc, *in.machine, &rlat, nullptr, &routes),
                    links.tree_bound_us(t.t, double(M)));
}

} // namespace mcplan
