/*
 * The product's "pathlg": a Less-Greedy plan of path-based worms rendered in
 * software, since no switch we can buy executes multi-drop worms.
 *
 *   Each worm becomes a chain sender -> d1 -> d2 -> ... in drop (POC) order,
 *   one host write per hop; a holder's later worms hang off it, so phases
 *   overlap as the seed's secondary sources do.
 * Cost model: FPFS unit steps (as kb_sim_steps counts them, in closed form)
 *   for m = ceil(M/S) segments, each step alpha + beta*S; S searched over
 *   powers of two and M itself.  A chain hop between consecutive switches of
 *   a POC is a down* path (Theorem 4) and POCs are disjoint, so chain hops
 *   never share a link in a step; a worm's first hop (sender -> d1) is any
 *   up*-down* route and can: the contention checker counts those conflicts
 *   and a bounded repair reassigns worms among the holders eligible in their
 *   phase.
 * Paper: seed 001 sec. 5.2.4-5.2.5 (worms, LG), sec. 6.4 (phases overlap).
 *
 * The seed's example, ranks = hosts p(i,j), root p10.1 (Fig. 16(b)):
 *
 *   p10.1 -+-> p5.1 -> p5.2 -> p3.1 -> p3.2 -> p9.1 -> p9.2      phase 0
 *          |   |               |
 *          |   +-> p4.1 -> p4.2 -> p8.1 -> p8.2                  phase 1, from s5
 *          |                   +-> p2.1 -> p2.2                  phase 1, from s3
 *          +-> p1.1 -> p1.2 -> p7.1 -> p7.2                      phase 1, from the root
 *   (a node's first child is its chain successor, then the heads of its own
 *   worms; other ranks on a host come last)
 */
#include <algorithm>
#include <cmath>
#include <map>

#include "topo/pm_worms.hpp"

