/*
 * The planner's view of the network where the input names a topology: routes between
 * hosts, the timeline of each link (timed link sharing), the latency of a route and the
 * load a plan puts on each link (mcast_planner.h, "Route latency", "Link sharing").
 */
#ifndef MCAST_PLAN_ROUTES_HPP
#define MCAST_PLAN_ROUTES_HPP

#include "plan/plan_internal.hpp"

#include <map>
#include <tuple>
#include <vector>

namespace mcplan {

/* Routes between two ranks' hosts where the input names a topology (every rank read it
 * alike): the directed links of PM_ROUTE_DEFAULT, cached.  Same host, no topology, or a
 * host it does not name: no links.
 * What a route's bytes take (charged()): its links, where a host's own link (injection
 * or ejection, host_link()) carries host_links links' worth and a link between two
 * switches switch_links links' worth (capacity()); with net.host_transit 1
 * (mcast_machine_t.host_transit) a node's interface is one resource for what its host
 * sends, receives and what leaves its router in transit (SimGrid's torus limiter), so a
 * route a -> b over routers n0 .. nk charges n0 .. nk's interfaces once each (the
 * ejection link to each router's host stands for it) and the links between routers. */
class Routes {
public:
    explicit Routes(const mcast_plan_input_t &in)
        : in_(in), known_(in.topology != nullptr && in.hosts != nullptr && in.n > 1 && !in.all_local),
          one_switch_(known_ && pm_topology_nswitches(in.topology) <= 1),
          host_cap_(in.machine != nullptr && in.machine->host_links > 0.0 ? in.machine->host_links : 1.0),
          switch_cap_(in.machine != nullptr && in.machine->switch_links > 0.0 ? in.machine->switch_links : 1.0)
    {
        if (!known_) {
            return;
        }
        const pm::Topology &topo = *in.topology->t;
        const size_t nl = 2 * topo.links.size(); /* directed: 2l a -> b, 2l + 1 b -> a */
        host_link_.assign(nl, 0);
        std::vector<int> iface(topo.nodes.size(), -1); /* router -> ejection link to its host */
        for (size_t l = 0; l < nl; ++l) {
            const int from = topo.from_end(int(l)), to = topo.other_end(int(l));
            const bool from_host = topo.nodes[size_t(from)].is_host, to_host = topo.nodes[size_t(to)].is_host;
            host_link_[l] = from_host || to_host ? 1 : 0;
            if (to_host && !from_host && iface[size_t(from)] < 0) {
                iface[size_t(from)] = int(l); /* the first host of a router stands for its node */
            }
        }
        transit_ = in.machine != nullptr && in.machine->host_transit != 0 && !one_switch_;
        if (transit_) {
            /* the interface of the router a link leaves (an injection link: the router it
             * enters, its host's own) */
            node_of_.assign(nl, -1);
            for (size_t l = 0; l < nl; ++l) {
                const int from = topo.from_end(int(l));
                const int router = topo.nodes[size_t(from)].is_host ? topo.other_end(int(l)) : from;
                node_of_[l] = iface[size_t(router)];
            }
        }
    }
    bool known() const { return known_; }
    bool one_switch() const { return one_switch_; }
    /* l is a host's own link (header above). */
    bool host_link(int l) const
    {
        return l >= 0 && size_t(l) < host_link_.size() && host_link_[size_t(l)] != 0;
    }
    /* What link l carries, in links' worth (a link's bytes per us are 1 /
     * net.wire_ns_per_byte): host_links for a host's own link, switch_links for the others
     * (between two switches or routers; mcast_machine_t). */
    double capacity(int l) const { return host_link(l) ? host_cap_ : switch_cap_; }
    /* The resources the bytes a -> b take (header above): the route without
     * net.host_transit. */
    const std::vector<int> &charged(int a, int b)
    {
        if (!transit_) {
            return route(a, b);
        }
        const uint64_t key = (uint64_t(uint32_t(a)) << 32) | uint32_t(b);
        auto it = charged_.find(key);
        if (it != charged_.end()) {
            return it->second;
        }
        const std::vector<int> &r = route(a, b);
        std::vector<int> c;
        for (size_t j = 0; j < r.size(); ++j) {
            const int l = r[j];
            const int node = l >= 0 && size_t(l) < node_of_.size() ? node_of_[size_t(l)] : -1;
            const auto add = [&c](int x) {
                if (std::find(c.begin(), c.end(), x) == c.end()) {
                    c.push_back(x);
                }
            };
            if (j == 0 || j + 1 == r.size()) {
                add(node >= 0 ? node : l); /* n0's interface; nk's */
                continue;
            }
            add(l);
            if (j >= 2 && node >= 0) {
                add(node); /* leaves n_{j-1} in transit */
            }
        }
        return charged_.emplace(key, std::move(c)).first->second;
    }
    const std::vector<int> &route(int a, int b)
    {
        const uint64_t key = (uint64_t(uint32_t(a)) << 32) | uint32_t(b);
        auto it = routes_.find(key);
        if (it != routes_.end()) {
            return it->second;
        }
        std::vector<int> r(64);
        int nl = 0;
        if (!known_ || a == b || std::strcmp(in_.hosts[a], in_.hosts[b]) == 0 ||
            pm_route(in_.topology, PM_ROUTE_DEFAULT, in_.hosts[a], in_.hosts[b], r.data(),
                     int(r.size()), &nl) != PM_OK) {
            nl = 0; /* same host, or no route the model knows: no shared link counted */
        }
        r.resize(size_t(nl));
        return routes_.emplace(key, std::move(r)).first->second;
    }
    /* Links of the route a -> b (host -> switch -> host on one switch, without routing). */
    int links(int a, int b)
    {
        if (!known_ || a == b) {
            return 0;
        }
        if (one_switch_) {
            return std::strcmp(in_.hosts[a], in_.hosts[b]) == 0 ? 0 : 2;
        }
        return int(route(a, b).size());
    }

