/*
 * The tree recurrence that predicts the engine on a tree (tree_time: segments, sends in
 * flight, receive window, locality, route latency, timed link sharing) and the flow-level
 * model of a tree sending whole eager messages on a network of shared links
 * (flow_tree_time).  Formulas: mcast_planner.h.
 */
#include "plan/plan_internal.hpp"
#include "plan/plan_routes.hpp"

#include <deque>
#include <queue>

namespace mcplan {


/* Processor sharing of one link (SimGrid's max-min fairness on a single bottleneck):
 * copies idx (ascending start times begin[i]) of w us each at the link's full rate share
 * it equally while together; done[i] = when copy i's last byte has left.  Virtual time V
 * (the service each copy on the link has had): a copy that starts at V0 is done at
 * V0 + w, so equal copies leave in the order they came; O(copies). */
void share_link(const std::vector<int> &idx, const std::vector<double> &begin, double w,
                std::vector<double> &done)
{
    std::deque<std::pair<double, int>> on; /* (virtual finish, copy) */
    double now = 0.0, V = 0.0;
    size_t next = 0;
    while (next < idx.size() || !on.empty()) {
        if (on.empty()) {
            now = std::max(now, begin[size_t(idx[next])]);
        }
        while (next < idx.size() && begin[size_t(idx[next])] <= now + 1e-12) {
            on.emplace_back(V + w, idx[next++]);
        }
        const double n = double(on.size());
        double dt = (on.front().first - V) * n;
        if (next < idx.size()) {
            dt = std::min(dt, begin[size_t(idx[next])] - now);
        }
        dt = std::max(dt, 0.0);
        now += dt;
        V += dt / n;
        while (!on.empty() && on.front().first <= V + 1e-12) {
            done[size_t(on.front().second)] = now;
            on.pop_front();
        }
    }
}

namespace {

struct Flow {
    int child;
    double weight, left, rate, cap; /* cap: the route's narrowest link */
    const std::vector<int> *route;
};

/* Weighted max-min fairness over the flows that share a link (the others run at their
 * route's narrowest link): the link with the least capacity per unit of weight fixes its
 * flows' rates, which leave the other links they use (progressive filling).  A link has
 * Routes::capacity links' capacity. */
class MaxMin {
public:
    explicit MaxMin(Routes &routes)
        : routes_(routes), count(size_t(std::max(1, routes.nlinks())), 0),
          cap_(count.size(), 0.0), wsum_(count.size(), 0.0), on_(count.size())
    {
    }
    double link_cap(int l) const { return routes_.capacity(l); }
    void share(std::vector<Flow> &flows, const std::vector<int> &active)
    {
        for (int l : used_) {
            on_[size_t(l)].clear();
        }
        used_.clear();
        contended_.clear();
        for (int f : active) {
            Flow &fl = flows[size_t(f)];
            if (alone(fl)) {
                fl.rate = fl.cap;
                continue;
            }
            for (int l : *fl.route) {
                if (on_[size_t(l)].empty()) {
                    used_.push_back(l);
                    cap_[size_t(l)] = link_cap(l);
                    wsum_[size_t(l)] = 0.0;
                }
                on_[size_t(l)].push_back(int(contended_.size()));
                wsum_[size_t(l)] += fl.weight;
            }
            contended_.push_back(f);
        }
        fill(flows);
    }

private:
    bool alone(const Flow &f) const
    {
        for (int l : *f.route) {
            if (count[size_t(l)] > 1) {
                return false;
            }
        }
        return true;
    }
    /* a link's level only rises as flows elsewhere are fixed below it: the heap keeps a
     * lower bound per link, and a link popped above its bound goes back in */
    void fill(std::vector<Flow> &flows)
    {
        using Level = std::pair<double, int>; /* capacity per unit of weight, link */
        fixed_.assign(contended_.size(), 0);
        heap_.clear();
        for (int l : used_) {
            heap_.push_back({cap_[size_t(l)] / wsum_[size_t(l)], l});
        }
        std::make_heap(heap_.begin(), heap_.end(), std::greater<Level>());
        while (!heap_.empty()) {
            std::pop_heap(heap_.begin(), heap_.end(), std::greater<Level>());
            const int l = heap_.back().second;
            const double bound = heap_.back().first;
            heap_.pop_back();
            if (wsum_[size_t(l)] <= 1e-12) {
                continue; /* every flow on it fixed */
            }
            const double level = cap_[size_t(l)] / wsum_[size_t(l)];
            if (level > bound * (1.0 + 1e-12) && !heap_.empty() && level > heap_.front().first) {
                heap_.push_back({level, l});
                std::push_heap(heap_.begin(), heap_.end(), std::greater<Level>());
                continue;
            }
            for (int i : on_[size_t(l)]) {
                if (fixed_[size_t(i)] != 0) {
                    continue;
                }
                Flow &fl = flows[size_t(contended_[size_t(i)])];
                fl.rate = std::max(level, 1e-9) * fl.weight; /* rounding never stalls a flow */
                fixed_[size_t(i)] = 1;
                for (int l2 : *fl.route) {
                    cap_[size_t(l2)] -= fl.rate;
                    wsum_[size_t(l2)] -= fl.weight;
                }
            }
            wsum_[size_t(l)] = 0.0;
        }
    }