namespace pm {

/* FPFS unit steps for m packets (the rule kb_sim_steps simulates): a node
 * that gets packet i at a_i sends it to child j at s_i + j with s_i =
 * max(a_i, s_{i-1} + delta); so a_i(v) = a_1(v) + (i-1) D(v), D(v) the largest
 * fan-out among v's ancestors (seed 001 Lemma 1), and the tree needs
 * max_v a_1(v) + (m-1) D(v) steps. O(n) per m. */
static long fpfs_steps(const Tree &t, long m)
{
    std::vector<long> a1(t.n, 0), D(t.n, 0);
    std::vector<int> stack{t.root};
    long worst = 0;
    while (!stack.empty()) {
        int v = stack.back();
        stack.pop_back();
        long delta = (long)t.children[v].size();
        for (size_t j = 0; j < t.children[v].size(); ++j) {
            int c = t.children[v][j];
            a1[c] = a1[v] + (long)j + 1;
            D[c] = std::max(D[v], delta);
            worst = std::max(worst, a1[c] + (m - 1) * D[c]);
            stack.push_back(c);
        }
    }
    return worst;
}

/* chain successor first, then the heads of the node's own worms (plan
 * order), then the other ranks on its host */
struct Group {
    std::vector<int> host_of;               /* node id of each rank's host */
    std::map<int, int> rep;                 /* host -> representative rank */
    std::vector<std::vector<int>> mates;    /* rep rank -> the other ranks on its host */
    int root = 0;
};

static Tree build_tree(const Plan &plan, const Group &g)
{
    int n = (int)g.host_of.size();
    std::vector<int> chain_next(n, -1), phase_of(n, 0);
    std::vector<std::vector<int>> heads(n);
    for (const Worm &w : plan.worms) {
        heads[w.sender].push_back(w.dests[0]);
        for (size_t i = 0; i < w.dests.size(); ++i) {
            phase_of[w.dests[i]] = w.phase;
            if (i + 1 < w.dests.size()) chain_next[w.dests[i]] = w.dests[i + 1];
        }
    }
    Tree tr;
    tr.init(n, g.root);
    for (int v = 0; v < n; ++v) {
        if (chain_next[v] >= 0) tr.add(v, chain_next[v], phase_of[v]);
        for (int h : heads[v]) tr.add(v, h, phase_of[h]);
        for (int r : g.mates[v]) tr.add(v, r, phase_of[v]);
    }
    return tr;
}

/* link conflicts of the tree's FPFS single-packet steps (pm_check_contention) */
static long conflicts(const Topology &t, const Tree &tr, const std::vector<int> &host_of)
{
    kb_tree_t *k = to_kb(tr);
    if (!k) throw std::bad_alloc();
    std::vector<pm_msg_t> msgs;
    int ns = 0;
    try {
        plan_from_tree(k, msgs, &ns);
    } catch (...) {
        pm_tree_free(k);
        throw;
    }
    pm_tree_free(k);
    if (msgs.empty()) return 0;
    std::vector<long> per(ns);
    long total = 0;
    check_contention(t, PM_ROUTE_UPDOWN, host_of, (int)msgs.size(), msgs.data(), ns, per.data(), &total);
    return total;
}

/* Repair: reassign worms among the holders eligible in their phase (one worm
 * per holder and phase, so LG keeps one worm per switch) while the conflict
 * count drops; a bounded hill climb, the seed's assignment when it is clean. */
static void repair(const Topology &t, Render &out, const Group &g)
{
    out.conflicts = conflicts(t, out.tree, g.host_of);
    int budget = std::max(20, std::min(600, 200000 / std::max(1, (int)g.host_of.size())));
    for (bool improved = true; improved && out.conflicts > 0 && budget > 0;) {
        improved = false;
        for (int ph = 1; ph < out.plan.nphases && out.conflicts > 0 && budget > 0; ++ph)
            for (size_t i = 0; i < out.plan.worms.size() && out.conflicts > 0 && budget > 0; ++i) {
                if (out.plan.worms[i].phase != ph) continue;
                for (int c : out.plan.eligible[ph]) {
                    int mine = out.plan.worms[i].sender;
                    if (c == mine) continue;
                    int j = -1;
                    for (size_t k = 0; k < out.plan.worms.size(); ++k)
                        if (out.plan.worms[k].phase == ph && out.plan.worms[k].sender == c) j = (int)k;
                    out.plan.worms[i].sender = c;
                    if (j >= 0) out.plan.worms[j].sender = mine;
                    Tree tr = build_tree(out.plan, g);
                    long cost = conflicts(t, tr, g.host_of);
                    --budget;
                    if (cost < out.conflicts) {
                        out.conflicts = cost;
                        out.tree = std::move(tr);
                        improved = true;
                        break;
                    }
                    out.plan.worms[i].sender = mine;
                    if (j >= 0) out.plan.worms[j].sender = c;
                    if (budget <= 0) break;
                }
            }
    }
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
    Group g;
    g.host_of = host_of;
    g.root = root;
    g.rep[host_of[root]] = root;
    for (int r = 0; r < n; ++r) g.rep.emplace(host_of[r], r);
    g.mates.assign(n, {});
    for (int r = 0; r < n; ++r)
        if (g.rep.at(host_of[r]) != r) g.mates[g.rep.at(host_of[r])].push_back(r);
    const std::map<int, int> &rep = g.rep;
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
    for (auto &ph : out.plan.eligible)
        for (int &h : ph) h = rep.at(h);
    out.tree = build_tree(out.plan, g);
    repair(t, out, g);
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
        long steps = fpfs_steps(out.tree, std::max(1L, m));
        double us = (double)steps * step_us(S);
        if (out.predicted_us < 0 || us < out.predicted_us || (us == out.predicted_us && S > out.seg_bytes)) {
            out.predicted_us = us;
            out.seg_bytes = S;
            out.steps = steps;
        }
    }
    return out;
}

}  // namespace pm
