/*
 * The product's "pathlg": a Less-Greedy plan of path-based worms rendered in
 * software, since no switch we can buy executes multi-drop worms.
 *
 *   Each worm becomes a chain sender -> d1 -> d2 -> ... in drop (POC) order,
 *   one host write per hop; a holder's later worms hang off it, so phases
 *   overlap as the seed's secondary sources do.
 * Cost model: FPFS unit steps (kb_sim_steps) for m = ceil(M/S) segments,
 *   each step alpha + beta*S; S searched over powers of two and M itself.
 *   A chain hop between consecutive switches of a POC is a down* path
 *   (Theorem 4), so hops of one chain never climb over each other.
 * Paper: seed 001 sec. 5.2.4-5.2.5 (worms, LG), sec. 6.4 (phases overlap).
 *
 * The seed's example, ranks = hosts p(i,j), root p10.1 (Fig. 16(b)):
 *
 *   p10.1 -+-> p5.1 -> p5.2 -> p3.1 -> p3.2 -> p9.1 -> p9.2     worm of phase 0
 *          |    |              |
 *          |    +-> p4.1 -> p4.2 -> p8.1 -> p8.2                phase 1 from s5
 *          |                   +-> p2.1 -> p2.2                 phase 1 from s3
 *          +-> p1.1 -> p1.2 -> p7.1 -> p7.2                     phase 1 from the root
 *   (a node's first child is its chain successor, then the heads of its own
 *   worms; other ranks on a host come last)
 */
#include <algorithm>
#include <cmath>
#include <map>

#include "pm_worms.hpp"

namespace pm {

static long sim_steps(const Tree &t, long m)
{
    kb_tree_t *k = to_kb(t);
    if (!k) throw std::bad_alloc();
    long s = kb_sim_steps(k, m, KB_DISC_FPFS);
    pm_tree_free(k);
    return s;
}

Render pathlg_render(const Topology &t, const std::vector<int> &host_of, int root, const pm_pathlg_params_t &p)
{
    if (t.kind != PM_TOPO_GRAPH) throw ArgError(PM_ERR_UNSUPPORTED, "pathlg needs an irregular switch network (graph topology)");
    int n = (int)host_of.size();
    if (n < 1 || root < 0 || root >= n) throw ArgError(PM_ERR_ARG, "bad group size or root");
    if (!(p.model.alpha_us >= 0) || !(p.model.beta_ns_per_byte >= 0) || !std::isfinite(p.model.alpha_us) ||
        !std::isfinite(p.model.beta_ns_per_byte))
        throw ArgError(PM_ERR_ARG, "bad step-time model");
    if (p.max_seg_bytes < p.min_seg_bytes || (p.max_seg_bytes > 0 && p.min_seg_bytes == 0))
        throw ArgError(PM_ERR_ARG, "bad segment range");
    /* one representative rank per host: the root on its host, else the lowest */
    std::map<int, int> rep{{host_of[root], root}};
    for (int r = 0; r < n; ++r) rep.emplace(host_of[r], r);
    std::vector<int> dsts;
    for (auto &hr : rep)
        if (hr.first != host_of[root]) dsts.push_back(hr.first);
    Render out;
    out.plan = make_plan(t, p.kind, p.alg, host_of[root], dsts);
    out.plan.source = root;
    for (Worm &w : out.plan.worms) {
        w.sender = rep.at(w.sender);
        for (int &d : w.dests) d = rep.at(d);
    }
    /* the tree: chain successor, own worms' heads, host-mates */
    std::vector<int> chain_next(n, -1);
    std::vector<std::vector<int>> heads(n);
    std::vector<int> phase_of(n, 0);
    for (const Worm &w : out.plan.worms) {
        heads[w.sender].push_back(w.dests[0]);
        for (size_t i = 0; i < w.dests.size(); ++i) {
            phase_of[w.dests[i]] = w.phase;
            if (i + 1 < w.dests.size()) chain_next[w.dests[i]] = w.dests[i + 1];
        }
    }
    out.tree.init(n, root);
    for (int v = 0; v < n; ++v) {
        if (chain_next[v] >= 0) out.tree.add(v, chain_next[v], phase_of[v]);
        for (int h : heads[v]) out.tree.add(v, h, phase_of[h]);
        if (rep.at(host_of[v]) == v)
            for (int r = 0; r < n; ++r)
                if (r != v && host_of[r] == host_of[v]) out.tree.add(v, r, phase_of[v]);
    }
    /* prediction: unit steps x step time, best segment size */
    auto step_us = [&](size_t S) { return p.model.alpha_us + p.model.beta_ns_per_byte * (double)S / 1000.0; };
    std::vector<size_t> cand{p.bytes};
    if (p.max_seg_bytes > 0)
        for (size_t S = p.min_seg_bytes; S <= p.max_seg_bytes && S < p.bytes; S *= 2) {
            cand.push_back(S);
            if (S > p.max_seg_bytes / 2) break;
        }
    out.predicted_us = -1;
    for (size_t S : cand) {
        long m = S == 0 ? 1 : (long)((p.bytes + S - 1) / S);
        long steps = sim_steps(out.tree, std::max(1L, m));
        if (steps < 0) continue;   /* beyond the unit-step simulator's size */
        double us = (double)steps * step_us(S);
        if (out.predicted_us < 0 || us < out.predicted_us || (us == out.predicted_us && S > out.seg_bytes)) {
            out.predicted_us = us;
            out.seg_bytes = S;
            out.steps = steps;
        }
    }
    if (out.predicted_us < 0) throw ArgError(PM_ERR_ARG, "no segment size the step simulator can evaluate");
    return out;
}

}  // namespace pm
