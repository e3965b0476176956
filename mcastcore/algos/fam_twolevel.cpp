/*
 * Two-level composition for many ranks per node (mcast_sched_two_level) and the plain
 * two-level tree (mcast_tree_two_level).
 *
 * Algorithm: the node leaders run any inter-node schedule (a family or a tree) over the
 * nodes; inside every node the ranks form a node-local tree, and every block a rank holds
 * goes down that tree as soon as it is held (FPFS), so the two levels overlap per block
 * instead of running one after the other.
 *
 * Paper / practice: han in Open MPI (coll_han_bcast.c: inter-node and intra-node steps of
 * successive 64 KiB segments overlap), and MPICH's "smp" bcast (one after the other).
 * The overlap per block follows from the engine: a local send waits only for its block.
 *
 * Construction (positions are chain positions, nodes ordered by their first rank on the
 * chain, a node's leader is its first rank, the root leads node 0):
 *   leader     its inter-node ops (peers mapped node -> leader), and local sends: for every
 *              inter-node receive (in list order; the root: block by block), the same block
 *              range to each local child.  Steps: a local send of a range held in step h
 *              to the i-th of d children is at max(h, previous local send) + i, its own
 *              local "port" (shared memory and the network are separate resources); the
 *              send list is the merge of both by step, inter-node first on ties.
 *   member     receives what its local parent sends it, in that order, and forwards each
 *              range to its own children in the same way.
 * Memory O(m (1 + local children)) per rank.
 *
 * Cost model (separate resources, overlapping per block; mcast_two_level_predict_us):
 *   T = max(T_inter(nodes, m) + A_local, T_local(ppn, m))
 * T_inter: the inter level's model with `net`; T_local: the node-local tree's FPFS model
 * (fam_api.cpp) with `local` over ppn ranks; A_local: that tree's time for one block
 * (the last block still has to cross the node).  The simulated network of the unit tests
 * has one port per rank for both levels, so it runs the leader's two streams one after
 * the other: it lies between this model and the sum of both levels.
 *
 * Two-level tree (as kb_tree_t): a k-binomial tree over the leaders, the shape `intra`
 * inside every node; a leader's children are its inter-node children, then its local ones.
 *
 * n = 10 on 3 nodes {0 1 2 3} {4 5 6} {7 8 9}, root 0, inter = chain, intra = chain:
 *
 *        node A            node B            node C
 *   0 ==b0,b1..==> 4 ==b0,b1..==> 7            (inter-node, per block)
 *   |              |               |
 *   1 -> 2 -> 3    5 -> 6          8 -> 9       (local chains start with b0 at once)
 */
#include "algos/fam_core.hpp"

#include <algorithm>
#include <map>

