/*
 * Flit-level wormhole/cut-through network simulator with smart NIs (model in
 * pm_wsim.h): NI-based k-binomial FPFS, path-based (LG/Greedy, SSR or
 * multi-drop) and tree-based multicast on the same irregular network.
 *
 *   Network: cycle-stepped; each directed link has an output buffer at its
 *   tail and (into a switch) an input FIFO at its head.  Per cycle: links
 *   move the ready head flit of each output buffer if the input buffer has
 *   room; routed head packets request their outputs, free outputs are granted
 *   FCFS, granted outputs read one flit each through the crossbar.
 *   Hosts: event-driven processor, I/O bus and NI servers; idle network time
 *   is skipped to the next event.
 * Cost model (seed 001 sec. 6.2): a unicast packet costs t_hs + DMA + t_ns +
 *   t_link + h (t_route + t_xbar + t_link) + L - 1 + t_nr + DMA + t_hr cycles
 *   on an idle network (tests/unit/test_pm_wsim.c checks it per worm).
 * Paper: seed 001 sec. 3.4, 4.3 (FPFS NI forwarding), 5 (worms), 6.2.
 *
 *   host --inj--> [IB|xbar|OB] --link--> [IB|xbar|OB] --ej--> host
 *          t_link   t_route t_xbar  t_link                t_link
 *   NI: t_ns per packet out, t_nr per packet in; bus: DMA per packet;
 *   CPU: t_hs per message out, t_hr per message in.
 *   Step NI model (ni_step = 1, the seed's sec. 4 abstraction): an NI sends
 *   one packet per step and a step ends when the packet's receivers have
 *   processed it: t_ns + network + t_nr; receive processing has its own engine.
 */
#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <unordered_map>

#include "topo/pm_capi.h"
#include "topo/pm_worms.hpp"
#include "pm_wsim.h"

namespace pm {
namespace {

using Time = int64_t;

struct Mcast;

/* Step NI model: the sending host whose NI waits for `left` receivers. */
struct Ack {
    int host;
    int left;
};

/* What a flit carries: its packet and where the packet is in its route. */
struct Ref {
    Mcast *mc;
    int pkt;
    const Trace *rt;
    int hop;     /* hop index at the switch the flit is heading to; -1 = a host */
    int L;
    Ack *ack;    /* step NI model only */
};

struct Flit {
    Ref ref;
    int idx;
    Time ready;
};

/* A packet in a switch input buffer. */
struct Pkt {
    Ref ref;
    std::vector<Time> arr;   /* arrival cycle of each flit so far */
    Time route_ready = 0;
    bool requested = false;
    int freed = 0;
    struct O {
        int dl;
        int next;
        int read = 0;
        bool granted = false;
    };
    std::vector<O> outs;
};

struct Port {                /* one directed link */
    bool from_host = false, to_host = false;
    int to = -1;             /* node at the head */
    std::deque<Flit> ob;     /* output buffer (switch tails) */
    Pkt *owner = nullptr;
    std::deque<std::pair<Pkt *, int>> waiting;
    std::deque<std::pair<Ref, Time>> inj;   /* NI tails: packets handed over, time */
    int inj_idx = 0;
    std::deque<Pkt *> ib;    /* input FIFO (switch heads) */
    int occ = 0;
};

struct Server {
    Time free_at = 0;
    Time run(Time req, Time dur)
    {
        free_at = std::max(req, free_at) + dur;
        return free_at;
    }
};

struct HostRes {
    Server cpu, bus, ni;
    Server rx;                                /* step NI model: receive processing */
    std::deque<Ref> txq;                      /* step NI model: packets waiting to be sent */
    bool tx_busy = false;
};

struct Mcast {
    int scheme = 0;
    Time t0 = 0;
    bool measured = false;
    std::vector<int> members;                 /* host node ids, [0] = source */
    std::unordered_map<int, int> pos;
    std::vector<int> ni_pkts, host_pkts;
    std::vector<Time> done;
    int remaining = 0;
    Time finished = -1;
    /* NI-based */
    std::vector<std::vector<int>> children;   /* member -> members */
    std::vector<std::vector<Trace>> child_rt;
    /* worm schemes */
    std::vector<std::vector<int>> worms_of;   /* member -> worm indices in send order */
    std::vector<Trace> worm_rt;
    int phases = 0;
    /* single worm probe */
    std::vector<Time> ni_arrival;             /* per host node id (probe only) */
};

struct Event {
    Time t;
    uint64_t seq;
    std::function<void()> f;
    bool operator>(const Event &o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

}  // namespace

class WSim {
  public:
    WSim(const Topology &t, const pm_wsim_params_t &p) : t_(t), p_(p), router_(t), reach_(reach_build(t))
    {
        ports_.resize(2 * t.links.size());
        for (size_t dl = 0; dl < ports_.size(); ++dl) {
            ports_[dl].from_host = t.nodes[t.from_end((int)dl)].is_host;
            ports_[dl].to_host = t.nodes[t.other_end((int)dl)].is_host;
            ports_[dl].to = t.other_end((int)dl);
        }
        host_.resize(t.nodes.size());
    }
    ~WSim() { clear_network(); }

