/*
 * The planner's internal types and functions, shared by its files (no public API: that
 * is mcast_planner.h).  Files, by concern:
 *   planner.cpp          the C API
 *   plan_algorithms.cpp  the registry: one descriptor per algorithm (AlgDesc: where it
 *                        applies, how it is evaluated, its tree, its transport)
 *   plan_select.cpp      the selection: forced > rules > model, the module below, the plan
 *   plan_evaluator.hpp,  the evaluation of candidates on one communicator and size
 *   plan_evaluate.cpp    (trees, families, twolevel, multicast, edst, shared segment)
 *   plan_candidates.cpp  segment grid, postal lambda, edst's trees, families' edge models
 *   plan_tree_model.cpp  the tree recurrence (tree_time) and the flow-level tree model
 *   plan_links.cpp       route latency, the links' bound, the two-tree's placement
 *   plan_previous.cpp    the model of Open MPI's own choice (the module below)
 *   plan_routes.hpp      routes between hosts, link timelines, route latency, link loads
 */
#ifndef MCAST_PLAN_INTERNAL_HPP
#define MCAST_PLAN_INTERNAL_HPP

#include "mcast_planner.h"
#include "mcast_shm.h"

#include "topo/pm_internal.h"
#include "base/kb_core.hpp"
#include "model/fitted.hpp"
#include "kb_file.h"
#include "pm_worms.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace mcplan {

/* The planner's input errors are the core's (kb_core.hpp: kb::guarded turns them into
 * KB_ERR_ARG with their text). */
using PlanError = kb::ArgError;

