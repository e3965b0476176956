/*
 * Random irregular topologies (seed 001 sec 6.3): s switches with k ports and
 * p hosts.  Hosts go to random switches keeping two ports free per switch;
 * a random spanning tree makes the switch graph connected; then random links
 * join free ports of distinct switches until connectivity_pct % of the
 * s*k - p non-host ports are linked (or no two distinct switches have a free
 * port left).  At most one link per port, no self links; parallel links
 * between two switches are allowed, as in the seed.  Deterministic for a
 * seed (splitmix64).  Output: ibnetdiscover text, switches "S-sw<i>", hosts
 * "H-host<i>" with description "host<i> HCA-1".
 *
 *   s = 4, k = 4, p = 6:     host0 host1     host2       host3 host4  host5
 *                              \   /           |            \   /      |
 *                              sw0 ---------- sw1 --------- sw2 ----- sw3
 *                                \___________________________/
 */
#include <algorithm>

#include "topo/pm_internal.h"

namespace pm {

namespace {
struct Rng {
    uint64_t s;
    uint64_t next()
    {
        uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    int below(int n) { return (int)(next() % (uint64_t)n); }
};
}  // namespace

std::string generate_irregular(int s, int k, int p, int pct, uint64_t seed)
{
    if (s < 1 || s > 100000 || k < 2 || k > 1024 || p < 0 || pct < 0 || pct > 100)
        throw ArgError(PM_ERR_ARG, "bad generator parameters");
    if ((long)p > (long)s * (k - 2) + (s == 1 ? 2 : 0))
        throw ArgError(PM_ERR_ARG, "too many hosts: each switch keeps two ports for switch links");
    Rng rng{seed};
    Topology t;
    for (int i = 0; i < s; ++i) t.add_node("sw" + std::to_string(i), false, k);
    std::vector<int> used(s, 0);
    int reserve = s == 1 ? 0 : 2;
    for (int h = 0; h < p; ++h) {
        std::vector<int> cand;
        for (int i = 0; i < s; ++i)
            if (used[i] < k - reserve) cand.push_back(i);
        int sw = cand[rng.below((int)cand.size())];
        int id = t.add_node("host" + std::to_string(h), true, 1);
        t.add_link(id, t.switches[sw], PM_LINK_HOST);
        ++used[sw];
    }
    std::vector<int> perm(s);
    for (int i = 0; i < s; ++i) perm[i] = i;
    for (int i = s - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(i + 1)]);
    int linked = 0;
    for (int i = 1; i < s; ++i) {
        std::vector<int> cand;
        for (int j = 0; j < i; ++j)
            if (used[perm[j]] < k) cand.push_back(perm[j]);
        int a = perm[i], b = cand[rng.below((int)cand.size())];
        t.add_link(t.switches[a], t.switches[b], PM_LINK_SWITCH);
        ++used[a];
        ++used[b];
        linked += 2;
    }
    long target = ((long)s * k - p) * pct / 100;
    while (linked + 2 <= target) {
        std::vector<int> freesw;
        for (int i = 0; i < s; ++i)
            if (used[i] < k) freesw.push_back(i);
        if (freesw.size() < 2) break;
        int nf = (int)freesw.size(), ia = rng.below(nf);
        int a = freesw[ia], b = freesw[(ia + 1 + rng.below(nf - 1)) % nf];
        t.add_link(t.switches[a], t.switches[b], PM_LINK_SWITCH);
        ++used[a];
        ++used[b];
        linked += 2;
    }
    return write_ibnet(t);
}

}  // namespace pm