    const Topology &topo() const { return t_; }
    const pm_wsim_params_t &params() const { return p_; }

    /* ---------------------------------------------------------------- setup */
    std::unique_ptr<Mcast> make(pm_wsim_scheme_t scheme, int src, const std::vector<int> &dsts)
    {
        auto mc = members(scheme, src, dsts);
        size_t n = mc->members.size();
        if (n == 1) return mc;
        if (scheme == PM_WSIM_NI_KBINOMIAL) {
            std::vector<int> ord = order_hosts(t_, PM_ORDER_POC, mc->members, 0);
            int k = p_.k > 0 ? p_.k : kb_optimal_k((int)n, packets());
            kb_tree_params_t tp = {k, 1.0};
            kb_tree_t *kt = nullptr;
            if (kb_tree_build(KB_SHAPE_KBINOMIAL, (int)n, 0, ord.data(), &tp, &kt) != KB_OK)
                throw ArgError(PM_ERR_INTERNAL, "k-binomial tree");
            mc->children.assign(n, {});
            mc->child_rt.assign(n, {});
            for (size_t v = 0; v < n; ++v)
                for (int j = kt->child_off[v]; j < kt->child_off[v + 1]; ++j) {
                    int c = kt->children[j];
                    mc->children[v].push_back(c);
                    mc->child_rt[v].push_back(unicast_trace(mc->members[v], mc->members[c]));
                }
            mc->phases = kt->depth;
            kb_tree_free(kt);
        } else if (scheme == PM_WSIM_TREE) {
            mc->worms_of.assign(n, {});
            mc->worms_of[0].push_back(0);
            mc->worm_rt.push_back(trace(t_, router_, &reach_, src, encode_tree(t_, dsts), true));
            mc->phases = 1;
        } else {
            pm_worm_kind_t kind = scheme == PM_WSIM_SSR_LG ? PM_WORM_SSR : PM_WORM_PATH;
            pm_phase_alg_t alg = scheme == PM_WSIM_PATH_GREEDY ? PM_PHASE_GREEDY : PM_PHASE_LESS_GREEDY;
            Plan plan = make_plan(t_, kind, alg, src, dsts);
            mc->worms_of.assign(n, {});
            for (size_t w = 0; w < plan.worms.size(); ++w) {
                mc->worms_of[mc->pos.at(plan.worms[w].sender)].push_back((int)w);
                mc->worm_rt.push_back(trace(t_, router_, nullptr, plan.worms[w].sender,
                                            encode_drops(t_, plan.worms[w]), true));
            }
            mc->phases = plan.nphases;
        }
        return mc;
    }

