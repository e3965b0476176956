/*
 * C API of the multidestination-worm core (pm_worms.h): argument checks,
 * host/switch index translation, flat malloc'ed results.
 */
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "topo/pm_capi.h"
#include "topo/pm_worms.hpp"

using namespace pm;

namespace {

int host_node(const Topology &t, int h)
{
    if (h < 0 || h >= (int)t.hosts.size()) throw ArgError(PM_ERR_ARG, "host index " + std::to_string(h) + " out of range");
    return t.hosts[h];
}

std::vector<int> host_nodes(const Topology &t, int n, const int *hs)
{
    if (n < 0 || (n > 0 && !hs)) throw ArgError(PM_ERR_ARG, "bad destination list");
    std::vector<int> v(n);
    for (int i = 0; i < n; ++i) v[i] = host_node(t, hs[i]);
    return v;
}

template <class T> T *alloc_n(size_t n)
{
    T *p = (T *)calloc(n ? n : 1, sizeof(T));
    if (!p) throw std::bad_alloc();
    return p;
}

/* CSR of per-node lists restricted to switches, in switch indices */
void to_csr(const Topology &t, const Index &ix, const std::vector<std::vector<int>> &lists, int **off, int **adj)
{
    size_t S = t.switches.size(), total = 0;
    for (int s : t.switches) total += lists[s].size();
    *off = alloc_n<int>(S + 1);
    *adj = alloc_n<int>(total);
    size_t k = 0;
    for (size_t i = 0; i < S; ++i) {
        (*off)[i] = (int)k;
        for (int v : lists[t.switches[i]]) (*adj)[k++] = ix.sw_idx[v];
    }
    (*off)[S] = (int)k;
}

/* Plan -> flat C plan; map_ids converts node ids to the caller's index space */
pm_mcast_plan_t *to_c_plan(const Plan &p, const Index &ix, bool host_space)
{
    pm_mcast_plan_t *c = alloc_n<pm_mcast_plan_t>(1);
    try {
        c->kind = p.kind;
        c->alg = p.alg;
        c->source = host_space ? ix.host_idx[p.source] : p.source;
        c->nphases = p.nphases;
        c->nworms = (int)p.worms.size();
        c->worms = alloc_n<pm_worm_t>(p.worms.size());
        for (size_t i = 0; i < p.worms.size(); ++i) {
            const Worm &w = p.worms[i];
            pm_worm_t &o = c->worms[i];
            o.kind = w.kind;
            o.phase = w.phase;
            o.sender = host_space ? ix.host_idx[w.sender] : w.sender;
            o.ndests = (int)w.dests.size();
            o.dests = alloc_n<int>(w.dests.size());
            for (size_t j = 0; j < w.dests.size(); ++j) o.dests[j] = host_space ? ix.host_idx[w.dests[j]] : w.dests[j];
            o.nswitches = (int)w.switches.size();
            o.switches = alloc_n<int>(w.switches.size());
            for (size_t j = 0; j < w.switches.size(); ++j) o.switches[j] = ix.sw_idx[w.switches[j]];
        }
    } catch (...) {
        pm_mcast_plan_free(c);
        throw;
    }
    return c;
}

/* C worm (host indices) -> internal worm */
Worm from_c_worm(const Topology &t, const pm_worm_t *w)
{
    if (!w || w->ndests < 1 || !w->dests || w->nswitches < 1 || !w->switches) throw ArgError(PM_ERR_ARG, "bad worm");
    Worm o;
    o.kind = w->kind;
    o.dests = host_nodes(t, w->ndests, w->dests);
    for (int i = 0; i < w->nswitches; ++i) {
        if (w->switches[i] < 0 || w->switches[i] >= (int)t.switches.size()) throw ArgError(PM_ERR_ARG, "bad switch index");
        o.switches.push_back(t.switches[w->switches[i]]);
    }
    return o;
}

int copy_out(const std::vector<uint8_t> &h, uint8_t *buf, size_t cap, size_t *len)
{
    *len = h.size();
    if (h.size() > cap) return PM_ERR_ARG;
    if (!h.empty()) memcpy(buf, h.data(), h.size());
    return PM_OK;
}

int sw_node(const Topology &t, int s)
{
    if (s < 0 || s >= (int)t.switches.size()) throw ArgError(PM_ERR_ARG, "switch index out of range");
    return t.switches[s];
}

}  // namespace

