/*
 * Internal C++ model of the multidestination-worm part of the pathmc core
 * (seed 001 sec. 5).  Everything here works on topology node ids (hosts and
 * switches alike, pm_internal.h); the C API (pm_worms_api.cpp) translates
 * host and switch indices.
 */
#ifndef PM_WORMS_HPP
#define PM_WORMS_HPP

#include <cstdint>
#include <map>
#include <vector>

#include "topo/pm_internal.h"
#include "pm_worms.h"

namespace pm {

/* Host set as a bit string, MSB first in each byte (the tree header layout). */
using Bits = std::vector<uint8_t>;
inline void bit_set(Bits &b, int i) { b[i >> 3] |= (uint8_t)(0x80u >> (i & 7)); }
inline bool bit_get(const Bits &b, int i) { return (b[i >> 3] >> (7 - (i & 7))) & 1; }

/* node id <-> host / switch index */
struct Index {
    std::vector<int> host_idx;  /* node id -> host index, -1 for switches */
    std::vector<int> sw_idx;    /* node id -> switch index, -1 for hosts */
    explicit Index(const Topology &t);
};

/* The directed link leaving node u through port p (-1 if the port is free). */
int port_dlink(const Topology &t, int u, int port);
/* Port of node u that directed link dl leaves from. */
int dlink_port(const Topology &t, int dl);
/* Host nodes attached to switch sw, in port order. */
std::vector<int> switch_hosts(const Topology &t, int sw);

/* ---------------------------------------------------------------- POC (Fig. 13) */
struct Poc {
    std::vector<int> dfs;                   /* switch node ids, DFS preorder */
    std::vector<std::vector<int>> T, Tp;    /* per node id: children in T, in T' */
    std::vector<int> rho, weight;           /* per node id */
    std::vector<std::vector<int>> chains;   /* stripping order */
};
Poc poc_find(const Topology &t, int src, const std::vector<int> &dsts);

/* ---------------------------------------------------------------- plans */
struct Worm {
    pm_worm_kind_t kind = PM_WORM_PATH;
    int phase = 0;
    int sender = -1;                        /* host node id */
    std::vector<int> dests;                 /* host node ids, drop order */
    std::vector<int> switches;              /* switch node ids, drop order */
};
struct Plan {
    pm_worm_kind_t kind = PM_WORM_PATH;
    pm_phase_alg_t alg = PM_PHASE_LESS_GREEDY;
    int source = -1;
    int nphases = 0;
    std::vector<Worm> worms;
    std::vector<std::vector<int>> eligible; /* per phase: the holders allowed to send */
};
/* Validates src/dsts (hosts, distinct, src not a destination). */
Plan make_plan(const Topology &t, pm_worm_kind_t kind, pm_phase_alg_t alg, int src,
               const std::vector<int> &dsts);

/* ---------------------------------------------------------------- headers */
enum : uint8_t { HDR_MULTI = 0x80, HDR_TREE = 0x40, HDR_UP = 0x20 };
std::vector<uint8_t> encode_drops(const Topology &t, const Worm &w);
std::vector<uint8_t> encode_tree(const Topology &t, const std::vector<int> &dsts);

/* Reachability strings (Fig. 18), per switch node id and port. */
struct Reach {
    size_t nbytes = 0;
    std::vector<Bits> total;                /* per node id (empty for hosts) */
    std::vector<std::vector<Bits>> full;    /* per node id, per port: before restriction */
    std::vector<std::vector<Bits>> restr;   /* per node id, per port: restricted */
};
Reach reach_build(const Topology &t);

/* Minimal up*-down* next hop from a switch, knowing whether the worm has
 * already gone down (then down links only, if such a route exists). */
class Router {
  public:
    explicit Router(const Topology &t) : t_(t) {}
    int next_hop(int sw, bool gone_down, int target) const;
  private:
    const Topology &t_;
    mutable std::map<int, std::vector<int>> down_first_;   /* src -> first dlink per node */
};

struct Out {
    int dlink;
    int port;
    int host;                               /* host node id, -1 if a switch */
    std::vector<uint8_t> hdr;
};
void decode(const Topology &t, const Router &r, const Reach *reach, int sw, int in_dlink,
            const std::vector<uint8_t> &hdr, bool modify, std::vector<Out> &outs);

/* The route tree of one worm, found by decoding at every switch. */
struct Trace {
    struct Hop {
        int sw;
        int in_dlink;
        bool gone_down;                     /* a down link was taken on the way to sw */
        std::vector<int> out;               /* directed links leaving sw */
        std::vector<int> next;              /* hop index, or -1 for a host */
    };
    int src = -1;
    int inject = -1;
    std::vector<Hop> hops;                  /* hops[0]: the source's switch */
    std::vector<int> delivered;             /* host node ids (a host twice = two copies) */
    bool illegal = false;                   /* an up link after a down link somewhere */
};
Trace trace(const Topology &t, const Router &r, const Reach *reach, int src_host,
            const std::vector<uint8_t> &hdr, bool modify);
/* Channel dependencies of several traces: a cycle? */
bool traces_cyclic(const Topology &t, const std::vector<const Trace *> &traces);

struct PlanCheck {
    int missing = 0, duplicates = 0, strays = 0, not_ready = 0, illegal = 0, cyclic = 0;
};
PlanCheck check_plan(const Topology &t, const Plan &p, int src, const std::vector<int> &dsts);

/* ---------------------------------------------------------------- rendering */
struct Render {
    Tree tree;                              /* over group ranks */
    Plan plan;                              /* senders/dests are group ranks */
    size_t seg_bytes = 0;
    long steps = 0;
    double predicted_us = 0;
    long conflicts = 0;                     /* link conflicts left (pm_check_contention) */
};

Render pathlg_render(const Topology &t, const std::vector<int> &host_of_rank, int root,
                     const pm_pathlg_params_t &p);

}  // namespace pm

#endif /* PM_WORMS_HPP */