    /* a worm from an explicit header (probe) */
    std::unique_ptr<Mcast> make_probe(int src, const std::vector<uint8_t> &hdr)
    {
        Trace tr = trace(t_, router_, (hdr.size() && (hdr[0] & HDR_TREE)) ? &reach_ : nullptr, src, hdr, true);
        std::vector<int> got;
        for (int h : tr.delivered)
            if (h != src && std::find(got.begin(), got.end(), h) == got.end()) got.push_back(h);
        auto mc = members(PM_WSIM_TREE, src, got);
        mc->worm_rt.push_back(std::move(tr));
        mc->worms_of.assign(mc->members.size(), {});
        mc->worms_of[0].push_back(0);
        mc->ni_arrival.assign(t_.nodes.size(), -1);
        return mc;
    }

    static std::unique_ptr<Mcast> members(int scheme, int src, const std::vector<int> &dsts)
    {
        auto mc = std::make_unique<Mcast>();
        mc->scheme = scheme;
        mc->members.push_back(src);
        mc->members.insert(mc->members.end(), dsts.begin(), dsts.end());
        size_t n = mc->members.size();
        for (size_t i = 0; i < n; ++i) mc->pos[mc->members[i]] = (int)i;
        mc->ni_pkts.assign(n, 0);
        mc->host_pkts.assign(n, 0);
        mc->done.assign(n, -1);
        mc->remaining = (int)n - 1;
        return mc;
    }

    int packets() const { return (p_.message_flits + p_.packet_flits - 1) / p_.packet_flits; }
    int packet_len(int k) const { return std::min(p_.packet_flits, p_.message_flits - k * p_.packet_flits); }
    Time dma(int L) const { return (Time)std::ceil((double)L * p_.flit_bytes / p_.bus_bytes_per_cycle - 1e-9); }

    /* ---------------------------------------------------------------- start */
    void start(Mcast *mc, Time t)
    {
        mc->t0 = t;
        if (mc->remaining == 0) {
            mc->finished = t;
            return;
        }
        int src = mc->members[0];
        if (mc->scheme == PM_WSIM_NI_KBINOMIAL) {
            int P = packets();
            at(host_[src].cpu.run(t, p_.t_hs), [=] {
                for (int k = 0; k < P; ++k)
                    at(host_[src].bus.run(now_, dma(packet_len(k))), [=] { ni_forward(mc, 0, k); });
            });
        } else {
            send_worms(mc, 0, t);
        }
    }

    /* ---------------------------------------------------------------- run */
    /* run until no event is left and the network is empty, or until `until` */
    void run(Time until)
    {
        for (;;) {
            if (!active()) {
                if (ev_.empty()) return;
                now_ = std::max(now_, ev_.top().t);
            }
            if (now_ > until) return;
            while (!ev_.empty() && ev_.top().t <= now_) {
                Event e = ev_.top();
                ev_.pop();
                e.f();
            }
            if (active()) {
                long moved = flit_hops_ + crossed_;
                cycle(now_);
                stalled_ = flit_hops_ + crossed_ == moved ? stalled_ + 1 : 0;
                if (stalled_ > 100000) throw ArgError(PM_ERR_INTERNAL, "network deadlock: no flit moved for 100000 cycles");
            }
            ++now_;
        }
    }

    Time now() const { return now_; }
    long flit_hops() const { return flit_hops_; }
    void at(Time t, std::function<void()> f) { ev_.push(Event{t, seq_++, std::move(f)}); }
    std::function<void(Mcast *)> on_finish;

    void reset()
    {
        clear_network();
        while (!ev_.empty()) ev_.pop();
        for (auto &h : host_) h = HostRes();
        acks_.clear();
        now_ = 0;
        flit_hops_ = crossed_ = stalled_ = 0;
    }

  private:
    const Topology &t_;
    pm_wsim_params_t p_;
    Router router_;
    Reach reach_;
    std::vector<Port> ports_;
    std::vector<HostRes> host_;
    std::deque<Ack> acks_;                    /* step NI model; stable addresses */
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> ev_;
    uint64_t seq_ = 0;
    Time now_ = 0;
    long pkts_ = 0, obflits_ = 0, injpk_ = 0;
    long flit_hops_ = 0, crossed_ = 0, stalled_ = 0;

    bool active() const { return pkts_ > 0 || obflits_ > 0 || injpk_ > 0; }

