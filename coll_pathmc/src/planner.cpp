/*
 * The planner: registry, candidates, the model that predicts the engine, selection.
 * (Formulas and selection order: mcast_planner.h.)
 *
 * Candidates under auto, each evaluated with the tree recurrence on this communicator's
 * chain and locality (inside-node edges with the shm model, the rest with the net model):
 *
 *   kbinomial   k = 1 .. ceil(log2 n), segments S from the grid below, FPFS
 *   chain       k = 1 in the registry's own name (the pipelined chain)
 *   postal      lambda(S) = delta(S) / sigma(S) of the edge model and the half-integers
 *               from 1 to 2 lambda(S) (postal_lambdas), S from the grid (whole message
 *               unless postal_pipelining)
 *   linear      separate addressing (whole message, or the grid)
 *   knomial     radix k = 2 .. 8 (MPICH's, MVAPICH's and tuned's k-nomial tree: the
 *               sender's children r^j apart, farthest power first), S from the grid
 *   twolevel    across nodes: k-binomial over node leaders; inside: a chain, a binomial
 *               or a flat tree per node; leaders send to other nodes first
 *   torus       (pathmc, with a torus) separate, U-, S-, Md-, Mu-torus trees
 *   edst        (pathmc, a 2D torus with a rank on every router, across nodes) its four
 *               arc-disjoint trees (pm_torus_edst) under mcast_multitree_predict_us,
 *               S from the grid, sends in flight as forced (auto 1), the links' bound
 *               of the trees' routes with a quarter of the message on each edge
 *   families    scatter_allgather (ring or recursive doubling), twotree, circulant:
 *               their own models (mcast_families.h) for every block count, sends in
 *               flight 1 or 2
 *
 *   segment grid: S = 2^i and 3*2^(i-1) from segment_min_bytes to min(segment_max_bytes,
 *   M), and S = M (one segment)
 *
 * The cheapest prediction wins; ties keep the earlier candidate (registry order, then
 * smaller k, then larger S).
 */
#include "mcast_planner.h"
#include "mcast_shm.h"

#include "pm_internal.h"
#include "kb_core.hpp"
#include "fitted.hpp"
#include "kb_file.h"
#include "pm_worms.h"


#include <algorithm>
#include <deque>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <queue>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#define MC_API extern "C" __attribute__((visibility("default")))

namespace {

/* The planner's input errors are the core's (kb_core.hpp: kb::guarded turns them into
 * KB_ERR_ARG with their text). */
using PlanError = kb::ArgError;

void require(bool ok, const char *what)
{
    if (!ok) {
        throw PlanError(what);
    }
}

/* ---- registry ----------------------------------------------------------- */
const mcast_alg_info_t REGISTRY[MCAST_ALG_COUNT] = {
    {MCAST_ALG_AUTO, "auto", MCAST_COMP_KBINOMIAL | MCAST_COMP_PATHMC,
     "the planner chooses per communicator and size class from the cost model (or the rules)"},
    {MCAST_ALG_KBINOMIAL, "kbinomial", MCAST_COMP_KBINOMIAL,
     "pipelined k-binomial tree with FPFS forwarding, optimal k and segment size"},
    {MCAST_ALG_POSTAL, "postal", MCAST_COMP_KBINOMIAL,
     "postal-model optimal tree for lambda (multi-send), optionally pipelined"},
    {MCAST_ALG_BINOMIAL, "binomial", MCAST_COMP_KBINOMIAL, "binomial tree"},
    {MCAST_ALG_LINEAR, "linear", MCAST_COMP_KBINOMIAL, "root sends to every rank (separate addressing)"},
    {MCAST_ALG_CHAIN, "chain", MCAST_COMP_KBINOMIAL, "pipelined chain along the ordering"},
    {MCAST_ALG_TWOLEVEL, "twolevel", MCAST_COMP_KBINOMIAL,
     "k-binomial tree over node leaders, each node fanned out per block as it arrives"},
    {MCAST_ALG_SCATTER_ALLGATHER, "scatter_allgather", MCAST_COMP_KBINOMIAL,
     "binomial scatter of n blocks, then ring or recursive-doubling allgather (bandwidth)"},
    {MCAST_ALG_TWOTREE, "twotree", MCAST_COMP_KBINOMIAL,
     "two pipelined binary trees, each rank interior in at most one, half the blocks each"},
    {MCAST_ALG_CIRCULANT, "circulant", MCAST_COMP_KBINOMIAL,
     "round-optimal pipeline on a circulant graph: m - 1 + ceil(log2 n) rounds"},
    {MCAST_ALG_SEPARATE, "separate", MCAST_COMP_PATHMC, "torus: separate addressing"},
    {MCAST_ALG_UTORUS, "utorus", MCAST_COMP_PATHMC, "torus: U-torus (binomial on the DOR chain)"},
    {MCAST_ALG_STORUS, "storus", MCAST_COMP_PATHMC, "torus: S-torus (Hamiltonian chain)"},
    {MCAST_ALG_MDTORUS, "mdtorus", MCAST_COMP_PATHMC, "torus: Md-torus (dimensional partitions)"},
    {MCAST_ALG_MUTORUS, "mutorus", MCAST_COMP_PATHMC, "torus: Mu-torus (uniform partitions of length r)"},
    {MCAST_ALG_MCAST, "mcast", MCAST_COMP_PATHMC,
     "hardware multicast (IP or InfiniBand UD) with the reliable protocol; needs coll_pathmc_mcast_transport"},
    {MCAST_ALG_PATHLG, "pathlg", MCAST_COMP_PATHMC,
     "irregular networks: Less-Greedy phases of path-based worms along POCs, each rendered as "
     "a pipelined chain (seed 001); needs coll_pathmc_topology_file"},
    {MCAST_ALG_SHM, "shm", MCAST_COMP_KBINOMIAL,
     "one node: the root copies into a shared segment, every other rank copies out (pipelined "
     "chunks)"},
    {MCAST_ALG_KNOMIAL, "knomial", MCAST_COMP_KBINOMIAL,
     "k-nomial tree of radix k (k = 2: binomial), every copy of a small message at once, "
     "optionally pipelined"},
    {MCAST_ALG_EDST, "edst", MCAST_COMP_PATHMC,
     "torus: four arc-disjoint spanning trees (2D torus, a rank on every router), a quarter "
     "of the blocks down each, pipelined"},
};

/* The family of a registry algorithm, or -1 (a tree). */
int family_of(int alg)
{
    switch (alg) {
    case MCAST_ALG_SCATTER_ALLGATHER: return MCAST_FAM_SCATTER_ALLGATHER;
    case MCAST_ALG_TWOTREE: return MCAST_FAM_TWOTREE;
    case MCAST_ALG_CIRCULANT: return MCAST_FAM_CIRCULANT;
    default: return -1;
    }
}

int torus_alg_of(int alg)
{
    switch (alg) {
    case MCAST_ALG_SEPARATE: return PM_TORUS_SEPARATE;
    case MCAST_ALG_UTORUS: return PM_TORUS_UTORUS;
    case MCAST_ALG_STORUS: return PM_TORUS_STORUS;
    case MCAST_ALG_MDTORUS: return PM_TORUS_MDTORUS;
    case MCAST_ALG_MUTORUS: return PM_TORUS_MUTORUS;
    default: return -1;
    }
}

/* Most blocks a plan may cut a message into (a forced segment is raised to respect it),
 * and the largest block (a "whole message" plan of a larger message uses several): one
 * block is one point-to-point message (int count) and, for non-contiguous datatypes,
 * one staging buffer, so (window + sends in flight) blocks bound a rank's extra memory. */
constexpr uint32_t PLAN_MAX_BLOCKS = 1u << 16;
constexpr size_t PLAN_MAX_BLOCK_BYTES = size_t(16) << 20;
/* A size class spans 2^(-1/8) - 2^(1/8) times its middle (header, "Size classes"): a limit
 * checked at the middle leaves this much room for the class's largest size. */
constexpr double CLASS_ROOM = 1.25;
/* segment_min_bytes = 0 (auto): the smallest block the search may choose on one node and
 * where the communicator spans nodes (mcast_planner.h, mcast_forced_t) */
constexpr size_t PLAN_SEGMENT_MIN = 1024;
constexpr size_t PLAN_NET_SEGMENT_MIN = 8192;

/* window = 0 (auto, the default): the receives a rank keeps posted ahead for algorithm
 * `alg` (mcast_planner.h, mcast_forced_t).  The circulant receives one block a round, each
 * from another rank: with receives posted ahead, ranks that drift apart let a rank take
 * two rounds' blocks at once, both at half its link's rate, and the delay spreads round
 * after round (SimGrid fat-tree-128, 16 MiB: far slower with 4 ahead than with 1, which
 * runs near the model; evidence E-CIRC-1).  Trees and pipelines receive from one parent:
 * 4 ahead keep its segments flowing. */
constexpr int PLAN_WINDOW = 4;
int window_of(const mcast_forced_t &f, int alg)
{
    if (f.window >= 1) {
        return f.window;
    }
    return alg == MCAST_ALG_CIRCULANT ? 1 : PLAN_WINDOW;
}

struct TreePtr {
    kb_tree_t *t = nullptr;
    TreePtr() = default;
    explicit TreePtr(kb_tree_t *x) : t(x) {}
    TreePtr(const TreePtr &) = delete;
    TreePtr &operator=(const TreePtr &) = delete;
    TreePtr(TreePtr &&o) noexcept : t(o.t) { o.t = nullptr; }
    TreePtr &operator=(TreePtr &&o) noexcept
    {
        std::swap(t, o.t);
        return *this;
    }
    ~TreePtr() { kb_tree_free(t); }
};

} // namespace

/* ---- the plan ------------------------------------------------------------ */
struct mcast_plan {
    int n = 0, root = 0;
    int algorithm = MCAST_ALG_AUTO;
    TreePtr tree;
    std::vector<TreePtr> trees;           /* edst: block j down trees[j mod size] */
    std::vector<const kb_tree_t *> tree_ptrs;
    std::vector<int> chain;
    std::vector<int> node_of_rank; /* empty: each rank its own node (unless all_local) */
    bool all_local = false;
    bool sync = false;        /* synchronous sends (header, "Synchronous sends") */
    size_t segment_bytes = 0; /* 0: whole message */
    int k = 0;
    double lambda = 0;
    int window = 4;
    int max_sends = -1;
    int discipline = KB_DISC_FPFS;
    int lag = 1; /* edst at the class's size (mcast_multitree_lag; per message: edst_lag) */
    double predicted_us = -1;
    std::string selected_by;
    std::string extra; /* algorithm-specific words for the verbose line */
    size_t class_bytes = 0;
    bool defer = false;
    /* schedule families: the level, its edge model and resolved engine parameters
     * (window and max_sends are then this plan's, not per rank) */
    int family = -1;
    mcast_level_t level{};
    mcast_loggp_t family_net{};
    mcast_loggp_t net{}; /* the machine model between nodes (small_whole) */
    /* twolevel with a family between the node leaders (level) and a tree inside the
     * nodes (intra): mcast_sched_two_level */
    bool two_level = false;
    mcast_level_t intra{};
    int nnodes = 0;
    /* the module below's predicted time under auto (-1: not compared) and its algorithm */
    double previous_us = -1;
    const char *previous = "";
    mcast_plan_transport_t transport = MCAST_PLAN_PML;
    int shm_slots = 0;
    size_t shm_slot_bytes = 0, shm_chunk_bytes = 0;
    int shm_fit_ring = 0;
};