namespace mc {
namespace fam {

namespace {

struct Nodes {
    std::vector<int> chain;                 /* position -> rank */
    std::vector<std::vector<int>> members;  /* per node: ranks in chain order, leader first */
    std::vector<int> node_of;               /* rank -> node index */
    std::vector<int> local_of;              /* rank -> index inside its node */
};

Nodes nodes_of(int n, int root, const int *ordering, const int *node_of_rank)
{
    Nodes N;
    N.chain = kb::make_chain(n, root, ordering);
    N.node_of.assign(size_t(n), -1);
    N.local_of.assign(size_t(n), -1);
    std::map<int, int> index;
    for (int r : N.chain) {
        const auto it = index.emplace(node_of_rank[r], int(N.members.size())).first;
        if (size_t(it->second) == N.members.size()) {
            N.members.emplace_back();
        }
        N.node_of[size_t(r)] = it->second;
        N.local_of[size_t(r)] = int(N.members[size_t(it->second)].size());
        N.members[size_t(it->second)].push_back(r);
    }
    return N;
}

kb::Tree local_tree(const mcast_level_t &intra, int size)
{
    return kb::build_tree(intra.shape, size, 0, nullptr, &intra.tree);
}

/* Appends FPFS local sends of `held` (ranges with the step they are held) to children. */
void fan_out(const Ops &held, const std::vector<int> &kids, Ops &out)
{
    long port = 0;
    for (const mcast_op_t &h : held) {
        long t = std::max<long>(h.step, port);
        for (int c : kids) {
            mcast_op_t o = h;
            o.peer = c;
            o.step = uint32_t(++t);
            out.push_back(o);
        }
        port = t;
    }
}

/* What local index v of a node receives (ranges, steps) and forwards; `held` starts as what
 * the leader holds. */
Ops local_arrivals(const kb::Tree &t, int v, const Ops &leader_held)
{
    std::vector<int> path;
    for (int u = v; u != 0; u = t.parent[size_t(u)]) {
        path.push_back(u);
    }
    Ops held = leader_held;
    for (size_t i = path.size(); i-- > 0;) {
        const int u = path[i], p = t.parent[size_t(u)];
        const std::vector<int> kids(t.children.begin() + t.child_off[size_t(p)],
                                    t.children.begin() + t.child_off[size_t(p) + 1]);
        Ops sends;
        fan_out(held, kids, sends);
        Ops got;
        for (const mcast_op_t &o : sends) {
            if (o.peer == u) {
                got.push_back(o);
            }
        }
        held.swap(got);
    }
    return held;
}

} // namespace

std::unique_ptr<mcast_sched> two_level(int n, int root, int rank, const int *ordering,
                                       const int *node_of_rank, const mcast_level_t &inter,
                                       const mcast_level_t &intra, uint32_t m)
{
    kb::require(n >= 1 && rank >= 0 && rank < n, "two_level: rank out of range");
    kb::require(intra.family == MCAST_FAM_TREE || intra.family == MCAST_FAM_NODE_SEGMENT,
                "two_level: the node-local level must be a tree or the node's segment");
    const bool segment = intra.family == MCAST_FAM_NODE_SEGMENT;
    const Nodes N = nodes_of(n, root, ordering, node_of_rank);
    const int nodes = int(N.members.size());
    if (nodes > 1) { /* one node: no inter-node level (any m) */
        check_level(&inter, nodes, m);
    }
    const int j = N.node_of[size_t(rank)], me = N.local_of[size_t(rank)];
    const std::vector<int> &mem = N.members[size_t(j)];
    mcast_level_t tree_level = intra;
    if (segment) { /* the tree is not used: no local op */
        tree_level.family = MCAST_FAM_TREE;
        tree_level.shape = KB_SHAPE_CHAIN;
    }
    const kb::Tree lt = local_tree(tree_level, int(mem.size()));
    std::vector<int> kids;
    for (int i = lt.child_off[size_t(me)]; !segment && i < lt.child_off[size_t(me) + 1]; ++i) {
        kids.push_back(mem[size_t(lt.children[size_t(i)])]);
    }
    /* What the leader holds, in order, with steps. */
    Ops inter_recv, inter_send;
    if (m > 0 && nodes > 1) {
        const auto is = level_sched(inter, nodes, 0, j, nullptr, m);
        for (int kind = 0; kind < 2; ++kind) {
            Ops &dst = kind == MCAST_OP_RECV ? inter_recv : inter_send;
            const size_t cnt = is->count(mcast_op_kind_t(kind));
            dst.reserve(cnt);
            for (size_t i = 0; i < cnt; ++i) {
                mcast_op_t o = is->op(mcast_op_kind_t(kind), i);
                o.peer = N.members[size_t(o.peer)][0];
                dst.push_back(o);
            }
        }
    }
    Ops leader_held;
    if (j == 0) {
        for (uint32_t b = 0; b < m; ++b) {
            mcast_op_t o{};
            o.block = b;
            o.nblocks = 1;
            o.step = 0;
            leader_held.push_back(o);
        }
    } else {
        leader_held = inter_recv;
    }
    Ops recv, local_send;
    if (me == 0) {
        recv = inter_recv;
        fan_out(leader_held, kids, local_send);
    } else if (segment) {
        inter_send.clear(); /* the glue's segment brings a member every block */
    } else {
        inter_send.clear(); /* only the leader talks to other nodes */
        recv = local_arrivals(lt, me, leader_held);
        for (mcast_op_t &o : recv) {
            o.peer = mem[size_t(lt.parent[size_t(me)])];
        }
        fan_out(recv, kids, local_send);
    }
    /* merge by step, inter-node first on ties */
    Ops send;
    send.reserve(inter_send.size() + local_send.size());
    std::merge(inter_send.begin(), inter_send.end(), local_send.begin(), local_send.end(),
               std::back_inserter(send),
               [](const mcast_op_t &a, const mcast_op_t &b) { return a.step < b.step; });
    auto s = std::make_unique<ListSched>();
    s->n = n;
    s->rank = rank;
    s->nblocks = m;
    s->lists[MCAST_OP_RECV] = std::move(recv);
    s->lists[MCAST_OP_SEND] = std::move(send);
    for (Ops &ops : s->lists) {
        check_ops(n, rank, m, ops);
        mark_last(ops);
    }
    return s;
}

kb::Tree two_level_tree(int n, int root, const int *ordering, const int *node_of_rank,
                        int inter_k, kb_shape_t intra_shape, const kb_tree_params_t *intra)
{
    kb::require(inter_k >= 1, "two_level: inter_k must be >= 1");
    const Nodes N = nodes_of(n, root, ordering, node_of_rank);
    const int nodes = int(N.members.size());
    /* virtual chain: leaders in node order, then every node's other ranks */
    std::vector<int> vchain;
    std::vector<int> pos_of(size_t(n), -1);
    for (const auto &mem : N.members) {
        pos_of[size_t(mem[0])] = int(vchain.size());
        vchain.push_back(mem[0]);
    }
    for (const auto &mem : N.members) {
        for (size_t i = 1; i < mem.size(); ++i) {
            pos_of[size_t(mem[i])] = int(vchain.size());
            vchain.push_back(mem[i]);
        }
    }
    kb::ChainEdges edges = kb::kbinomial_edges(nodes, inter_k);
    for (const auto &mem : N.members) {
        const kb::Tree lt = kb::build_tree(intra_shape, int(mem.size()), 0, nullptr, intra);
        /* local tree edges in BFS order (a parent's edges after it was reached) */
        std::vector<int> order{0};
        for (size_t h = 0; h < order.size(); ++h) {
            const int u = order[h];
            for (int i = lt.child_off[size_t(u)]; i < lt.child_off[size_t(u) + 1]; ++i) {
                const int c = lt.children[size_t(i)];
                edges.emplace_back(pos_of[size_t(mem[size_t(u)])], pos_of[size_t(mem[size_t(c)])]);
                order.push_back(c);
            }
        }
    }
    return kb::tree_from_chain(vchain, edges);
}

double two_level_predict(const mcast_level_t &inter, const mcast_level_t &intra, int nodes,
                         int ppn, size_t M, uint32_t m, const Model &net, const Model &local)
{
    kb::require(nodes >= 1 && ppn >= 1, "two_level: nodes and ppn must be >= 1");
    kb::require(intra.family == MCAST_FAM_TREE, "two_level: the node-local level must be a tree");
    const double Ti = nodes == 1 ? 0.0 : level_predict(inter, nodes, M, m, net);
    if (m == 0 || ppn == 1) {
        return Ti;
    }
    const double Tl = level_predict(intra, ppn, M, m, local);
    const size_t B = (M + m - 1) / m;
    const double Al = level_predict(intra, ppn, std::min(B, M), 1, local);
    return std::max(Ti + Al, Tl);
}

} // namespace fam
} // namespace mc
