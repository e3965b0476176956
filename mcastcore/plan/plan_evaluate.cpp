/*
 * The cost of each kind of candidate (plan_evaluator.hpp): trees with their best segment,
 * the schedule families (every variant, sends in flight, block count, the links' bound),
 * twolevel with a family between the leaders, hardware multicast, edst, the shared
 * segment.  Formulas: mcast_planner.h and mcast_families.h.
 */
#include "plan/plan_evaluator.hpp"

#include <map>

namespace mcplan {

double Evaluator::time(const kb_tree_t *t, size_t S, const std::vector<double> *share) const
{
    /* every tree keeps PLAN_WINDOW receives ahead under auto */
    return tree_time(t, M, S, in.forced->max_sends, window_of(*in.forced, MCAST_ALG_KBINOMIAL), loc,
                     *in.machine, &rlat,
                     share != nullptr && !share->empty() ? share : nullptr, &routes);
}

void Evaluator::best_segment(const kb_tree_t *t, Candidate &c, const std::vector<size_t> &grid) const
{
    const std::vector<double> share = links.tree_edge_share(t);
    for (size_t S : grid) {
        const double x = time(t, S, &share);
        if (better(x, c.t)) {
            c.t = x;
            c.S = S;
        }
    }
}

void Evaluator::evaluate_family(int alg, Candidate &best) const
{
    for (bool sy : family_sync_options(in, family_of(alg))) {
        evaluate_family(alg, sy, best);
    }
}

std::vector<std::pair<int, std::shared_ptr<const std::vector<int>>>>
Evaluator::family_runs(int alg, const std::vector<int> &variants) const
{
    const int fam = family_of(alg);
    std::vector<std::pair<int, std::shared_ptr<const std::vector<int>>>> runs;
    for (int v : variants) {
        runs.emplace_back(v, nullptr);
        if (fam == MCAST_FAM_TWOTREE) {
            if (!twotree_placed) {
                const mcast_level_t l = level_of(alg, v);
                std::vector<int> c = twotree_placement(l, in, chain, routes);
                twotree_placed = true;
                if (c != chain) {
                    twotree_chain = std::make_shared<const std::vector<int>>(std::move(c));
                }
            }
            if (twotree_chain) {
                runs.emplace_back(v, twotree_chain);
            }
        }
    }
    return runs;
}

void Evaluator::family_links(int fam, const mcast_level_t &l, const std::vector<int> &ch,
                             uint64_t cap, int fw, int ms, const mcast_loggp_t &g,
                             double round_alpha, size_t &B, uint32_t &nb, int &w, double &t,
                             double &own) const
{
    const mcast_forced_t &f = *in.forced;
    double bound = family_link_bound_us(links, l, in, ch, M, nb, round_alpha);
    /* header, "Two-tree placement": on a switch network a link carrying more
     * than M bytes slows the trees' stream through it by what it carries
     * beyond M; the fill comes on top */
    const auto stretch = [&](double b) {
        return fam == MCAST_FAM_TWOTREE && !direct_network(in)
                   ? std::max(0.0, b - links.bound_us(double(M)))
                   : 0.0;
    };
    t += stretch(bound);
    if (fam == MCAST_FAM_TWOTREE && f.segment_bytes == 0 && M != 0 && bound > t) {
        /* header, "Blocks under the links' bound": the finest blocks whose
         * own time stays under the bound (fill and drain shrink with the
         * block; the bound, taken at <= 32 blocks, does not see them) */
        for (uint64_t nb2 = cap; nb2 > nb; nb2 = nb + (nb2 - nb) / 2) {
            size_t B2 = 1;
            uint32_t m2 = 0;
            family_geometry(fam, in.n, M, size_t((M + nb2 - 1) / nb2), &B2, &m2);
            if (m2 <= nb) {
                break;
            }
            const int w2 = std::max(fw, mcast_level_window(&l, in.n, M, m2, &g, ms));
            double t2 = mcast_level_predict_us(&l, in.n, M, m2, &g, w2, ms);
            const double b2 = m2 >= 32 && nb >= 32
                                  ? bound
                                  : family_link_bound_us(links, l, in, ch, M, m2,
                                                         round_alpha);
            t2 += t2 >= 0.0 ? stretch(b2) : 0.0;
            if (t2 >= 0.0 && std::max(t2, b2) <= std::max(t, bound) * (1.0 + 1e-9)) {
                nb = m2;
                B = B2;
                w = w2;
                t = t2;
                bound = b2;
                break;
            }
        }
    }
    own = t;
    t = std::max(t, bound);
}

void Evaluator::evaluate_family(int alg, bool sy, Candidate &best) const
{
    const mcast_forced_t &f = *in.forced;
    const int fam = family_of(alg);
    const mcast_loggp_t g0 = family_net_ours(in, fam, sy);
    std::map<uint64_t, double> mean_latency; /* (variant, chain, blocks) -> mean route latency */
    if (fam == MCAST_FAM_SCATTER_ALLGATHER) {
        /* n blocks of at most PLAN_MAX_BLOCK_BYTES, with room for the largest size of
         * the class (CLASS_ROOM: above the 2^(1/8) = 1.09 x its middle a class spans) */
        require(double(M) * CLASS_ROOM <= double(in.n) * double(PLAN_MAX_BLOCK_BYTES),
                "scatter_allgather: a message of more than n x 16 MiB");
    }
    std::vector<int> variants{0};
    if (fam == MCAST_FAM_SCATTER_ALLGATHER) {
        variants = f.allgather != 0 ? std::vector<int>{f.allgather - 1}
                                    : std::vector<int>{MCAST_SAG_RING, MCAST_SAG_RD};
    }
    /* the two-tree's synchronous sends: evaluated at the most in flight, then as
     * many as its blocks need (twotree_sync_sends; the same model time) */
    const bool sync_sends_auto = fam == MCAST_FAM_TWOTREE && f.max_sends == -1 && sy;
    const std::vector<int> sends =
        sync_sends_auto ? std::vector<int>{TWOTREE_SYNC_SENDS_MAX} : family_sends(f, alg);
    int fw = window_of(f, alg);
    if (fam == MCAST_FAM_TWOTREE && f.window == 0 && M != 0) {
        /* header, "Two-tree window": a block's rounds to the deepest rank, and two */
        const mcast_level_t l0 = level_of(alg, 0);
        fw = std::max<long>(fw, mcast_level_rounds(&l0, in.n, 1) + 2);
    }
    /* synchronous rounds wait for their slowest transfer: the latency of each round's
     * longest route (header, "Route latency"), not the routes' mean */
    const bool slowest = fam == MCAST_FAM_CIRCULANT && sy;
    const auto runs = family_runs(alg, variants);
    for (const auto &run : runs) {
        const int v = run.first;
        const mcast_level_t l = level_of(alg, v);
        const std::shared_ptr<const std::vector<int>> &placed = run.second;
        const std::vector<int> &ch = placed ? *placed : chain;
        /* recursive doubling's messages carry many blocks (its blocks are the ranks'
         * shares): the floor between nodes does not apply to them; the ring's and the
         * other families' messages are single blocks */
        const size_t seg_min = fam == MCAST_FAM_SCATTER_ALLGATHER && v == MCAST_SAG_RD
                                   ? sag_segment_min
                                   : f.segment_min_bytes;
        uint64_t cap = PLAN_MAX_BLOCKS;
        cap = std::min<uint64_t>(cap, std::max<uint64_t>(1, M / seg_min));
        if (fam == MCAST_FAM_SCATTER_ALLGATHER) {
            cap = std::min<uint64_t>(cap, uint64_t(in.n));
        }
        for (int ms : sends) {
            size_t B = 1;
            uint32_t nb = 0;
            double t = 0.0;
            mcast_loggp_t g = g0;
            const auto solve = [&] {
                if (f.segment_bytes != 0 || M == 0) {
                    family_geometry(fam, in.n, M, f.segment_bytes == 0 ? M : f.segment_bytes,
                                    &B, &nb);
                    t = M == 0 ? 0.0 : mcast_level_predict_us(&l, in.n, M, nb, &g, fw, ms);
                } else {
                    const int rc = mcast_level_best_nblocks(&l, in.n, M, &g, fw, ms,
                                                            uint32_t(cap), &nb, &B, &t);
                    if (rc == KB_ERR_NOMEM) {
                        throw std::bad_alloc();
                    }
                    require(rc == KB_OK, "family: no block count");
                    if (block_max != 0 && B > block_max) {
                        /* (segment_max_bytes, eager blocks over TCP: the fewest blocks
                         * of at most block_max) */
                        family_geometry(fam, in.n, M, block_max, &B, &nb);
                        t = mcast_level_predict_us(&l, in.n, M, nb, &g, fw, ms);
                    }
                }
            };
            solve();
            if (rlat.on() && M != 0) {
                /* the routes of this block count's schedule (header, "Route latency") */
                const uint32_t nbl = std::min<uint32_t>(std::max<uint32_t>(nb, 1), 32);
                const uint64_t key = (uint64_t(uint32_t(v)) << 33) | (uint64_t(placed ? 1 : 0) << 32) | nbl;
                auto it = mean_latency.find(key);
                if (it == mean_latency.end()) {
                    it = mean_latency
                             .emplace(key, family_mean_latency_us(rlat, l, in, ch, nbl, slowest))
                             .first;
                }
                if (std::fabs(it->second - g.latency_us) > 1e-9) {
                    g.latency_us = it->second;
                    solve();
                }
            }
            int w = fw;
            if (M != 0) {
                w = std::max(w, mcast_level_window(&l, in.n, M, nb, &g, ms));
                if (w != fw) {
                    t = mcast_level_predict_us(&l, in.n, M, nb, &g, w, ms);
                }
            }
            require(t >= 0.0, "family: the model does not apply");
            double own = -1.0;
            double round_alpha = g.o_send_us + g.latency_us + g.o_recv_us;
            if (fam == MCAST_FAM_CIRCULANT && sy && M != 0) {
                /* synchronous sends: its rounds follow one another, each at least a
                 * send's overhead, latency, one block and the synchronous wait (header,
                 * "Synchronous sends"; on any network; the link term below adds
                 * sharing).  g folds o_recv into o_send: the raw model's parts here */
                const mcast_loggp_t &raw = in.machine->net;
                round_alpha = raw.o_send_us + g.latency_us + sync_wait_of(*in.machine);
                const double b = double(B) * g.wire_ns_per_byte * 1e-3;
                t = std::max(t, double(mcast_level_rounds(&l, in.n, nb)) * (round_alpha + b));
            }
            if (links.usable()) {
                family_links(fam, l, ch, cap, fw, ms, g, round_alpha, B, nb, w, t, own);
            }
            offer_family(best, alg, v, -1, 0, B,
                         sync_sends_auto && M != 0 ? twotree_sync_sends(g, B) : ms, w, t, sy,
                         own, placed);
        }
    }
}

void Evaluator::evaluate_two_level_families(Candidate &best) const
{
    const mcast_forced_t &f = *in.forced;
    const mcast_loggp_t g = family_net_of(in.machine->net);
    const mcast_loggp_t local = family_net_of(in.machine->shm);
    const int ppn = ranks_per_node(in);
    const int nodes = in.nnodes;
    if (M == 0 || nodes < 2) {
        return;
    }
    const std::vector<int> sends = family_sends(f, MCAST_ALG_TWOLEVEL);
    const int fw = window_of(f, MCAST_ALG_TWOLEVEL);
    const uint64_t cap = std::min<uint64_t>(PLAN_MAX_BLOCKS,
                                            std::max<uint64_t>(1, M / f.segment_min_bytes));
    static const kb_shape_t shapes[3] = {KB_SHAPE_CHAIN, KB_SHAPE_BINOMIAL, KB_SHAPE_LINEAR};
    for (int inter : {MCAST_ALG_CIRCULANT, MCAST_ALG_TWOTREE}) {
        const mcast_level_t li = level_of(inter, 0);
        for (int ms : sends) {
            size_t B = 1;
            uint32_t nb = 0;
            double ti = 0.0;
            if (f.segment_bytes != 0) {
                family_geometry(li.family, nodes, M, f.segment_bytes, &B, &nb);
            } else if (mcast_level_best_nblocks(&li, nodes, M, &g, fw, ms, uint32_t(cap),
                                                &nb, &B, &ti) != KB_OK) {
                continue;
            }
            if (f.segment_bytes == 0 && block_max != 0 && B > block_max) {
                family_geometry(li.family, nodes, M, block_max, &B, &nb); /* (as above) */
            }
            const int w = std::max(fw, mcast_level_window(&li, nodes, M, nb, &g, ms));
            for (int intra = 0; intra < 3; ++intra) {
                mcast_level_t ll{};
                ll.family = MCAST_FAM_TREE;
                ll.shape = shapes[intra];
                ll.tree.k = std::max(1, kb_ceil_log2(std::max(2, ppn)));
                ll.tree.lambda = 1.0;
                const double t = mcast_two_level_predict_us(&li, &ll, nodes, ppn, M, nb, &g,
                                                             &local, w, ms);
                if (t >= 0.0) {
                    offer_family(best, MCAST_ALG_TWOLEVEL, 0, inter, intra, B, ms, w, t);
                }
            }
            if (node_segments(in)) {
                const double t = node_segment_predict(li, nodes, ppn, nb, g, w, ms);
                if (t >= 0.0) {
                    offer_family(best, MCAST_ALG_TWOLEVEL, 0, inter, 3, B, ms, w, t);
                }
            }
        }
    }
}

double Evaluator::node_segment_predict(const mcast_level_t &li, int nodes, int ppn,
                                       uint32_t nb, const mcast_loggp_t &g, int w, int ms) const
{
    const double Ti = mcast_level_predict_us(&li, nodes, M, nb, &g, w, ms);
    const size_t C = mcast_shm_chunk_bytes(M, in.shm_chunk_bytes, in.shm_slot_bytes,
                                           in.shm_slots, node_fit_ring(in));
    const double c = in.machine->shm_copy_ns_per_byte, h = in.machine->shm_handover_us;
    const double Tl = mcast_shm_predict_us(ppn, M, C, in.node_cores, c, h);
    const double A = mcast_shm_predict_us(ppn, std::min(C, M), C, in.node_cores, c, h);
    if (Ti < 0.0 || Tl < 0.0 || A < 0.0) {
        return -1.0;
    }
    return std::max(Ti + A, Tl);
}

void Evaluator::evaluate_mcast(Candidate &best) const
{
    require(in.mcast_transport == MCAST_TRANSPORT_IP || in.mcast_transport == MCAST_TRANSPORT_IB,
            "mcast: no multicast group on this communicator (coll_pathmc_mcast_transport=none, "
            "or opening it failed: the verbose output says why)");
    const mcast_loggp_t &g = in.machine->net;
    const double c = double(in.mcast_chunk_bytes != 0 ? in.mcast_chunk_bytes : 1400);
    const double h = g.o_send_us + g.latency_us + g.o_recv_us;
    const double wire = double(M) * std::max(g.gap_ns_per_byte, g.wire_ns_per_byte) * 1e-3;
    const double dgrams = std::ceil(double(M) / c) * std::max({g.o_send_us, g.o_recv_us,
                                                                MCAST_DGRAM_FLOOR_US});
    Candidate cand;
    cand.algorithm = MCAST_ALG_MCAST;
    cand.t = g.latency_us + std::max(wire, dgrams) + double(kb_ceil_log2(std::max(2, in.n))) * h;
    if (better(cand.t, best.t)) {
        best = cand;
    }
}

void Evaluator::evaluate_edst(Candidate &best) const
{
    const mcast_forced_t &f = *in.forced;
    const std::vector<TreePtr> trees = edst_trees(in);
    const std::vector<const kb_tree_t *> tp = tree_ptrs(trees);
    const int T = int(tp.size());
    const mcast_loggp_t g = edst_net(in, trees, rlat);
    double bound = 0.0;
    if (links.usable() && M != 0) {
        for (const kb_tree_t *t : tp) {
            for (int v = 0; v < t->n; ++v) {
                if (t->parent[v] >= 0) {
                    links.add(t->parent[v], v, double(M) / T);
                }
            }
        }
        bound = links.take_bound_us();
    }
    std::vector<size_t> grid = segment_grid(M, f);
    for (bool sy : edst_sync_options(in)) {
        const mcast_loggp_t gs = sy ? edst_sync_net(g, *in.machine) : g;
        for (size_t S : grid) {
            const size_t B = S == 0 || S > M ? std::max<size_t>(M, 1) : S;
            const uint64_t m64 = M == 0 ? 0 : (M + B - 1) / B;
            if (m64 > PLAN_MAX_BLOCKS) {
                continue;
            }
            /* a flow-level network and blocks above the eager limit: not modelled
             * (fam_multitree.cpp, "shared flows"); only where forced */
            if (g.shared_flows == 1 && f.segment_bytes == 0 && m64 > 1 && B > g.eager_bytes) {
                continue;
            }
            const uint32_t m = uint32_t(m64);
            const int w0 = f.window >= 1 ? f.window : T + 2;
            const int ms = f.max_sends >= 1   ? f.max_sends
                           : sy               ? twotree_sync_sends(gs, B)
                           : f.max_sends == 0 ? w0 * T
                                              : 1;
            const int w = f.window >= 1 ? f.window
                                        : std::max(w0, mcast_multitree_window(tp.data(), T, M, m, &gs, ms));
            double t = M == 0 ? 0.0 : mcast_multitree_predict_us(tp.data(), T, M, m, &gs, w, ms);
            if (t < 0.0) {
                continue;
            }
            t = std::max(t, bound);
            Candidate c;
            c.algorithm = MCAST_ALG_EDST;
            c.S = S == 0 ? 0 : B;
            c.max_sends = ms;
            c.window = w;
            c.sync = sy ? 1 : 0;
            c.t = t;
            if (better(c.t, best.t)) {
                best = c;
            }
        }
    }
}

void Evaluator::evaluate_shm(Candidate &best) const
{
    require(applies_here(MCAST_ALG_SHM, in), /* (a candidate of coll/pathmc too) */
            "shm: needs every rank on one node and a shared segment "
            "(coll_kbinomial_shm_chunk_bytes > 0)");
    Candidate cand;
    cand.algorithm = MCAST_ALG_SHM;
    cand.S = mcast_shm_chunk_bytes(M, in.shm_chunk_bytes, in.shm_slot_bytes, in.shm_slots,
                                   shm_fit_ring(in));
    cand.t = mcast_shm_predict_us(in.n, M, cand.S, in.node_cores,
                                  in.machine->shm_copy_ns_per_byte, in.machine->shm_handover_us);
    if (better(cand.t, best.t)) {
        best = cand;
    }
}

void Evaluator::consider_tree(Candidate c, const std::vector<size_t> &grid, Candidate &best) const
{
    TreePtr t = build_tree(in, chain, c);
    c.t = std::numeric_limits<double>::infinity();
    best_segment(t.t, c, grid);
    c.t = std::max(c.t, links.tree_bound_us(t.t, double(M)));
    if (better(c.t, best.t)) {
        best = c;
    }
}

void Evaluator::evaluate(int alg, Candidate &best) const
{
    ALGS[alg].evaluate(*this, alg, best);
}

} // namespace mcplan