struct pm_reach {
    const Topology *t;
    Reach r;
};

extern "C" {

const char *pm_topology_switch_name(const pm_topology_t *topo, int s)
{
    if (!topo || s < 0 || s >= (int)topo->t->switches.size()) return nullptr;
    return topo->t->nodes[topo->t->switches[s]].name.c_str();
}

int pm_topology_host_switch(const pm_topology_t *topo, int h)
{
    if (!topo || h < 0 || h >= (int)topo->t->hosts.size()) return PM_ERR_ARG;
    const Topology &t = *topo->t;
    int s = t.host_switch(t.hosts[h]);
    /* switches are listed in increasing node id */
    auto it = std::lower_bound(t.switches.begin(), t.switches.end(), s);
    if (s < 0 || it == t.switches.end() || *it != s) return PM_ERR_UNSUPPORTED;
    return (int)(it - t.switches.begin());
}

int pm_link_ports(const pm_topology_t *topo, int dl, int *from_port, int *to_port)
{
    if (!topo || dl < 0 || dl >= 2 * (int)topo->t->links.size()) return PM_ERR_ARG;
    if (from_port) *from_port = dlink_port(*topo->t, dl);
    if (to_port) *to_port = dlink_port(*topo->t, dl ^ 1);
    return PM_OK;
}

/* ------------------------------------------------------------------ POC */
int pm_poc_find(const pm_topology_t *topo, int src, int ndst, const int *dsts, pm_poc_t **out, char *errbuf,
                size_t errlen)
{
    if (!topo || !out) return PM_ERR_ARG;
    *out = nullptr;
    PM_GUARD(errbuf, errlen, {
        const Topology &t = *topo->t;
        std::vector<int> d = host_nodes(t, ndst, dsts);
        Poc p = poc_find(t, host_node(t, src), d);
        Index ix(t);
        pm_poc_t *c = alloc_n<pm_poc_t>(1);
        try {
            size_t S = t.switches.size();
            c->nswitches = (int)S;
            c->ndfs = (int)p.dfs.size();
            c->dfs = alloc_n<int>(p.dfs.size());
            for (size_t i = 0; i < p.dfs.size(); ++i) c->dfs[i] = ix.sw_idx[p.dfs[i]];
            to_csr(t, ix, p.T, &c->t_off, &c->t_adj);
            to_csr(t, ix, p.Tp, &c->tp_off, &c->tp_adj);
            c->rho = alloc_n<int>(S);
            c->weight = alloc_n<int>(S);
            for (size_t i = 0; i < S; ++i) {
                c->rho[i] = p.rho[t.switches[i]];
                c->weight[i] = p.weight[t.switches[i]];
            }
            size_t total = 0;
            for (auto &ch : p.chains) total += ch.size();
            c->nchains = (int)p.chains.size();
            c->chain_off = alloc_n<int>(p.chains.size() + 1);
            c->chains = alloc_n<int>(total);
            size_t k = 0;
            for (size_t i = 0; i < p.chains.size(); ++i) {
                c->chain_off[i] = (int)k;
                for (int s : p.chains[i]) c->chains[k++] = ix.sw_idx[s];
            }
            c->chain_off[p.chains.size()] = (int)k;
        } catch (...) {
            pm_poc_free(c);
            throw;
        }
        *out = c;
        return PM_OK;
    })
}

void pm_poc_free(pm_poc_t *p)
{
    if (!p) return;
    free(p->dfs);
    free(p->t_off);
    free(p->t_adj);
    free(p->rho);
    free(p->tp_off);
    free(p->tp_adj);
    free(p->weight);
    free(p->chain_off);
    free(p->chains);
    free(p);
}

/* ------------------------------------------------------------------ plans */
int pm_mcast_plan(const pm_topology_t *topo, pm_worm_kind_t kind, pm_phase_alg_t alg, int src, int ndst,
                  const int *dsts, pm_mcast_plan_t **out, char *errbuf, size_t errlen)
{
    if (!topo || !out) return PM_ERR_ARG;
    *out = nullptr;
    PM_GUARD(errbuf, errlen, {
        const Topology &t = *topo->t;
        Plan p = make_plan(t, kind, alg, host_node(t, src), host_nodes(t, ndst, dsts));
        *out = to_c_plan(p, Index(t), true);
        return PM_OK;
    })
}

void pm_mcast_plan_free(pm_mcast_plan_t *p)
{
    if (!p) return;
    if (p->worms)
        for (int i = 0; i < p->nworms; ++i) {
            free(p->worms[i].dests);
            free(p->worms[i].switches);
        }
    free(p->worms);
    free(p);
}

char *pm_mcast_plan_describe(const pm_topology_t *topo, const pm_mcast_plan_t *p, int is_hosts)
{
    if (!topo || !p) return nullptr;
    try {
        const Topology &t = *topo->t;
        auto name = [&](int x) {
            if (!is_hosts) return "r" + std::to_string(x);
            return x >= 0 && x < (int)t.hosts.size() ? t.nodes[t.hosts[x]].name : std::string("?");
        };
        std::ostringstream os;
        for (int i = 0; i < p->nworms; ++i) {
            const pm_worm_t &w = p->worms[i];
            os << "phase " << w.phase << ": " << name(w.sender) << " ->";
            if (is_hosts) {
                /* destinations grouped by their switch, in drop order */
                for (int s = 0, d = 0; s < w.nswitches; ++s) {
                    const char *sn = pm_topology_switch_name(topo, w.switches[s]);
                    os << " " << (sn ? sn : "?") << "[";
                    for (int k = 0; d < w.ndests && pm_topology_host_switch(topo, w.dests[d]) == w.switches[s]; ++d, ++k)
                        os << (k ? " " : "") << name(w.dests[d]);
                    os << "]";
                }
            } else {
                for (int d = 0; d < w.ndests; ++d) os << " " << name(w.dests[d]);
                os << " via";
                for (int s = 0; s < w.nswitches; ++s) {
                    const char *sn = pm_topology_switch_name(topo, w.switches[s]);
                    os << " " << (sn ? sn : "?");
                }
            }
            os << "\n";
        }
        std::string s = os.str();
        char *buf = (char *)malloc(s.size() + 1);
        if (buf) memcpy(buf, s.c_str(), s.size() + 1);
        return buf;
    } catch (...) {
        return nullptr;
    }
}

/* ------------------------------------------------------------------ headers */
int pm_worm_encode(const pm_topology_t *topo, const pm_worm_t *w, uint8_t *buf, size_t cap, size_t *len)
{
    if (!topo || !w || !len || (cap > 0 && !buf)) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        const Topology &t = *topo->t;
        if (w->kind == PM_WORM_TREE) return copy_out(encode_tree(t, host_nodes(t, w->ndests, w->dests)), buf, cap, len);
        return copy_out(encode_drops(t, from_c_worm(t, w)), buf, cap, len);
    })
}