    Routes &routes_;

public:
    std::vector<int> count; /* active flows per link */

private:
    std::vector<double> cap_, wsum_;
    std::vector<std::vector<int>> on_; /* contended flows per link */
    std::vector<int> used_, contended_;
    std::vector<char> fixed_;
    std::vector<std::pair<double, int>> heap_;
};

} // namespace

/* A tree sending the message whole, every copy eager, on a network whose messages are
 * flows, over a topology (header, "Shared flows"): a flow-level simulation of the tree,
 * SimGrid's CM02 model (perf/sim's platforms).  A rank's copies leave its CPU one after
 * the other, o_send each (sigma to a child on its own node: no flow); a copy's bytes start
 * to move after its route's latency, then every link of the route carries them, and the
 * flows on a link share it by weighted max-min fairness, each weighted by the inverse of
 * its route's latency (a short route gets more); a link carries Routes::capacity links'
 * worth (host_links, switch_links).  The child has the message when its last byte is in,
 * plus o_recv, and forwards it then.  Returns when the last rank has it and every rank has handed its last
 * copy over.  Event driven; the shares are recomputed (progressive filling, a heap of
 * the links' levels) only when a flow starts or ends on a link another flow uses. */
double flow_tree_time(const kb_tree_t *t, size_t S, const Locality &loc, const mcast_machine_t &mach,
                      RouteLatency &rl, Routes &routes)
{
    const int n = t->n;
    const double work = double(S) * mach.net.wire_ns_per_byte * 1e-3; /* us on a free link */
    const EdgeCost shm = edge_cost(mach.shm, S);
    const double rho = edge_cost(mach.net, S).rho;
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<Flow> flows;
    flows.reserve(size_t(n));
    using Start = std::pair<double, int>; /* bandwidth phase begins, flow */
    std::priority_queue<Start, std::vector<Start>, std::greater<Start>> starts;
    std::vector<double> a(size_t(n), 0.0);
    double finish = 0.0;
    std::vector<int> ready; /* ranks that have the message and send it */
    const auto link_cap = [&routes](int l) { return routes.capacity(l); };
    const auto send_all = [&](int u0) {
        ready.push_back(u0);
        while (!ready.empty()) {
            const int u = ready.back();
            ready.pop_back();
            double cpu = a[size_t(u)];
            for (int i = t->child_off[u]; i < t->child_off[u + 1]; ++i) {
                const int c = t->children[i];
                if (loc.local(u, c)) {
                    a[size_t(c)] = cpu + shm.delta;
                    cpu += shm.sigma;
                    ready.push_back(c);
                    continue;
                }
                cpu += mach.net.o_send_us;
                const double lat = rl.net_us(u, c);
                Flow f;
                f.child = c;
                f.weight = 1.0 / std::max(lat, 1e-3);
                f.left = work;
                f.rate = 0.0;
                f.route = &routes.charged(u, c);
                f.cap = inf;
                for (int l : *f.route) {
                    f.cap = std::min(f.cap, link_cap(l));
                }
                f.cap = std::isfinite(f.cap) ? f.cap : 1.0;
                flows.push_back(f);
                starts.push({cpu + lat, int(flows.size()) - 1});
            }
            finish = std::max(finish, std::max(cpu, a[size_t(u)]));
        }
    };
    send_all(t->root);
    MaxMin mm(routes);
    std::vector<int> &count = mm.count;
    std::vector<int> active;
    double now = 0.0;
    std::vector<int> done;
    while (!starts.empty() || !active.empty()) {
        double next_end = inf;
        for (int f : active) {
            next_end = std::min(next_end, now + flows[size_t(f)].left / flows[size_t(f)].rate);
        }
        const double to = std::min(next_end, starts.empty() ? inf : starts.top().first);
        for (int f : active) {
            flows[size_t(f)].left -= flows[size_t(f)].rate * (to - now);
        }
        now = to;
        bool reshare = false;
        /* flows done: their children have the message and send it */
        done.clear();
        for (size_t i = 0; i < active.size();) {
            const Flow &fl = flows[size_t(active[i])];
            if (fl.left <= work * 1e-9) {
                for (int l : *fl.route) {
                    reshare = reshare || count[size_t(l)] > 1;
                    --count[size_t(l)];
                }
                done.push_back(active[i]);
                active[i] = active.back();
                active.pop_back();
            } else {
                ++i;
            }
        }
        for (int f : done) {
            a[size_t(flows[size_t(f)].child)] = now + rho;
            send_all(flows[size_t(f)].child);
        }
        while (!starts.empty() && starts.top().first <= now) {
            const int f = starts.top().second;
            starts.pop();
            Flow &fl = flows[size_t(f)];
            for (int l : *fl.route) {
                reshare = reshare || count[size_t(l)] > 0;
                ++count[size_t(l)];
            }
            fl.rate = fl.cap;
            active.push_back(f);
        }
        if (reshare) {
            std::sort(active.begin(), active.end()); /* the same shares whatever the order */
            mm.share(flows, active);
        }
    }
    return finish;
}

namespace {

/* header, "Shared flows": a pipelined block sent while the one before is still on the
 * link shares it, and the fill's first blocks go down the tree in bursts: what a network
 * edge adds to a block's arrival (0 unless net.shared_flows and eager blocks). */
double pipeline_burst(const mcast_loggp_t &net, size_t S, double m, int window)
{
    if (net.shared_flows != 1 || m <= 1.0 || S > net.eager_bytes) {
        return 0.0;
    }
    const double bw = double(S) * net.wire_ns_per_byte * 1e-3;
    const double spacing = net.o_send_us + net.o_recv_us;
    const double W = std::max(1, window);
    /* at most the m - 1 blocks behind the first (evidence E-BURST-1) */
    return TREE_BURST * std::min({W - 1.0, spacing > 0.0 ? bw / spacing : W - 1.0, m - 1.0}) * bw;
}

/* header, "Shared flows", whole messages without a topology of switches (one switch, or
 * none known): u's copies to its children in order, each after the CPU's o_send (sigma
 * inside a node), the copies to other nodes sharing the host's link equally while
 * together (processor sharing: SimGrid's max-min on one bottleneck, every route alike);
 * st[i] = when copy i's send starts, fin[i] = when its last byte left.  With such a
 * topology the whole tree is flow_tree_time's. */
void shared_copies(const kb_tree_t *t, int u, size_t S, double start, const Locality &lc,
                   const mcast_machine_t &mc, const std::vector<EdgeCost> &e,
                   std::vector<double> &st, std::vector<double> &fin)
{
    const int first = t->child_off[u], k = t->child_off[u + 1] - first;
    const double w = double(S) * mc.net.wire_ns_per_byte * 1e-3;
    std::vector<double> begin(size_t(k), 0.0);
    fin.assign(size_t(k), 0.0);
    double cpu_t = start;
    std::vector<int> flows;
    for (int i = 0; i < k; ++i) {
        st[size_t(i)] = cpu_t;
        if (lc.local(u, t->children[first + i])) {
            cpu_t += e[size_t(i)].sigma;
            fin[size_t(i)] = cpu_t;
        } else {
            cpu_t += mc.net.o_send_us;
            begin[size_t(i)] = cpu_t;
            flows.push_back(i);
        }
    }
    share_link(flows, begin, w, fin);
}

} // namespace

/* The recurrence of mcast_planner.h.  max_sends_forced as in mcast_forced_t. */
double tree_time(const kb_tree_t *t, size_t M, size_t S, int max_sends_forced, int window,
                 const Locality &loc, const mcast_machine_t &mach, RouteLatency *rl,
                 const std::vector<double> *share, Routes *routes)
{
    if (S == 0 || S > M) {
        S = std::max<size_t>(M, 1);
    }
    const double m = M == 0 ? 1.0 : std::ceil(double(M) / double(S));
    /* header, "Sends in flight": an eager or small message sent whole goes to every child at once */
    const int ms_forced =
        max_sends_forced == -1 && whole_at_once(mach.net, uint64_t(m), S) ? 0 : max_sends_forced;
    const int n = t->n;
    std::vector<double> a(size_t(n), 0.0), pin(size_t(n), 0.0), rho(size_t(n), 0.0);
    const double burst = pipeline_burst(mach.net, S, m, window);
    /* header, "Timed link sharing": a message sent whole meets the others on the links
     * between switches; the ranks are then taken in the order their message arrives
     * (a heap), else breadth first (parents before children is all the recurrence
     * needs, and the heap would double the planning time of a 1024-rank decision) */
    std::unique_ptr<LinkTimeline> timeline;
    if (routes != nullptr && m <= 1.0) {
        timeline = std::make_unique<LinkTimeline>(*routes);
    }
    LinkTimeline *timed = timeline != nullptr && timeline->on() ? timeline.get() : nullptr;
    if (timed != nullptr && rl != nullptr && mach.net.shared_flows == 1 && S <= mach.net.eager_bytes) {
        /* header, "Shared flows": sent whole over a topology of switches, as flows */
        return flow_tree_time(t, S, loc, mach, *rl, *routes);
    }
    using Arrival = std::pair<double, int>;
    std::priority_queue<Arrival, std::vector<Arrival>, std::greater<Arrival>> due;
    std::vector<int> order;
    if (timed != nullptr) {
        due.push({0.0, t->root});
    } else {
        order.reserve(size_t(n));
        order.push_back(t->root);
    }
    double finish = 0.0;
    std::vector<double> s, sig, occ, done;
    for (size_t qi = 0; timed != nullptr ? !due.empty() : qi < order.size(); ++qi) {
        int u;
        if (timed != nullptr) {
            u = due.top().second;
            due.pop();
        } else {
            u = order[qi];
        }
        const int first = t->child_off[u], end = t->child_off[u + 1];
        const int k = end - first;
        const double pin_u = std::max(pin[size_t(u)], rho[size_t(u)]);
        if (k == 0) {
            finish = std::max(finish, a[size_t(u)] + (m - 1.0) * pin_u);
            continue;
        }
        bool any_remote = false;
        for (int i = first; i < end; ++i) {
            any_remote = any_remote || !loc.local(u, t->children[i]);
        }
        const int ms = resolve_max_sends(ms_forced, window, k, any_remote);
        /* header, "Copies at once": every copy in flight together, a network copy's
         * overhead and its bytes on the link overlap */
        const bool at_once = ms >= k;
        s.assign(size_t(k), 0.0);
        sig.assign(size_t(k), 0.0);
        occ.assign(size_t(k), 0.0);
        double sum_sig = 0, sum_occ = 0;
        /* header, "Shared flows": what the rank's CPU spends per block */
        double cpu = u == t->root ? 0.0 : rho[size_t(u)];
        std::vector<EdgeCost> ec(static_cast<size_t>(k));
        for (int i = 0; i < k; ++i) {
            const int c = t->children[first + i];
            const bool local = loc.local(u, c);
            ec[size_t(i)] = edge_cost(local ? mach.shm : mach.net, S);
            if (!local && rl != nullptr && rl->on()) {
                ec[size_t(i)].delta += rl->net_us(u, c) - mach.net.latency_us;
            }
            sig[size_t(i)] = ec[size_t(i)].sigma;
            if (at_once && !local) {
                sig[size_t(i)] = std::max(mach.net.o_send_us,
                                          double(S) * mach.net.gap_ns_per_byte * 1e-3);
            }
            occ[size_t(i)] = ec[size_t(i)].occ;
            if (!local && mach.net.shared_flows == 1 && S <= mach.net.eager_bytes) {
                /* header, "Shared flows": handed over, the block is a flow of its own */
                occ[size_t(i)] = mach.net.o_send_us;
            }
            cpu += local ? ec[size_t(i)].sigma : mach.net.o_send_us;
            sum_sig += sig[size_t(i)];
            sum_occ += occ[size_t(i)];
            double st = a[size_t(u)];
            if (i > 0) {
                st = std::max(st, s[size_t(i - 1)] + sig[size_t(i - 1)]);
            }
            if (i >= ms) {
                st = std::max(st, s[size_t(i - ms)] + occ[size_t(i - ms)]);
            }
            s[size_t(i)] = st;
        }
        const double pout = std::max({pin_u, sum_sig, sum_occ / double(ms), cpu});
        /* header, "Shared flows": a message sent whole, eager, leaves the CPU after
         * o_send and its bytes share the sender's link with the copies still on it */
        const bool sharing = m <= 1.0 && any_remote && mach.net.shared_flows == 1 &&
                             S <= mach.net.eager_bytes;
        if (sharing) {
            shared_copies(t, u, S, a[size_t(u)], loc, mach, ec, s, done);
        }
        for (int i = 0; i < k; ++i) {
            const int c = t->children[first + i];
            a[size_t(c)] = s[size_t(i)] + ec[size_t(i)].delta + (loc.local(u, c) ? 0.0 : burst);
            if (sharing && !loc.local(u, c)) {
                /* the copy's bytes left at done[i]: latency and o_recv after that */
                a[size_t(c)] = done[size_t(i)] + ec[size_t(i)].delta - mach.net.o_send_us -
                               double(S) * mach.net.wire_ns_per_byte * 1e-3;
            }
            if (timed != nullptr && !loc.local(u, c)) {
                a[size_t(c)] += timed->delay(u, c, s[size_t(i)] + mach.net.o_send_us,
                                             double(S) * mach.net.wire_ns_per_byte * 1e-3);
            }
            pin[size_t(c)] = pout;
            if (share != nullptr && (*share)[size_t(c)] > 1.0 && !loc.local(u, c)) {
                /* the edge's busiest link carries `share` tree edges (header, "Link
                 * sharing"): a block passes it every share * S * wire at best */
                pin[size_t(c)] = std::max(pout, (*share)[size_t(c)] * double(S) *
                                                    mach.net.wire_ns_per_byte * 1e-3);
            }
            rho[size_t(c)] = ec[size_t(i)].rho;
            if (timed != nullptr) {
                due.push({a[size_t(c)], c});
            } else {
                order.push_back(c);
            }
        }
        /* u itself is done when its last copy of the last block is out */
        finish = std::max(finish, s[size_t(k - 1)] + (m - 1.0) * pout + occ[size_t(k - 1)]);
    }
    return finish;
}

} // namespace mcplan