inline void require(bool ok, const char *what)
{
    if (!ok) {
        throw PlanError(what);
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
/* Eager blocks over TCP (mcast_planner.h): what a block leaves below net.eager_bytes.  The
 * headers alone were not enough: ob1 sends a message eager up to about 65480 - 65500 bytes
 * of btl/tcp's 64 KiB in Open MPI 4.1 but only up to about 65440 - 65450 in 5.0, and
 * blocks of 65408 bytes, several in flight, ran 4 - 12x slower at 2 - 4 MiB than blocks
 * of 64512 or 65000 in both (E-TCP-7) */
constexpr size_t PLAN_TCP_BLOCK_MARGIN = 1024;

/* window = 0 (auto, the default): the receives a rank keeps posted ahead (mcast_planner.h,
 * mcast_forced_t; an algorithm's descriptor names its own, AlgDesc.window).  The circulant receives one block a round, each
 * from another rank: with receives posted ahead, ranks that drift apart let a rank take
 * two rounds' blocks at once, both at half its link's rate, and the delay spreads round
 * after round (SimGrid fat-tree-128, 16 MiB: far slower with 4 ahead than with 1, which
 * runs near the model; evidence E-CIRC-1).  Trees and pipelines receive from one parent:
 * 4 ahead keep its segments flowing. */
constexpr int PLAN_WINDOW = 4;

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

} // namespace mcplan

/* ---- the plan ------------------------------------------------------------ */
/* ---- the plan ------------------------------------------------------------ */
struct mcast_plan {
    using TreePtr = mcplan::TreePtr;
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
    mcast_loggp_t net{}; /* the machine model between nodes (whole_at_once) */
    /* twolevel with a family between the node leaders (level) and a tree inside the
     * nodes (intra): mcast_sched_two_level */
    bool two_level = false;
    mcast_level_t intra{};
    int nnodes = 0;
    /* the module below's predicted time under auto (-1: not compared) and its algorithm */
    double previous_us = -1;
    const char *previous = "";
    /* under auto, selected by the model: the best plan of another algorithm and its
     * predicted time (MCAST_ALG_AUTO, -1: none) */
    int runner_up = MCAST_ALG_AUTO;
    double runner_up_us = -1;
    mcast_plan_transport_t transport = MCAST_PLAN_PML;
    int shm_slots = 0;
    size_t shm_slot_bytes = 0, shm_chunk_bytes = 0;
    int shm_fit_ring = 0;
};

namespace mcplan {

/* ---- machine model -------------------------------------------------------- */
/* ---- machine model -------------------------------------------------------- */
struct EdgeCost {
    double sigma, delta, occ, rho;
};

inline EdgeCost edge_cost(const mcast_loggp_t &g, size_t S)
{
    const double s = double(S);
    EdgeCost e;
    e.sigma = g.o_send_us + s * g.gap_ns_per_byte * 1e-3;
    e.rho = g.o_recv_us + s * g.recv_ns_per_byte * 1e-3;
    e.delta = g.o_send_us + g.latency_us + s * g.wire_ns_per_byte * 1e-3 + e.rho;
    e.occ = S <= g.eager_bytes ? e.sigma : e.delta;
    return e;
}

/* A message sent whole (one block), eager or with a copy's wire time at most a message's
 * send overhead (header, "Sends in flight"): under max_sends = -1 its copies all leave at
 * once. */
inline bool whole_at_once(const mcast_loggp_t &net, uint64_t nblocks, size_t block_bytes)
{
    return nblocks <= 1 && (block_bytes <= net.eager_bytes ||
                            double(block_bytes) * net.wire_ns_per_byte * 1e-3 <= net.o_send_us);
}

/* Sends a rank keeps in flight (mcast_forced_t.max_sends semantics). */
inline int resolve_max_sends(int forced, int window, int nchildren, bool any_remote_child)
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


/* The trees' share of the two-tree's burst (fam_twotree.cpp; edst's is 1/2): fitted
 * (fitted.hpp; header, "Shared flows"; evidence E-TOUR-1). */
using mcast_fit::TREE_BURST;

class Routes;
class RouteLatency;
class LinkLoad;

/* plan_tree_model.cpp */
double tree_time(const kb_tree_t *t, size_t M, size_t S, int max_sends_forced, int window,
                 const Locality &loc, const mcast_machine_t &mach, RouteLatency *rl = nullptr,
                 const std::vector<double> *share = nullptr, Routes *routes = nullptr);

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
inline bool better(double x, double y)
{
    return !std::isfinite(y) ? std::isfinite(x) : x < y - 1e-9 * std::max(1.0, y);
}

/* ---- the algorithms' descriptors (plan_algorithms.cpp) ------------------------ */
class Evaluator;

enum AlgKind {
    ALG_AUTO,   /* the registry's "auto" row */
    ALG_TREE,   /* a tree (on the chain, or pathlg's), segments from the grid */
    ALG_TORUS,  /* a torus tree (Oral & George) */
    ALG_FAMILY, /* a schedule family (mcast_families.h) */
    ALG_OWN     /* its own evaluation and schedule: mcast, shm, edst */
};

struct AlgDesc {
    mcast_alg_info_t info;            /* id, name, component, description (the C API's row) */
    AlgKind kind;
    int family;                       /* MCAST_FAM_* of a schedule family, else -1 */
    int torus;                        /* PM_TORUS_* of a torus tree, else -1 */
    int shape;                        /* KB_SHAPE_* of a tree on the chain, else -1 */
    mcast_plan_transport_t transport; /* PML, SHM, or MC_IP (the input's group: IP or IB) */
    unsigned auto_for;                /* components whose auto evaluates it (0: forced or rules) */
    bool has_k;                       /* the plan reports k */
    int window;                       /* receives posted ahead under window = 0 (auto) */
    /* where it applies beyond its component (nullptr: everywhere) */
    bool (*applies)(const mcast_plan_input_t &in);
    /* offers its candidates (forced parameters applied) to best */
    void (*evaluate)(const Evaluator &ev, int alg, Candidate &best);
    /* its tree (nullptr: the chain's tree of `shape`, or no tree when shape < 0) */
    TreePtr (*build)(const mcast_plan_input_t &in, const std::vector<int> &chain, const Candidate &c);
};

extern const AlgDesc ALGS[MCAST_ALG_COUNT];

/* The family of a registry algorithm, or -1. */
inline int family_of(int alg) { return ALGS[alg].family; }

inline int window_of(const mcast_forced_t &f, int alg)
{
    return f.window >= 1 ? f.window : ALGS[alg].window;
}

/* An algorithm of the input's component that applies here. */
bool eligible(int alg, const mcast_plan_input_t &in);
/* Where it applies, whatever the component (coll/pathmc's comparison with kbinomial's). */
bool applies_here(int alg, const mcast_plan_input_t &in);
/* The candidate's tree; throws ArgError when it does not apply. */
TreePtr build_tree(const mcast_plan_input_t &in, const std::vector<int> &chain, const Candidate &c);
/* Whether the candidate's plan runs on a tree (build_tree). */
bool has_tree(const Candidate &c);

constexpr double PREVIOUS_MARGIN = 0.05;

/* On an unmodelled network (mcast_planner.h, "Unmodelled networks") the size classes from
 * here where Open MPI's own choice is its linear tree or its chain run our copy of it
 * instead of handing it to the module below: the same whole messages on the same tree,
 * faster through our engine from 1 MiB on every layout and load measured; its other trees
 * were not measured there (docs/evidence.md, E-TCP-3). */
constexpr size_t UNMODELLED_COPY_MIN = size_t(1) << 20;

/* A datagram costs at least a system call on each side (sendmsg / recvmmsg, or a verbs
 * post and poll): the multicast model never charges less per datagram. */
constexpr double MCAST_DGRAM_FLOOR_US = 2.0;

/* plan_candidates.cpp */
std::vector<size_t> segment_grid(size_t M, const mcast_forced_t &f);
std::vector<int> input_chain(const mcast_plan_input_t &in);
double postal_lambda(const mcast_plan_input_t &in, size_t S);
std::vector<double> postal_lambdas(const mcast_plan_input_t &in, const mcast_forced_t &f, size_t S);
int shm_fit_ring(const mcast_plan_input_t &in);
int ranks_per_node(const mcast_plan_input_t &in);
bool node_segments(const mcast_plan_input_t &in);
int node_fit_ring(const mcast_plan_input_t &in);
bool edst_applies(const mcast_plan_input_t &in);
mcast_loggp_t family_net_of(mcast_loggp_t g);
std::vector<TreePtr> edst_trees(const mcast_plan_input_t &in);
std::vector<const kb_tree_t *> tree_ptrs(const std::vector<TreePtr> &v);
mcast_loggp_t edst_net(const mcast_plan_input_t &in, const std::vector<TreePtr> &trees, RouteLatency &rl);
double sync_wait_of(const mcast_machine_t &m);
mcast_loggp_t family_net(const mcast_plan_input_t &in);
bool family_sync(const mcast_plan_input_t &in, int family);
std::vector<bool> family_sync_options(const mcast_plan_input_t &in, int family);
/* the most synchronous sends the two-tree keeps in flight (twotree_sync_sends) */
constexpr int TWOTREE_SYNC_SENDS_MAX = 16;
int twotree_sync_sends(const mcast_loggp_t &g, size_t B);
std::vector<bool> edst_sync_options(const mcast_plan_input_t &in);
mcast_loggp_t edst_sync_net(mcast_loggp_t g, const mcast_machine_t &m);
mcast_loggp_t family_net_ours(const mcast_plan_input_t &in, int family, bool sync);
mcast_level_t level_of(int alg, int variant);
void family_geometry(int family, int n, size_t M, size_t S, size_t *B, uint32_t *nb);
void offer_family(Candidate &best, int alg, int variant, int inter, int intra, size_t B, int ms,
                  int window, double t, int sync = -1, double own = -1.0,
                  std::shared_ptr<const std::vector<int>> chain = nullptr);
std::vector<int> family_sends(const mcast_forced_t &f, int alg);

/* plan_links.cpp */
double family_mean_latency_us(RouteLatency &rl, const mcast_level_t &l,
                              const mcast_plan_input_t &in, const std::vector<int> &chain,
                              uint32_t nb, bool slowest);
bool direct_network(const mcast_plan_input_t &in);
double family_link_bound_us(LinkLoad &ll, const mcast_level_t &l, const mcast_plan_input_t &in,
                            const std::vector<int> &chain, size_t M, uint32_t nblocks,
                            double alpha_us);
std::vector<int> twotree_placement(const mcast_level_t &l, const mcast_plan_input_t &in,
                                   const std::vector<int> &chain, Routes &routes);

/* plan_previous.cpp */
int tuned_bcast_algorithm(int n, size_t M);
int libnbc_ibcast_algorithm(int n);
double previous_time(const mcast_plan_input_t &in, size_t M, const char **name);

/* plan_select.cpp */
std::string fmt(const char *f, double x);
int edst_lag(const mcast_plan &p, size_t bytes, uint32_t m);
void select(const mcast_plan_input_t &in, mcast_plan &out);

} // namespace mcplan

#endif