int pm_tree_header_encode(const pm_topology_t *topo, int ndst, const int *dsts, uint8_t *buf, size_t cap,
                          size_t *len)
{
    if (!topo || !len || (cap > 0 && !buf)) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        const Topology &t = *topo->t;
        return copy_out(encode_tree(t, host_nodes(t, ndst, dsts)), buf, cap, len);
    })
}

int pm_reach_build(const pm_topology_t *topo, pm_reach_t **out)
{
    if (!topo || !out) return PM_ERR_ARG;
    *out = nullptr;
    PM_GUARD(nullptr, 0, {
        if (topo->t->kind != PM_TOPO_GRAPH) return PM_ERR_UNSUPPORTED;
        pm_reach_t *r = new pm_reach_t;
        r->t = topo->t.get();
        r->r = reach_build(*topo->t);
        *out = r;
        return PM_OK;
    })
}

void pm_reach_free(pm_reach_t *r) { delete r; }
size_t pm_reach_bytes(const pm_reach_t *r) { return r ? r->r.nbytes : 0; }

static int reach_copy(const pm_reach_t *r, int sw, int port, int which, uint8_t *bits)
{
    if (!r || !bits || sw < 0 || sw >= (int)r->t->switches.size()) return PM_ERR_ARG;
    int s = r->t->switches[sw];
    const Bits *b = &r->r.total[s];
    if (which) {
        if (port < 0 || port >= (int)r->t->nodes[s].ports.size()) return PM_ERR_ARG;
        b = which == 1 ? &r->r.restr[s][port] : &r->r.full[s][port];
    }
    if (!b->empty()) memcpy(bits, b->data(), b->size());
    return PM_OK;
}
int pm_reach_total(const pm_reach_t *r, int sw, uint8_t *bits) { return reach_copy(r, sw, 0, 0, bits); }
int pm_reach_port(const pm_reach_t *r, int sw, int port, uint8_t *bits) { return reach_copy(r, sw, port, 1, bits); }
int pm_reach_port_full(const pm_reach_t *r, int sw, int port, uint8_t *bits) { return reach_copy(r, sw, port, 2, bits); }