    void clear_network()
    {
        for (Port &p : ports_) {
            for (Pkt *k : p.ib) delete k;
            Port fresh;
            fresh.from_host = p.from_host;
            fresh.to_host = p.to_host;
            fresh.to = p.to;
            p = std::move(fresh);
        }
        pkts_ = obflits_ = injpk_ = 0;
    }

    Trace unicast_trace(int src, int dst)
    {
        std::vector<int> links;
        route(t_, PM_ROUTE_UPDOWN, src, dst, links);
        Trace tr;
        tr.src = src;
        tr.inject = links[0];
        for (size_t i = 1; i < links.size(); ++i) {
            bool last = i + 1 == links.size();
            tr.hops.push_back(Trace::Hop{t_.other_end(links[i - 1]), links[i - 1], false, {links[i]},
                                         {last ? -1 : (int)i}});
        }
        tr.delivered.push_back(dst);
        return tr;
    }

    /* NI of member v has packet k (from its host or the network): FPFS copies */
    void ni_forward(Mcast *mc, int v, int k)
    {
        int h = mc->members[v];
        for (size_t c = 0; c < mc->children[v].size(); ++c) {
            const Trace *rt = &mc->child_rt[v][c];
            ni_send(h, Ref{mc, k, rt, 0, packet_len(k), nullptr});
        }
    }

    /* The NI sends a packet: t_ns, then injection.  Step model: one packet
     * per step, the NI waits until every receiver has processed it (t_nr). */
    void ni_send(int h, Ref r)
    {
        if (!p_.ni_step) {
            at(host_[h].ni.run(now_, p_.t_ns), [=] { inject(h, r); });
            return;
        }
        host_[h].txq.push_back(r);
        tx_next(h);
    }

    void tx_next(int h)
    {
        HostRes &H = host_[h];
        if (H.tx_busy || H.txq.empty()) return;
        Ref r = H.txq.front();
        H.txq.pop_front();
        H.tx_busy = true;
        acks_.push_back(Ack{h, (int)r.rt->delivered.size()});
        r.ack = &acks_.back();
        at(now_ + p_.t_ns, [=] { inject(h, r); });
    }

    void acked(Ack *a)
    {
        if (!a || --a->left > 0) return;
        int h = a->host;
        host_[h].tx_busy = false;
        tx_next(h);
    }

    /* member v's host sends each of its worms as a message: t_hs, DMA, t_ns per packet */
    void send_worms(Mcast *mc, int v, Time t)
    {
        int h = mc->members[v], P = packets();
        for (int w : mc->worms_of[v]) {
            const Trace *rt = &mc->worm_rt[w];
            at(host_[h].cpu.run(t, p_.t_hs), [=] {
                for (int k = 0; k < P; ++k)
                    at(host_[h].bus.run(now_, dma(packet_len(k))), [=] {
                        ni_send(h, Ref{mc, k, rt, 0, packet_len(k), nullptr});
                    });
            });
        }
    }

    void inject(int host, Ref r)
    {
        for (int l : t_.nodes[host].ports)
            if (l >= 0) {
                int dl = t_.links[l].a == host ? 2 * l : 2 * l + 1;
                ports_[dl].inj.emplace_back(r, now_);
                ++injpk_;
                return;
            }
    }

    /* last flit of packet k reached host h's NI */
    void ni_receive(Mcast *mc, int h, int k, Ack *ack)
    {
        auto it = mc->pos.find(h);
        bool member = it != mc->pos.end() && it->second > 0;
        int v = member ? it->second : 0;
        if (member && !mc->ni_arrival.empty() && mc->ni_arrival[h] < 0) mc->ni_arrival[h] = now_;
        bool use = member && ++mc->ni_pkts[v] <= packets();   /* strays and duplicates are dropped */
        if (!use) {
            if (ack) at(host_[h].rx.run(now_, p_.t_nr), [=] { acked(ack); });
            return;
        }
        int P = packets();
        Server &proc = p_.ni_step ? host_[h].rx : host_[h].ni;
        at(proc.run(now_, p_.t_nr), [=] {
            acked(ack);
            if (mc->scheme == PM_WSIM_NI_KBINOMIAL) ni_forward(mc, v, k);
            at(host_[h].bus.run(now_, dma(packet_len(k))), [=] {
                if (++mc->host_pkts[v] < P) return;
                at(host_[h].cpu.run(now_, p_.t_hr), [=] {
                    mc->done[v] = now_;
                    if (mc->scheme != PM_WSIM_NI_KBINOMIAL && v < (int)mc->worms_of.size()) send_worms(mc, v, now_);
                    if (--mc->remaining == 0) {
                        mc->finished = now_;
                        if (on_finish) on_finish(mc);
                    }
                });
            });
        });
    }