namespace {

/* ---- machine model -------------------------------------------------------- */
struct EdgeCost {
    double sigma, delta, occ, rho;
};

EdgeCost edge_cost(const mcast_loggp_t &g, size_t S)
{
    const double s = double(S);
    EdgeCost e;
    e.sigma = g.o_send_us + s * g.gap_ns_per_byte * 1e-3;
    e.rho = g.o_recv_us + s * g.recv_ns_per_byte * 1e-3;
    e.delta = g.o_send_us + g.latency_us + s * g.wire_ns_per_byte * 1e-3 + e.rho;
    e.occ = S <= g.eager_bytes ? e.sigma : e.delta;
    return e;
}

/* A message sent whole (one block) whose copy's wire time is at most a message's send
 * overhead (header, "Sends in flight"): under max_sends = -1 its copies all leave at once. */
bool small_whole(const mcast_loggp_t &net, uint64_t nblocks, size_t block_bytes)
{
    return nblocks <= 1 && double(block_bytes) * net.wire_ns_per_byte * 1e-3 <= net.o_send_us;
}

/* Sends a rank keeps in flight (mcast_forced_t.max_sends semantics). */
int resolve_max_sends(int forced, int window, int nchildren, bool any_remote_child)
{
    const int all = std::max(1, window * std::max(1, nchildren));
    if (forced >= 1) {
        return forced;
    }
    if (forced == 0) {
        return all;
    }
    return any_remote_child ? 1 : all;
}

struct Locality {
    const int *node = nullptr;
    bool all_local = false;
    bool local(int u, int c) const { return all_local || (node != nullptr && node[u] == node[c]); }
};

/* Routes between two ranks' hosts where the input names a topology (every rank read it
 * alike): the directed links of PM_ROUTE_DEFAULT, cached.  Same host, no topology, or a
 * host it does not name: no links.
 * What a route's bytes take (charged()): its links, where a host's own link (injection
 * or ejection, host_link()) carries host_links links' worth; with net.host_transit 1
 * (mcast_machine_t.host_transit) a node's interface is one resource for what its host
 * sends, receives and what leaves its router in transit (SimGrid's torus limiter), so a
 * route a -> b over routers n0 .. nk charges n0 .. nk's interfaces once each (the
 * ejection link to each router's host stands for it) and the links between routers. */
class Routes {
public:
    explicit Routes(const mcast_plan_input_t &in)
        : in_(in), known_(in.topology != nullptr && in.hosts != nullptr && in.n > 1 && !in.all_local),
          one_switch_(known_ && pm_topology_nswitches(in.topology) <= 1)
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
    /* The message a -> b whose bytes enter the network at t0 and take d on each link:
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
            std::vector<std::pair<double, double>> &iv = busy_[size_t(l)]; /* sorted, disjoint */
            auto it = std::lower_bound(iv.begin(), iv.end(), std::make_pair(t, -1.0),
                                       [](const std::pair<double, double> &x,
                                          const std::pair<double, double> &y) { return x.second <= y.first; });
            /* it: the first interval ending after t */
            for (; it != iv.end() && it->first < t + d; ++it) {
                t = std::max(t, it->second);
            }
            iv.insert(it, {t, t + d});
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

/* The trees' share of the two-tree's burst (fam_twotree.cpp; edst's is 1/2): fitted
 * (fitted.hpp; header, "Shared flows"; evidence E-TOUR-1). */
using mcast_fit::TREE_BURST;

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

/* A tree sending the message whole, every copy eager, on a network whose messages are
 * flows, over a topology (header, "Shared flows"): a flow-level simulation of the tree,
 * SimGrid's CM02 model (perf/sim's platforms).  A rank's copies leave its CPU one after
 * the other, o_send each (sigma to a child on its own node: no flow); a copy's bytes start
 * to move after its route's latency, then every link of the route carries them, and the
 * flows on a link share it by weighted max-min fairness, each weighted by the inverse of
 * its route's latency (a short route gets more); a host's own link carries host_links
 * links' worth.  The child has the message when its last byte is in, plus o_recv, and
 * forwards it then.  Returns when the last rank has it and every rank has handed its last
 * copy over.  Event driven; the shares are recomputed (progressive filling, a heap of
 * the links' levels) only when a flow starts or ends on a link another flow uses. */
double flow_tree_time(const kb_tree_t *t, size_t S, const Locality &loc, const mcast_machine_t &mach,
                      RouteLatency &rl, Routes &routes)
{
    const int n = t->n;
    const double work = double(S) * mach.net.wire_ns_per_byte * 1e-3; /* us on a free link */
    const double host_cap = mach.host_links > 0.0 ? mach.host_links : 1.0;
    const EdgeCost shm = edge_cost(mach.shm, S);
    const double rho = edge_cost(mach.net, S).rho;
    const double inf = std::numeric_limits<double>::infinity();
    struct Flow {
        int child;
        double weight, left, rate, cap; /* cap: the route's narrowest link */
        const std::vector<int> *route;
    };
    std::vector<Flow> flows;
    flows.reserve(size_t(n));
    using Start = std::pair<double, int>; /* bandwidth phase begins, flow */
    std::priority_queue<Start, std::vector<Start>, std::greater<Start>> starts;
    std::vector<double> a(size_t(n), 0.0);
    double finish = 0.0;
    std::vector<int> ready; /* ranks that have the message and send it */
    const auto link_cap = [host_cap, &routes](int l) { return routes.host_link(l) ? host_cap : 1.0; };
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
    const size_t nl = size_t(std::max(1, routes.nlinks()));
    std::vector<int> count(nl, 0);        /* active flows per link */
    std::vector<double> cap(nl, 0.0), wsum(nl, 0.0);
    std::vector<std::vector<int>> on(nl); /* contended flows per link (share()) */
    std::vector<int> used, active, contended;
    std::vector<char> fixed;
    using Level = std::pair<double, int>; /* capacity per unit of weight, link */
    std::vector<Level> heap;
    const auto alone = [&](const Flow &f) {
        for (int l : *f.route) {
            if (count[size_t(l)] > 1) {
                return false;
            }
        }
        return true;
    };
    /* weighted max-min over the flows that share a link (the others run at their route's
     * narrowest link): the link with the least capacity per unit of weight fixes its
     * flows' rates, which leave the other links they use (progressive filling) */
    const auto share = [&]() {
        for (int l : used) {
            on[size_t(l)].clear();
        }
        used.clear();
        contended.clear();
        for (int f : active) {
            Flow &fl = flows[size_t(f)];
            if (alone(fl)) {
                fl.rate = fl.cap;
                continue;
            }
            const std::vector<int> &r = *fl.route;
            for (size_t j = 0; j < r.size(); ++j) {
                const int l = r[j];
                if (on[size_t(l)].empty()) {
                    used.push_back(l);
                    cap[size_t(l)] = link_cap(l);
                    wsum[size_t(l)] = 0.0;
                }
                on[size_t(l)].push_back(int(contended.size()));
                wsum[size_t(l)] += fl.weight;
            }
            contended.push_back(f);
        }
        fixed.assign(contended.size(), 0);
        /* a link's level only rises as flows elsewhere are fixed below it: the heap keeps
         * a lower bound per link, and a link popped above its bound goes back in */
        heap.clear();
        for (int l : used) {
            heap.push_back({cap[size_t(l)] / wsum[size_t(l)], l});
        }
        std::make_heap(heap.begin(), heap.end(), std::greater<Level>());
        while (!heap.empty()) {
            std::pop_heap(heap.begin(), heap.end(), std::greater<Level>());
            const int l = heap.back().second;
            const double bound = heap.back().first;
            heap.pop_back();
            if (wsum[size_t(l)] <= 1e-12) {
                continue; /* every flow on it fixed */
            }
            const double level = cap[size_t(l)] / wsum[size_t(l)];
            if (level > bound * (1.0 + 1e-12) && !heap.empty() && level > heap.front().first) {
                heap.push_back({level, l});
                std::push_heap(heap.begin(), heap.end(), std::greater<Level>());
                continue;
            }
            for (int i : on[size_t(l)]) {
                if (fixed[size_t(i)] != 0) {
                    continue;
                }
                Flow &fl = flows[size_t(contended[size_t(i)])];
                fl.rate = std::max(level, 1e-9) * fl.weight; /* rounding never stalls a flow */
                fixed[size_t(i)] = 1;
                for (int l2 : *fl.route) {
                    cap[size_t(l2)] -= fl.rate;
                    wsum[size_t(l2)] -= fl.weight;
                }
            }
            wsum[size_t(l)] = 0.0;
        }
    };
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
            share();
        }
    }
    return finish;
}

