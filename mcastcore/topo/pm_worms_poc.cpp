/*
 * Path-based multicast plans: Partial Ordered Chains cover the destinations
 * (Fig. 13), worms are sent in phases by the Greedy or Less-Greedy algorithm.
 *
 *   POC finder: T = down links between BFS levels met by a DFS from the
 *   up*-down* root; T' = T reduced to participating switches; wt(s) = hosts
 *   on s and its T' descendants; strip the heaviest chain (each switch
 *   followed by its heaviest remaining child) until T' is empty.
 *   Greedy: step 0 the source sends worm 0; each later step every holder (the
 *   source, then destinations in coverage order) sends the next worm.
 *   Less-Greedy: only the source and one destination per covered switch send.
 * Cost model: a phase costs one host-to-host message (t_hs + t_ns + network +
 * t_nr + t_hr, seed sec. 6.2); Greedy needs the fewest phases, LG starts at
 * most one worm per switch per phase (less link contention, sec. 5.2.5).
 * Paper: Sivaram, Kesavan, Panda, Stunkel (seed 001) sec. 5.2.4-5.2.5;
 * Theorems 4-5: a worm whose drop switches lie on a POC in order follows a
 * legal up*-down* path.
 *
 * The seed's example (Fig. 14(a) as the text describes it, two hosts per
 * switch, source p(10,1), root s6; tests/unit/test_pm_worms.c):
 *
 *   T (down links between levels)        wt in T'          chains, stripping order
 *   s6 -> s5 s4 s1                       s5 9   s1 8       <s5 s3 s9> <s1 s7> <s4 s8>
 *   s5 -> s3 s10 s8   s4 -> s8 s2        s4 8   s3 4       <s2> <s10>
 *   s1 -> s7 s8                          s7 4   s8 4
 *   s3 -> s9   s7 -> s9   s8 -> s9       s9 2   s2 2   s10 1
 *
 *   LG, path-based (Fig. 16(b)):  step 0  p10.1 -> <s5 s3 s9>
 *                                 step 1  p10.1 -> <s1 s7>, p5.1 -> <s4 s8>, p3.1 -> <s2>
 */
#include <algorithm>
#include <functional>
#include <set>

#include "topo/pm_worms.hpp"

