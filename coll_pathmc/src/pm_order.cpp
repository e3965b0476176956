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
 *   Fat-tree: label order P(p0 p1 ... pn-1), p0 most significant.
 *   Hierarchical: (host, package, numa, core, rank).
 * Ranks sharing a host stay consecutive, in rank order, the root first.
 */
#include <algorithm>
#include <numeric>

#include "pm_internal.h"

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
        for (int l : t.nodes[u].ports) {
            if (l < 0) continue;
            int dl = t.links[l].a == u ? 2 * l : 2 * l + 1;
            int v = t.other_end(dl);
            if (t.nodes[v].is_host || seen[v] || updown_is_up(t, dl)) continue;
            if (t.ud_level[v] == t.ud_level[u]) continue;   /* same-level cross link */
            next.push_back(v);
        }
        for (auto it = next.rbegin(); it != next.rend(); ++it) stack.push_back(*it);
    }
    for (int s : t.switches)   /* switches unreachable by down links (disconnected) */
        if (!seen[s]) order.push_back(s);
    return order;
}

std::vector<int> order_hosts(const Topology &t, pm_order_kind_t kind, const std::vector<int> &host_of,
                             int root)
{
    int n = (int)host_of.size();
    if (kind == PM_ORDER_AUTO)
        kind = t.kind == PM_TOPO_TORUS ? PM_ORDER_DOR : t.kind == PM_TOPO_FATTREE ? PM_ORDER_FATTREE : PM_ORDER_POC;
    if ((kind == PM_ORDER_DOR || kind == PM_ORDER_SNAKE) && t.kind != PM_TOPO_TORUS)
        throw ArgError(PM_ERR_UNSUPPORTED, "DOR/snake orderings need a torus or mesh topology");
    if (kind == PM_ORDER_FATTREE && t.kind != PM_TOPO_FATTREE)
        throw ArgError(PM_ERR_UNSUPPORTED, "fat-tree ordering needs a fattree topology");
    std::vector<std::vector<int>> key(n);
    std::vector<int> sw_rank;
    if (kind == PM_ORDER_POC) {
        sw_rank.assign(t.nodes.size(), 0);
        auto so = poc_switch_order(t);
        for (size_t i = 0; i < so.size(); ++i) sw_rank[so[i]] = (int)i;
    }
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
        case PM_ORDER_POC: {
            const int s = t.host_switch(h);   /* parsers reject unlinked hosts; never index with -1 */
            if (s < 0 || t.nodes[s].is_host)
                throw ArgError(PM_ERR_UNSUPPORTED, "host '" + t.nodes[h].name + "' is not linked to a switch");
            key[r] = {sw_rank[s]};
            break;
        }
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