int pm_worm_decode(const pm_topology_t *topo, const pm_reach_t *reach, int sw, int in_dlink, const uint8_t *hdr,
                   size_t len, int modify, pm_decode_out_t *outs, int maxouts, int *nouts, uint8_t *hdrbuf,
                   size_t hdrcap)
{
    if (!topo || !hdr || !nouts || (maxouts > 0 && !outs) || (hdrcap > 0 && !hdrbuf)) return PM_ERR_ARG;
    if (reach && reach->t != topo->t.get()) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        const Topology &t = *topo->t;
        int s = sw_node(t, sw);
        if (in_dlink < -1 || in_dlink >= 2 * (int)t.links.size() || (in_dlink >= 0 && t.other_end(in_dlink) != s))
            return PM_ERR_ARG;
        Router r(t);
        std::vector<Out> o;
        decode(t, r, reach ? &reach->r : nullptr, s, in_dlink, std::vector<uint8_t>(hdr, hdr + len), modify != 0, o);
        *nouts = (int)o.size();
        size_t need = 0;
        for (auto &x : o) need += x.hdr.size();
        if ((int)o.size() > maxouts || need > hdrcap) return PM_ERR_ARG;
        Index ix(t);
        size_t off = 0;
        for (size_t i = 0; i < o.size(); ++i) {
            outs[i].dlink = o[i].dlink;
            outs[i].port = o[i].port;
            outs[i].to_host = o[i].host >= 0 ? ix.host_idx[o[i].host] : -1;
            outs[i].hdr_off = off;
            outs[i].hdr_len = o[i].hdr.size();
            if (!o[i].hdr.empty()) memcpy(hdrbuf + off, o[i].hdr.data(), o[i].hdr.size());
            off += o[i].hdr.size();
        }
        return PM_OK;
    })
}

int pm_worm_trace(const pm_topology_t *topo, const pm_reach_t *reach, int src, const uint8_t *hdr, size_t len,
                  int modify, int *copies, int *links, int maxlinks, int *nlinks)
{
    if (!topo || !hdr || !copies || !nlinks || (maxlinks > 0 && !links)) return PM_ERR_ARG;
    if (reach && reach->t != topo->t.get()) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        const Topology &t = *topo->t;
        Router r(t);
        Trace tr = trace(t, r, reach ? &reach->r : nullptr, host_node(t, src), std::vector<uint8_t>(hdr, hdr + len),
                         modify != 0);
        Index ix(t);
        std::fill(copies, copies + t.hosts.size(), 0);
        for (int h : tr.delivered) ++copies[ix.host_idx[h]];
        std::vector<int> l{tr.inject};
        for (auto &h : tr.hops) l.insert(l.end(), h.out.begin(), h.out.end());
        *nlinks = (int)l.size();
        if ((int)l.size() > maxlinks) return links ? PM_ERR_ARG : PM_OK;
        std::copy(l.begin(), l.end(), links);
        return PM_OK;
    })
}