namespace pm {

Index::Index(const Topology &t) : host_idx(t.nodes.size(), -1), sw_idx(t.nodes.size(), -1)
{
    for (size_t i = 0; i < t.hosts.size(); ++i) host_idx[t.hosts[i]] = (int)i;
    for (size_t i = 0; i < t.switches.size(); ++i) sw_idx[t.switches[i]] = (int)i;
}

int port_dlink(const Topology &t, int u, int port)
{
    int l = t.nodes[u].ports[port];
    if (l < 0) return -1;
    return t.links[l].a == u && t.links[l].pa == port ? 2 * l : 2 * l + 1;
}

int dlink_port(const Topology &t, int dl)
{
    const Link &L = t.links[dl >> 1];
    return (dl & 1) ? L.pb : L.pa;
}

std::vector<int> switch_hosts(const Topology &t, int sw)
{
    std::vector<int> out;
    for (size_t p = 0; p < t.nodes[sw].ports.size(); ++p) {
        int dl = port_dlink(t, sw, (int)p);
        if (dl >= 0 && t.nodes[t.other_end(dl)].is_host) out.push_back(t.other_end(dl));
    }
    return out;
}

Poc poc_find(const Topology &t, int src, const std::vector<int> &dsts)
{
    if (t.kind != PM_TOPO_GRAPH) throw ArgError(PM_ERR_UNSUPPORTED, "POCs need an irregular switch graph");
    updown_prepare(t);
    size_t N = t.nodes.size();
    Poc p;
    p.dfs = poc_switch_order(t);
    p.T.assign(N, {});
    p.Tp.assign(N, {});
    p.rho.assign(N, 0);
    p.weight.assign(N, 0);
    /* step 1: down links between levels, in port order, parallel links once */
    for (int u : t.switches)
        for (size_t q = 0; q < t.nodes[u].ports.size(); ++q) {
            int dl = port_dlink(t, u, (int)q);
            if (dl < 0) continue;
            int v = t.other_end(dl);
            if (t.nodes[v].is_host || updown_is_up(t, dl) || t.ud_level[v] == t.ud_level[u]) continue;
            if (std::find(p.T[u].begin(), p.T[u].end(), v) == p.T[u].end()) p.T[u].push_back(v);
        }
    /* step 2: participating switches */
    std::vector<int> hosts = dsts;
    hosts.push_back(src);
    for (int h : hosts) {
        int s = t.host_switch(h);
        if (s < 0) throw ArgError(PM_ERR_ARG, "host '" + t.nodes[h].name + "' is not connected");
        ++p.rho[s];
    }
    /* step 3: T' -- a -> b when T has a path a ~> b through non-participating switches */
    for (int a : t.switches) {
        if (!p.rho[a]) continue;
        std::vector<char> seen(N, 0);
        std::function<void(int)> walk = [&](int u) {
            for (int v : p.T[u]) {
                if (seen[v]) continue;
                seen[v] = 1;
                if (p.rho[v]) p.Tp[a].push_back(v);
                else walk(v);
            }
        };
        walk(a);
    }
    /* step 4: weights over the set of T' descendants */
    for (int a : t.switches) {
        if (!p.rho[a]) continue;
        std::vector<char> seen(N, 0);
        std::vector<int> stack{a};
        seen[a] = 1;
        while (!stack.empty()) {
            int u = stack.back();
            stack.pop_back();
            p.weight[a] += p.rho[u];
            for (int v : p.Tp[u])
                if (!seen[v]) { seen[v] = 1; stack.push_back(v); }
        }
    }
    /* step 5: strip chains, heaviest first; ties -> lower switch id */
    std::vector<char> left(N, 0);
    int nleft = 0;
    for (int s : t.switches)
        if (p.rho[s]) { left[s] = 1; ++nleft; }
    auto better = [&](int a, int b) { return b < 0 || p.weight[a] > p.weight[b] || (p.weight[a] == p.weight[b] && a < b); };
    while (nleft > 0) {
        int best = -1;
        for (int s : t.switches)
            if (left[s] && better(s, best)) best = s;
        std::vector<int> chain;
        for (int cur = best; cur >= 0;) {
            chain.push_back(cur);
            left[cur] = 0;
            --nleft;
            int nx = -1;
            for (int v : p.Tp[cur])
                if (left[v] && better(v, nx)) nx = v;
            cur = nx;
        }
        p.chains.push_back(chain);
    }
    return p;
}

static void check_members(const Topology &t, int src, const std::vector<int> &dsts)
{
    auto is_host = [&](int h) { return h >= 0 && h < (int)t.nodes.size() && t.nodes[h].is_host; };
    if (!is_host(src)) throw ArgError(PM_ERR_ARG, "source is not a host");
    std::set<int> seen;
    for (int d : dsts) {
        if (!is_host(d)) throw ArgError(PM_ERR_ARG, "destination is not a host");
        if (d == src) throw ArgError(PM_ERR_ARG, "the source '" + t.nodes[d].name + "' is also a destination");
        if (!seen.insert(d).second) throw ArgError(PM_ERR_ARG, "destination '" + t.nodes[d].name + "' given twice");
    }
}

/* Greedy / Less-Greedy: assign phase and sender to the ordered worm list. */
static void schedule(const Topology &t, Plan &p)
{
    std::vector<int> holders{p.source}, senders{p.source};
    std::set<int> sw_done{t.host_switch(p.source)};
    size_t next = 0;
    int phase = 0;
    while (next < p.worms.size()) {
        const std::vector<int> &who = p.alg == PM_PHASE_GREEDY ? holders : senders;
        std::vector<int> now(who.begin(), who.end());
        p.eligible.push_back(now);
        size_t first = next;
        for (size_t i = 0; i < now.size() && next < p.worms.size(); ++i, ++next) {
            p.worms[next].sender = now[i];
            p.worms[next].phase = phase;
        }
        for (size_t w = first; w < next; ++w)
            for (int d : p.worms[w].dests) {
                holders.push_back(d);
                if (sw_done.insert(t.host_switch(d)).second) senders.push_back(d);
            }
        ++phase;
    }
    p.nphases = phase;
}

Plan make_plan(const Topology &t, pm_worm_kind_t kind, pm_phase_alg_t alg, int src, const std::vector<int> &dsts)
{
    if (kind != PM_WORM_SSR && kind != PM_WORM_PATH) throw ArgError(PM_ERR_ARG, "plans use SSR or path-based worms");
    if (alg != PM_PHASE_GREEDY && alg != PM_PHASE_LESS_GREEDY) throw ArgError(PM_ERR_ARG, "unknown phase algorithm");
    check_members(t, src, dsts);
    Plan p;
    p.kind = kind;
    p.alg = alg;
    p.source = src;
    if (dsts.empty()) return p;
    Poc poc = poc_find(t, src, dsts);
    std::vector<char> is_dst(t.nodes.size(), 0);
    for (int d : dsts) is_dst[d] = 1;
    for (const auto &chain : poc.chains) {
        Worm w;
        w.kind = kind;
        for (int s : chain) {
            std::vector<int> here;
            for (int h : switch_hosts(t, s))
                if (is_dst[h]) here.push_back(h);
            if (here.empty()) continue;
            if (kind == PM_WORM_SSR) {
                Worm one;
                one.kind = kind;
                one.dests = here;
                one.switches = {s};
                p.worms.push_back(one);
            } else {
                w.dests.insert(w.dests.end(), here.begin(), here.end());
                w.switches.push_back(s);
            }
        }
        if (!w.dests.empty()) p.worms.push_back(w);
    }
    std::stable_sort(p.worms.begin(), p.worms.end(),
                     [](const Worm &a, const Worm &b) { return a.dests.size() > b.dests.size(); });
    schedule(t, p);
    return p;
}

}  // namespace pm
