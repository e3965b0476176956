/*
 * Internal C++ model of the coll_pathmc core (not installed).
 *
 * A topology is a graph of nodes (hosts, switches, torus routers) and
 * physical links; physical link l yields directed links 2l (a->b) and
 * 2l+1 (b->a).  Routing functions return directed-link sequences.
 */
#ifndef PM_INTERNAL_H
#define PM_INTERNAL_H

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "pathmc.h"
#include "pm_limits.h"

namespace pm {

/* Thrown by parsers: message already carries "file:line: ". */
struct ParseError : std::runtime_error {
    explicit ParseError(const std::string &m) : std::runtime_error(m) {}
};
/* Thrown for invalid arguments that carry a user-facing message. */
struct ArgError : std::runtime_error {
    int code;
    ArgError(int c, const std::string &m) : std::runtime_error(m), code(c) {}
};

struct Node {
    std::string name;
    bool is_host = false;
    std::vector<int> ports;       /* port index -> physical link id (-1 free) */
    bool fixed_ports = false;     /* port count declared (else grows on demand) */
    size_t first_free = 0;        /* no free port below (ports are never freed) */
    std::vector<int> coord;       /* torus routers and their hosts; fat-tree labels */
    int level = -1;               /* fat-tree switch level (0 = top) */
};

struct Link {
    int a, b;                     /* node ids */
    int pa, pb;                   /* port index on a and b */
    int cls;                      /* PM_LINK_* */
};

struct Topology {
    pm_topo_kind_t kind = PM_TOPO_GRAPH;
    std::vector<Node> nodes;
    std::vector<Link> links;
    std::vector<int> hosts;            /* node ids of hosts, in declaration order */
    std::vector<int> switches;         /* node ids of switches/routers, declaration order */
    std::map<std::string, int> by_name;/* name (and aliases) -> node id */
    size_t port_slots = 0;             /* sum of ports.size() (PM_MAX_PORTS) */

    /* torus */
    std::vector<int> dims;
    bool wrap = true, bidir = true;
    std::vector<int> router_of_coord;  /* linear coord index (dim 0 fastest) -> node id */
    std::vector<int> torus_dlink;      /* [router*ndims*2 + d*2 + (dir>0)] -> directed link */
    /* fat-tree */
    int ft_m = 0, ft_n = 0;
    /* a graph's routes (its file's "routing"): PM_ROUTE_UPDOWN or PM_ROUTE_MINHOP */
    pm_routing_t graph_routing = PM_ROUTE_UPDOWN;

    /* up*-down* state, computed lazily */
    int ud_root = -1;                  /* node id, -1 = lowest switch id */
    mutable bool ud_valid = false;
    mutable std::vector<int> ud_level; /* per node, BFS level (switches) */
    mutable std::map<int, std::vector<int>> ud_cache; /* src switch -> pred dlink per (state) */
    mutable std::map<int, std::vector<long>> mh_cache; /* src switch -> hops, class sums */

