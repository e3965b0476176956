/*
 * Orderings: permutations of the group that tree builders walk as a chain.
 *
 *   DOR chain (k-ary n-cubes, McKinley et al.): sort by coordinates, the
 *     dimension routed first (0) most significant.  On a torus, with a root,
 *     coordinates are ring offsets from the root's, so the chain starts at the
 *     root and every message of a step spans a disjoint chain interval, whose
 *     dimension-ordered routes share no directed link.  On bidirectional rings
 *     the offsets run in the - direction: shortest routes break the tie at
 *     distance k/2 towards +, and an offset chain running the same way as that
 *     tie lets a tied route leave its interval (8x8: 2 conflicts per root at
 *     k = 3; matched: 0 on 4x4, 8x8, 4x8, 4x4x4 for every k).  Larger tori
 *     (8x8x8, 10x10, 16x16, 6x6x6) keep a few conflicts under shortest-path
 *     routing whichever way the chain runs: a strictly shorter wrap-around
 *     route can cross a neighbouring interval (test_pm_check prints them).
 *   Snake (S-torus Hamiltonian ranking): reflected mixed-radix Gray order,
 *     4x4:   0  1  2  3          digit d runs backwards when the rank of the
 *            7  6  5  4          prefix (digits 0..d-1) is odd; rotated so the
 *            8  9 10 11          root comes first.
 *           15 14 13 12
 *   POC (seed 001 Fig. 13 step 1): DFS from the up*-down* root over down
 *     links (tree links and cross links between levels), hosts of a switch in
 *     order of the switch's first visit.
 *   Tour (irregular graphs, the default there): the switches in the order of a
 *     Hamiltonian path of the switch graph from the root's switch (depth-first, the
 *     neighbour with the fewest unvisited neighbours first, a budget of steps) or of
 *     a depth-first preorder (the same neighbour order), hosts of a switch together.
 *     Along a path consecutive switches are linked; along a preorder a chain returns
 *     up the tree it came down, so as far as the routes follow the tree a pipelined
 *     chain crosses every directed switch link at most once and all its hops stream
 *     at once.  POC orders for worms, not for a chain: on irregular-64 (perf/sim) its
 *     chain, rotated to the root, sends two hops over one directed link, which halves
 *     a pipelined chain's rate.  A path whose switches all hold ranks is taken as it
 *     is (every directed link once: the least there is); otherwise, on fabrics of at
 *     most 256 switches, of POC, the path and the preorder the chain whose busiest
 *     directed link (then all links) carries least under the topology's routes, POC
 *     on ties; on larger ones POC (the comparison routes from every switch, which
 *     costs far more than the tour on large fabrics: evidence E-ORDER-1).
 *     irregular-64, root 0:   POC chain  max load 2 (1 link), 148 links used
 *                             tour chain max load 1
 *     test_pm_order's 12 random fabrics (6 - 22 switches, 75 roots): POC's chain
 *     loads a link twice for 21 roots, the tour's for 2.
 *   Fat-tree: label order P(p0 p1 ... pn-1), p0 most significant.
 *   Hierarchical: (host, package, numa, core, rank).
 * Ranks sharing a host stay consecutive, in rank order, the root first.
 */
#include <algorithm>
#include <array>
#include <numeric>

#include "topo/pm_internal.h"