    /* ---------------------------------------------------------------- network */
    void cycle(Time c)
    {
        /* links */
        for (size_t dl = 0; dl < ports_.size(); ++dl) {
            Port &P = ports_[dl];
            if (P.from_host) {
                if (P.inj.empty() || P.inj.front().second > c || P.occ >= p_.in_buf_flits) continue;
                Ref r = P.inj.front().first;
                arrive((int)dl, Flit{r, P.inj_idx, c}, c + p_.t_link);
                if (++P.inj_idx == r.L) {
                    P.inj.pop_front();
                    P.inj_idx = 0;
                    --injpk_;
                }
            } else if (!P.ob.empty() && P.ob.front().ready <= c && (P.to_host || P.occ < p_.in_buf_flits)) {
                Flit f = P.ob.front();
                P.ob.pop_front();
                --obflits_;
                arrive((int)dl, f, c + p_.t_link);
            }
        }
        /* routing requests, grants, crossbar */
        for (Port &P : ports_) {
            if (P.to_host || P.ib.empty()) continue;
            Pkt *k = P.ib.front();
            if (!k->requested && !k->arr.empty() && c >= k->route_ready) {
                k->requested = true;
                for (size_t i = 0; i < k->outs.size(); ++i) ports_[k->outs[i].dl].waiting.emplace_back(k, (int)i);
            }
        }
        for (Port &O : ports_) {
            if (O.owner || O.waiting.empty()) continue;
            auto [k, i] = O.waiting.front();
            O.waiting.pop_front();
            O.owner = k;
            k->outs[i].granted = true;
        }
        for (Port &P : ports_) {
            if (P.to_host || P.ib.empty()) continue;
            Pkt *k = P.ib.front();
            int L = k->ref.L, low = L;
            for (Pkt::O &o : k->outs) {
                Port &O = ports_[o.dl];
                if (o.granted && o.read < L && o.read < (int)k->arr.size() && k->arr[o.read] <= c &&
                    buffered(O, c) < p_.out_buf_flits) {
                    Ref r = k->ref;
                    r.hop = o.next;
                    O.ob.push_back(Flit{r, o.read, c + p_.t_xbar});
                    ++obflits_;
                    ++crossed_;
                    if (++o.read == L) O.owner = nullptr;
                }
                low = std::min(low, o.read);
            }
            P.occ -= low - k->freed;
            k->freed = low;
            if (low == L) {
                P.ib.pop_front();
                delete k;
                --pkts_;
            }
        }
    }

    /* flits in an output buffer, not counting those still in the (pipelined) crossbar */
    static int buffered(const Port &O, Time c)
    {
        int n = (int)O.ob.size();
        for (auto it = O.ob.rbegin(); it != O.ob.rend() && it->ready > c; ++it) --n;
        return n;
    }