    /* Both check the limits of pm_limits.h (ArgError PM_ERR_ARG, "... (limit N)"). */
    int add_node(const std::string &name, bool is_host, int nports);
    int add_link(int a, int b, int cls, int pa = -1, int pb = -1);
    int free_port(int node);           /* lowest free port of a node, -1 if none; amortised O(1) */
    int find(const std::string &name) const;
    int host_switch(int host) const;   /* node the host's single link reaches */
    int other_end(int dlink) const { return (dlink & 1) ? links[dlink >> 1].a : links[dlink >> 1].b; }
    int from_end(int dlink) const { return (dlink & 1) ? links[dlink >> 1].b : links[dlink >> 1].a; }
    int linear(const std::vector<int> &c) const;
    void finish_torus();               /* fills router tables */
};

/* Builders and parsers (pm_topo.cpp, pm_parse.cpp) */
std::unique_ptr<Topology> parse_topology(const std::string &text, pm_format_t fmt,
                                         const std::string &fname);
void build_torus(Topology &t, const std::vector<int> &dims, bool wrap, bool bidir);
void build_fattree(Topology &t, int m, int n);
std::string write_ibnet(const Topology &t);

/* Routing (pm_topo.cpp) */
void route(const Topology &t, pm_routing_t r, int src_host, int dst_host, std::vector<int> &out);
bool updown_is_up(const Topology &t, int dlink);
void updown_prepare(const Topology &t);
/* Shortest legal up*-down* route between two switches (directed links). */
void route_updown_switches(const Topology &t, int s, int d, std::vector<int> &out);

/* Orderings (pm_order.cpp) */
std::vector<int> order_hosts(const Topology &t, pm_order_kind_t kind,
                             const std::vector<int> &host_of_rank, int root);
pm_order_kind_t auto_order(const Topology &t);
/* A Hamiltonian path of the switch graph from `start` (empty if the search finds none
 * within its budget). */
std::vector<int> switch_tour(const Topology &t, int start);
/* Depth-first preorder of the switch graph from `start` (the same neighbour order). */
std::vector<int> switch_preorder(const Topology &t, int start);
/* POC switch order: DFS preorder from the up*-down* root over down links
 * between levels (seed 001 Fig. 13 step 1), then unreachable switches. */
std::vector<int> poc_switch_order(const Topology &t);

/* Contention checker (pm_check.cpp) */
void check_contention(const Topology &t, pm_routing_t routing, const std::vector<int> &host_of, int nmsgs,
                      const pm_msg_t *msgs, int nsteps, long *conflicts, long *total);
void plan_from_tree(const kb_tree_t *k, std::vector<pm_msg_t> &out, int *nsteps);

/* Trees (pm_torus_common.cpp) */
struct Tree {
    int n = 0, root = 0;
    std::vector<int> parent;
    std::vector<std::vector<int>> children;   /* send order */
    std::vector<int> edge_phase;              /* phase of the edge into v (0 for root) */
    void init(int n_, int root_) {
        n = n_; root = root_;
        parent.assign(n, PM_NO_PEER);
        children.assign(n, {});
        edge_phase.assign(n, 0);
    }
    void add(int p, int c, int phase) {
        parent[c] = p; children[p].push_back(c); edge_phase[c] = phase;
    }
};
kb_tree_t *to_kb(const Tree &t);
void stats_of(const kb_tree_t *t, pm_torus_stats_t *st);

/* Torus geometry shared by the algorithm files (pm_torus_common.cpp). */
struct TorusGroup {
    pm_torus_shape_t shape;
    int n, root;
    std::vector<std::vector<int>> c;          /* coords per member */
    int ring_offset(int d, int from, int to) const; /* steps from->to along + direction */
    /* Key relative to `origin` coordinates: per dimension ring offset (torus) or
     * absolute coordinate (mesh), dimension 0 most significant, then rank. */
    std::vector<int> rel_key(int member, const std::vector<int> &origin) const;
    std::vector<int> dor_chain() const;       /* root first, relative DOR order */
    std::vector<int> snake_chain() const;     /* root first, Hamiltonian snake order */
};
void torus_separate(const TorusGroup &g, Tree &t);
void torus_utorus(const TorusGroup &g, Tree &t);
void torus_storus(const TorusGroup &g, Tree &t);
void torus_mdtorus(const TorusGroup &g, Tree &t);
void torus_mutorus(const TorusGroup &g, int r, Tree &t);
std::vector<int> snake_rank_key(const std::vector<int> &c, const std::vector<int> &dims);
/* The group of a torus build (ArgError on bad input). */
TorusGroup make_group(const pm_torus_shape_t *shape, int n, const int *coords, int root);
void torus_edst(const TorusGroup &g, Tree t[PM_EDST_TREES]);

}  // namespace pm

struct pm_topology {
    std::unique_ptr<pm::Topology> t;
};

#endif /* PM_INTERNAL_H */