namespace pm {

std::vector<int> snake_rank_key(const std::vector<int> &c, const std::vector<int> &dims)
{
    long prefix = 0;
    for (size_t d = 0; d < c.size(); ++d) {
        int digit = (prefix & 1) ? dims[d] - 1 - c[d] : c[d];
        prefix = prefix * dims[d] + digit;
    }
    return {(int)prefix};
}

namespace {

/* Calls fn(directed link, neighbour) for every switch linked to switch u (one call per
 * link: parallel links repeat a neighbour). */
template <class Fn> void for_each_switch_neighbour(const Topology &t, int u, Fn fn)
{
    for (int l : t.nodes[u].ports) {
        if (l < 0) continue;
        const int dl = t.links[l].a == u ? 2 * l : 2 * l + 1;
        const int v = t.other_end(dl);
        if (v != u && !t.nodes[v].is_host) fn(dl, v);
    }
}

/* The distinct switches linked to switch u, ascending. */
std::vector<int> switch_neighbours(const Topology &t, int u)
{
    std::vector<int> a;
    for_each_switch_neighbour(t, u, [&](int, int v) { a.push_back(v); });
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    return a;
}

}  // namespace

std::vector<int> poc_switch_order(const Topology &t)
{
    updown_prepare(t);
    std::vector<int> order, stack;
    std::vector<char> seen(t.nodes.size(), 0);
    int root = -1;
    for (size_t v = 0; v < t.nodes.size(); ++v)
        if (!t.nodes[v].is_host && t.ud_level[v] == 0) root = (int)v;
    if (root < 0) return order;
    stack.push_back(root);
    while (!stack.empty()) {
        int u = stack.back();
        stack.pop_back();
        if (seen[u]) continue;
        seen[u] = 1;
        order.push_back(u);
        std::vector<int> next;
        for_each_switch_neighbour(t, u, [&](int dl, int v) {
            /* down links only; not same-level cross links */
            if (!seen[v] && !updown_is_up(t, dl) && t.ud_level[v] != t.ud_level[u]) next.push_back(v);
        });
        for (auto it = next.rbegin(); it != next.rend(); ++it) stack.push_back(*it);
    }
    for (int s : t.switches)   /* switches unreachable by down links (disconnected) */
        if (!seen[s]) order.push_back(s);
    return order;
}

pm_order_kind_t auto_order(const Topology &t)
{
    return t.kind == PM_TOPO_TORUS ? PM_ORDER_DOR : t.kind == PM_TOPO_FATTREE ? PM_ORDER_FATTREE : PM_ORDER_TOUR;
}

std::vector<int> switch_tour(const Topology &t, int start)
{
    constexpr long BUDGET = 200000; /* expansions: a few ms; deterministic */
    const size_t N = t.nodes.size();
    std::vector<std::vector<int>> adj(N);
    for (int u : t.switches) adj[u] = switch_neighbours(t, u);
    std::vector<char> seen(N, 0);
    auto candidates = [&](int u) {
        std::vector<std::pair<int, int>> c; /* (unvisited neighbours, switch) */
        for (int v : adj[u]) {
            if (seen[v]) continue;
            int free = 0;
            for (int w : adj[v]) free += !seen[w];
            c.emplace_back(free, v);
        }
        std::sort(c.begin(), c.end());
        std::vector<int> out;
        for (auto &x : c) out.push_back(x.second);
        return out;
    };
    std::vector<int> path{start};
    seen[start] = 1;
    std::vector<std::vector<int>> cand{candidates(start)};
    std::vector<size_t> next{0};
    long steps = 0;
    while (path.size() < t.switches.size()) {
        if (++steps > BUDGET) return {};
        if (next.back() >= cand.back().size()) { /* dead end: back up */
            if (path.size() == 1) return {};
            seen[path.back()] = 0;
            path.pop_back();
            cand.pop_back();
            next.pop_back();
            continue;
        }
        const int v = cand.back()[next.back()++];
        seen[v] = 1;
        path.push_back(v);
        cand.push_back(candidates(v));
        next.push_back(0);
    }
    return path;
}

std::vector<int> switch_preorder(const Topology &t, int start)
{
    const size_t N = t.nodes.size();
    std::vector<char> seen(N, 0);
    std::vector<int> order, stack{start};
    while (!stack.empty()) {
        const int u = stack.back();
        stack.pop_back();
        if (seen[u]) continue;
        seen[u] = 1;
        order.push_back(u);
        std::vector<std::pair<int, int>> c; /* (unvisited neighbours, switch) */
        for (int v : switch_neighbours(t, u)) {
            if (seen[v]) continue;
            int free = 0;
            for_each_switch_neighbour(t, v, [&](int, int w) { free += !seen[w]; });
            c.emplace_back(free, v);
        }
        std::sort(c.begin(), c.end());
        for (auto it = c.rbegin(); it != c.rend(); ++it) stack.push_back(it->second);
    }
    for (int s : t.switches) /* not linked to the start's component */
        if (!seen[s]) order.push_back(s);
    return order;
}

namespace {

constexpr size_t TOUR_COMPARE_MAX = 256;

/* Directed-link loads of the chain ord (consecutive ranks on different switches): the
 * busiest link's count, then the sum over links. */
std::pair<int, long> chain_load(const Topology &t, const std::vector<int> &host_of, const std::vector<int> &ord)
{
    std::vector<int> load(t.links.size() * 2, 0);
    std::vector<int> r;
    int most = 0;
    long sum = 0;
    for (size_t i = 0; i + 1 < ord.size(); ++i) {
        const int a = host_of[ord[i]], b = host_of[ord[i + 1]];
        /* same host: no link; same switch: the two hosts' own links, once each in every
         * candidate (hosts of a switch are together in all three), so left out */
        if (a == b || t.host_switch(a) == t.host_switch(b)) continue;
        route(t, PM_ROUTE_DEFAULT, a, b, r);
        for (int l : r) {
            most = std::max(most, ++load[l]);
            ++sum;
        }
    }
    return {most, sum};
}

/* Every rank's switch (parsers reject unlinked hosts; never index with -1). */
std::vector<int> switch_of_ranks(const Topology &t, const std::vector<int> &host_of)
{
    std::vector<int> sw(host_of.size());
    for (size_t r = 0; r < host_of.size(); ++r) {
        const int h = host_of[r];
        const int s = t.host_switch(h);
        if (s < 0 || t.nodes[s].is_host)
            throw ArgError(PM_ERR_UNSUPPORTED, "host '" + t.nodes[h].name + "' is not linked to a switch");
        sw[r] = s;
    }
    return sw;
}

/* The ranks by their switch's place in switch_order (switches not in it last), then host,
 * the root first among its host's ranks, then rank; rotated so that the root comes first. */
std::vector<int> by_switch_order(const Topology &t, const std::vector<int> &host_of, const std::vector<int> &sw,
                                 const std::vector<int> &switch_order, int root)
{
    const int n = (int)host_of.size();
    std::vector<int> place(t.nodes.size(), (int)switch_order.size());
    for (size_t i = 0; i < switch_order.size(); ++i) place[switch_order[i]] = (int)i;
    std::vector<std::array<int, 4>> key(n);
    for (int r = 0; r < n; ++r) key[r] = {place[sw[r]], host_of[r], r == root ? 0 : 1, r};
    std::vector<int> ord(n);
    std::iota(ord.begin(), ord.end(), 0);
    std::sort(ord.begin(), ord.end(), [&](int a, int b) { return key[a] < key[b]; });
    if (root >= 0) std::rotate(ord.begin(), std::find(ord.begin(), ord.end(), root), ord.end());
    return ord;
}

}  // namespace

std::vector<int> order_hosts(const Topology &t, pm_order_kind_t kind, const std::vector<int> &host_of,
                             int root)
{
    int n = (int)host_of.size();
    if (kind == PM_ORDER_AUTO) kind = auto_order(t);
    if (kind == PM_ORDER_TOUR) {
        if (t.kind != PM_TOPO_GRAPH)
            throw ArgError(PM_ERR_UNSUPPORTED, "the tour ordering needs an irregular switch graph");
        const std::vector<int> sw = switch_of_ranks(t, host_of);
        if (t.switches.size() < 2 || n < 3) return by_switch_order(t, host_of, sw, poc_switch_order(t), root);
        const int s0 = sw[root >= 0 ? root : 0];
        const std::vector<int> path = switch_tour(t, s0);
        std::vector<char> used(t.nodes.size(), 0);
        for (int s : sw) used[s] = 1;
        bool every = !path.empty();
        for (int s : path) every = every && used[s];
        /* a path through switches that all hold ranks: consecutive ones are linked and
         * its chain crosses every directed link once, the least there is */
        if (every) return by_switch_order(t, host_of, sw, path, root);
        std::vector<int> best = by_switch_order(t, host_of, sw, poc_switch_order(t), root);
        /* else compare (routes from every switch: on at most TOUR_COMPARE_MAX switches) */
        if (t.switches.size() > TOUR_COMPARE_MAX) return best;
        std::pair<int, long> best_load = chain_load(t, host_of, best);
        for (const std::vector<int> &tour : {path, switch_preorder(t, s0)}) {
            if (tour.empty()) continue;
            std::vector<int> ord = by_switch_order(t, host_of, sw, tour, root);
            const std::pair<int, long> l = chain_load(t, host_of, ord);
            if (l < best_load) { /* POC on ties */
                best = std::move(ord);
                best_load = l;
            }
        }
        return best;
    }
    if (kind == PM_ORDER_POC) return by_switch_order(t, host_of, switch_of_ranks(t, host_of), poc_switch_order(t), root);
    if ((kind == PM_ORDER_DOR || kind == PM_ORDER_SNAKE) && t.kind != PM_TOPO_TORUS)
        throw ArgError(PM_ERR_UNSUPPORTED, "DOR/snake orderings need a torus or mesh topology");
    if (kind == PM_ORDER_FATTREE && t.kind != PM_TOPO_FATTREE)
        throw ArgError(PM_ERR_UNSUPPORTED, "fat-tree ordering needs a fattree topology");
    std::vector<std::vector<int>> key(n);
    bool relative = kind == PM_ORDER_DOR && root >= 0 && t.wrap;
    for (int r = 0; r < n; ++r) {
        int h = host_of[r];
        switch (kind) {
        case PM_ORDER_DOR:
            key[r] = t.nodes[h].coord;
            if (relative)
                for (size_t d = 0; d < t.dims.size(); ++d) {
                    int k = t.dims[d];
                    int off = key[r][d] - t.nodes[host_of[root]].coord[d];
                    /* bidirectional rings: walk against the routing's tie
                     * direction (ties at k/2 go +, so the chain goes -) */
                    key[r][d] = ((t.bidir ? -off : off) % k + k) % k;
                }
            break;
        case PM_ORDER_SNAKE: key[r] = snake_rank_key(t.nodes[h].coord, t.dims); break;
        case PM_ORDER_FATTREE: key[r] = t.nodes[h].coord; break;
        default: throw ArgError(PM_ERR_ARG, "unknown ordering kind");
        }
        key[r].push_back(h);
        key[r].push_back(r == root ? 0 : 1);
        key[r].push_back(r);
    }
    std::vector<int> ord(n);
    std::iota(ord.begin(), ord.end(), 0);
    std::sort(ord.begin(), ord.end(), [&](int a, int b) { return key[a] < key[b]; });
    if (root >= 0) std::rotate(ord.begin(), std::find(ord.begin(), ord.end(), root), ord.end());
    return ord;
}

}  // namespace pm