/* The recurrence of mcast_planner.h.  max_sends_forced as in mcast_forced_t. */
double tree_time(const kb_tree_t *t, size_t M, size_t S, int max_sends_forced, int window,
                 const Locality &loc, const mcast_machine_t &mach, RouteLatency *rl = nullptr,
                 const std::vector<int> *share = nullptr, Routes *routes = nullptr)
{
    if (S == 0 || S > M) {
        S = std::max<size_t>(M, 1);
    }
    const double m = M == 0 ? 1.0 : std::ceil(double(M) / double(S));
    /* header, "Sends in flight": a small message sent whole goes to every child at once */
    const int ms_forced =
        max_sends_forced == -1 && small_whole(mach.net, uint64_t(m), S) ? 0 : max_sends_forced;
    const int n = t->n;
    std::vector<double> a(size_t(n), 0.0), pin(size_t(n), 0.0), rho(size_t(n), 0.0);
    /* header, "Shared flows": a pipelined block sent while the one before is still on
     * the link shares it, and the fill's first blocks go down the tree in bursts */
    double burst = 0.0;
    if (mach.net.shared_flows == 1 && m > 1.0 && S <= mach.net.eager_bytes) {
        const double bw = double(S) * mach.net.wire_ns_per_byte * 1e-3;
        const double spacing = mach.net.o_send_us + mach.net.o_recv_us;
        const double W = std::max(1, window);
        burst = TREE_BURST * std::min(W - 1.0, spacing > 0.0 ? bw / spacing : W - 1.0) * bw;
    }
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
    /* header, "Shared flows", whole messages without a topology of switches (one switch,
     * or none known): the children's copies in order, each after the CPU's o_send (sigma
     * inside a node), the copies to other nodes sharing the host's link equally while
     * together (processor sharing: SimGrid's max-min on one bottleneck, every route alike);
     * s[i] = when copy i's send starts, done[i] = when its last byte left.  With such a
     * topology the whole tree is flow_tree_time's. */
    const auto shared_copies = [t](int u, int first, int k, size_t S_, double start,
                                   const Locality &lc, const mcast_machine_t &mc,
                                   const std::vector<EdgeCost> &e, std::vector<double> &st,
                                   std::vector<double> &fin) {
        const double w = double(S_) * mc.net.wire_ns_per_byte * 1e-3;
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
    };
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
            shared_copies(u, first, k, S, a[size_t(u)], loc, mach, ec, s, done);
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
            if (share != nullptr && (*share)[size_t(c)] > 1 && !loc.local(u, c)) {
                /* the edge's busiest link carries `share` tree edges (header, "Link
                 * sharing"): a block passes it every share * S * wire at best */
                pin[size_t(c)] = std::max(pout, double((*share)[size_t(c)]) * double(S) *
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

/* ---- candidates ------------------------------------------------------------ */
struct Candidate {
    int algorithm = MCAST_ALG_AUTO;
    int k = 0;
    size_t S = 0; /* 0: whole */
    double lambda = 0;
    int intra = 0; /* twolevel: 0 chain, 1 binomial, 2 flat, 3 the node's segment (shm) */
    int variant = 0;   /* families */
    int max_sends = 0; /* families: resolved sends in flight */
    int window = 0;    /* families: resolved receive window */
    int inter = -1;    /* twolevel: a family between the leaders (registry id), -1 = k-binomial */
    int sync = -1;     /* families: synchronous sends 0 / 1, -1 = family_sync's default */
    double t = std::numeric_limits<double>::infinity();
    double own = std::numeric_limits<double>::infinity(); /* families: t before the links' bound */
    std::shared_ptr<const std::vector<int>> chain; /* the plan's chain when not the input's
                                                      (the two-tree's placement) */
};

/* x is better than y by more than rounding noise (keeps the earlier candidate on ties). */
bool better(double x, double y)
{
    return !std::isfinite(y) ? std::isfinite(x) : x < y - 1e-9 * std::max(1.0, y);
}

std::vector<size_t> segment_grid(size_t M, const mcast_forced_t &f)
{
    std::vector<size_t> g;
    if (f.segment_bytes != 0) {
        g.push_back(f.segment_bytes);
        return g;
    }
    g.push_back(0); /* whole message */
    const size_t hi = std::min(f.segment_max_bytes, M);
    for (size_t s = 1; s <= hi && s != 0; s *= 2) {
        if (s >= f.segment_min_bytes && s < M) {
            g.push_back(s);
        }
        const size_t s3 = s + s / 2;
        if (s >= 2 && s3 >= f.segment_min_bytes && s3 <= hi && s3 < M) {
            g.push_back(s3);
        }
        if (s > (std::numeric_limits<size_t>::max() >> 2)) {
            break;
        }
    }
    return g;
}

/* ---- the module below ours ----------------------------------------------------
 * Open MPI 4.1's tuned component decides MPI_Bcast with a fixed table of algorithm by
 * communicator size and message bytes (coll_tuned_decision_fixed.c,
 * ompi_coll_tuned_bcast_intra_dec_fixed; no segmentation).  Its numbers:
 *   1 basic_linear  2 chain  3 pipeline  4 split_binary_tree  5 binary_tree  6 binomial
 *   7 knomial (radix 4)  8 scatter_allgather (recursive doubling)  9 scatter_allgather_ring
 * The planner models that choice as one of its own plans on rank order (linear, chain,
 * k-binomial with k = 2 for the binary trees, the knomial tree of radix 4, binomial, scatter +
 * allgather with n blocks) to hand a size class to the module below when our best plan is
 * not predicted faster by more than PREVIOUS_MARGIN (our calls cost a little more:
 * plan lookup, the engine's bookkeeping). */
constexpr double PREVIOUS_MARGIN = 0.05;

/* A datagram costs at least a system call on each side (sendmsg / recvmmsg, or a verbs
 * post and poll): the multicast model never charges less per datagram. */
constexpr double MCAST_DGRAM_FLOOR_US = 2.0;

int tuned_bcast_algorithm(int n, size_t M)
{
    struct Row {
        size_t below;
        int alg;
    };
    auto pick = [M](std::initializer_list<Row> rows, int last) {
        for (const Row &r : rows) {
            if (M < r.below) {
                return r.alg;
            }
        }
        return last;
    };
    if (n < 4) {
        return pick({{32, 3}, {256, 5}, {512, 3}, {1024, 7}, {32768, 1}, {131072, 5},
                     {262144, 2}, {524288, 1}, {1048576, 6}}, 5);
    }
    if (n < 8) {
        return pick({{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}}, 2);
    }
    if (n < 16) {
        return pick({{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}}, 1);
    }
    if (n < 32) {
        return pick({{4096, 7}, {1048576, 6}}, 8);
    }
    if (n < 64) {
        return pick({{2048, 6}}, 7);
    }
    if (n < 128) {
        return 7;
    }
    if (n < 256) {
        return pick({{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}}, 7);
    }
    if (n < 1024) {
        return pick({{16384, 7}, {32768, 4}}, 7);
    }
    if (n < 2048) {
        return pick({{524288, 7}}, 8);
    }
    if (n < 4096) {
        return pick({{262144, 7}}, 8);
    }
    return pick({{8192, 7}, {16384, 5}, {262144, 7}}, 8);
}

/* The chain this input implies (root first). */
std::vector<int> input_chain(const mcast_plan_input_t &in)
{
    std::vector<int> c(size_t(in.n));
    if (in.chain != nullptr) {
        c.assign(in.chain, in.chain + in.n);
    } else {
        for (int i = 0; i < in.n; ++i) {
            c[size_t(i)] = (in.root + i) % in.n;
        }
    }
    return c;
}

/* Builds a tree of a registry algorithm; throws ArgError when it does not apply. */
TreePtr build_tree(const mcast_plan_input_t &in, const std::vector<int> &chain, const Candidate &c)
{
    kb_tree_t *t = nullptr;
    int rc = KB_OK;
    kb_tree_params_t tp = {std::max(1, c.k), std::max(1.0, c.lambda)};
    switch (c.algorithm) {
    case MCAST_ALG_KBINOMIAL:
        rc = kb_tree_build(KB_SHAPE_KBINOMIAL, in.n, in.root, chain.data(), &tp, &t);
        break;
    case MCAST_ALG_CHAIN:
        rc = kb_tree_build(KB_SHAPE_CHAIN, in.n, in.root, chain.data(), &tp, &t);
        break;
    case MCAST_ALG_BINOMIAL:
        rc = kb_tree_build(KB_SHAPE_BINOMIAL, in.n, in.root, chain.data(), &tp, &t);
        break;
    case MCAST_ALG_LINEAR:
        rc = kb_tree_build(KB_SHAPE_LINEAR, in.n, in.root, chain.data(), &tp, &t);
        break;
    case MCAST_ALG_POSTAL:
        rc = kb_tree_build(KB_SHAPE_POSTAL, in.n, in.root, chain.data(), &tp, &t);
        break;
    case MCAST_ALG_KNOMIAL:
        rc = kb_tree_build(KB_SHAPE_KNOMIAL, in.n, in.root, chain.data(), &tp, &t);
        break;
    case MCAST_ALG_TWOLEVEL: {
        require(in.node_of_rank != nullptr, "twolevel needs the ranks' nodes");
        /* leaders: first rank of each node along the chain; children of a leader: the
         * other leaders of its inter-node subtree first, then its node's tree */
        std::vector<int> leaders, leader_of_node_pos;
        std::vector<std::vector<int>> members; /* per node, chain order */
        std::vector<int> node_index(size_t(in.n), -1);
        std::vector<int> seen;
        for (int r : chain) {
            const int nd = in.node_of_rank[r];
            auto it = std::find(seen.begin(), seen.end(), nd);
            size_t idx;
            if (it == seen.end()) {
                seen.push_back(nd);
                members.emplace_back();
                leaders.push_back(r);
                idx = seen.size() - 1;
            } else {
                idx = size_t(it - seen.begin());
            }
            members[idx].push_back(r);
        }
        const int nn = int(leaders.size());
        kb_tree_t *inter = nullptr;
        kb_tree_params_t ip = {std::max(1, c.k), 1.0};
        if (kb_tree_build(KB_SHAPE_KBINOMIAL, nn, 0, nullptr, &ip, &inter) != KB_OK) {
            throw PlanError("twolevel: inter-node tree");
        }
        TreePtr inter_owner(inter);
        std::vector<std::vector<int>> kids(size_t(in.n));
        for (int v = 0; v < nn; ++v) {
            for (int i = inter->child_off[v]; i < inter->child_off[v + 1]; ++i) {
                kids[size_t(leaders[size_t(v)])].push_back(leaders[size_t(inter->children[i])]);
            }
        }
        for (const auto &mem : members) {
            const int nm = int(mem.size());
            if (nm < 2) {
                continue;
            }
            kb_tree_t *loc = nullptr;
            kb_tree_params_t lp = {std::max(1, kb_ceil_log2(nm)), 1.0};
            const kb_shape_t sh = c.intra == 0 ? KB_SHAPE_CHAIN
                                               : (c.intra == 1 ? KB_SHAPE_BINOMIAL : KB_SHAPE_LINEAR);
            if (kb_tree_build(sh, nm, 0, nullptr, &lp, &loc) != KB_OK) {
                throw PlanError("twolevel: node tree");
            }
            TreePtr loc_owner(loc);
            for (int v = 0; v < nm; ++v) {
                for (int i = loc->child_off[v]; i < loc->child_off[v + 1]; ++i) {
                    kids[size_t(mem[size_t(v)])].push_back(mem[size_t(loc->children[i])]);
                }
            }
        }
        /* CSR */
        t = static_cast<kb_tree_t *>(std::calloc(1, sizeof(kb_tree_t)));
        if (t == nullptr) {
            throw std::bad_alloc();
        }
        TreePtr out(t);
        t->n = in.n;
        t->root = in.root;
        t->parent = static_cast<int *>(std::malloc(sizeof(int) * size_t(in.n)));
        t->child_off = static_cast<int *>(std::malloc(sizeof(int) * size_t(in.n + 1)));
        t->children = in.n > 1 ? static_cast<int *>(std::malloc(sizeof(int) * size_t(in.n - 1))) : nullptr;
        if (t->parent == nullptr || t->child_off == nullptr || (in.n > 1 && t->children == nullptr)) {
            throw std::bad_alloc();
        }
        for (int v = 0; v < in.n; ++v) {
            t->parent[v] = KB_NO_PEER;
        }
        int off = 0;
        for (int v = 0; v < in.n; ++v) {
            t->child_off[v] = off;
            for (int ch : kids[size_t(v)]) {
                t->children[off++] = ch;
                t->parent[ch] = v;
            }
        }
        t->child_off[in.n] = off;
        require(off == in.n - 1, "twolevel: not a spanning tree");
        /* depth */
        std::vector<int> d(size_t(in.n), 0), q{in.root};
        int depth = 0;
        for (size_t i = 0; i < q.size(); ++i) {
            for (int j = t->child_off[q[i]]; j < t->child_off[q[i] + 1]; ++j) {
                d[size_t(t->children[j])] = d[size_t(q[i])] + 1;
                depth = std::max(depth, d[size_t(t->children[j])]);
                q.push_back(t->children[j]);
            }
        }
        t->depth = depth;
        require(kb_tree_check(t) == KB_OK, "twolevel: invalid tree");
        return out;
    }
    case MCAST_ALG_PATHLG: {
        require(in.switch_net != nullptr && in.hosts != nullptr,
                "pathlg needs an irregular switch network naming every rank's host "
                "(coll_pathmc_topology_file: ibnetdiscover, Slurm topology.conf or native graph)");
        pm_pathlg_params_t pp;
        pm_pathlg_params_default(&pp);
        pp.bytes = std::max<size_t>(in.bytes, 1);
        pm_pathlg_result_t res;
        std::memset(&res, 0, sizeof(res));
        char err[256] = "";
        rc = pm_pathlg_render(in.switch_net, in.n, in.hosts, in.root, &pp, &res, err, sizeof(err));
        if (rc == PM_ERR_NOMEM) {
            throw std::bad_alloc();
        }
        require(rc == PM_OK, (std::string("pathlg: ") + err).c_str());
        t = res.tree;
        res.tree = nullptr; /* the plan keeps the tree */
        pm_pathlg_result_free(&res);
        return TreePtr(t);
    }
    default: {
        const int ta = torus_alg_of(c.algorithm);
        require(ta >= 0, "unknown algorithm");
        require(in.torus != nullptr && in.torus_coords != nullptr,
                    "a torus algorithm needs a torus (Cartesian topology, topology or coordinates file)");
        rc = pm_torus_build(pm_torus_alg_t(ta), in.torus, in.n, in.torus_coords, in.root,
                            in.forced->mu_r, &t, nullptr);
        if (rc == PM_ERR_NOMEM) {
            throw std::bad_alloc();
        }
        require(rc == PM_OK, "torus tree does not apply");
        return TreePtr(t);
    }
    }
    if (rc == KB_ERR_NOMEM) {
        throw std::bad_alloc();
    }
    require(rc == KB_OK, "tree does not apply");
    return TreePtr(t);
}

/* lambda of the postal model for S-byte copies (the dominant edge kind). */
double postal_lambda(const mcast_plan_input_t &in, size_t S)
{
    const mcast_loggp_t &g = in.all_local ? in.machine->shm : in.machine->net;
    const EdgeCost e = edge_cost(g, std::max<size_t>(S, 1));
    return e.sigma > 0 ? std::max(1.0, e.delta / e.sigma) : 1.0;
}

/* The postal trees the planner compares for S-byte copies: the forced lambda alone, else
 * the edge model's lambda first (ties keep it) and the half-integers from 1 to twice it.
 * The edge model's lambda is the optimum of the pure postal model; the recurrence also
 * sees route latencies, receive overheads and copies sent at once (torus-16x16, 1 KiB:
 * lambda 3.23 predicted 10.5 us, simulated 10.2; lambda 3 predicted 9.8, simulated 9.5). */
std::vector<double> postal_lambdas(const mcast_plan_input_t &in, const mcast_forced_t &f, size_t S)
{
    if (f.lambda > 0) {
        return {f.lambda};
    }
    const double lam0 = postal_lambda(in, S);
    std::vector<double> v{lam0};
    const double top = std::min(2.0 * lam0, 16.0);
    for (double lam = 1.0; lam <= top + 1e-9; lam += 0.5) {
        if (std::fabs(lam - lam0) > 1e-9) {
            v.push_back(lam);
        }
    }
    return v;
}

/* shm's chunks fill the ring where the node's ranks outnumber its cores (mcast_shm.h) */
int shm_fit_ring(const mcast_plan_input_t &in)
{
    return in.node_cores > 0 && in.node_cores < in.n ? 1 : 0;
}

int ranks_per_node(const mcast_plan_input_t &in);

/* twolevel's segment inside every node (intra "shm"): the glue offers one per node */
bool node_segments(const mcast_plan_input_t &in)
{
    return in.shm_slot_bytes > 0 && in.shm_slots >= 2 && !in.all_local && in.node_of_rank != nullptr &&
           in.nnodes > 1 && in.nnodes < in.n;
}

/* the node segment's chunk policy: as shm's, over the ranks of the fullest node */
int node_fit_ring(const mcast_plan_input_t &in)
{
    return in.node_cores > 0 && in.node_cores < ranks_per_node(in) ? 1 : 0;
}

bool edst_applies(const mcast_plan_input_t &in);

bool eligible(int alg, const mcast_plan_input_t &in)
{
    const mcast_alg_info_t &r = REGISTRY[alg];
    if (alg == MCAST_ALG_AUTO || !(r.component & in.component)) {
        return false;
    }
    if (torus_alg_of(alg) >= 0) {
        return in.torus != nullptr;
    }
    if (alg == MCAST_ALG_EDST) {
        return edst_applies(in);
    }
    if (alg == MCAST_ALG_TWOLEVEL) {
        return in.node_of_rank != nullptr && !in.all_local && in.nnodes > 1 && in.nnodes < in.n;
    }
    if (alg == MCAST_ALG_PATHLG) {
        return in.switch_net != nullptr && in.hosts != nullptr;
    }
    if (alg == MCAST_ALG_MCAST) { /* under auto: across nodes only (one node: shared memory) */
        return in.mcast_transport != MCAST_TRANSPORT_NONE && !in.all_local && in.nnodes > 1;
    }
    if (alg == MCAST_ALG_SHM) {
        return in.all_local != 0 && in.n >= 2 && in.shm_slot_bytes > 0 && in.shm_slots >= 2;
    }
    return true;
}

/* The edge model a family runs on: shm when every rank shares a node, else net (the
 * pessimistic choice for mixed locality).  The families' models charge a rank only for
 * its sends (o_send + b*gap per block) and a hop for latency; but in a pipelined family
 * every rank also receives about one block per round, and its receive overhead and copy
 * (o_recv + b*recv, the same process's time) come between its sends.  So the receive side
 * moves into the per-block send cost:
 *   o_send' = o_send + o_recv,  gap' = gap + recv,  wire' = wire + recv,  o_recv' = 0
 * (a hop then costs o_send + L + b*max(gap, wire) + o_recv + b*recv, as before). */
mcast_loggp_t family_net_of(mcast_loggp_t g)
{
    g.o_send_us += g.o_recv_us;
    g.o_recv_us = 0.0;
    g.gap_ns_per_byte += g.recv_ns_per_byte;
    g.wire_ns_per_byte += g.recv_ns_per_byte;
    g.recv_ns_per_byte = 0.0;
    return g;
}

/* The largest number of ranks on one node. */
int ranks_per_node(const mcast_plan_input_t &in)
{
    if (in.node_of_rank == nullptr) {
        return in.all_local ? in.n : 1;
    }
    std::map<int, int> count;
    int most = 1;
    for (int r = 0; r < in.n; ++r) {
        most = std::max(most, ++count[in.node_of_rank[r]]);
    }
    return most;
}

/* edst's four trees (pathmc.h, pm_torus_edst); require() with the reason when the
 * communicator does not qualify (a forced edst then fails; auto skips it). */
std::vector<TreePtr> edst_trees(const mcast_plan_input_t &in)
{
    require(in.torus != nullptr && in.torus_coords != nullptr,
            "edst needs a torus (Cartesian topology, topology or coordinates file)");
    kb_tree_t *t[PM_EDST_TREES] = {};
    char why[160] = "";
    const int rc = pm_torus_edst(in.torus, in.n, in.torus_coords, in.root, t, why, sizeof(why));
    if (rc == PM_ERR_NOMEM) {
        throw std::bad_alloc();
    }
    require(rc == PM_OK, why[0] != '\0' ? why : "edst does not apply");
    std::vector<TreePtr> v;
    for (kb_tree_t *x : t) {
        v.emplace_back(x);
    }
    return v;
}

/* Whether edst_trees succeeds (O(n); a rules line or auto then weighs edst), across
 * nodes (one node: forced only). */
bool edst_applies(const mcast_plan_input_t &in)
{
    if (in.torus == nullptr || in.torus_coords == nullptr || in.torus->ndims != 2 || in.all_local ||
        in.n != in.torus->dims[0] * in.torus->dims[1]) {
        return false;
    }
    try {
        edst_trees(in);
        return true;
    } catch (const PlanError &) {
        return false;
    }
}

std::vector<const kb_tree_t *> tree_ptrs(const std::vector<TreePtr> &v)
{
    std::vector<const kb_tree_t *> p;
    for (const TreePtr &x : v) {
        p.push_back(x.t);
    }
    return p;
}

/* The edge model of edst: the families' (o_recv folded into the sends) with the mean
 * latency of its trees' routes (neighbours on the torus: one link each) where the input
 * names the routes (header, "Route latency").  On a flow-level network (net.shared_flows
 * 1) a rank's receive overheads do not come between its sends: its receives of the four
 * trees are posted ahead, from four parents, and finish while its own sends are on the
 * wire; the per-block send costs o_send + B gap (fitted: perf/sim torus-8x8, 1 and 4 MiB,
 * 8 - 24 KiB blocks: the simulated period per four blocks matches o_recv overlapped, not
 * folded in; evidence E-EDST-3).  Elsewhere (a connection's FIFO) unmeasured: folded as
 * for the other families. */
template <class RL>
mcast_loggp_t edst_net(const mcast_plan_input_t &in, const std::vector<TreePtr> &trees, RL &rl)
{
    mcast_loggp_t g = in.machine->net.shared_flows == 1 ? in.machine->net : family_net_of(in.machine->net);
    if (rl.on()) {
        double sum = 0.0;
        long cnt = 0;
        for (const TreePtr &t : trees) {
            for (int v = 0; v < t.t->n; ++v) {
                if (t.t->parent[v] >= 0) {
                    sum += rl.net_us(t.t->parent[v], v);
                    ++cnt;
                }
            }
        }
        if (cnt > 0) {
            g.latency_us = sum / double(cnt);
        }
    }
    return g;
}

/* What a synchronous send waits for after its bytes arrived (mcast_machine_t). */
double sync_wait_of(const mcast_machine_t &m)
{
    return m.sync_wait_us >= 0.0 ? m.sync_wait_us : m.net.o_recv_us;
}

mcast_loggp_t family_net(const mcast_plan_input_t &in)
{
    return family_net_of(in.all_local ? in.machine->shm : in.machine->net);
}

/* Whether a family plan of ours sends synchronously (header, "Synchronous sends"): by
 * default the circulant pipeline across nodes (mcast_forced_t.sync_sends). */
bool family_sync(const mcast_plan_input_t &in, int family)
{
    if (in.all_local || family < 0 || in.forced->sync_sends == 0) {
        return false;
    }
    return in.forced->sync_sends == 1 || family == MCAST_FAM_CIRCULANT;
}

/* The send modes the planner evaluates for a family: its default, and for the two-tree
 * across nodes of a network whose flows share a link (net.shared_flows 1) under
 * sync_sends = -1 also synchronous sends, taken only where its model is faster (where the
 * links' bound decides both, the one whose own model is faster: mcast_planner.h, "Ties
 * under the links' bound"). */
std::vector<bool> family_sync_options(const mcast_plan_input_t &in, int family)
{
    const bool dflt = family_sync(in, family);
    if (!dflt && family == MCAST_FAM_TWOTREE && !in.all_local && in.forced->sync_sends == -1 &&
        in.machine->net.shared_flows == 1) {
        return {false, true};
    }
    return {dflt};
}

/* The two-tree's synchronous sends in flight under max_sends = -1 (header, "Synchronous
 * sends"): enough that a send's slot (until delivery) is covered by the sends after it
 * at the pace of the wire or of the send overhead, and two more; at most
 * TWOTREE_SYNC_SENDS_MAX. */
constexpr int TWOTREE_SYNC_SENDS_MAX = 16;
int twotree_sync_sends(const mcast_loggp_t &g, size_t B)
{
    const double b = double(B) * 1e-3;
    const double slot = g.o_send_us + g.latency_us +
                        b * std::max(g.gap_ns_per_byte, g.wire_ns_per_byte) + g.o_recv_us;
    const double pace = std::max(g.o_send_us, b * g.gap_ns_per_byte);
    if (!(pace > 0.0)) {
        return TWOTREE_SYNC_SENDS_MAX;
    }
    const double k = std::ceil(slot / pace) + 2.0;
    return int(std::min<double>(TWOTREE_SYNC_SENDS_MAX, std::max(2.0, k)));
}

/* edst's send modes (fam_multitree.cpp, "synchronous sends"): standard sends, and where the
 * network's flows share a link (net.shared_flows 1) across nodes under sync_sends = -1
 * synchronous ones too, taken where that model is faster; forced sync_sends = 1: only
 * synchronous ones. */
std::vector<bool> edst_sync_options(const mcast_plan_input_t &in)
{
    if (in.all_local || in.forced->sync_sends == 0) {
        return {false};
    }
    if (in.forced->sync_sends == 1) {
        return {true};
    }
    return in.machine->net.shared_flows == 1 ? std::vector<bool>{false, true} : std::vector<bool>{false};
}

/* edst's edge model with synchronous sends: every send holds its slot until delivery (no
 * eager limit) and waits for the receiver's match (sync_wait_of) after its bytes. */
mcast_loggp_t edst_sync_net(mcast_loggp_t g, const mcast_machine_t &m)
{
    g.eager_bytes = 0;
    g.o_send_us += sync_wait_of(m);
    return g;
}

/* The edge model a family plan of ours runs on (family_net, the two-tree's with its
 * overheads apart); synchronous sends are, to the family models, sends without an eager
 * limit (a send holds its slot until delivery). */
mcast_loggp_t family_net_ours(const mcast_plan_input_t &in, int family, bool sync)
{
    mcast_loggp_t g = family_net(in);
    if (family == MCAST_FAM_TWOTREE && !in.all_local) {
        /* across nodes the two-tree's model charges its own receive overheads: the first
         * arrival's sibling offset is one send, not a send and a receive (with folded
         * overheads it over-predicted by 15-30 % at 1 KiB - 64 KiB in perf/sim, and
         * beyond its 8 % against the simulated network of test_mc_families).  Inside one
         * node the fold stays (docs/families.md: an oversubscribed node) */
        g.o_send_us = in.machine->net.o_send_us;
        g.o_recv_us = in.machine->net.o_recv_us;
    }
    if (sync) {
        /* its receiver's overhead is what the synchronous send waits for (header,
         * "Synchronous sends") */
        g.eager_bytes = 0;
        if (family == MCAST_FAM_TWOTREE) {
            g.o_recv_us = sync_wait_of(*in.machine);
        } else {
            g.o_send_us = in.machine->net.o_send_us + sync_wait_of(*in.machine);
        }
    }
    return g;
}

mcast_level_t level_of(int alg, int variant)
{
    mcast_level_t l{};
    l.family = mcast_family_t(family_of(alg));
    l.variant = variant;
    return l;
}

/* The blocks of an M-byte message with S-byte blocks, within the plan's bounds (at most
 * PLAN_MAX_BLOCKS; scatter_allgather at most n). */
void family_geometry(int family, int n, size_t M, size_t S, size_t *B, uint32_t *nb)
{
    if (M == 0) {
        *B = 1;
        *nb = 0;
        return;
    }
    S = std::max<size_t>(1, std::min(S, M));
    size_t cap = PLAN_MAX_BLOCKS;
    if (family == MCAST_FAM_SCATTER_ALLGATHER) {
        cap = std::min(cap, size_t(n));
    }
    if ((M + S - 1) / S > cap) {
        S = (M + cap - 1) / cap;
    }
    *B = S;
    *nb = uint32_t((M + S - 1) / S);
}

/* A family candidate (or twolevel with a family between the leaders) replaces best when
 * it is predicted faster. */
void offer_family(Candidate &best, int alg, int variant, int inter, int intra, size_t B, int ms,
                  int window, double t, int sync = -1, double own = -1.0,
                  std::shared_ptr<const std::vector<int>> chain = nullptr)
{
    Candidate c;
    c.chain = std::move(chain);
    c.sync = sync;
    c.algorithm = alg;
    c.variant = variant;
    c.inter = inter;
    c.intra = intra;
    c.S = B;
    c.max_sends = ms;
    c.window = window;
    c.t = t;
    c.own = own >= 0.0 ? own : t;
    /* ties (the links' bound decides both) go to the variant of the same algorithm whose
     * own model is faster: the bound is a floor, the plan under it with more slack runs
     * closer to it (mcast_planner.h, "Ties under the links' bound") */
    if (better(c.t, best.t) ||
        (!better(best.t, c.t) && c.algorithm == best.algorithm && better(c.own, best.own))) {
        best = c;
    }
}

/* Sends in flight a family plan may use: the forced bound, window for 0, else 1 and 2. */
std::vector<int> family_sends(const mcast_forced_t &f, int alg)
{
    if (f.max_sends >= 1) {
        return {f.max_sends};
    }
    if (f.max_sends == 0) {
        return {window_of(f, alg)};
    }
    return {1, 2};
}

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
        /* a host's own link carries host_links links' worth (mcast_machine_t); with
         * net.host_transit its node's interface (Routes) */
        const double host = in_.machine->host_links > 0.0 ? in_.machine->host_links : 1.0;
        for (int l : routes_.charged(a, b)) {
            if (l >= 0 && size_t(l) < load_.size()) {
                load_[size_t(l)] += routes_.host_link(l) ? bytes / host : bytes;
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
     * of the route parent(v) -> v (0 for the root, and without a usable topology). */
    std::vector<int> tree_edge_share(const kb_tree_t *t)
    {
        std::vector<int> share;
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
        share.assign(size_t(t->n), 0);
        for (int v = 0; v < t->n; ++v) {
            if (t->parent[v] >= 0 && t->parent[v] != v) {
                for (int l : routes_.route(t->parent[v], v)) {
                    if (l >= 0 && size_t(l) < count.size()) {
                        share[size_t(v)] = std::max(share[size_t(v)], count[size_t(l)]);
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

/* Calls fn(rank, op) for every send of every rank's schedule of the family level at
 * nb blocks; false when a schedule cannot be built. */
template <class Fn>
bool for_each_send(const mcast_level_t &l, const mcast_plan_input_t &in,
                   const std::vector<int> &chain, uint32_t nb, Fn fn)
{
    for (int r = 0; r < in.n; ++r) {
        mcast_sched_t *s = nullptr;
        if (mcast_sched_level(&l, in.n, in.root, r, chain.data(), nb, &s) != KB_OK) {
            return false;
        }
        const size_t ns = mcast_sched_count(s, MCAST_OP_SEND);
        for (size_t i = 0; i < ns; ++i) {
            mcast_op_t op;
            if (mcast_sched_op(s, MCAST_OP_SEND, i, &op) == KB_OK) {
                fn(r, op);
            }
        }
        mcast_sched_free(s);
    }
    return true;
}

/* The network latency of the family level at nb blocks (header, "Route latency"): the
 * mean over its rounds (mcast_op_t.step) of the mean over the round's sends: the rounds
 * follow one another on the critical path, each with its own skip.  latency_us when the
 * route latency is off or the schedule cannot be built. */
double family_mean_latency_us(RouteLatency &rl, const mcast_level_t &l,
                              const mcast_plan_input_t &in, const std::vector<int> &chain,
                              uint32_t nb, bool slowest)
{
    const double flat = in.machine->net.latency_us;
    if (!rl.on()) {
        return flat;
    }
    /* round -> (sum of L, sends, largest L) */
    std::map<uint32_t, std::tuple<double, long, double>> step;
    const bool ok = for_each_send(l, in, chain, nb, [&](int r, const mcast_op_t &op) {
        auto &x = step[op.step];
        const double lat = rl.net_us(r, op.peer);
        std::get<0>(x) += lat;
        ++std::get<1>(x);
        std::get<2>(x) = std::max(std::get<2>(x), lat);
    });
    if (!ok || step.empty()) {
        return flat;
    }
    double sum = 0.0;
    for (const auto &x : step) {
        sum += slowest ? std::get<2>(x.second) : std::get<0>(x.second) / double(std::get<1>(x.second));
    }
    return sum / double(step.size());
}

/* A direct network: the hosts are the routers (a torus topology). */
bool direct_network(const mcast_plan_input_t &in)
{
    return in.topology != nullptr && pm_topology_kind(in.topology) == PM_TOPO_TORUS;
}

/* The family level's traffic on the links: every rank's schedule at a few blocks (the
 * share of the bytes each pair carries hardly depends on the block count).  Two bounds,
 * the larger counts:
 *   - the busiest link over the whole broadcast (every family);
 *   - for the round-synchronous families (circulant, scatter + allgather, the two-tree on
 *     a torus: mcast_planner.h, "Two-tree placement"), the sum over the generator's rounds (mcast_op_t.step) of each round's busiest link: a round ends
 *     when its slowest transfer does, and the rounds that load one dimension of a torus
 *     and those that load another do not overlap (the circulant's long skips share the
 *     links of a torus ring in some rounds only).
 * Blocks are capped at 32 (the rounds' share of the time hardly depends on it either). */
double family_link_bound_us(LinkLoad &ll, const mcast_level_t &l, const mcast_plan_input_t &in,
                            const std::vector<int> &chain, size_t M, uint32_t nblocks,
                            double alpha_us)
{
    if (!ll.usable() || M == 0) {
        return 0.0;
    }
    uint32_t nb = std::min<uint32_t>(std::max<uint32_t>(nblocks, 1), 32);
    if (l.family == MCAST_FAM_SCATTER_ALLGATHER) {
        nb = std::min<uint32_t>(nb, uint32_t(in.n));
        nb = std::max<uint32_t>(nb, std::min<uint32_t>(nblocks, uint32_t(in.n)));
    }
    /* the two-tree's rounds overlap (pipelined, each rank forwarding as blocks come): on a
     * switch network the whole broadcast's busiest link is its bound (header, "Two-tree
     * placement"); on a direct network (torus) the rounds' sum stays */
    const bool by_round = (l.family == MCAST_FAM_TWOTREE && direct_network(in)) || l.family == MCAST_FAM_CIRCULANT ||
                          l.family == MCAST_FAM_SCATTER_ALLGATHER;
    const double per_block = double(M) / double(nb);
    struct Send {
        uint32_t step;
        int from, to;
        double bytes;
    };
    std::vector<Send> sends;
    const bool ok = for_each_send(l, in, chain, nb, [&](int r, const mcast_op_t &op) {
        const double b = per_block * double(op.nblocks);
        ll.add(r, op.peer, b);
        if (by_round) {
            sends.push_back({op.step, r, op.peer, b});
        }
    });
    if (!ok) {
        ll.take_bound_us();
        return 0.0;
    }
    const double whole = ll.take_max_bytes();
    double rounds = 0.0;
    if (by_round) {
        std::stable_sort(sends.begin(), sends.end(),
                         [](const Send &a, const Send &b) { return a.step < b.step; });
        for (size_t i = 0; i < sends.size();) {
            size_t j = i;
            for (; j < sends.size() && sends[j].step == sends[i].step; ++j) {
                ll.add(sends[j].from, sends[j].to, sends[j].bytes);
            }
            rounds += ll.take_max_bytes();
            i = j;
        }
    }
    double bound = ll.bound_us(std::max(whole, rounds));
    const bool serial_rounds = l.family == MCAST_FAM_CIRCULANT ||
                               l.family == MCAST_FAM_SCATTER_ALLGATHER;
    if (serial_rounds && rounds > 0.0 && alpha_us > 0.0) {
        /* rounds that follow one another (the circulant's, its sends synchronous across
         * nodes; scatter + allgather's, ring or recursive doubling, each step forwarding
         * what the last one brought; torus-8x8 64 KiB, recursive doubling: 25.2 us
         * predicted without this, 37.5 with it, 32.6 simulated):
         * each also waits for one message's overheads and latency, alpha_us (the
         * family's route latency), next to its busiest link's bytes */
        const long nr = mcast_level_rounds(&l, in.n, nblocks);
        bound = std::max(bound, rounds * in.machine->net.wire_ns_per_byte * 1e-3 +
                                    double(std::max(0L, nr)) * alpha_us);
    }
    return bound;
}

/* Two-tree placement (mcast_planner.h, "Two-tree placement"): which rank plays each
 * position of the two trees.  Every rank's schedule is built on the chain, so the ordering
 * decides which links the trees' edges share; discovery's orderings (a switch tour, DOR)
 * are made for chains, and the two trees' long edges meet on links those orderings leave
 * to chance.  The root keeps position 0; the other positions are permuted by simulated
 * annealing (400 n swaps of two positions, at most 25600, the temperature falling from 20
 * to 0 over the first 80 %; a fixed xorshift seed: every rank finds the same chain) on a
 * sum over directed links of the edges crossing them (a host's own link counts
 * 1 / host_links, as the links' bound counts it): 100 per edge beyond two, which drives
 * the busiest link down first, plus 0.05 x edges^2.  (The cube of the edges instead kept
 * a link with three edges on irregular-64 for most seeds.)  The result is kept when its
 * busiest link carries less than the input chain's, or as much on fewer links, or as much
 * on as many with less in all; else the input chain.  Only on a switch network (not a
 * torus) of several switches and at most TWOTREE_PLACE_MAX_RANKS ranks (routes between
 * every pair: O(n^2) of them). */
constexpr int TWOTREE_PLACE_MAX_RANKS = 256;

std::vector<int> twotree_placement(const mcast_level_t &l, const mcast_plan_input_t &in,
                                   const std::vector<int> &chain, Routes &routes)
{
    const int n = in.n;
    const int nl = routes.nlinks();
    if (!routes.known() || routes.one_switch() || nl <= 0 || n < 4 || n > TWOTREE_PLACE_MAX_RANKS ||
        direct_network(in)) {
        return chain;
    }
    /* the trees' edges between positions: the schedules on the identity chain, root 0,
     * two blocks (block 0 down T0, block 1 down T1) */
    std::vector<int> ident(static_cast<size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
        ident[size_t(i)] = i;
    }
    std::vector<std::pair<int, int>> edges;
    for (int r = 0; r < n; ++r) {
        mcast_sched_t *sc = nullptr;
        if (mcast_sched_level(&l, n, 0, r, ident.data(), 2, &sc) != KB_OK) {
            return chain;
        }
        const size_t ns = mcast_sched_count(sc, MCAST_OP_SEND);
        for (size_t i = 0; i < ns; ++i) {
            mcast_op_t op;
            if (mcast_sched_op(sc, MCAST_OP_SEND, i, &op) == KB_OK) {
                edges.emplace_back(r, op.peer);
            }
        }
        mcast_sched_free(sc);
    }
    std::vector<std::vector<int>> at(static_cast<size_t>(n)); /* position -> its edges */
    for (size_t e = 0; e < edges.size(); ++e) {
        at[size_t(edges[e].first)].push_back(int(e));
        at[size_t(edges[e].second)].push_back(int(e));
    }
    const double host = in.machine->host_links > 0.0 ? in.machine->host_links : 1.0;
    std::vector<double> load(size_t(nl), 0.0);
    std::vector<int> cur = chain;
    /* the routes the search visits, by rank pair (routes.route's, whose map keeps them) */
    std::vector<const std::vector<int> *> route_at(size_t(n) * size_t(n), nullptr);
    const auto route_of = [&](int a, int b) -> const std::vector<int> & {
        const std::vector<int> *&r = route_at[size_t(a) * size_t(n) + size_t(b)];
        if (r == nullptr) {
            r = &routes.route(a, b);
        }
        return *r;
    };
    /* a link's share of the objective: what it carries beyond two edges (M bytes: the
     * broadcast's own floor M / B) weighs 100 per edge, the rest spreads the load */
    const auto cost = [](double x) { return 100.0 * std::max(0.0, x - 2.0) + 0.05 * x * x; };
    /* adds sign x edge e's crossings under the placement cur; returns the objective's change */
    const auto move = [&](int e, double sign) {
        const std::vector<int> &r = route_of(cur[size_t(edges[size_t(e)].first)], cur[size_t(edges[size_t(e)].second)]);
        const int len = int(r.size());
        double d = 0.0;
        for (int j = 0; j < len; ++j) {
            const int li = r[j];
            if (li < 0 || li >= nl) {
                continue;
            }
            double &x = load[size_t(li)];
            d -= cost(x);
            x += sign * (j == 0 || j + 1 == len ? 1.0 / host : 1.0);
            d += cost(x);
        }
        return d;
    };
    const auto summary = [&]() { /* (busiest, links at it, total) */
        double mx = 0.0, tot = 0.0;
        for (double x : load) {
            mx = std::max(mx, x);
            tot += x;
        }
        long at_max = 0;
        for (double x : load) {
            at_max += x > mx - 1e-9 ? 1 : 0;
        }
        return std::make_tuple(mx, at_max, tot);
    };
    for (size_t e = 0; e < edges.size(); ++e) {
        move(int(e), 1.0);
    }
    const auto start = summary();
    if (std::get<0>(start) <= 2.0 + 1e-9) {
        return chain; /* no link beyond two edges: nothing for the search to win (fattree-128) */
    }
    std::vector<int> best = cur;
    double obj = 0.0;
    for (double x : load) {
        obj += cost(x);
    }
    double best_obj = obj;
    const long iters = std::min<long>(25600, 400L * n);
    uint64_t rng = 0x9E3779B97F4A7C15ull; /* xorshift64: the same sequence on every rank */
    const auto next = [&rng]() {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    };
    std::vector<int> touched;
    for (long it = 0; it < iters; ++it) {
        const double temp = std::max(1e-3, 20.0 * (1.0 - double(it) / (0.8 * double(iters))));
        const int i = 1 + int(next() % uint64_t(n - 1));
        const int j = 1 + int(next() % uint64_t(n - 1));
        const double u = double(next() >> 11) * 0x1.0p-53;
        if (i == j) {
            continue;
        }
        touched = at[size_t(i)];
        touched.insert(touched.end(), at[size_t(j)].begin(), at[size_t(j)].end());
        std::sort(touched.begin(), touched.end());
        touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
        double d = 0.0;
        for (int e : touched) {
            d += move(e, -1.0);
        }
        std::swap(cur[size_t(i)], cur[size_t(j)]);
        for (int e : touched) {
            d += move(e, 1.0);
        }
        if (d <= 0.0 || u < std::exp(-d / temp)) {
            obj += d;
            if (obj < best_obj - 1e-9) {
                best_obj = obj;
                best = cur;
            }
        } else {
            for (int e : touched) {
                move(e, -1.0);
            }
            std::swap(cur[size_t(i)], cur[size_t(j)]);
            for (int e : touched) {
                move(e, 1.0);
            }
        }
    }
    /* the best placement's own summary, from scratch */
    std::fill(load.begin(), load.end(), 0.0);
    cur = best;
    for (size_t e = 0; e < edges.size(); ++e) {
        move(int(e), 1.0);
    }
    const auto found = summary();
    const bool fewer = std::get<0>(found) < std::get<0>(start) - 1e-9 ||
                       (std::get<0>(found) < std::get<0>(start) + 1e-9 &&
                        (std::get<1>(found) < std::get<1>(start) ||
                         (std::get<1>(found) == std::get<1>(start) &&
                          std::get<2>(found) < std::get<2>(start) - 1e-9)));
    return fewer ? best : chain;
}

struct Evaluator {
    const mcast_plan_input_t &in;
    std::vector<int> chain;
    Locality loc;
    size_t M;
    size_t sag_segment_min = PLAN_SEGMENT_MIN; /* scatter + recursive doubling's block floor */
    mutable Routes routes;
    mutable LinkLoad links;
    mutable RouteLatency rlat;
    mutable bool twotree_placed = false;                           /* placement computed */
    mutable std::shared_ptr<const std::vector<int>> twotree_chain; /* twotree_placement's, if
                                                                      not the ordering */
    Evaluator(const mcast_plan_input_t &i, size_t bytes)
        : in(i), chain(input_chain(i)), M(bytes), routes(i), links(i, routes), rlat(i, routes)
    {
        loc.node = i.node_of_rank;
        loc.all_local = i.all_local != 0;
    }
    double time(const kb_tree_t *t, size_t S, const std::vector<int> *share = nullptr) const
    {
        return tree_time(t, M, S, in.forced->max_sends, window_of(*in.forced, MCAST_ALG_KBINOMIAL), loc, *in.machine, &rlat,
                         share != nullptr && !share->empty() ? share : nullptr, &routes);
    }
    /* Best S (from the grid) for a fixed tree; the candidate gets S and t. */
    void best_segment(const kb_tree_t *t, Candidate &c, const std::vector<size_t> &grid) const
    {
        const std::vector<int> share = links.tree_edge_share(t);
        for (size_t S : grid) {
            const double x = time(t, S, &share);
            if (better(x, c.t)) {
                c.t = x;
                c.S = S;
            }
        }
    }
    /* A schedule family: every variant the forced parameters allow, sends in flight 1 or
     * 2 (max_sends = -1), the best block count (or the forced segment). */
    void evaluate_family(int alg, Candidate &best) const
    {
        for (bool sy : family_sync_options(in, family_of(alg))) {
            evaluate_family(alg, sy, best);
        }
    }
    void evaluate_family(int alg, bool sy, Candidate &best) const
    {
        const mcast_forced_t &f = *in.forced;
        const int fam = family_of(alg);
        const mcast_loggp_t g0 = family_net_ours(in, fam, sy);
        std::map<uint64_t, double> mean_latency; /* (variant, chain, blocks) -> mean route latency */
        if (fam == MCAST_FAM_SCATTER_ALLGATHER) {
            /* n blocks of at most PLAN_MAX_BLOCK_BYTES, with room for the largest size of
             * the class (CLASS_ROOM: above the 2^(1/8) = 1.09 x its middle a class spans) */
            require(double(M) * CLASS_ROOM <= double(in.n) * double(PLAN_MAX_BLOCK_BYTES),
                    "scatter_allgather: a message of more than n x 16 MiB");
        }
        std::vector<int> variants{0};
        if (fam == MCAST_FAM_SCATTER_ALLGATHER) {
            variants = f.allgather != 0 ? std::vector<int>{f.allgather - 1}
                                        : std::vector<int>{MCAST_SAG_RING, MCAST_SAG_RD};
        }
        /* the two-tree's synchronous sends: evaluated at the most in flight, then as
         * many as its blocks need (twotree_sync_sends; the same model time) */
        const bool sync_sends_auto = fam == MCAST_FAM_TWOTREE && f.max_sends == -1 && sy;
        const std::vector<int> sends =
            sync_sends_auto ? std::vector<int>{TWOTREE_SYNC_SENDS_MAX} : family_sends(f, alg);
        int fw = window_of(f, alg);
        if (fam == MCAST_FAM_TWOTREE && f.window == 0 && M != 0) {
            /* header, "Two-tree window": a block's rounds to the deepest rank, and two */
            const mcast_level_t l0 = level_of(alg, 0);
            fw = std::max<long>(fw, mcast_level_rounds(&l0, in.n, 1) + 2);
        }
        /* synchronous rounds wait for their slowest transfer: the latency of each round's
         * longest route (header, "Route latency"), not the routes' mean */
        const bool slowest = fam == MCAST_FAM_CIRCULANT && sy;
        /* (variant, chain): the ordering, and for the two-tree its placement where that
         * differs (header, "Two-tree placement"; the faster prediction wins) */
        std::vector<std::pair<int, std::shared_ptr<const std::vector<int>>>> runs;
        for (int v : variants) {
            runs.emplace_back(v, nullptr);
            if (fam == MCAST_FAM_TWOTREE) {
                if (!twotree_placed) {
                    const mcast_level_t l = level_of(alg, v);
                    std::vector<int> c = twotree_placement(l, in, chain, routes);
                    twotree_placed = true;
                    if (c != chain) {
                        twotree_chain = std::make_shared<const std::vector<int>>(std::move(c));
                    }
                }
                if (twotree_chain) {
                    runs.emplace_back(v, twotree_chain);
                }
            }
        }
        for (const auto &run : runs) {
            const int v = run.first;
            const mcast_level_t l = level_of(alg, v);
            const std::shared_ptr<const std::vector<int>> &placed = run.second;
            const std::vector<int> &ch = placed ? *placed : chain;
            /* recursive doubling's messages carry many blocks (its blocks are the ranks'
             * shares): the floor between nodes does not apply to them; the ring's and the
             * other families' messages are single blocks */
            const size_t seg_min = fam == MCAST_FAM_SCATTER_ALLGATHER && v == MCAST_SAG_RD
                                       ? sag_segment_min
                                       : f.segment_min_bytes;
            uint64_t cap = PLAN_MAX_BLOCKS;
            cap = std::min<uint64_t>(cap, std::max<uint64_t>(1, M / seg_min));
            if (fam == MCAST_FAM_SCATTER_ALLGATHER) {
                cap = std::min<uint64_t>(cap, uint64_t(in.n));
            }
            for (int ms : sends) {
                size_t B = 1;
                uint32_t nb = 0;
                double t = 0.0;
                mcast_loggp_t g = g0;
                const auto solve = [&] {
                    if (f.segment_bytes != 0 || M == 0) {
                        family_geometry(fam, in.n, M, f.segment_bytes == 0 ? M : f.segment_bytes,
                                        &B, &nb);
                        t = M == 0 ? 0.0 : mcast_level_predict_us(&l, in.n, M, nb, &g, fw, ms);
                    } else {
                        const int rc = mcast_level_best_nblocks(&l, in.n, M, &g, fw, ms,
                                                                uint32_t(cap), &nb, &B, &t);
                        if (rc == KB_ERR_NOMEM) {
                            throw std::bad_alloc();
                        }
                        require(rc == KB_OK, "family: no block count");
                    }
                };
                solve();
                if (rlat.on() && M != 0) {
                    /* the routes of this block count's schedule (header, "Route latency") */
                    const uint32_t nbl = std::min<uint32_t>(std::max<uint32_t>(nb, 1), 32);
                    const uint64_t key = (uint64_t(uint32_t(v)) << 33) | (uint64_t(placed ? 1 : 0) << 32) | nbl;
                    auto it = mean_latency.find(key);
                    if (it == mean_latency.end()) {
                        it = mean_latency
                                 .emplace(key, family_mean_latency_us(rlat, l, in, ch, nbl, slowest))
                                 .first;
                    }
                    if (std::fabs(it->second - g.latency_us) > 1e-9) {
                        g.latency_us = it->second;
                        solve();
                    }
                }
                int w = fw;
                if (M != 0) {
                    w = std::max(w, mcast_level_window(&l, in.n, M, nb, &g, ms));
                    if (w != fw) {
                        t = mcast_level_predict_us(&l, in.n, M, nb, &g, w, ms);
                    }
                }
                require(t >= 0.0, "family: the model does not apply");
                double own = -1.0;
                double round_alpha = g.o_send_us + g.latency_us + g.o_recv_us;
                if (fam == MCAST_FAM_CIRCULANT && sy && M != 0) {
                    /* synchronous sends: its rounds follow one another, each at least a
                     * send's overhead, latency, one block and the synchronous wait (header,
                     * "Synchronous sends"; on any network; the link term below adds
                     * sharing).  g folds o_recv into o_send: the raw model's parts here */
                    const mcast_loggp_t &raw = in.machine->net;
                    round_alpha = raw.o_send_us + g.latency_us + sync_wait_of(*in.machine);
                    const double b = double(B) * g.wire_ns_per_byte * 1e-3;
                    t = std::max(t, double(mcast_level_rounds(&l, in.n, nb)) * (round_alpha + b));
                }
                if (links.usable()) {
                    double bound = family_link_bound_us(links, l, in, ch, M, nb, round_alpha);
                    /* header, "Two-tree placement": on a switch network a link carrying more
                     * than M bytes slows the trees' stream through it by what it carries
                     * beyond M; the fill comes on top */
                    const auto stretch = [&](double b) {
                        return fam == MCAST_FAM_TWOTREE && !direct_network(in)
                                   ? std::max(0.0, b - links.bound_us(double(M)))
                                   : 0.0;
                    };
                    t += stretch(bound);
                    if (fam == MCAST_FAM_TWOTREE && f.segment_bytes == 0 && M != 0 && bound > t) {
                        /* header, "Blocks under the links' bound": the finest blocks whose
                         * own time stays under the bound (fill and drain shrink with the
                         * block; the bound, taken at <= 32 blocks, does not see them) */
                        for (uint64_t nb2 = cap; nb2 > nb; nb2 = nb + (nb2 - nb) / 2) {
                            size_t B2 = 1;
                            uint32_t m2 = 0;
                            family_geometry(fam, in.n, M, size_t((M + nb2 - 1) / nb2), &B2, &m2);
                            if (m2 <= nb) {
                                break;
                            }
                            const int w2 = std::max(fw, mcast_level_window(&l, in.n, M, m2, &g, ms));
                            double t2 = mcast_level_predict_us(&l, in.n, M, m2, &g, w2, ms);
                            const double b2 = m2 >= 32 && nb >= 32
                                                  ? bound
                                                  : family_link_bound_us(links, l, in, ch, M, m2,
                                                                         round_alpha);
                            t2 += t2 >= 0.0 ? stretch(b2) : 0.0;
                            if (t2 >= 0.0 && std::max(t2, b2) <= std::max(t, bound) * (1.0 + 1e-9)) {
                                nb = m2;
                                B = B2;
                                w = w2;
                                t = t2;
                                bound = b2;
                                break;
                            }
                        }
                    }
                    own = t;
                    t = std::max(t, bound);
                }
                offer_family(best, alg, v, -1, 0, B,
                             sync_sends_auto && M != 0 ? twotree_sync_sends(g, B) : ms, w, t, sy,
                             own, placed);
            }
        }
    }
    /* twolevel with a family between the node leaders (circulant, two-tree) and a chain,
     * binomial or flat tree inside every node, both levels overlapping per block
     * (mcast_two_level_predict_us); the block count is the inter level's best. */
    void evaluate_two_level_families(Candidate &best) const
    {
        const mcast_forced_t &f = *in.forced;
        const mcast_loggp_t g = family_net_of(in.machine->net);
        const mcast_loggp_t local = family_net_of(in.machine->shm);
        const int ppn = ranks_per_node(in);
        const int nodes = in.nnodes;
        if (M == 0 || nodes < 2) {
            return;
        }
        const std::vector<int> sends = family_sends(f, MCAST_ALG_TWOLEVEL);
        const int fw = window_of(f, MCAST_ALG_TWOLEVEL);
        const uint64_t cap = std::min<uint64_t>(PLAN_MAX_BLOCKS,
                                                std::max<uint64_t>(1, M / f.segment_min_bytes));
        static const kb_shape_t shapes[3] = {KB_SHAPE_CHAIN, KB_SHAPE_BINOMIAL, KB_SHAPE_LINEAR};
        for (int inter : {MCAST_ALG_CIRCULANT, MCAST_ALG_TWOTREE}) {
            const mcast_level_t li = level_of(inter, 0);
            for (int ms : sends) {
                size_t B = 1;
                uint32_t nb = 0;
                double ti = 0.0;
                if (f.segment_bytes != 0) {
                    family_geometry(li.family, nodes, M, f.segment_bytes, &B, &nb);
                } else if (mcast_level_best_nblocks(&li, nodes, M, &g, fw, ms, uint32_t(cap),
                                                    &nb, &B, &ti) != KB_OK) {
                    continue;
                }
                const int w = std::max(fw, mcast_level_window(&li, nodes, M, nb, &g, ms));
                for (int intra = 0; intra < 3; ++intra) {
                    mcast_level_t ll{};
                    ll.family = MCAST_FAM_TREE;
                    ll.shape = shapes[intra];
                    ll.tree.k = std::max(1, kb_ceil_log2(std::max(2, ppn)));
                    ll.tree.lambda = 1.0;
                    const double t = mcast_two_level_predict_us(&li, &ll, nodes, ppn, M, nb, &g,
                                                                 &local, w, ms);
                    if (t >= 0.0) {
                        offer_family(best, MCAST_ALG_TWOLEVEL, 0, inter, intra, B, ms, w, t);
                    }
                }
                if (node_segments(in)) {
                    const double t = node_segment_predict(li, nodes, ppn, nb, g, w, ms);
                    if (t >= 0.0) {
                        offer_family(best, MCAST_ALG_TWOLEVEL, 0, inter, 3, B, ms, w, t);
                    }
                }
            }
        }
    }
    /* twolevel with the node's segment inside every node (the model in mcast_planner.h):
     * the leaders' level, then the last chunk through the segment, or the segment's own
     * pipeline, whichever ends later. */
    double node_segment_predict(const mcast_level_t &li, int nodes, int ppn, uint32_t nb,
                                const mcast_loggp_t &g, int w, int ms) const
    {
        const double Ti = mcast_level_predict_us(&li, nodes, M, nb, &g, w, ms);
        const size_t C = mcast_shm_chunk_bytes(M, in.shm_chunk_bytes, in.shm_slot_bytes,
                                               in.shm_slots, node_fit_ring(in));
        const double c = in.machine->shm_copy_ns_per_byte, h = in.machine->shm_handover_us;
        const double Tl = mcast_shm_predict_us(ppn, M, C, in.node_cores, c, h);
        const double A = mcast_shm_predict_us(ppn, std::min(C, M), C, in.node_cores, c, h);
        if (Ti < 0.0 || Tl < 0.0 || A < 0.0) {
            return -1.0;
        }
        return std::max(Ti + A, Tl);
    }
    /* Hardware multicast (the model in mcast_planner.h). */
    void evaluate_mcast(Candidate &best) const
    {
        require(in.mcast_transport == MCAST_TRANSPORT_IP || in.mcast_transport == MCAST_TRANSPORT_IB,
                "mcast: no multicast group on this communicator (coll_pathmc_mcast_transport=none, "
                "or opening it failed: the verbose output says why)");
        const mcast_loggp_t &g = in.machine->net;
        const double c = double(in.mcast_chunk_bytes != 0 ? in.mcast_chunk_bytes : 1400);
        const double h = g.o_send_us + g.latency_us + g.o_recv_us;
        const double wire = double(M) * std::max(g.gap_ns_per_byte, g.wire_ns_per_byte) * 1e-3;
        const double dgrams = std::ceil(double(M) / c) * std::max({g.o_send_us, g.o_recv_us,
                                                                    MCAST_DGRAM_FLOOR_US});
        Candidate cand;
        cand.algorithm = MCAST_ALG_MCAST;
        cand.t = g.latency_us + std::max(wire, dgrams) + double(kb_ceil_log2(std::max(2, in.n))) * h;
        if (better(cand.t, best.t)) {
            best = cand;
        }
    }
    /* edst: the four trees' pipeline (mcast_families.h, "Several trees at once"), every
     * block size of the grid (or the forced one), sends in flight as forced (auto: 1),
     * the links' bound of the trees' routes (a quarter of the message on each edge). */
    void evaluate_edst(Candidate &best) const
    {
        const mcast_forced_t &f = *in.forced;
        const std::vector<TreePtr> trees = edst_trees(in);
        const std::vector<const kb_tree_t *> tp = tree_ptrs(trees);
        const int T = int(tp.size());
        const mcast_loggp_t g = edst_net(in, trees, rlat);
        double bound = 0.0;
        if (links.usable() && M != 0) {
            for (const kb_tree_t *t : tp) {
                for (int v = 0; v < t->n; ++v) {
                    if (t->parent[v] >= 0) {
                        links.add(t->parent[v], v, double(M) / T);
                    }
                }
            }
            bound = links.take_bound_us();
        }
        std::vector<size_t> grid = segment_grid(M, f);
        for (bool sy : edst_sync_options(in)) {
            const mcast_loggp_t gs = sy ? edst_sync_net(g, *in.machine) : g;
            for (size_t S : grid) {
                const size_t B = S == 0 || S > M ? std::max<size_t>(M, 1) : S;
                const uint64_t m64 = M == 0 ? 0 : (M + B - 1) / B;
                if (m64 > PLAN_MAX_BLOCKS) {
                    continue;
                }
                /* a flow-level network and blocks above the eager limit: not modelled
                 * (fam_multitree.cpp, "shared flows"); only where forced */
                if (g.shared_flows == 1 && f.segment_bytes == 0 && m64 > 1 && B > g.eager_bytes) {
                    continue;
                }
                const uint32_t m = uint32_t(m64);
                const int w0 = f.window >= 1 ? f.window : T + 2;
                const int ms = f.max_sends >= 1   ? f.max_sends
                               : sy               ? twotree_sync_sends(gs, B)
                               : f.max_sends == 0 ? w0 * T
                                                  : 1;
                const int w = f.window >= 1 ? f.window
                                            : std::max(w0, mcast_multitree_window(tp.data(), T, M, m, &gs, ms));
                double t = M == 0 ? 0.0 : mcast_multitree_predict_us(tp.data(), T, M, m, &gs, w, ms);
                if (t < 0.0) {
                    continue;
                }
                t = std::max(t, bound);
                Candidate c;
                c.algorithm = MCAST_ALG_EDST;
                c.S = S == 0 ? 0 : B;
                c.max_sends = ms;
                c.window = w;
                c.sync = sy ? 1 : 0;
                c.t = t;
                if (better(c.t, best.t)) {
                    best = c;
                }
            }
        }
    }
    /* The shared segment of a one-node communicator (mcast_shm.h). */
    void evaluate_shm(Candidate &best) const
    {
        require(eligible(MCAST_ALG_SHM, in),
                "shm: needs every rank on one node and a shared segment "
                "(coll_kbinomial_shm_chunk_bytes > 0)");
        Candidate cand;
        cand.algorithm = MCAST_ALG_SHM;
        cand.S = mcast_shm_chunk_bytes(M, in.shm_chunk_bytes, in.shm_slot_bytes, in.shm_slots,
                                       shm_fit_ring(in));
        cand.t = mcast_shm_predict_us(in.n, M, cand.S, in.node_cores,
                                      in.machine->shm_copy_ns_per_byte, in.machine->shm_handover_us);
        if (better(cand.t, best.t)) {
            best = cand;
        }
    }
    /* All candidates of one algorithm with the forced parameters applied. */
    void evaluate(int alg, Candidate &best) const
    {
        if (alg == MCAST_ALG_MCAST) {
            evaluate_mcast(best);
            return;
        }
        if (alg == MCAST_ALG_SHM) {
            evaluate_shm(best);
            return;
        }
        if (alg == MCAST_ALG_EDST) {
            evaluate_edst(best);
            return;
        }
        if (family_of(alg) >= 0) {
            evaluate_family(alg, best);
            return;
        }
        const mcast_forced_t &f = *in.forced;
        const std::vector<size_t> grid = segment_grid(M, f);
        const std::vector<size_t> whole = {f.segment_bytes};
        auto consider = [&](Candidate c, const std::vector<size_t> &g) {
            TreePtr t = build_tree(in, chain, c);
            c.t = std::numeric_limits<double>::infinity();
            best_segment(t.t, c, g);
            c.t = std::max(c.t, links.tree_bound_us(t.t, double(M)));
            if (better(c.t, best.t)) {
                best = c;
            }
        };
        Candidate c;
        c.algorithm = alg;
        /* every k in lo..hi, or the forced k alone (also above hi) */
        auto each_k = [&](int lo, int hi) {
            for (int k = lo; k <= hi; ++k) {
                if (f.k == 0 || k == f.k) {
                    c.k = k;
                    consider(c, grid);
                }
            }
            if (f.k > hi) {
                c.k = f.k;
                consider(c, grid);
            }
        };
        switch (alg) {
        case MCAST_ALG_KBINOMIAL: /* a forced k above log2 n: the tree is binomial-like */
            each_k(1, std::max(1, kb_ceil_log2(in.n)));
            break;
        case MCAST_ALG_CHAIN:
            c.k = 1;
            consider(c, grid);
            break;
        case MCAST_ALG_KNOMIAL: /* radix 2 (binomial) .. 8, or the forced one */
            require(f.k != 1, "knomial: the radix k must be at least 2");
            each_k(2, 8);
            break;
        case MCAST_ALG_BINOMIAL:
        case MCAST_ALG_LINEAR:
            consider(c, whole); /* segmented only when segment_bytes is set */
            break;
        case MCAST_ALG_POSTAL: {
            const bool pipelined = f.postal_pipelining != 0;
            const std::vector<size_t> g = pipelined ? grid : whole;
            for (size_t S : g) {
                for (double lam : postal_lambdas(in, f, S == 0 ? M : S)) {
                    c.lambda = lam;
                    consider(c, std::vector<size_t>{S});
                }
            }
            break;
        }
        case MCAST_ALG_TWOLEVEL: {
            const int kmax = std::max(1, kb_ceil_log2(std::max(2, in.nnodes)));
            for (int k = 1; k <= kmax; ++k) {
                if (f.k != 0 && k != f.k) {
                    continue;
                }
                for (int intra = 0; intra < 3; ++intra) {
                    c.k = k;
                    c.intra = intra;
                    consider(c, grid);
                }
            }
            if (f.k == 0) {
                evaluate_two_level_families(best);
            }
            break;
        }
        default:
            consider(c, f.segment_bytes != 0 ? whole : grid);
            break;
        }
    }
};

/* Predicted time of the module below (tuned's fixed choice, above) for M bytes: its
 * tree on rank order from the root, every copy posted at once, whole message. */
double previous_time(const mcast_plan_input_t &in, size_t M, const char **name)
{
    static const char *const names[] = {"",         "linear",      "chain",
                                        "pipeline", "split_binary_tree", "binary_tree",
                                        "binomial", "knomial",     "scatter_allgather",
                                        "scatter_allgather_ring"};
    const int alg = tuned_bcast_algorithm(in.n, M);
    *name = names[alg];
    if (M == 0 || in.n < 2) {
        return 0.0;
    }
    mcast_plan_input_t rin = in;
    rin.chain = nullptr; /* rank order from the root */
    if (alg == 8 || alg == 9) {
        const mcast_level_t l = level_of(MCAST_ALG_SCATTER_ALLGATHER, alg == 8 ? MCAST_SAG_RD : MCAST_SAG_RING);
        const mcast_loggp_t g = family_net(in);
        size_t B;
        uint32_t nb;
        family_geometry(MCAST_FAM_SCATTER_ALLGATHER, in.n, M, (M + size_t(in.n) - 1) / size_t(in.n), &B, &nb);
        return mcast_level_predict_us(&l, in.n, M, nb, &g, std::max(2, window_of(*in.forced, MCAST_ALG_AUTO)), 1);
    }
    Candidate c;
    switch (alg) {
    case 1: c.algorithm = MCAST_ALG_LINEAR; break;
    case 2:
    case 3: c.algorithm = MCAST_ALG_CHAIN; c.k = 1; break;
    case 6: c.algorithm = MCAST_ALG_BINOMIAL; break;
    case 7: c.algorithm = MCAST_ALG_KNOMIAL; c.k = 4; break; /* coll_tuned_bcast_knomial_radix */
    default: c.algorithm = MCAST_ALG_KBINOMIAL; c.k = 2; break;
    }
    TreePtr t = build_tree(rin, input_chain(rin), c);
    Locality loc;
    loc.node = in.node_of_rank;
    loc.all_local = in.all_local != 0;
    Routes routes(in);
    LinkLoad links(in, routes);
    RouteLatency rlat(in, routes);
    return std::max(tree_time(t.t, M, 0, 0, 1, loc, *in.machine, &rlat, nullptr, &routes),
                    links.tree_bound_us(t.t, double(M)));
}

std::string fmt(const char *f, double x)
{
    char b[64];
    std::snprintf(b, sizeof(b), f, x);
    return b;
}

/* edst's lag for a `bytes`-byte message in m blocks (fam_multitree.cpp, "Lag"): a pure
 * function of the plan, the same on every rank. */
int edst_lag(const mcast_plan &p, size_t bytes, uint32_t m)
{
    if (!p.sync || bytes == 0 || m == 0 || p.tree_ptrs.empty()) {
        return 1;
    }
    const int l = mcast_multitree_lag(p.tree_ptrs.data(), int(p.tree_ptrs.size()), bytes, m, &p.family_net,
                                      p.window, p.max_sends);
    return l >= 1 ? l : 1;
}

void fill_plan(mcast_plan &p, const mcast_plan_input_t &in, const Candidate &c, TreePtr tree,
               const std::string &selected_by, size_t class_bytes)
{
    p.n = in.n;
    p.root = in.root;
    p.algorithm = c.algorithm;
    p.tree = std::move(tree);
    p.chain = c.chain ? *c.chain : input_chain(in);
    if (in.node_of_rank != nullptr) {
        p.node_of_rank.assign(in.node_of_rank, in.node_of_rank + in.n);
    }
    p.all_local = in.all_local != 0;
    p.net = in.machine->net;
    p.segment_bytes = c.S == std::numeric_limits<size_t>::max() ? 0 : c.S;
    p.k = (c.algorithm == MCAST_ALG_KBINOMIAL || c.algorithm == MCAST_ALG_TWOLEVEL ||
           c.algorithm == MCAST_ALG_KNOMIAL)
              ? c.k
              : 0;
    p.lambda = c.algorithm == MCAST_ALG_POSTAL ? c.lambda : 0.0;
    p.window = window_of(*in.forced, c.algorithm);
    p.max_sends = in.forced->max_sends;
    p.discipline = in.forced->discipline;
    p.predicted_us = c.t;
    p.selected_by = selected_by;
    p.class_bytes = class_bytes;
    p.transport = c.algorithm == MCAST_ALG_SHM ? MCAST_PLAN_SHM
                  : c.algorithm != MCAST_ALG_MCAST ? MCAST_PLAN_PML
                  : (in.mcast_transport == MCAST_TRANSPORT_IB ? MCAST_PLAN_MC_IB : MCAST_PLAN_MC_IP);
    if (c.algorithm == MCAST_ALG_SHM) {
        p.shm_slots = in.shm_slots;
        p.shm_slot_bytes = in.shm_slot_bytes;
        p.shm_chunk_bytes = in.shm_chunk_bytes;
        p.shm_fit_ring = shm_fit_ring(in);
    }
    p.family = family_of(c.algorithm);
    if (p.family >= 0) {
        p.level = level_of(c.algorithm, c.variant);
        p.sync = c.sync >= 0 ? c.sync == 1 : family_sync(in, p.family);
        p.family_net = family_net_ours(in, p.family, p.sync);
        p.window = c.window;
        p.max_sends = c.max_sends;
    }
    if (c.algorithm == MCAST_ALG_EDST) {
        p.trees = edst_trees(in);
        p.tree_ptrs = tree_ptrs(p.trees);
        Routes routes(in);
        RouteLatency rl(in, routes);
        p.sync = c.sync == 1;
        p.family_net = p.sync ? edst_sync_net(edst_net(in, p.trees, rl), *in.machine)
                              : edst_net(in, p.trees, rl);
        p.window = c.window;
        p.max_sends = c.max_sends;
        size_t B = 0;
        uint32_t m = 0;
        mcast_plan_blocks(&p, class_bytes, &B, &m);
        p.lag = edst_lag(p, class_bytes, m);
        p.extra = "trees=" + std::to_string(p.trees.size()) + " lag=" + std::to_string(p.lag);
    }
    if (c.algorithm == MCAST_ALG_TWOLEVEL && c.inter >= 0) {
        static const kb_shape_t shapes[3] = {KB_SHAPE_CHAIN, KB_SHAPE_BINOMIAL, KB_SHAPE_LINEAR};
        p.two_level = true;
        p.family = family_of(c.inter);
        p.level = level_of(c.inter, 0);
        p.family_net = family_net_of(in.machine->net);
        p.window = c.window;
        p.max_sends = c.max_sends;
        p.nnodes = in.nnodes;
        if (c.intra == 3) {
            p.intra.family = MCAST_FAM_NODE_SEGMENT;
            p.transport = MCAST_PLAN_PML_SHM;
            p.shm_slots = in.shm_slots;
            p.shm_slot_bytes = in.shm_slot_bytes;
            p.shm_chunk_bytes = in.shm_chunk_bytes;
            p.shm_fit_ring = node_fit_ring(in);
        } else {
            p.intra.family = MCAST_FAM_TREE;
            p.intra.shape = shapes[c.intra];
            p.intra.tree.k = std::max(1, kb_ceil_log2(std::max(2, ranks_per_node(in))));
            p.intra.tree.lambda = 1.0;
        }
    }
    if (c.algorithm == MCAST_ALG_TWOLEVEL) {
        static const char *const intra[] = {"chain", "binomial", "flat", "shm"};
        p.extra = (c.inter >= 0 ? std::string("inter=") + REGISTRY[c.inter].name + " " : std::string()) +
                  std::string("intra=") + intra[c.intra];
    } else if (c.algorithm == MCAST_ALG_POSTAL) {
        p.extra = "lambda=" + fmt("%.3f", c.lambda) +
                  (p.segment_bytes != 0 ? " pipelining=on" : " pipelining=off");
    } else if (c.algorithm == MCAST_ALG_SCATTER_ALLGATHER) {
        p.extra = c.variant == MCAST_SAG_RD ? "allgather=recursive_doubling" : "allgather=ring";
    } else if (c.algorithm == MCAST_ALG_MUTORUS) {
        int r = in.forced->mu_r;
        for (int d = 0; r == 0 && in.torus != nullptr && d < in.torus->ndims; ++d) {
            r = std::max(r, in.torus->dims[d]);
        }
        p.extra = "r=" + std::to_string(r);
    }
}

void select(const mcast_plan_input_t &in, mcast_plan &out)
{
    require(in.n >= 1 && in.root >= 0 && in.root < in.n, "planner: bad n or root");
    require(in.machine != nullptr && in.forced != nullptr, "planner: machine and forced needed");
    const mcast_forced_t &f = *in.forced;
    require(f.window >= 0, "planner: window must be >= 0 (0 = auto)");
    require(f.max_sends >= -1, "planner: max_sends must be >= -1");
    require(f.k >= 0 && f.mu_r >= 0 && f.lambda >= 0, "planner: negative k, r or lambda");
    require(f.segment_max_bytes >= std::max<size_t>(1, f.segment_min_bytes),
                "planner: segment bounds");
    require(f.discipline == KB_DISC_FPFS || f.discipline == KB_DISC_FCFS, "planner: discipline");
    if (in.chain != nullptr) {
        std::vector<char> seen(size_t(in.n), 0);
        for (int i = 0; i < in.n; ++i) {
            require(in.chain[i] >= 0 && in.chain[i] < in.n && !seen[size_t(in.chain[i])],
                        "planner: chain is not a permutation");
            seen[size_t(in.chain[i])] = 1;
        }
        require(in.chain[0] == in.root, "planner: chain must start at the root");
    }
    const int cls = mcast_size_class(in.bytes);
    const size_t M = in.exact_bytes != 0 ? in.bytes : mcast_class_bytes(cls);

    mcast_forced_t eff = f;
    if (eff.segment_min_bytes == 0) {
        /* auto (mcast_planner.h, mcast_forced_t.segment_min_bytes) */
        const bool spans_nodes = in.all_local == 0 && in.nnodes > 1;
        const size_t net_min = in.machine->net_segment_min_bytes != 0
                                   ? in.machine->net_segment_min_bytes
                                   : PLAN_NET_SEGMENT_MIN;
        eff.segment_min_bytes = std::min(eff.segment_max_bytes,
                                         spans_nodes ? net_min : PLAN_SEGMENT_MIN);
    }
    mcast_plan_input_t in2 = in;
    in2.forced = &eff;
    std::string by = "model";
    int previous_rule = 0;
    std::vector<int> algs;
    if (f.algorithm != MCAST_ALG_AUTO) {
        require(f.algorithm > 0 && f.algorithm < MCAST_ALG_COUNT, "planner: unknown algorithm");
        require((REGISTRY[f.algorithm].component & in.component) != 0,
                    "planner: algorithm of another component");
        algs.push_back(f.algorithm);
        by = in.selected_by != nullptr ? in.selected_by : "forced";
    } else {
        /* The first rule that matches and names an algorithm that applies here; "auto"
         * hands the size back to the model; unknown names are skipped. */
        kb_rule_t rule;
        int at = 0;
        while (in.rules != nullptr &&
               kb_rules_match_from(in.rules, at, in.n, M, in.all_local ? 1 : 0, &rule, &at) == 1) {
            ++at;
            if (std::strcmp(rule.algorithm, MCAST_RULE_PREVIOUS) == 0) {
                /* the module below serves this class; the model still makes a plan (the
                 * verbose line and mcast-inspect show what we would have run) */
                previous_rule = rule.line;
                break;
            }
            const int id = mcast_registry_lookup(rule.algorithm);
            if (id == MCAST_ALG_AUTO) {
                break;
            }
            if (id > MCAST_ALG_AUTO && (REGISTRY[id].component & in.component) && eligible(id, in)) {
                algs.push_back(id);
                if (rule.k != 0) {
                    eff.k = rule.k;
                }
                if (rule.segment_bytes != 0) {
                    eff.segment_bytes = rule.segment_bytes;
                }
                by = "rules:" + std::to_string(rule.line);
                break;
            }
        }
        if (algs.empty() && in.unmodelled_network != 0 && in.n >= 2 && M > 0) {
            /* The built-in model does not describe this network (mcast_planner.h,
             * "Unmodelled networks"): Open MPI's own choice, deferred to the module below
             * where it can serve, else our copy of it on rank order (tuned's fixed
             * decision: whole messages, copies all at once). */
            const int prev = tuned_bcast_algorithm(in.n, M);
            eff.segment_bytes = SIZE_MAX;
            eff.max_sends = in.n;
            switch (prev) {
            case 1: algs.push_back(MCAST_ALG_LINEAR); break;
            case 2:
            case 3: algs.push_back(MCAST_ALG_CHAIN); break;
            case 6: algs.push_back(MCAST_ALG_BINOMIAL); break;
            case 7: algs.push_back(MCAST_ALG_KNOMIAL); eff.k = 4; break;
            case 8:
            case 9:
                algs.push_back(MCAST_ALG_SCATTER_ALLGATHER);
                eff.allgather = (prev == 8 ? MCAST_SAG_RD : MCAST_SAG_RING) + 1;
                eff.segment_bytes = 0;
                break;
            default: algs.push_back(MCAST_ALG_KBINOMIAL); eff.k = 2; break;
            }
            in2.chain = nullptr; /* rank order from the root */
            by = "unmodelled";
        }
        if (algs.empty()) {
            for (int a = 1; a < MCAST_ALG_COUNT; ++a) {
                /* under auto the unsegmented binomial / linear are covered by kbinomial /
                 * postal; chain is kbinomial k = 1 */
                if (eligible(a, in) && a != MCAST_ALG_BINOMIAL && a != MCAST_ALG_CHAIN &&
                    a != MCAST_ALG_LINEAR) {
                    algs.push_back(a);
                }
            }
            if (in.component == MCAST_COMP_PATHMC) { /* compare with what kbinomial would do */
                algs.push_back(MCAST_ALG_KBINOMIAL);
                algs.push_back(MCAST_ALG_POSTAL);
                algs.push_back(MCAST_ALG_KNOMIAL);
                algs.push_back(MCAST_ALG_SCATTER_ALLGATHER);
                algs.push_back(MCAST_ALG_TWOTREE);
                algs.push_back(MCAST_ALG_CIRCULANT);
                if (eligible(MCAST_ALG_TWOLEVEL, in) || (in.node_of_rank && in.nnodes > 1 && in.nnodes < in.n)) {
                    algs.push_back(MCAST_ALG_TWOLEVEL);
                }
            }
        }
    }
    Evaluator ev(in2, M);
    /* scatter + recursive doubling's blocks are each rank's share, not messages (its
     * rounds carry many): the floor between nodes does not apply to them */
    ev.sag_segment_min = f.segment_min_bytes != 0 ? f.segment_min_bytes
                                                  : std::min(eff.segment_max_bytes, PLAN_SEGMENT_MIN);
    Candidate best;
    for (int a : algs) {
        if (a == MCAST_ALG_TWOLEVEL && !(in.node_of_rank && !in.all_local && in.nnodes > 1 && in.nnodes < in.n)) {
            require(f.algorithm != MCAST_ALG_TWOLEVEL,
                        "twolevel needs several nodes with several ranks each");
            continue;
        }
        if (family_of(a) == MCAST_FAM_SCATTER_ALLGATHER && f.algorithm == MCAST_ALG_AUTO &&
            double(M) * CLASS_ROOM > double(in.n) * double(PLAN_MAX_BLOCK_BYTES)) {
            continue; /* blocks larger than a plan allows (evaluate_family says why) */
        }
        ev.evaluate(a, best);
    }
    require(best.algorithm != MCAST_ALG_AUTO, "planner: no candidate applies");
    TreePtr tree = family_of(best.algorithm) >= 0 || best.inter >= 0 ||
                           best.algorithm == MCAST_ALG_MCAST || best.algorithm == MCAST_ALG_SHM ||
                           best.algorithm == MCAST_ALG_EDST
                       ? TreePtr()
                       : build_tree(in2, ev.chain, best);
    fill_plan(out, in2, best, std::move(tree), by, M);
    if (in.component == MCAST_COMP_PATHMC && (REGISTRY[best.algorithm].component & MCAST_COMP_PATHMC) == 0) {
        out.defer = true;
    }
    if (previous_rule != 0) {
        out.defer = true;
        out.selected_by = "previous:rules:" + std::to_string(previous_rule);
    } else if (by == "unmodelled" && f.compare_previous != 0) {
        out.defer = true; /* the module below runs it (this plan shows what it is) */
        out.selected_by = "previous:unmodelled";
    } else if (f.algorithm == MCAST_ALG_AUTO && by == "model" && in.component == MCAST_COMP_KBINOMIAL &&
               f.compare_previous != 0 && in.n >= 2 && M > 0) {
        /* the module below serves the class unless our plan is predicted faster */
        out.previous_us = previous_time(in2, M, &out.previous);
        if (out.previous_us <= best.t * (1.0 + PREVIOUS_MARGIN)) {
            out.defer = true;
            out.selected_by = "previous";
        }
    }
}

const char *transport_name(mcast_plan_transport_t t)
{
    static const char *const names[] = {"pml", "shm", "pml+shm", "ip", "ib"};
    return (t >= 0 && t < int(sizeof(names) / sizeof(names[0]))) ? names[t] : "?";
}

using kb::guarded;

uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    return kb_digest64_more(h, p, n);
}

} // namespace

/* ---- C API ------------------------------------------------------------------- */
MC_API int mcast_registry_count(void)
{
    return MCAST_ALG_COUNT;
}

MC_API const mcast_alg_info_t *mcast_registry_get(int id)
{
    return (id >= 0 && id < MCAST_ALG_COUNT) ? &REGISTRY[id] : nullptr;
}

MC_API int mcast_registry_lookup(const char *name)
{
    if (name == nullptr) {
        return -1;
    }
    for (const mcast_alg_info_t &r : REGISTRY) {
        if (std::strcmp(r.name, name) == 0) {
            return r.id;
        }
    }
    return -1;
}

MC_API void mcast_forced_default(mcast_forced_t *f)
{
    if (f == nullptr) {
        return;
    }
    std::memset(f, 0, sizeof(*f));
    f->algorithm = MCAST_ALG_AUTO;
    f->segment_min_bytes = 0; /* auto */
    f->segment_max_bytes = size_t(1) << 20;
    f->window = 0; /* auto: window_of */
    f->max_sends = -1;
    f->discipline = KB_DISC_FPFS;
    f->postal_pipelining = 1;
    f->compare_previous = 1;
    f->sync_sends = -1;
}

/* Size classes (header): four per power of two, class j of octave e holds the sizes
 * nearest to 2^(e + j/4) on a log scale, i.e. [2^(e + (j - 1/2)/4), 2^(e + (j + 1/2)/4)),
 * and is planned at round(2^(e + j/4)): powers of two are their class's representative
 * and no size is more than 2^(1/8) - 1 = 9.05 % from it.  Integer arithmetic only (32-bit
 * fixed-point factors), so every rank computes the same class. */
namespace {
constexpr uint64_t CLASS_REP_FX[4] = {4294967296ull, 5107605667ull, 6074001000ull,
                                      7223245206ull}; /* 2^(j/4) * 2^32 */
constexpr uint64_t CLASS_UPPER_FX[4] = {4683695048ull, 5569883475ull, 6623745059ull,
                                        7877004752ull}; /* 2^((j + 1/2)/4) * 2^32 */
} // namespace

MC_API int mcast_size_class(size_t bytes)
{
    if (bytes == 0) {
        return 0;
    }
    const int e = 63 - __builtin_clzll((unsigned long long) bytes);
    /* bytes * 2^32 against 2^e * factor: bytes in [2^e, 2^(e+1)) */
    const unsigned __int128 x = (unsigned __int128) bytes << 32;
    int j = 0;
    while (j < 4 && x >= ((unsigned __int128) 1 << e) * CLASS_UPPER_FX[j]) {
        ++j;
    }
    return 1 + 4 * e + j; /* j == 4: the next octave's first class */
}

MC_API size_t mcast_class_bytes(int cls)
{
    if (cls <= 0) {
        return 0;
    }
    const int e = (cls - 1) / 4, j = (cls - 1) % 4;
    if (e >= 64) {
        return SIZE_MAX;
    }
    const unsigned __int128 x = ((unsigned __int128) 1 << e) * CLASS_REP_FX[j];
    const unsigned __int128 r = (x + ((unsigned __int128) 1 << 31)) >> 32; /* rounded */
    return r > SIZE_MAX ? SIZE_MAX : size_t(r);
}

MC_API int mcast_plan_select(const mcast_plan_input_t *in, mcast_plan_t **out, char *errbuf,
                             size_t errlen)
{
    if (in == nullptr || out == nullptr) {
        return KB_ERR_ARG;
    }
    *out = nullptr;
    return guarded(errbuf, errlen, [&] {
        auto p = std::make_unique<mcast_plan>();
        select(*in, *p);
        *out = p.release();
    });
}

MC_API void mcast_plan_free(mcast_plan_t *p)
{
    delete p;
}

MC_API int mcast_plan_blocks(const mcast_plan_t *p, size_t bytes, size_t *block_bytes,
                             uint32_t *nblocks)
{
    if (p == nullptr || block_bytes == nullptr || nblocks == nullptr) {
        return KB_ERR_ARG;
    }
    if (p->family >= 0) {
        family_geometry(p->family, p->two_level ? p->nnodes : p->n, bytes,
                        p->segment_bytes == 0 ? bytes : p->segment_bytes, block_bytes, nblocks);
        return KB_OK;
    }
    size_t S = p->segment_bytes == 0 ? bytes : std::min(p->segment_bytes, bytes);
    S = std::min(S, PLAN_MAX_BLOCK_BYTES);
    if (S == 0) {
        S = 1;
    }
    if (bytes / S >= PLAN_MAX_BLOCKS) { /* never more blocks than the planner allows */
        S = (bytes + PLAN_MAX_BLOCKS - 1) / PLAN_MAX_BLOCKS;
    }
    *block_bytes = S;
    *nblocks = uint32_t((bytes + S - 1) / S);
    return KB_OK;
}

MC_API int mcast_plan_schedule(const mcast_plan_t *p, int rank, size_t bytes, mcast_sched_t **out)
{
    if (p == nullptr || out == nullptr || rank < 0 || rank >= p->n) {
        return KB_ERR_ARG;
    }
    size_t S;
    uint32_t m;
    mcast_plan_blocks(p, bytes, &S, &m);
    if (p->algorithm == MCAST_ALG_MCAST || p->algorithm == MCAST_ALG_SHM) {
        return KB_ERR_ARG; /* not a point-to-point schedule: the glue's transport runs it */
    }
    if (p->two_level) {
        return mcast_sched_two_level(p->n, p->root, rank, p->chain.data(), p->node_of_rank.data(),
                                     &p->level, &p->intra, m, out);
    }
    if (p->family >= 0) {
        return mcast_sched_level(&p->level, p->n, p->root, rank, p->chain.data(), m, out);
    }
    if (!p->trees.empty()) {
        return mcast_sched_multitree(p->tree_ptrs.data(), int(p->tree_ptrs.size()), rank, m,
                                     edst_lag(*p, bytes, m), out);
    }
    return mcast_sched_tree(p->tree.t, rank, m, kb_discipline_t(p->discipline), out);
}

MC_API int mcast_plan_engine_params(const mcast_plan_t *p, int rank, size_t bytes,
                                    mcast_engine_params_t *ep)
{
    if (p == nullptr || ep == nullptr || rank < 0 || rank >= p->n) {
        return KB_ERR_ARG;
    }
    if (p->algorithm == MCAST_ALG_MCAST || p->algorithm == MCAST_ALG_SHM) {
        return KB_ERR_ARG; /* no engine: the glue's transport runs it */
    }
    uint32_t m;
    ep->bytes = bytes;
    mcast_plan_blocks(p, bytes, &ep->block_bytes, &m);
    ep->window = p->window;
    if (p->family >= 0) {
        /* the window the family needs for this message (two-tree: its streams' skew) */
        const int w = bytes == 0 ? -1
                                 : mcast_level_window(&p->level, p->two_level ? p->nnodes : p->n,
                                                      bytes, m, &p->family_net, p->max_sends);
        ep->window = std::max(p->window, w);
        /* a node leader also feeds its node's tree: those copies need slots of their own */
        ep->max_sends = p->two_level ? p->max_sends + 2 : p->max_sends;
        ep->sync_sends = p->sync && !p->two_level ? 1 : 0;
        return KB_OK;
    }
    if (!p->trees.empty()) {
        /* the streams' drift for this message (mcast_multitree_window), at least the plan's */
        const int w = bytes == 0 ? -1
                                 : mcast_multitree_window(p->tree_ptrs.data(), int(p->tree_ptrs.size()),
                                                          bytes, m, &p->family_net, p->max_sends);
        ep->window = std::max(p->window, w);
        ep->max_sends = p->max_sends;
        ep->sync_sends = p->sync ? 1 : 0;
        return KB_OK;
    }
    const kb_tree_t *t = p->tree.t;
    const int first = t->child_off[rank], end = t->child_off[rank + 1];
    bool any_remote = false;
    for (int i = first; i < end; ++i) {
        const int c = t->children[i];
        any_remote = any_remote || !(p->all_local || (!p->node_of_rank.empty() &&
                                                      p->node_of_rank[size_t(c)] ==
                                                          p->node_of_rank[size_t(rank)]));
    }
    int ms = p->max_sends;
    if (ms == -1 && small_whole(p->net, m, ep->block_bytes)) {
        ms = 0; /* header, "Sends in flight" */
    }
    ep->max_sends = resolve_max_sends(ms, p->window, end - first, any_remote);
    ep->sync_sends = 0;
    return KB_OK;
}

MC_API int mcast_plan_get_info(const mcast_plan_t *p, mcast_plan_info_t *info)
{
    if (p == nullptr || info == nullptr) {
        return KB_ERR_ARG;
    }
    info->algorithm = p->algorithm;
    info->name = REGISTRY[p->algorithm].name;
    info->k = p->k;
    info->segment_bytes = p->segment_bytes;
    info->lambda = p->lambda;
    info->window = p->window;
    info->max_sends = p->max_sends;
    info->discipline = p->discipline;
    info->predicted_us = p->predicted_us;
    info->selected_by = p->selected_by.c_str();
    info->tree = p->tree.t;
    info->ntrees = int(p->tree_ptrs.size());
    info->lag = p->lag;
    info->trees = p->tree_ptrs.empty() ? nullptr : p->tree_ptrs.data();
    info->chain = p->chain.data();
    info->n = p->n;
    info->root = p->root;
    info->class_bytes = p->class_bytes;
    info->defer = p->defer ? 1 : 0;
    info->family = p->family;
    info->previous_us = p->previous_us;
    info->previous = p->previous;
    info->transport = transport_name(p->transport);
    info->transport_kind = p->transport;
    info->shm_slots = p->shm_slots;
    info->shm_slot_bytes = p->shm_slot_bytes;
    info->shm_chunk_bytes = p->shm_chunk_bytes;
    info->shm_fit_ring = p->shm_fit_ring;
    info->node_of_rank = p->node_of_rank.empty() ? nullptr : p->node_of_rank.data();
    info->variant = p->level.variant;
    return KB_OK;
}

MC_API int mcast_plan_node_leader(const mcast_plan_t *p, int rank)
{
    if (p == nullptr || p->transport != MCAST_PLAN_PML_SHM || rank < 0 || rank >= p->n ||
        p->node_of_rank.size() != size_t(p->n) || p->chain.size() != size_t(p->n)) {
        return -1;
    }
    for (int r : p->chain) {
        if (p->node_of_rank[size_t(r)] == p->node_of_rank[size_t(rank)]) {
            return r;
        }
    }
    return -1;
}

MC_API int mcast_plan_describe(const mcast_plan_t *p, char *buf, size_t len)
{
    if (p == nullptr || buf == nullptr || len == 0) {
        return KB_ERR_ARG;
    }
    buf[0] = '\0';
    try {
        std::string s;
        if (p->k != 0) {
            s += "k=" + std::to_string(p->k) + " ";
        }
        if (!p->extra.empty()) {
            s += p->extra + " ";
        }
        s += "segment_bytes=" + (p->segment_bytes == 0 ? std::string("whole") : std::to_string(p->segment_bytes));
        if (p->segment_bytes != 0 && p->class_bytes / p->segment_bytes >= PLAN_MAX_BLOCKS) {
            s += " (raised to keep at most " + std::to_string(PLAN_MAX_BLOCKS) + " blocks)";
        }
        s += " window=" + std::to_string(p->window);
        s += " max_sends=" + (p->max_sends == -1 ? std::string("auto") : std::to_string(p->max_sends));
        if (p->sync) {
            s += " sends=sync";
        }
        s += std::string(" discipline=") + (p->discipline == KB_DISC_FCFS ? "fcfs" : "fpfs");
        s += std::string(" transport=") + transport_name(p->transport);
        s += " predicted_us=" + fmt("%.1f", p->predicted_us);
        if (p->previous_us >= 0) {
            s += std::string(" previous=") + p->previous + " previous_us=" + fmt("%.1f", p->previous_us);
        }
        s += " class_bytes=" + std::to_string(p->class_bytes);
        s += " selected_by=" + p->selected_by;
        std::snprintf(buf, len, "%s", s.c_str());
    } catch (...) { /* no memory for the text: an empty description */
        return KB_ERR_NOMEM;
    }
    return KB_OK;
}

MC_API double mcast_model_tree_us(const kb_tree_t *tree, size_t bytes, size_t segment_bytes,
                                  int max_sends, const int *node_of_rank, int all_local,
                                  const mcast_machine_t *machine)
{
    if (tree == nullptr || machine == nullptr || kb_tree_check(tree) != KB_OK || max_sends < -1) {
        return -1.0;
    }
    try {
        Locality loc;
        loc.node = node_of_rank;
        loc.all_local = all_local != 0;
        return tree_time(tree, bytes, segment_bytes, max_sends, 4, loc, *machine);
    } catch (...) {
        return -1.0;
    }
}

MC_API uint64_t mcast_forced_digest(const mcast_forced_t *f, const mcast_machine_t *m)
{
    uint64_t h = KB_DIGEST64_INIT;
    if (f != nullptr) {
        const int ints[] = {f->algorithm, f->k, f->window, f->max_sends, f->discipline,
                            f->postal_pipelining, f->mu_r, f->allgather, f->compare_previous,
                            f->sync_sends};
        h = fnv(h, ints, sizeof(ints));
        const uint64_t sizes[] = {f->segment_bytes, f->segment_min_bytes, f->segment_max_bytes};
        h = fnv(h, sizes, sizeof(sizes));
        h = fnv(h, &f->lambda, sizeof(f->lambda));
    }
    h = mcast_machine_digest(h, m);
    return h;
}

MC_API int mcast_class_choice_of(const mcast_plan_t *p, mcast_class_choice_t *c)
{
    mcast_plan_info_t info;
    if (c == nullptr || mcast_plan_get_info(p, &info) != KB_OK) {
        return KB_ERR_ARG;
    }
    std::memset(c, 0, sizeof(*c));
    c->defer = info.defer;
    c->algorithm = info.algorithm;
    c->k = info.k;
    c->segment_bytes = info.segment_bytes == 0 ? SIZE_MAX : info.segment_bytes;
    c->lambda = info.lambda;
    c->allgather = info.algorithm == MCAST_ALG_SCATTER_ALLGATHER ? info.variant + 1 : 0;
    std::snprintf(c->selected_by, sizeof(c->selected_by), "%s",
                  info.selected_by != nullptr ? info.selected_by : "");
    return KB_OK;
}

MC_API int mcast_class_choice_force(const mcast_class_choice_t *c, mcast_plan_input_t *in,
                                    mcast_forced_t *f)
{
    if (c == nullptr || in == nullptr || f == nullptr || c->defer) {
        return KB_ERR_ARG;
    }
    f->algorithm = c->algorithm;
    f->k = c->k;
    f->segment_bytes = c->segment_bytes;
    f->lambda = c->lambda;
    if (c->allgather != 0) {
        f->allgather = c->allgather;
    }
    in->rules = nullptr;
    in->selected_by = c->selected_by;
    return KB_OK;
}
