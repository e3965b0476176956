/*
 * The families on a named topology: the mean route latency of a family's rounds, the
 * links' bound (bytes a plan moves over its busiest link) and the two-tree's placement
 * of ranks (mcast_planner.h, "Route latency", "Link sharing").
 */
#include "plan/plan_internal.hpp"
#include "plan/plan_routes.hpp"

namespace mcplan {

namespace {

/* Calls fn(rank, op) for every send of every rank's schedule of the family level at
 * nb blocks; false when a schedule cannot be built. */
template <class Fn>
bool for_each_send(const mcast_level_t &l, const mcast_plan_input_t &in,
                   const std::vector<int> &chain, uint32_t nb, Fn fn)
{
    for (int r = 0; r < in.n; ++r) {
        mcast_sched_t *s = nullptr;
        if (mcast_sched_level(&l, in.n, in.root, r, chain.data(), nb, &s) != KB_OK) {
            return false;
        }
        const size_t ns = mcast_sched_count(s, MCAST_OP_SEND);
        for (size_t i = 0; i < ns; ++i) {
            mcast_op_t op;
            if (mcast_sched_op(s, MCAST_OP_SEND, i, &op) == KB_OK) {
                fn(r, op);
            }
        }
        mcast_sched_free(s);
    }
    return true;
}

/* The two-tree's latency per hop (header, "Route latency"): a block's fill runs down its
 * tree, one route after another, to its deepest ranks (the most hops); per block, the
 * route latency summed along the path to each such rank over its hops, the largest over
 * the blocks and those ranks.  The rounds' mean counts every edge alike, and most edges
 * are the short ones near the leaves while every path also crosses the long ones near
 * the root (evidence E-ROUTE-2).  latency_us where a block does not reach every rank. */
double tree_path_latency_us(RouteLatency &rl, const mcast_level_t &l, const mcast_plan_input_t &in,
                            const std::vector<int> &chain, uint32_t nb, double flat)
{
    std::vector<std::vector<int>> parent(size_t(nb), std::vector<int>(size_t(in.n), -1));
    const bool ok = for_each_send(l, in, chain, nb, [&](int r, const mcast_op_t &op) {
        for (uint32_t b = op.block; b < op.block + op.nblocks && b < nb; ++b) {
            parent[b][size_t(op.peer)] = r;
        }
    });
    if (!ok) {
        return flat;
    }
    double worst = -1.0;
    for (uint32_t b = 0; b < nb; ++b) {
        std::vector<int> hops(size_t(in.n), -1);
        std::vector<double> lat(size_t(in.n), 0.0);
        hops[size_t(in.root)] = 0;
        int deepest = 0;
        double best = 0.0;
        std::vector<int> up;
        for (int v = 0; v < in.n; ++v) {
            /* walk up to a rank already known, then down again */
            up.clear();
            int u = v;
            while (u >= 0 && hops[size_t(u)] < 0 && up.size() <= size_t(in.n)) {
                up.push_back(u);
                u = parent[b][size_t(u)];
            }
            if (u < 0 || up.size() > size_t(in.n)) {
                return flat; /* a rank without this block */
            }
            for (auto it = up.rbegin(); it != up.rend(); ++it) {
                const int p = parent[b][size_t(*it)];
                hops[size_t(*it)] = hops[size_t(p)] + 1;
                lat[size_t(*it)] = lat[size_t(p)] + rl.net_us(p, *it);
            }
            const int h = hops[size_t(v)];
            if (h > deepest || (h == deepest && h > 0 && lat[size_t(v)] / h > best)) {
                best = lat[size_t(v)] / h; /* h >= 1 here */
                deepest = h;
            }
        }
        worst = std::max(worst, best);
    }
    return worst >= 0.0 ? worst : flat;
}

} // namespace

/* The network latency of the family level at nb blocks (header, "Route latency"): the
 * mean over its rounds (mcast_op_t.step) of the mean over the round's sends: the rounds
 * follow one another on the critical path, each with its own skip.  latency_us when the
 * route latency is off or the schedule cannot be built. */
double family_mean_latency_us(RouteLatency &rl, const mcast_level_t &l,
                              const mcast_plan_input_t &in, const std::vector<int> &chain,
                              uint32_t nb, bool slowest)
{
    const double flat = in.machine->net.latency_us;
    if (!rl.on()) {
        return flat;
    }
    if (l.family == MCAST_FAM_TWOTREE) {
        return tree_path_latency_us(rl, l, in, chain, nb, flat);
    }
    /* round -> (sum of L, sends, largest L) */
    std::map<uint32_t, std::tuple<double, long, double>> step;
    const bool ok = for_each_send(l, in, chain, nb, [&](int r, const mcast_op_t &op) {
        auto &x = step[op.step];
        const double lat = rl.net_us(r, op.peer);
        std::get<0>(x) += lat;
        ++std::get<1>(x);
        std::get<2>(x) = std::max(std::get<2>(x), lat);
    });
    if (!ok || step.empty()) {
        return flat;
    }
    double sum = 0.0;
    for (const auto &x : step) {
        sum += slowest ? std::get<2>(x.second) : std::get<0>(x.second) / double(std::get<1>(x.second));
    }
    return sum / double(step.size());
}

/* A direct network: the hosts are the routers (a torus topology). */
bool direct_network(const mcast_plan_input_t &in)
{
    return in.topology != nullptr && pm_topology_kind(in.topology) == PM_TOPO_TORUS;
}

/* The family level's traffic on the links: every rank's schedule at a few blocks (the
 * share of the bytes each pair carries hardly depends on the block count).  Two bounds,
 * the larger counts:
 *   - the busiest link over the whole broadcast (every family);
 *   - for the round-synchronous families (circulant, scatter + allgather, the two-tree on
 *     a torus: mcast_planner.h, "Two-tree placement"), the sum over the generator's rounds (mcast_op_t.step) of each round's busiest link: a round ends
 *     when its slowest transfer does, and the rounds that load one dimension of a torus
 *     and those that load another do not overlap (the circulant's long skips share the
 *     links of a torus ring in some rounds only).
 * Blocks are capped at 32 (the rounds' share of the time hardly depends on it either). */
double family_link_bound_us(LinkLoad &ll, const mcast_level_t &l, const mcast_plan_input_t &in,
                            const std::vector<int> &chain, size_t M, uint32_t nblocks,
                            double alpha_us)
{
    if (!ll.usable() || M == 0) {
        return 0.0;
    }
    uint32_t nb = std::min<uint32_t>(std::max<uint32_t>(nblocks, 1), 32);
    if (l.family == MCAST_FAM_SCATTER_ALLGATHER) {
        nb = std::min<uint32_t>(nb, uint32_t(in.n));
        nb = std::max<uint32_t>(nb, std::min<uint32_t>(nblocks, uint32_t(in.n)));
    }
    /* the two-tree's rounds overlap (pipelined, each rank forwarding as blocks come): on a
     * switch network the whole broadcast's busiest link is its bound (header, "Two-tree
     * placement"); on a direct network (torus) the rounds' sum stays */
    const bool by_round = (l.family == MCAST_FAM_TWOTREE && direct_network(in)) || l.family == MCAST_FAM_CIRCULANT ||
                          l.family == MCAST_FAM_SCATTER_ALLGATHER;
    const double per_block = double(M) / double(nb);
    struct Send {
        uint32_t step;
        int from, to;
        double bytes;
    };
    std::vector<Send> sends;
    const bool ok = for_each_send(l, in, chain, nb, [&](int r, const mcast_op_t &op) {
        const double b = per_block * double(op.nblocks);
        ll.add(r, op.peer, b);
        if (by_round) {
            sends.push_back({op.step, r, op.peer, b});
        }
    });
    if (!ok) {
        ll.take_bound_us();
        return 0.0;
    }
    const double whole = ll.take_max_bytes();
    double rounds = 0.0;
    if (by_round) {
        std::stable_sort(sends.begin(), sends.end(),
                         [](const Send &a, const Send &b) { return a.step < b.step; });
        for (size_t i = 0; i < sends.size();) {
            size_t j = i;
            for (; j < sends.size() && sends[j].step == sends[i].step; ++j) {
                ll.add(sends[j].from, sends[j].to, sends[j].bytes);
            }
            rounds += ll.take_max_bytes();
            i = j;
        }
    }
    double bound = ll.bound_us(std::max(whole, rounds));
    const bool serial_rounds = l.family == MCAST_FAM_CIRCULANT ||
                               l.family == MCAST_FAM_SCATTER_ALLGATHER;
    if (serial_rounds && rounds > 0.0 && alpha_us > 0.0) {
        /* rounds that follow one another (the circulant's, its sends synchronous across
         * nodes; scatter + allgather's, ring or recursive doubling, each step forwarding
         * what the last one brought; torus-8x8 64 KiB, recursive doubling: 25.2 us
         * predicted without this, 37.5 with it, 32.6 simulated):
         * each also waits for one message's overheads and latency, alpha_us (the
         * family's route latency), next to its busiest link's bytes */
        const long nr = mcast_level_rounds(&l, in.n, nblocks);
        bound = std::max(bound, rounds * in.machine->net.wire_ns_per_byte * 1e-3 +
                                    double(std::max(0L, nr)) * alpha_us);
    }
    return bound;
}

/* Two-tree placement (mcast_planner.h, "Two-tree placement"): which rank plays each
 * position of the two trees.  Every rank's schedule is built on the chain, so the ordering
 * decides which links the trees' edges share; discovery's orderings (a switch tour, DOR)
 * are made for chains, and the two trees' long edges meet on links those orderings leave
 * to chance.  The root keeps position 0; the other positions are permuted by simulated
 * annealing (400 n swaps of two positions, at most 25600, the temperature falling from 20
 * to 0 over the first 80 %; a fixed xorshift seed: every rank finds the same chain) on a
 * sum over directed links of the edges crossing them (a link counts 1 / its
 * Routes::capacity, as the links' bound counts it): 100 per edge beyond two, which drives
 * the busiest link down first, plus 0.05 x edges^2.  (The cube of the edges instead kept
 * a link with three edges on irregular-64 for most seeds.)  The result is kept when its
 * busiest link carries less than the input chain's, or as much on fewer links, or as much
 * on as many with less in all; else the input chain.  Only on a switch network (not a
 * torus) of several switches and at most TWOTREE_PLACE_MAX_RANKS ranks (routes between
 * every pair: O(n^2) of them). */
constexpr int TWOTREE_PLACE_MAX_RANKS = 256;

std::vector<int> twotree_placement(const mcast_level_t &l, const mcast_plan_input_t &in,
                                   const std::vector<int> &chain, Routes &routes)
{
    const int n = in.n;
    const int nl = routes.nlinks();
    if (!routes.known() || routes.one_switch() || nl <= 0 || n < 4 || n > TWOTREE_PLACE_MAX_RANKS ||
        direct_network(in)) {
        return chain;
    }
    /* the trees' edges between positions: the schedules on the identity chain, root 0,
     * two blocks (block 0 down T0, block 1 down T1) */
    std::vector<int> ident(static_cast<size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
        ident[size_t(i)] = i;
    }
    std::vector<std::pair<int, int>> edges;
    for (int r = 0; r < n; ++r) {
        mcast_sched_t *sc = nullptr;
        if (mcast_sched_level(&l, n, 0, r, ident.data(), 2, &sc) != KB_OK) {
            return chain;
        }
        const size_t ns = mcast_sched_count(sc, MCAST_OP_SEND);
        for (size_t i = 0; i < ns; ++i) {
            mcast_op_t op;
            if (mcast_sched_op(sc, MCAST_OP_SEND, i, &op) == KB_OK) {
                edges.emplace_back(r, op.peer);
            }
        }
        mcast_sched_free(sc);
    }
    std::vector<std::vector<int>> at(static_cast<size_t>(n)); /* position -> its edges */
    for (size_t e = 0; e < edges.size(); ++e) {
        at[size_t(edges[e].first)].push_back(int(e));
        at[size_t(edges[e].second)].push_back(int(e));
    }
    std::vector<double> load(size_t(nl), 0.0);
    std::vector<int> cur = chain;
    /* the routes the search visits, by rank pair (routes.route's, whose map keeps them) */
    std::vector<const std::vector<int> *> route_at(size_t(n) * size_t(n), nullptr);
    const auto route_of = [&](int a, int b) -> const std::vector<int> & {
        const std::vector<int> *&r = route_at[size_t(a) * size_t(n) + size_t(b)];
        if (r == nullptr) {
            r = &routes.route(a, b);
        }
        return *r;
    };
    /* a link's share of the objective: what it carries beyond two edges (M bytes: the
     * broadcast's own floor M / B) weighs 100 per edge, the rest spreads the load */
    const auto cost = [](double x) { return 100.0 * std::max(0.0, x - 2.0) + 0.05 * x * x; };
    /* adds sign x edge e's crossings under the placement cur; returns the objective's change */
    const auto move = [&](int e, double sign) {
        const std::vector<int> &r = route_of(cur[size_t(edges[size_t(e)].first)], cur[size_t(edges[size_t(e)].second)]);
        const int len = int(r.size());
        double d = 0.0;
        for (int j = 0; j < len; ++j) {
            const int li = r[j];
            if (li < 0 || li >= nl) {
                continue;
            }
            double &x = load[size_t(li)];
            d -= cost(x);
            x += sign / routes.capacity(li);
            d += cost(x);
        }
        return d;
    };
    const auto summary = [&]() { /* (busiest, links at it, total) */
        double mx = 0.0, tot = 0.0;
        for (double x : load) {
            mx = std::max(mx, x);
            tot += x;
        }
        long at_max = 0;
        for (double x : load) {
            at_max += x > mx - 1e-9 ? 1 : 0;
        }
        return std::make_tuple(mx, at_max, tot);
    };
    for (size_t e = 0; e < edges.size(); ++e) {
        move(int(e), 1.0);
    }
    const auto start = summary();
    if (std::get<0>(start) <= 2.0 + 1e-9) {
        return chain; /* no link beyond two edges: nothing for the search to win (fattree-128) */
    }
    std::vector<int> best = cur;
    double obj = 0.0;
    for (double x : load) {
        obj += cost(x);
    }
    double best_obj = obj;
    const long iters = std::min<long>(25600, 400L * n);
    uint64_t rng = 0x9E3779B97F4A7C15ull; /* xorshift64: the same sequence on every rank */
    const auto next = [&rng]() {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    };
    std::vector<int> touched;
    for (long it = 0; it < iters; ++it) {
        const double temp = std::max(1e-3, 20.0 * (1.0 - double(it) / (0.8 * double(iters))));
        const int i = 1 + int(next() % uint64_t(n - 1));
        const int j = 1 + int(next() % uint64_t(n - 1));
        const double u = double(next() >> 11) * 0x1.0p-53;
        if (i == j) {
            continue;
        }
        touched = at[size_t(i)];
        touched.insert(touched.end(), at[size_t(j)].begin(), at[size_t(j)].end());
        std::sort(touched.begin(), touched.end());
        touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
        double d = 0.0;
        for (int e : touched) {
            d += move(e, -1.0);
        }
        std::swap(cur[size_t(i)], cur[size_t(j)]);
        for (int e : touched) {
            d += move(e, 1.0);
        }
        if (d <= 0.0 || u < std::exp(-d / temp)) {
            obj += d;
            if (obj < best_obj - 1e-9) {
                best_obj = obj;
                best = cur;
            }
        } else {
            for (int e : touched) {
                move(e, -1.0);
            }
            std::swap(cur[size_t(i)], cur[size_t(j)]);
            for (int e : touched) {
                move(e, 1.0);
            }
        }
    }
    /* the best placement's own summary, from scratch */
    std::fill(load.begin(), load.end(), 0.0);
    cur = best;
    for (size_t e = 0; e < edges.size(); ++e) {
        move(int(e), 1.0);
    }
    const auto found = summary();
    const bool fewer = std::get<0>(found) < std::get<0>(start) - 1e-9 ||
                       (std::get<0>(found) < std::get<0>(start) + 1e-9 &&
                        (std::get<1>(found) < std::get<1>(start) ||
                         (std::get<1>(found) == std::get<1>(start) &&
                          std::get<2>(found) < std::get<2>(start) - 1e-9)));
    return fewer ? best : chain;
}

} // namespace mcplan
