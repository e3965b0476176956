/*
 * What the candidates are made of: the segment grid, the postal model's lambda, the
 * nodes' segments, edst's trees, and the edge models of the schedule families
 * (mcast_families.h) with their geometry and sends in flight.  Which algorithm uses
 * which: the descriptors (plan_algorithms.cpp).
 */
#include "plan/plan_internal.hpp"
#include "plan/plan_routes.hpp"

namespace mcplan {

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
    return mcast_shm_fit_ring(in.node_cores, in.n);
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
    return mcast_shm_fit_ring(in.node_cores, ranks_per_node(in));
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
mcast_loggp_t edst_net(const mcast_plan_input_t &in, const std::vector<TreePtr> &trees, RouteLatency &rl)
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
 * default the circulant pipeline across nodes, unless they talk over TCP
 * (mcast_forced_t.sync_sends, input.nodes_over_tcp). */
bool family_sync(const mcast_plan_input_t &in, int family)
{
    if (in.all_local || family < 0 || in.forced->sync_sends == 0) {
        return false;
    }
    return in.forced->sync_sends == 1 || (family == MCAST_FAM_CIRCULANT && !in.nodes_over_tcp);
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
 * TWOTREE_SYNC_SENDS_MAX (plan_internal.hpp). */
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
 * eager limit) and waits for the receiver's match (sync_wait_of) after its bytes; a hop
 * is o_send + L + B w + W (mcast_planner.h, "Synchronous sends"), the receiver's
 * overhead being what the sender waits for, folded into o_send as for the circulant
 * (family_net_ours).  With o_recv charged as well the fill of a few blocks was
 * predicted one receive overhead per link too slow (evidence E-EDST-4). */
mcast_loggp_t edst_sync_net(mcast_loggp_t g, const mcast_machine_t &m)
{
    g.eager_bytes = 0;
    g.o_send_us += sync_wait_of(m);
    g.o_recv_us = 0.0;
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
                  int window, double t, int sync, double own,
                  std::shared_ptr<const std::vector<int>> chain)
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

} // namespace mcplan
