/*
 * Multidestination worm headers, reachability strings and decoding at a
 * switch; worms traced hop by hop; the plan checks.
 *
 *   Multi-drop (SSR = one pair): pairs (switch id, p-bit host port string);
 *   routed towards the first pair's switch, copies dropped there, pair stripped.
 *   Tree-based: N-bit destination string + up bit, decoded with Fig. 18's total
 *   and restricted reachability strings; each copy carries header AND string.
 * Cost model: decoding is a table lookup or a bit-wise AND, one cycle at a
 * switch in the seed's simulations (sec. 6.2); headers cost 2 + pairs *
 * (2 + ceil(p/8)) bytes (multi-drop) or 1 + ceil(N/8) bytes (tree-based).
 * Paper: seed 001 sec. 5.2.3 (Fig. 12), 5.3.1-5.3.3 (Figs. 17-18).
 *
 * Why header modification (Fig. 17(b), the seed's network with a link s4-s7):
 *
 *         s6 --(restricted: s4 port all 0)--> s1             header {s4, s7}
 *                                            /  \
 *                               {s4} only s4 -> s7 {s7}      modified: one copy at s7
 *                                           \__/
 *                               {s4,s7} --> s4 -> s7         unmodified: s4 also
 *                                                            forwards -> two copies
 */
#include <algorithm>
#include <deque>
#include <functional>

#include "topo/pm_worms.hpp"