/* ------------------------------------------------------------------ checks */
int pm_mcast_plan_check(const pm_topology_t *topo, const pm_mcast_plan_t *p, int src, int ndst, const int *dsts,
                        pm_plan_check_t *rep, char *errbuf, size_t errlen)
{
    if (!topo || !p || !rep || p->nworms < 0 || (p->nworms > 0 && !p->worms)) return PM_ERR_ARG;
    PM_GUARD(errbuf, errlen, {
        const Topology &t = *topo->t;
        Plan q;
        q.kind = p->kind;
        q.alg = p->alg;
        q.source = host_node(t, src);
        q.nphases = p->nphases;
        for (int i = 0; i < p->nworms; ++i) {
            Worm w = from_c_worm(t, &p->worms[i]);
            w.phase = p->worms[i].phase;
            w.sender = host_node(t, p->worms[i].sender);
            q.worms.push_back(w);
        }
        PlanCheck c = check_plan(t, q, q.source, host_nodes(t, ndst, dsts));
        rep->missing = c.missing;
        rep->duplicates = c.duplicates;
        rep->strays = c.strays;
        rep->not_ready = c.not_ready;
        rep->illegal_routes = c.illegal;
        rep->cyclic_phases = c.cyclic;
        return PM_OK;
    })
}

int pm_route_is_updown(const pm_topology_t *topo, const int *links, int n)
{
    if (!topo || n < 0 || (n > 0 && !links)) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        const Topology &t = *topo->t;
        bool down = false;
        for (int i = 0; i < n; ++i) {
            if (links[i] < 0 || links[i] >= 2 * (int)t.links.size()) return PM_ERR_ARG;
            if (t.nodes[t.from_end(links[i])].is_host || t.nodes[t.other_end(links[i])].is_host) continue;
            bool up = updown_is_up(t, links[i]);
            if (up && down) return 0;
            down = down || !up;
        }
        return 1;
    })
}

int pm_worms_cyclic(const pm_topology_t *topo, const pm_reach_t *reach, int nworms, const int *srcs,
                    const uint8_t *const *hdrs, const size_t *lens)
{
    if (!topo || nworms < 0 || (nworms > 0 && (!srcs || !hdrs || !lens))) return PM_ERR_ARG;
    if (reach && reach->t != topo->t.get()) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        const Topology &t = *topo->t;
        Router r(t);
        std::vector<Trace> tr;
        for (int i = 0; i < nworms; ++i)
            tr.push_back(trace(t, r, reach ? &reach->r : nullptr, host_node(t, srcs[i]),
                               std::vector<uint8_t>(hdrs[i], hdrs[i] + lens[i]), true));
        std::vector<const Trace *> v;
        for (auto &x : tr) v.push_back(&x);
        return traces_cyclic(t, v) ? 1 : 0;
    })
}

/* ------------------------------------------------------------------ rendering */
void pm_pathlg_params_default(pm_pathlg_params_t *p)
{
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->kind = PM_WORM_PATH;
    p->alg = PM_PHASE_LESS_GREEDY;
    p->model.alpha_us = 2.0;
    p->model.beta_ns_per_byte = 0.1;
}

int pm_pathlg_render(const pm_topology_t *topo, int n, const char *const *hosts, int root,
                     const pm_pathlg_params_t *params, pm_pathlg_result_t *out, char *errbuf, size_t errlen)
{
    if (!topo || n < 1 || !hosts || root < 0 || root >= n || !params || !out) return PM_ERR_ARG;
    memset(out, 0, sizeof *out);
    PM_GUARD(errbuf, errlen, {
        const Topology &t = *topo->t;
        std::vector<int> ids;
        host_ids(t, n, hosts, ids);
        Render r = pathlg_render(t, ids, root, *params);
        out->plan = to_c_plan(r.plan, Index(t), false);
        out->tree = to_kb(r.tree);
        if (!out->tree) {
            pm_mcast_plan_free(out->plan);
            out->plan = nullptr;
            return PM_ERR_NOMEM;
        }
        out->seg_bytes = r.seg_bytes;
        out->steps = r.steps;
        out->predicted_us = r.predicted_us;
        out->conflicts = r.conflicts;
        return PM_OK;
    })
}

void pm_pathlg_result_free(pm_pathlg_result_t *out)
{
    if (!out) return;
    pm_tree_free(out->tree);
    pm_mcast_plan_free(out->plan);
    out->tree = nullptr;
    out->plan = nullptr;
}

}  /* extern "C" */