    void arrive(int dl, const Flit &f, Time a)
    {
        Port &P = ports_[dl];
        ++flit_hops_;
        if (P.to_host) {
            if (f.idx == f.ref.L - 1) {
                Mcast *mc = f.ref.mc;
                int h = P.to, k = f.ref.pkt;
                Ack *ack = f.ref.ack;
                at(a, [=] { ni_receive(mc, h, k, ack); });
            }
            return;
        }
        ++P.occ;
        if (f.idx == 0) {
            Pkt *k = new Pkt;
            k->ref = f.ref;
            const Trace::Hop &hop = f.ref.rt->hops[f.ref.hop];
            for (size_t i = 0; i < hop.out.size(); ++i) k->outs.push_back(Pkt::O{hop.out[i], hop.next[i]});
            k->route_ready = a + p_.t_route;
            k->arr.push_back(a);
            P.ib.push_back(k);
            ++pkts_;
        } else {
            P.ib.back()->arr.push_back(a);
        }
    }
};

}  // namespace pm

using namespace pm;

struct pm_wsim {
    std::unique_ptr<WSim> s;
};

namespace {
uint64_t splitmix(uint64_t &s)
{
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
double uniform01(uint64_t &s) { return ((splitmix(s) >> 11) + 0.5) / 9007199254740992.0; }

bool scheme_ok(int s) { return s >= 0 && s < PM_WSIM_NSCHEMES; }
}  // namespace

extern "C" {

const char *pm_wsim_scheme_name(pm_wsim_scheme_t s)
{
    static const char *names[PM_WSIM_NSCHEMES] = {"ni-kbinomial", "path-lg", "tree", "path-greedy", "ssr-lg"};
    return scheme_ok(s) ? names[s] : nullptr;
}

void pm_wsim_params_default(pm_wsim_params_t *p)
{
    if (!p) return;
    p->packet_flits = 128;
    p->message_flits = 128;
    p->flit_bytes = 1;
    p->t_hs = p->t_hr = 1000;
    p->t_ns = p->t_nr = 1000;
    p->bus_bytes_per_cycle = 266e6 * 5e-9;
    p->in_buf_flits = 640;
    p->out_buf_flits = 8;
    p->t_route = p->t_xbar = p->t_link = 1;
    p->k = 0;
    p->ni_step = 0;
}

int pm_wsim_create(const pm_topology_t *topo, const pm_wsim_params_t *p, pm_wsim_t **out, char *errbuf,
                   size_t errlen)
{
    if (!topo || !p || !out) return PM_ERR_ARG;
    *out = nullptr;
    if (p->packet_flits < 1 || p->message_flits < 1 || p->flit_bytes < 1 || p->t_hs < 0 || p->t_hr < 0 ||
        p->t_ns < 0 || p->t_nr < 0 || !(p->bus_bytes_per_cycle > 0) || p->in_buf_flits < p->packet_flits ||
        p->out_buf_flits < 1 || p->t_route < 1 || p->t_xbar < 1 || p->t_link < 1 || p->k < 0 ||
        (p->ni_step != 0 && p->ni_step != 1)) {
        set_err(errbuf, errlen, "bad simulator parameters (input buffers must hold a packet, latencies >= 1)");
        return PM_ERR_ARG;
    }
    PM_GUARD(errbuf, errlen, {
        if (topo->t->kind != PM_TOPO_GRAPH) throw ArgError(PM_ERR_UNSUPPORTED, "the simulator needs a switch graph");
        pm_wsim_t *w = new pm_wsim_t;
        w->s = std::make_unique<WSim>(*topo->t, *p);
        *out = w;
        return PM_OK;
    })
}

void pm_wsim_free(pm_wsim_t *sim) { delete sim; }

int pm_wsim_multicast(pm_wsim_t *sim, pm_wsim_scheme_t scheme, int src, int ndst, const int *dsts, long *done_at,
                      pm_wsim_result_t *res)
{
    if (!sim || !scheme_ok(scheme) || ndst < 0 || (ndst > 0 && !dsts) || !res) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        WSim &w = *sim->s;
        const Topology &t = w.topo();
        if (src < 0 || src >= (int)t.hosts.size()) return PM_ERR_ARG;
        std::vector<int> d(ndst);
        for (int i = 0; i < ndst; ++i) {
            if (dsts[i] < 0 || dsts[i] >= (int)t.hosts.size()) return PM_ERR_ARG;
            d[i] = t.hosts[dsts[i]];
        }
        w.reset();
        auto mc = w.make(scheme, t.hosts[src], d);
        w.start(mc.get(), 0);
        w.run(INT64_MAX);
        if (mc->finished < 0) throw ArgError(PM_ERR_INTERNAL, "multicast did not finish (deadlock?)");
        res->latency = (long)mc->finished;
        res->phases = mc->phases;
        res->flit_hops = w.flit_hops();
        int worms = 0;
        for (auto &c : mc->children) worms += (int)c.size();
        worms += (int)mc->worm_rt.size();
        res->worms = worms;
        if (done_at)
            for (int i = 0; i < ndst; ++i) done_at[i] = (long)mc->done[i + 1];
        return PM_OK;
    })
}

int pm_wsim_worm(pm_wsim_t *sim, int src, const uint8_t *hdr, size_t len, long *ni_arrival, long *host_done)
{
    if (!sim || !hdr || !ni_arrival || !host_done) return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        WSim &w = *sim->s;
        const Topology &t = w.topo();
        if (src < 0 || src >= (int)t.hosts.size()) return PM_ERR_ARG;
        if (w.params().message_flits != w.params().packet_flits) return PM_ERR_ARG;
        w.reset();
        auto mc = w.make_probe(t.hosts[src], std::vector<uint8_t>(hdr, hdr + len));
        w.start(mc.get(), 0);
        w.run(INT64_MAX);
        for (size_t h = 0; h < t.hosts.size(); ++h) {
            int node = t.hosts[h];
            auto it = mc->pos.find(node);
            ni_arrival[h] = (long)mc->ni_arrival[node];
            host_done[h] = it != mc->pos.end() && it->second > 0 ? (long)mc->done[it->second] : -1;
        }
        return PM_OK;
    })
}