namespace pm {

static bool is_down_switch_link(const Topology &t, int dl)
{
    return !t.nodes[t.from_end(dl)].is_host && !t.nodes[t.other_end(dl)].is_host && !updown_is_up(t, dl);
}

/* ------------------------------------------------------------------ encode */
std::vector<uint8_t> encode_drops(const Topology &t, const Worm &w)
{
    if (w.switches.empty() || w.switches.size() > 255) throw ArgError(PM_ERR_ARG, "a multi-drop header holds 1..255 switches");
    if (w.kind == PM_WORM_SSR && w.switches.size() != 1) throw ArgError(PM_ERR_ARG, "an SSR worm drops at one switch");
    Index ix(t);
    std::vector<uint8_t> h{HDR_MULTI, (uint8_t)w.switches.size()};
    std::vector<char> used(t.nodes.size(), 0);
    size_t ndrop = 0;
    for (size_t i = 0; i < w.switches.size(); ++i) {
        int s = w.switches[i];
        if (s < 0 || s >= (int)t.nodes.size() || t.nodes[s].is_host) throw ArgError(PM_ERR_ARG, "not a switch");
        if (i > 0 && s == w.switches[i - 1]) throw ArgError(PM_ERR_ARG, "a switch twice in a row");
        int id = ix.sw_idx[s];
        if (id > 0xffff) throw ArgError(PM_ERR_ARG, "switch id above 16 bits");
        h.push_back((uint8_t)(id >> 8));
        h.push_back((uint8_t)id);
        size_t p = t.nodes[s].ports.size();
        Bits ports((p + 7) / 8, 0);
        bool any = false;
        for (int d : w.dests)
            if (t.host_switch(d) == s) {
                int dl = -1;
                for (size_t q = 0; q < p; ++q) {
                    int e = port_dlink(t, s, (int)q);
                    if (e >= 0 && t.other_end(e) == d) dl = (int)q;
                }
                bit_set(ports, dl);
                any = true;
                if (!used[d]) ++ndrop;
                used[d] = 1;
            }
        if (!any) throw ArgError(PM_ERR_ARG, "no destination on drop switch '" + t.nodes[s].name + "'");
        h.insert(h.end(), ports.begin(), ports.end());
    }
    if (ndrop != w.dests.size()) throw ArgError(PM_ERR_ARG, "a destination is on none of the worm's switches");
    return h;
}

std::vector<uint8_t> encode_tree(const Topology &t, const std::vector<int> &dsts)
{
    Index ix(t);
    std::vector<uint8_t> h(1 + (t.hosts.size() + 7) / 8, 0);
    h[0] = HDR_MULTI | HDR_TREE | HDR_UP;
    Bits b(h.size() - 1, 0);
    for (int d : dsts) {
        if (d < 0 || d >= (int)t.nodes.size() || !t.nodes[d].is_host) throw ArgError(PM_ERR_ARG, "destination is not a host");
        bit_set(b, ix.host_idx[d]);
    }
    std::copy(b.begin(), b.end(), h.begin() + 1);
    return h;
}

/* ------------------------------------------------------------------ Fig. 18 */
Reach reach_build(const Topology &t)
{
    updown_prepare(t);
    Index ix(t);
    size_t N = t.nodes.size();
    Reach r;
    r.nbytes = (t.hosts.size() + 7) / 8;
    r.total.assign(N, {});
    r.full.assign(N, {});
    r.restr.assign(N, {});
    /* the paper walks BFS levels bottom-up; down links inside a level (lower id
     * -> higher id) need the higher id first: a post-order of the down DAG */
    std::vector<int> order;
    std::vector<char> state(N, 0);
    std::function<void(int)> post = [&](int u) {
        state[u] = 1;
        for (size_t q = 0; q < t.nodes[u].ports.size(); ++q) {
            int dl = port_dlink(t, u, (int)q);
            if (dl >= 0 && is_down_switch_link(t, dl) && !state[t.other_end(dl)]) post(t.other_end(dl));
        }
        order.push_back(u);
    };
    for (int s : t.switches)
        if (!state[s]) post(s);
    for (int s : order) {
        size_t P = t.nodes[s].ports.size();
        r.total[s].assign(r.nbytes, 0);
        r.full[s].assign(P, Bits(r.nbytes, 0));
        for (size_t q = 0; q < P; ++q) {
            int dl = port_dlink(t, s, (int)q);
            if (dl < 0) continue;
            int v = t.other_end(dl);
            if (t.nodes[v].is_host) bit_set(r.full[s][q], ix.host_idx[v]);
            else if (is_down_switch_link(t, dl)) r.full[s][q] = r.total[v];
            for (size_t i = 0; i < r.nbytes; ++i) r.total[s][i] |= r.full[s][q][i];
        }
        /* step 2: a destination stays with the last down port that reaches it */
        r.restr[s] = r.full[s];
        for (size_t j = 0; j < P; ++j)
            for (size_t k = j + 1; k < P; ++k)
                for (size_t i = 0; i < r.nbytes; ++i) r.restr[s][j][i] &= (uint8_t)~r.full[s][k][i];
    }
    return r;
}

/* ------------------------------------------------------------------ routing */
int Router::next_hop(int sw, bool gone_down, int target) const
{
    if (gone_down) {
        auto it = down_first_.find(sw);
        if (it == down_first_.end()) {
            std::vector<int> first(t_.nodes.size(), -1);
            std::deque<int> q{sw};
            std::vector<char> seen(t_.nodes.size(), 0);
            seen[sw] = 1;
            while (!q.empty()) {
                int u = q.front();
                q.pop_front();
                for (size_t p = 0; p < t_.nodes[u].ports.size(); ++p) {
                    int dl = port_dlink(t_, u, (int)p);
                    if (dl < 0 || !is_down_switch_link(t_, dl)) continue;
                    int v = t_.other_end(dl);
                    if (seen[v]) continue;
                    seen[v] = 1;
                    first[v] = u == sw ? dl : first[u];
                    q.push_back(v);
                }
            }
            it = down_first_.emplace(sw, std::move(first)).first;
        }
        if (it->second[target] >= 0) return it->second[target];
        /* no down route: the routing table's (illegal) route; the checks flag it */
    }
    std::vector<int> path;
    route_updown_switches(t_, sw, target, path);
    if (path.empty()) throw ArgError(PM_ERR_INTERNAL, "no route to the worm's next switch");
    return path[0];
}

/* ------------------------------------------------------------------ decode */
void decode(const Topology &t, const Router &r, const Reach *reach, int sw, int in_dlink,
            const std::vector<uint8_t> &hdr, bool modify, std::vector<Out> &outs)
{
    outs.clear();
    if (hdr.empty() || !(hdr[0] & HDR_MULTI)) throw ArgError(PM_ERR_ARG, "not a multidestination header");
    bool gone_down = in_dlink >= 0 && is_down_switch_link(t, in_dlink);
    auto out_to = [&](int dl, std::vector<uint8_t> h) {
        int v = t.other_end(dl);
        outs.push_back(Out{dl, dlink_port(t, dl), t.nodes[v].is_host ? v : -1, std::move(h)});
    };
    if (hdr[0] & HDR_TREE) {
        if (!reach) throw ArgError(PM_ERR_ARG, "tree-based headers need reachability strings");
        if (hdr.size() != 1 + reach->nbytes) throw ArgError(PM_ERR_ARG, "tree-based header of the wrong length");
        const Bits &tot = reach->total[sw];
        bool up = hdr[0] & HDR_UP;
        if (up) {
            bool covered = true;
            for (size_t i = 0; i < reach->nbytes; ++i) covered = covered && (hdr[1 + i] & ~tot[i]) == 0;
            if (!covered) {
                for (size_t p = 0; p < t.nodes[sw].ports.size(); ++p) {
                    int dl = port_dlink(t, sw, (int)p);
                    if (dl >= 0 && !t.nodes[t.other_end(dl)].is_host && updown_is_up(t, dl)) {
                        out_to(dl, hdr);
                        return;
                    }
                }
                throw ArgError(PM_ERR_ARG, "tree-based header names hosts the network does not reach");
            }
        }
        for (size_t p = 0; p < t.nodes[sw].ports.size(); ++p) {
            int dl = port_dlink(t, sw, (int)p);
            if (dl < 0) continue;
            const Bits &rs = reach->restr[sw][p];
            std::vector<uint8_t> h(hdr.size());
            h[0] = (uint8_t)(hdr[0] & ~HDR_UP);
            bool any = false;
            for (size_t i = 0; i < reach->nbytes; ++i) {
                uint8_t m = hdr[1 + i] & rs[i];
                any = any || m;
                h[1 + i] = modify ? m : hdr[1 + i];
            }
            if (any) out_to(dl, std::move(h));
        }
        return;
    }
    /* multi-drop / SSR */
    if (hdr.size() < 2 || hdr[1] == 0) throw ArgError(PM_ERR_ARG, "multi-drop header without pairs");
    auto pair_switch = [&](size_t off) {
        if (off + 2 > hdr.size()) throw ArgError(PM_ERR_ARG, "truncated multi-drop header");
        int id = (hdr[off] << 8) | hdr[off + 1];
        if (id >= (int)t.switches.size()) throw ArgError(PM_ERR_ARG, "unknown switch id in header");
        return t.switches[id];
    };
    int target = pair_switch(2);
    if (target != sw) {
        out_to(r.next_hop(sw, gone_down, target), hdr);
        return;
    }
    size_t pb = (t.nodes[sw].ports.size() + 7) / 8;
    if (4 + pb > hdr.size()) throw ArgError(PM_ERR_ARG, "truncated multi-drop header");
    std::vector<uint8_t> rest{hdr[0], (uint8_t)(hdr[1] - 1)};
    rest.insert(rest.end(), hdr.begin() + 4 + pb, hdr.end());
    for (size_t p = 0; p < t.nodes[sw].ports.size(); ++p) {
        if (!((hdr[4 + p / 8] >> (7 - p % 8)) & 1)) continue;
        int dl = port_dlink(t, sw, (int)p);
        if (dl < 0 || !t.nodes[t.other_end(dl)].is_host) throw ArgError(PM_ERR_ARG, "drop port is not a host port");
        out_to(dl, rest);
    }
    if (rest[1] > 0) out_to(r.next_hop(sw, gone_down, pair_switch(2 + 2 + pb)), rest);
}

/* ------------------------------------------------------------------ trace */
Trace trace(const Topology &t, const Router &r, const Reach *reach, int src, const std::vector<uint8_t> &hdr,
            bool modify)
{
    Trace tr;
    tr.src = src;
    for (int l : t.nodes[src].ports)
        if (l >= 0) tr.inject = t.links[l].a == src ? 2 * l : 2 * l + 1;
    if (tr.inject < 0) throw ArgError(PM_ERR_ARG, "source host is not connected");
    size_t limit = 64 * t.switches.size() + 64;
    tr.hops.push_back(Trace::Hop{t.other_end(tr.inject), tr.inject, false, {}, {}});
    std::deque<std::pair<int, std::vector<uint8_t>>> work;
    work.emplace_back(0, hdr);
    std::vector<Out> outs;
    while (!work.empty()) {
        int hi = work.front().first;
        std::vector<uint8_t> h = std::move(work.front().second);
        work.pop_front();
        decode(t, r, reach, tr.hops[hi].sw, tr.hops[hi].in_dlink, h, modify, outs);
        for (Out &o : outs) {
            tr.hops[hi].out.push_back(o.dlink);
            if (o.host >= 0) {
                tr.delivered.push_back(o.host);
                tr.hops[hi].next.push_back(-1);
                continue;
            }
            bool up = updown_is_up(t, o.dlink);
            if (up && tr.hops[hi].gone_down) tr.illegal = true;
            if (tr.hops.size() >= limit) throw ArgError(PM_ERR_UNSUPPORTED, "worm does not terminate");
            int nx = (int)tr.hops.size();
            bool gd = tr.hops[hi].gone_down || !up;
            tr.hops[hi].next.push_back(nx);
            tr.hops.push_back(Trace::Hop{t.other_end(o.dlink), o.dlink, gd, {}, {}});
            work.emplace_back(nx, std::move(o.hdr));
        }
    }
    return tr;
}

/* Channel dependency graph: at every switch a copy holds its input channel
 * while it waits for each output channel. */
bool traces_cyclic(const Topology &t, const std::vector<const Trace *> &traces)
{
    size_t L = 2 * t.links.size();
    std::vector<std::vector<int>> adj(L);
    for (const Trace *tr : traces)
        for (const Trace::Hop &h : tr->hops)
            for (int o : h.out) adj[h.in_dlink].push_back(o);
    std::vector<char> color(L, 0);
    for (size_t s = 0; s < L; ++s) {
        if (color[s] || adj[s].empty()) continue;
        std::vector<std::pair<int, size_t>> stack{{(int)s, 0}};
        color[s] = 1;
        while (!stack.empty()) {
            auto &[u, i] = stack.back();
            if (i < adj[u].size()) {
                int v = adj[u][i++];
                if (color[v] == 1) return true;
                if (!color[v]) {
                    color[v] = 1;
                    stack.emplace_back(v, 0);
                }
            } else {
                color[u] = 2;
                stack.pop_back();
            }
        }
    }
    return false;
}

PlanCheck check_plan(const Topology &t, const Plan &p, int src, const std::vector<int> &dsts)
{
    size_t N = t.nodes.size();
    PlanCheck c;
    Router r(t);
    std::vector<int> copies(N, 0), got(N, 1 << 30);
    std::vector<char> is_dst(N, 0);
    for (int d : dsts) is_dst[d] = 1;
    got[src] = -1;
    std::map<int, std::vector<Trace>> by_phase;
    for (const Worm &w : p.worms) {
        Trace tr = trace(t, r, nullptr, w.sender, encode_drops(t, w), true);
        c.illegal += tr.illegal;
        for (int h : tr.delivered) {
            ++copies[h];
            got[h] = std::min(got[h], w.phase);
        }
        by_phase[w.phase].push_back(std::move(tr));
    }
    for (const Worm &w : p.worms) c.not_ready += !(got[w.sender] < w.phase);
    for (auto &ph : by_phase) {
        std::vector<const Trace *> v;
        for (const Trace &tr : ph.second) v.push_back(&tr);
        c.cyclic += traces_cyclic(t, v);
    }
    for (size_t h = 0; h < N; ++h) {
        if (is_dst[h] && copies[h] == 0) ++c.missing;
        if (is_dst[h] && copies[h] > 1) c.duplicates += copies[h] - 1;
        if (!is_dst[h]) c.strays += copies[h];
    }
    return c;
}

}  // namespace pm
