/*
 * The selection: every eligible candidate evaluated on this communicator (Evaluator),
 * the cheapest kept, compared with the module below under auto, and made a plan
 * (fill_plan).  Selection order and ties: mcast_planner.h and planner.cpp's header.
 */
#include "plan_internal.hpp"
#include "plan_routes.hpp"

#include <cstdio>

namespace mcplan {

namespace {

struct Evaluator {
    const mcast_plan_input_t &in;
    std::vector<int> chain;
    Locality loc;
    size_t M;
    size_t sag_segment_min = PLAN_SEGMENT_MIN; /* scatter + recursive doubling's block floor */
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
    double time(const kb_tree_t *t, size_t S, const std::vector<int> *share = nullptr) const
    {
        return tree_time(t, M, S, in.forced->max_sends, window_of(*in.forced, MCAST_ALG_KBINOMIAL), loc, *in.machine, &rlat,
                         share != nullptr && !share->empty() ? share : nullptr, &routes);
    }
    /* Best S (from the grid) for a fixed tree; the candidate gets S and t. */
    void best_segment(const kb_tree_t *t, Candidate &c, const std::vector<size_t> &grid) const
    {
        const std::vector<int> share = links.tree_edge_share(t);
        for (size_t S : grid) {
            const double x = time(t, S, &share);
            if (better(x, c.t)) {
                c.t = x;
                c.S = S;
            }
        }
    }
    /* A schedule family: every variant the forced parameters allow, sends in flight 1 or
     * 2 (max_sends = -1), the best block count (or the forced segment). */
    void evaluate_family(int alg, Candidate &best) const
    {
        for (bool sy : family_sync_options(in, family_of(alg))) {
            evaluate_family(alg, sy, best);
        }
    }
    /* (variant, chain) pairs a family is evaluated on: the ordering, and for the two-tree
     * its placement where that differs (header, "Two-tree placement"; the faster
     * prediction wins) */
    std::vector<std::pair<int, std::shared_ptr<const std::vector<int>>>>
    family_runs(int alg, const std::vector<int> &variants) const
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
    /* The links' bound on a family's prediction (header, "Link sharing"): t becomes
     * max(t, bound), own the time before it; on a switch network the two-tree's stream is
     * stretched by what a link carries beyond M, and its blocks made finer while their
     * time stays under the bound (header, "Two-tree placement", "Blocks under the links'
     * bound"). */
    void family_links(int fam, const mcast_level_t &l, const std::vector<int> &ch, uint64_t cap,
                      int fw, int ms, const mcast_loggp_t &g, double round_alpha, size_t &B,
                      uint32_t &nb, int &w, double &t, double &own) const
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
    void evaluate_family(int alg, bool sy, Candidate &best) const
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
    /* twolevel with a family between the node leaders (circulant, two-tree) and a chain,
     * binomial or flat tree inside every node, both levels overlapping per block
     * (mcast_two_level_predict_us); the block count is the inter level's best. */
    void evaluate_two_level_families(Candidate &best) const
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
    /* twolevel with the node's segment inside every node (the model in mcast_planner.h):
     * the leaders' level, then the last chunk through the segment, or the segment's own
     * pipeline, whichever ends later. */
    double node_segment_predict(const mcast_level_t &li, int nodes, int ppn, uint32_t nb,
                                const mcast_loggp_t &g, int w, int ms) const
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
    /* Hardware multicast (the model in mcast_planner.h). */
    void evaluate_mcast(Candidate &best) const
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
    /* edst: the four trees' pipeline (mcast_families.h, "Several trees at once"), every
     * block size of the grid (or the forced one), sends in flight as forced (auto: 1),
     * the links' bound of the trees' routes (a quarter of the message on each edge). */
    void evaluate_edst(Candidate &best) const
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
    /* The shared segment of a one-node communicator (mcast_shm.h). */
    void evaluate_shm(Candidate &best) const
    {
        require(eligible(MCAST_ALG_SHM, in),
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
    /* All candidates of one algorithm with the forced parameters applied. */
    void evaluate(int alg, Candidate &best) const
    {
        if (alg == MCAST_ALG_MCAST) {
            evaluate_mcast(best);
            return;
        }
        if (alg == MCAST_ALG_SHM) {
            evaluate_shm(best);
            return;
        }
        if (alg == MCAST_ALG_EDST) {
            evaluate_edst(best);
            return;
        }
        if (family_of(alg) >= 0) {
            evaluate_family(alg, best);
            return;
        }
        const mcast_forced_t &f = *in.forced;
        const std::vector<size_t> grid = segment_grid(M, f);
        const std::vector<size_t> whole = {f.segment_bytes};
        auto consider = [&](Candidate c, const std::vector<size_t> &g) {
            TreePtr t = build_tree(in, chain, c);
            c.t = std::numeric_limits<double>::infinity();
            best_segment(t.t, c, g);
            c.t = std::max(c.t, links.tree_bound_us(t.t, double(M)));
            if (better(c.t, best.t)) {
                best = c;
            }
        };
        Candidate c;
        c.algorithm = alg;
        /* every k in lo..hi, or the forced k alone (also above hi) */
        auto each_k = [&](int lo, int hi) {
            for (int k = lo; k <= hi; ++k) {
                if (f.k == 0 || k == f.k) {
                    c.k = k;
                    consider(c, grid);
                }
            }
            if (f.k > hi) {
                c.k = f.k;
                consider(c, grid);
            }
        };
        switch (alg) {
        case MCAST_ALG_KBINOMIAL: /* a forced k above log2 n: the tree is binomial-like */
            each_k(1, std::max(1, kb_ceil_log2(in.n)));
            break;
        case MCAST_ALG_CHAIN:
            c.k = 1;
            consider(c, grid);
            break;
        case MCAST_ALG_KNOMIAL: /* radix 2 (binomial) .. 8, or the forced one */
            require(f.k != 1, "knomial: the radix k must be at least 2");
            each_k(2, 8);
            break;
        case MCAST_ALG_BINOMIAL:
        case MCAST_ALG_LINEAR:
            consider(c, whole); /* segmented only when segment_bytes is set */
            break;
        case MCAST_ALG_POSTAL: {
            const bool pipelined = f.postal_pipelining != 0;
            const std::vector<size_t> g = pipelined ? grid : whole;
            for (size_t S : g) {
                for (double lam : postal_lambdas(in, f, S == 0 ? M : S)) {
                    c.lambda = lam;
                    consider(c, std::vector<size_t>{S});
                }
            }
            break;
        }
        case MCAST_ALG_TWOLEVEL: {
            const int kmax = std::max(1, kb_ceil_log2(std::max(2, in.nnodes)));
            for (int k = 1; k <= kmax; ++k) {
                if (f.k != 0 && k != f.k) {
                    continue;
                }
                for (int intra = 0; intra < 3; ++intra) {
                    c.k = k;
                    c.intra = intra;
                    consider(c, grid);
                }
            }
            if (f.k == 0) {
                evaluate_two_level_families(best);
            }
            break;
        }
        default:
            consider(c, f.segment_bytes != 0 ? whole : grid);
            break;
        }
    }
};

} // namespace

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
    p.k = (c.algorithm == MCAST_ALG_KBINOMIAL || c.algorithm == MCAST_ALG_TWOLEVEL ||
           c.algorithm == MCAST_ALG_KNOMIAL)
              ? c.k
              : 0;
    p.lambda = c.algorithm == MCAST_ALG_POSTAL ? c.lambda : 0.0;
    p.window = window_of(*in.forced, c.algorithm);
    p.max_sends = in.forced->max_sends;
    p.discipline = in.forced->discipline;
    p.predicted_us = c.t;
    p.selected_by = selected_by;
    p.class_bytes = class_bytes;
    p.transport = c.algorithm == MCAST_ALG_SHM ? MCAST_PLAN_SHM
                  : c.algorithm != MCAST_ALG_MCAST ? MCAST_PLAN_PML
                  : (in.mcast_transport == MCAST_TRANSPORT_IB ? MCAST_PLAN_MC_IB : MCAST_PLAN_MC_IP);
    if (c.algorithm == MCAST_ALG_SHM) {
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
        p.extra = (c.inter >= 0 ? std::string("inter=") + REGISTRY[c.inter].name + " " : std::string()) +
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
        if (id > MCAST_ALG_AUTO && (REGISTRY[id].component & in.component) && eligible(id, in)) {
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
 * decision: whole messages, copies all at once) as one of our algorithms on rank order;
 * eff gets its parameters. */
int unmodelled_candidate(int n, size_t M, mcast_forced_t &eff)
{
    const int prev = tuned_bcast_algorithm(n, M);
    eff.segment_bytes = SIZE_MAX;
    eff.max_sends = n;
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

/* Every candidate under auto: the eligible algorithms (the unsegmented binomial and
 * linear are covered by kbinomial and postal, chain is kbinomial k = 1); coll/pathmc adds
 * what coll/kbinomial would do, to compare with it. */
std::vector<int> auto_candidates(const mcast_plan_input_t &in)
{
    std::vector<int> algs;
    for (int a = 1; a < MCAST_ALG_COUNT; ++a) {
        if (eligible(a, in) && a != MCAST_ALG_BINOMIAL && a != MCAST_ALG_CHAIN &&
            a != MCAST_ALG_LINEAR) {
            algs.push_back(a);
        }
    }
    if (in.component == MCAST_COMP_PATHMC) {
        algs.push_back(MCAST_ALG_KBINOMIAL);
        algs.push_back(MCAST_ALG_POSTAL);
        algs.push_back(MCAST_ALG_KNOMIAL);
        algs.push_back(MCAST_ALG_SCATTER_ALLGATHER);
        algs.push_back(MCAST_ALG_TWOTREE);
        algs.push_back(MCAST_ALG_CIRCULANT);
        if (eligible(MCAST_ALG_TWOLEVEL, in) || (in.node_of_rank && in.nnodes > 1 && in.nnodes < in.n)) {
            algs.push_back(MCAST_ALG_TWOLEVEL);
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
    mcast_plan_input_t in2 = in;
    in2.forced = &eff;
    std::string by = "model";
    int previous_rule = 0;
    std::vector<int> algs;
    if (f.algorithm != MCAST_ALG_AUTO) {
        require(f.algorithm > 0 && f.algorithm < MCAST_ALG_COUNT, "planner: unknown algorithm");
        require((REGISTRY[f.algorithm].component & in.component) != 0,
                    "planner: algorithm of another component");
        algs.push_back(f.algorithm);
        by = in.selected_by != nullptr ? in.selected_by : "forced";
    } else {
        previous_rule = rule_candidates(in, M, eff, algs, by);
        if (algs.empty() && in.unmodelled_network != 0 && in.n >= 2 && M > 0) {
            /* The built-in model does not describe this network (mcast_planner.h,
             * "Unmodelled networks"): Open MPI's own choice, deferred to the module below
             * where it can serve, else our copy of it (unmodelled_candidate). */
            algs.push_back(unmodelled_candidate(in.n, M, eff));
            in2.chain = nullptr; /* rank order from the root */
            by = "unmodelled";
        }
        if (algs.empty()) {
            algs = auto_candidates(in);
        }
    }
    Evaluator ev(in2, M);
    /* scatter + recursive doubling's blocks are each rank's share, not messages (its
     * rounds carry many): the floor between nodes does not apply to them */
    ev.sag_segment_min = f.segment_min_bytes != 0 ? f.segment_min_bytes
                                                  : std::min(eff.segment_max_bytes, PLAN_SEGMENT_MIN);
    Candidate best;
    for (int a : algs) {
        if (a == MCAST_ALG_TWOLEVEL && !(in.node_of_rank && !in.all_local && in.nnodes > 1 && in.nnodes < in.n)) {
            require(f.algorithm != MCAST_ALG_TWOLEVEL,
                        "twolevel needs several nodes with several ranks each");
            continue;
        }
        if (family_of(a) == MCAST_FAM_SCATTER_ALLGATHER && f.algorithm == MCAST_ALG_AUTO &&
            double(M) * CLASS_ROOM > double(in.n) * double(PLAN_MAX_BLOCK_BYTES)) {
            continue; /* blocks larger than a plan allows (evaluate_family says why) */
        }
        ev.evaluate(a, best);
    }
    require(best.algorithm != MCAST_ALG_AUTO, "planner: no candidate applies");
    TreePtr tree = family_of(best.algorithm) >= 0 || best.inter >= 0 ||
                           best.algorithm == MCAST_ALG_MCAST || best.algorithm == MCAST_ALG_SHM ||
                           best.algorithm == MCAST_ALG_EDST
                       ? TreePtr()
                       : build_tree(in2, ev.chain, best);
    fill_plan(out, in2, best, std::move(tree), by, M);
    if (in.component == MCAST_COMP_PATHMC && (REGISTRY[best.algorithm].component & MCAST_COMP_PATHMC) == 0) {
        out.defer = true;
    }
    if (previous_rule != 0) {
        out.defer = true;
        out.selected_by = "previous:rules:" + std::to_string(previous_rule);
    } else if (by == "unmodelled" && f.compare_previous != 0) {
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