    /* Directed links of the topology (0 without one). */
    int nlinks() const { return known_ ? std::max(0, pm_topology_ndirected_links(in_.topology)) : 0; }

private:
    const mcast_plan_input_t &in_;
    bool known_;
    bool one_switch_;
    double host_cap_, switch_cap_;
    bool transit_ = false;
    std::vector<char> host_link_;
    std::vector<int> node_of_; /* directed link -> the interface of the router it leaves */
    std::map<uint64_t, std::vector<int>> routes_, charged_;
};

/* Concurrent whole messages on the links between switches (header, "Timed link sharing"):
 * every link keeps the intervals its messages' bytes occupy; a message waits, link after
 * link of its route, for the first gap its bytes fit in.  Only where a topology with more
 * than one switch names every rank's host. */
class LinkTimeline {
public:
    explicit LinkTimeline(Routes &routes) : routes_(routes)
    {
        if (routes.known() && !routes.one_switch()) {
            busy_.resize(size_t(routes.nlinks()));
        }
    }
    bool on() const { return !busy_.empty(); }
    /* The message a -> b whose bytes enter the network at t0 and take d on each link (a
     * link between switches d / its capacity()):
     * how much later than t0 its last link starts carrying them. */
    double delay(int a, int b, double t0, double d)
    {
        if (!on() || a == b || d <= 0.0) {
            return 0.0;
        }
        double t = t0;
        for (int l : routes_.route(a, b)) {
            if (l < 0 || size_t(l) >= busy_.size()) {
                continue;
            }
            /* (a link between switches at its net.switch_links) */
            const double dl = routes_.host_link(l) ? d : d / routes_.capacity(l);
            std::vector<std::pair<double, double>> &iv = busy_[size_t(l)]; /* sorted, disjoint */
            auto it = std::lower_bound(iv.begin(), iv.end(), std::make_pair(t, -1.0),
                                       [](const std::pair<double, double> &x,
                                          const std::pair<double, double> &y) { return x.second <= y.first; });
            /* it: the first interval ending after t */
            for (; it != iv.end() && it->first < t + dl; ++it) {
                t = std::max(t, it->second);
            }
            iv.insert(it, {t, t + dl});
        }
        return t - t0;
    }

private:
    Routes &routes_;
    std::vector<std::vector<std::pair<double, double>>> busy_;
};

/* The network latency of a message a -> b (header, "Route latency"): latency_us, adjusted
 * by the route's length where the topology and a per-link latency are known. */
class RouteLatency {
public:
    RouteLatency(const mcast_plan_input_t &in, Routes &routes)
        : routes_(routes), mach_(*in.machine),
          on_(routes.known() && in.machine->hop_latency_us > 0.0)
    {
    }
    bool on() const { return on_; }
    double net_us(int a, int b)
    {
        if (!on_) {
            return mach_.net.latency_us;
        }
        const int l = routes_.links(a, b);
        if (l == 0) {
            return mach_.net.latency_us; /* unknown route */
        }
        return std::max(0.0, mach_.net.latency_us +
                                 (double(l) - mach_.latency_links) * mach_.hop_latency_us);
    }

private:
    Routes &routes_;
    const mcast_machine_t &mach_;
    bool on_;
};

/* Link sharing where the input names a topology (see the header): the directed links
 * of every route between two ranks' hosts (PM_ROUTE_DEFAULT), and the bound
 *   T >= max over links of (bytes the plan moves over the link) * wire + o_send + L + o_recv.
 * No topology, or a host it does not name: no bound (0). */
class LinkLoad {
public:
    LinkLoad(const mcast_plan_input_t &in, Routes &routes) : in_(in), routes_(routes)
    {
        /* One switch: every route is host -> switch -> host, and what a host link carries
         * is what its rank sends or receives, which the LogGP models already charge; the
         * routing of all n ranks' schedules (O(n^2) routes, 0.3 s per decision at 1024
         * ranks) buys nothing there. */
        usable_ = in.topology != nullptr && in.hosts != nullptr && in.n > 1 && !in.all_local &&
                  pm_topology_nswitches(in.topology) > 1;
        if (usable_) {
            load_.assign(size_t(std::max(0, pm_topology_ndirected_links(in.topology))), 0.0);
        }
    }
    bool usable() const { return usable_; }
    /* Adds `bytes` on every link of the route a -> b. */
    void add(int a, int b, double bytes)
    {
        if (!usable_ || a == b) {
            return;
        }
        /* a link carries Routes::capacity links' worth (mcast_machine_t.host_links,
         * switch_links); with net.host_transit its node's interface (Routes) */
        for (int l : routes_.charged(a, b)) {
            if (l >= 0 && size_t(l) < load_.size()) {
                load_[size_t(l)] += bytes / routes_.capacity(l);
            }
        }
    }
    /* The largest load added since the last reset (bytes), then reset. */
    double take_max_bytes()
    {
        double mx = 0.0;
        for (double &x : load_) {
            mx = std::max(mx, x);
            x = 0.0;
        }
        return usable_ ? mx : 0.0;
    }
    /* The bound for `bytes` on the busiest link: their wire time and one message's
     * overheads and latency (0 for no bytes). */
    double bound_us(double bytes) const
    {
        if (!usable_ || bytes <= 0.0) {
            return 0.0;
        }
        const mcast_loggp_t &g = in_.machine->net;
        return bytes * g.wire_ns_per_byte * 1e-3 + g.o_send_us + g.latency_us + g.o_recv_us;
    }
    /* The bound for what was added since the last reset, then reset. */
    double take_bound_us() { return bound_us(take_max_bytes()); }
    /* For every rank v with a parent, the number of tree edges that use the busiest link
     * of the route parent(v) -> v, over the link's Routes::capacity where it joins two
     * switches (0 for the root, and without a usable topology). */
    std::vector<double> tree_edge_share(const kb_tree_t *t)
    {
        std::vector<double> share;
        if (!usable_ || t == nullptr) {
            return share;
        }
        std::vector<int> count(load_.size(), 0);
        for (int v = 0; v < t->n; ++v) {
            if (t->parent[v] >= 0 && t->parent[v] != v) {
                for (int l : routes_.route(t->parent[v], v)) {
                    if (l >= 0 && size_t(l) < count.size()) {
                        ++count[size_t(l)];
                    }
                }
            }
        }
        share.assign(size_t(t->n), 0.0);
        for (int v = 0; v < t->n; ++v) {
            if (t->parent[v] >= 0 && t->parent[v] != v) {
                for (int l : routes_.route(t->parent[v], v)) {
                    if (l >= 0 && size_t(l) < count.size()) {
                        /* (a host's own link counted whole, as before net.switch_links) */
                        const double c = routes_.host_link(l) ? 1.0 : routes_.capacity(l);
                        share[size_t(v)] = std::max(share[size_t(v)], double(count[size_t(l)]) / c);
                    }
                }
            }
        }
        return share;
    }
    /* Every tree edge carries the whole message. */
    double tree_bound_us(const kb_tree_t *t, double bytes)
    {
        if (!usable_ || t == nullptr) {
            return 0.0;
        }
        for (int v = 0; v < t->n; ++v) {
            if (t->parent[v] >= 0) {
                add(t->parent[v], v, bytes);
            }
        }
        return take_bound_us();
    }

private:
    const mcast_plan_input_t &in_;
    Routes &routes_;
    bool usable_ = false;
    std::vector<double> load_;
};

} // namespace mcplan

#endif