int pm_wsim_run_load(pm_wsim_t *sim, pm_wsim_scheme_t scheme, const pm_wsim_load_t *ld, pm_wsim_load_result_t *res)
{
    if (!sim || !scheme_ok(scheme) || !ld || !res || ld->degree < 1 || !(ld->load > 0) || ld->warmup_cycles < 0 ||
        ld->measure_cycles < 1 || ld->drain_cycles < 0)
        return PM_ERR_ARG;
    PM_GUARD(nullptr, 0, {
        WSim &w = *sim->s;
        const Topology &t = w.topo();
        int H = (int)t.hosts.size();
        if (ld->degree > H - 1) return PM_ERR_ARG;
        w.reset();
        double rate = ld->load / ((double)ld->degree * w.params().message_flits);   /* multicasts per host per cycle */
        Time stop = ld->warmup_cycles + ld->measure_cycles;
        uint64_t rs = ld->seed;
        std::vector<std::unique_ptr<Mcast>> all;
        long measured = 0, finished = 0;
        double sum = 0;
        w.on_finish = [&](Mcast *mc) {
            if (mc->measured) {
                ++finished;
                sum += (double)(mc->finished - mc->t0);
            }
        };
        std::function<void(int)> gen = [&](int h) {
            Time tn = w.now();
            if (tn >= stop) return;
            std::vector<int> others;
            for (int x = 0; x < H; ++x)
                if (x != h) others.push_back(x);
            std::vector<int> d;
            for (int i = 0; i < ld->degree; ++i) {
                int j = i + (int)(splitmix(rs) % (uint64_t)(others.size() - i));
                std::swap(others[i], others[j]);
                d.push_back(t.hosts[others[i]]);
            }
            all.push_back(w.make(scheme, t.hosts[h], d));
            Mcast *mc = all.back().get();
            mc->measured = tn >= ld->warmup_cycles;
            measured += mc->measured;
            w.start(mc, tn);
            Time gap = (Time)std::llround(-std::log(uniform01(rs)) / rate);
            w.at(tn + std::max<Time>(gap, 1), [&gen, h] { gen(h); });
        };
        for (int h = 0; h < H; ++h) {
            Time first = (Time)std::llround(-std::log(uniform01(rs)) / rate);
            w.at(first, [&gen, h] { gen(h); });
        }
        w.run(stop + ld->drain_cycles);
        w.on_finish = nullptr;
        res->measured = measured;
        res->finished = finished;
        res->saturated = finished < measured;
        res->mean_latency = finished ? sum / (double)finished : 0;
        res->flit_hops = w.flit_hops();
        w.reset();
        return PM_OK;
    })
}

}  /* extern "C" */
