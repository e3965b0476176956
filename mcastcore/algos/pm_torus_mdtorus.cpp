/*
 * Md-torus (Robinson et al.; seed 002 sec 3, Fig. 1d): dimensional
 * partitioning.  Phase 1: the root sends to one head in every (N-1)-dim
 * subtorus (members sharing coordinate 0) in ring order; phase d+1 repeats
 * inside each subtorus on dimension d; in the last phase each head relays
 * along its ring of dimension N-1 as a chain.  N phases on an N-dim torus; no
 * worm switches dimension inside a phase.  A head is the member of its part
 * with the smallest ring offsets from the sending head (dimension 0 first).
 *
 * Model (eq. 9): t = 2o + h_i L_i, h_i = (largest ring part) - 1 for a
 * non-root ring; on the canonical G-member group of a k-ary 2D torus
 * h_i = G-2 (G <= k), max(k-2, min(G-k, k)-1) (G > k).
 *
 *   4x4, G = 10, R root:   x=0  x=1  x=2  x=3      phase 1 (along x):
 *                     y=0   R -> H1 -> H2          R -> H1, R -> H2
 *                     y=1   a    b    e            phase 2 (along y rings):
 *                     y=2   |    c    f            R -> a,  H1 -> b -> c,
 *                     y=3             g            H2 -> e -> f -> g
 */
#include <algorithm>
#include <map>

#include "topo/pm_internal.h"

namespace pm {

static void md(const TorusGroup &g, std::vector<int> members, int head, int d, Tree &t)
{
    const std::vector<int> &hc = g.c[head];
    int N = g.shape.ndims;
    auto key = [&](int m) { return g.rel_key(m, hc); };
    if (d == N - 1) {
        std::sort(members.begin(), members.end(), [&](int a, int b) {
            if (a == head || b == head) return a == head && b != head;
            return key(a) < key(b);
        });
        for (size_t i = 1; i < members.size(); ++i) t.add(members[i - 1], members[i], N);
        return;
    }
    std::map<int, std::vector<int>> part;   /* ring offset in dim d -> members */
    for (int m : members) part[g.ring_offset(d, hc[d], g.c[m][d])].push_back(m);
    std::vector<std::pair<std::vector<int>, int>> sub;   /* (members, head) */
    for (auto &p : part) {
        int h = head;
        if (std::find(p.second.begin(), p.second.end(), head) == p.second.end())
            h = *std::min_element(p.second.begin(), p.second.end(),
                                  [&](int a, int b) { return key(a) < key(b); });
        if (h != head) t.add(head, h, d + 1);
        sub.emplace_back(p.second, h);
    }
    for (auto &s : sub)   /* the sending head's own part first: its later sends */
        if (s.second == head) md(g, s.first, s.second, d + 1, t);
    for (auto &s : sub)
        if (s.second != head) md(g, s.first, s.second, d + 1, t);
}

void torus_mdtorus(const TorusGroup &g, Tree &t)
{
    std::vector<int> all(g.n);
    for (int m = 0; m < g.n; ++m) all[m] = m;
    md(g, all, g.root, 0, t);
}

}  // namespace pm
