/*
 * Broadcast trees on an ordered chain: linear, chain, binomial and the
 * contention-free k-binomial tree (every node covers a contiguous block to its right).
 *
 * Cost model: unit steps, FPFS pipelining (seed 001 sec. 4.3).  A node that owns
 * the block [lo..hi] (itself at lo, b = hi-lo+1 nodes) needs s = L1(b,k) steps;
 * at its j-th step (j = 1..) it sends to the node N(s-j,k) places from the right
 * end of what is left of its block, and that child owns those places.  Blocks
 * are clamped when less is left; a node stops when only itself is left, so it
 * has at most min(s,k) children and every subtree finishes within L1 steps.
 * One packet: L1(n,k) steps; m packets: L1 + (m-1) delta_root (Theorem 2).
 * Paper: Kesavan & Panda, seed 001 sec. 4.3.4, fig. 9/10 (contention-free
 * k-binomial tree on a contention-free ordering).  BINOMIAL is k = ceil(log2 n).
 *
 * n = 10, k = 2, chain 0..9 (L1(10,2) = 4; N(3,2) = 7, N(2,2) = 4, N(1,2) = 2):
 *
 *   blocks:  [0 [1 2] [3 [4 5] [6 [7] [8 9]]]]      (a node owns the block it opens)
 *
 *           0 -+-[1]-> 3 -+-[2]-> 6 -+-[3]-> 8 --[4]-> 9
 *              |          |          +-[4]-> 7
 *              |          +-[3]-> 4 --[4]-> 5
 *              +-[2]-> 1 --[3]-> 2
 *   ([j] = step in which the edge is used; depth 4 = L1.)
 */
#include "base/kb_core.hpp"

#include <algorithm>
#include <utility>

namespace kb {

std::vector<int> make_chain(int n, int root, const int *ordering)
{
    require(n >= 1, "n must be >= 1");
    require(root >= 0 && root < n, "root out of range");
    std::vector<int> order(static_cast<size_t>(n));
    std::vector<char> seen(size_t(n), 0);
    int root_at = -1;
    for (int i = 0; i < n; ++i) {
        const int r = ordering ? ordering[i] : i;
        require(r >= 0 && r < n && !seen[size_t(r)], "ordering is not a permutation");
        seen[size_t(r)] = 1;
        order[size_t(i)] = r;
        if (r == root) {
            root_at = i;
        }
    }
    std::vector<int> chain(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        chain[size_t(i)] = order[size_t((root_at + i) % n)];
    }
    return chain;
}

Tree tree_from_chain(const std::vector<int> &chain, const ChainEdges &edges)
{
    const int n = int(chain.size());
    Tree t;
    t.n = n;
    t.root = chain[0];
    t.parent.assign(size_t(n), KB_NO_PEER);
    t.child_off.assign(size_t(n) + 1, 0);
    t.children.assign(size_t(n - 1), 0);
    for (const auto &[p, c] : edges) {
        t.child_off[size_t(chain[size_t(p)]) + 1]++;
    }
    for (int v = 0; v < n; ++v) {
        t.child_off[size_t(v) + 1] += t.child_off[size_t(v)];
    }
    /* Stable placement keeps send order; parents come before their children. */
    std::vector<int> next(t.child_off.begin(), t.child_off.end() - 1);
    std::vector<int> level(size_t(n), 0);
    for (const auto &[p, c] : edges) {
        const int v = chain[size_t(p)], w = chain[size_t(c)];
        t.children[size_t(next[size_t(v)]++)] = w;
        t.parent[size_t(w)] = v;
        level[size_t(c)] = level[size_t(p)] + 1;
        t.depth = std::max(t.depth, level[size_t(c)]);
    }
    return t;
}

ChainEdges linear_edges(int n)
{
    ChainEdges e;
    e.reserve(size_t(n));
    for (int p = 1; p < n; ++p) {
        e.emplace_back(0, p);
    }
    return e;
}

ChainEdges chain_edges(int n)
{
    ChainEdges e;
    e.reserve(size_t(n));
    for (int p = 0; p + 1 < n; ++p) {
        e.emplace_back(p, p + 1);
    }
    return e;
}

/* The trees whose nodes own contiguous blocks: the node at lo owning [lo..hi] hands
 * sub-blocks to its children in send order (split(lo, hi, give), give(child, last)). */
template <class Split> ChainEdges block_edges(int n, Split split)
{
    ChainEdges e;
    e.reserve(size_t(n));
    std::vector<std::pair<int, int>> work{{0, n - 1}}; /* blocks [lo..hi] */
    while (!work.empty()) {
        const auto [lo, hi] = work.back();
        work.pop_back();
        split(lo, hi, [&, lo = lo](int child, int last) {
            e.emplace_back(lo, child);
            work.emplace_back(child, last);
        });
    }
    return e;
}

ChainEdges kbinomial_edges(int n, int k)
{
    const std::vector<uint64_t> Ntab = N_table(n, k); /* N(0..L1(n,k), k) */
    return block_edges(n, [&](int lo, int hi, auto give) {
        const uint64_t b = uint64_t(hi - lo + 1);
        const int s = int(std::lower_bound(Ntab.begin(), Ntab.end(), b) - Ntab.begin());
        int right = hi;
        for (int j = 1; right > lo; ++j) {
            const uint64_t left = uint64_t(right - lo);
            const int size = int(std::min(Ntab[size_t(s - j)], left));
            give(right - size + 1, right);
            right -= size;
        }
    });
}

/* k-nomial tree of radix r: the node at lo owning [lo..hi] sends, for d = the largest
 * power of r below the block's size down to 1, to lo + i d (i = 1 .. r - 1, nearest
 * first), and that child owns [lo + i d .. lo + (i + 1) d - 1] (clamped to hi).  As
 * MPICH's and MVAPICH's knomial bcast and tuned's bcast algorithm 7 (radix 4 by
 * default) send; r = 2 is the binomial tree.  n = 10, r = 3 (chain 0..9):
 *
 *     0 -+-> 9                 (d = 9)
 *        +-> 3 -+-> 4          (d = 3; 3 owns 3..5)
 *        |      +-> 5
 *        +-> 6 -+-> 7          (6 owns 6..8)
 *        |      +-> 8
 *        +-> 1                 (d = 1)
 *        +-> 2
 */
ChainEdges knomial_edges(int n, int r)
{
    return block_edges(n, [&](int lo, int hi, auto give) {
        const long b = long(hi) - lo + 1;
        long d = 1;
        while (d * r < b) {
            d *= r;
        }
        for (; d >= 1; d /= r) {
            for (long i = 1; i < r && lo + i * d <= hi; ++i) {
                give(int(lo + i * d), int(std::min<long>(hi, lo + (i + 1) * d - 1)));
            }
        }
    });
}

Tree build_tree(kb_shape_t shape, int n, int root, const int *ordering,
                const kb_tree_params_t *params)
{
    const std::vector<int> chain = make_chain(n, root, ordering);
    switch (shape) {
    case KB_SHAPE_LINEAR:
        return tree_from_chain(chain, linear_edges(n));
    case KB_SHAPE_CHAIN:
        return tree_from_chain(chain, chain_edges(n));
    case KB_SHAPE_BINOMIAL:
        return tree_from_chain(chain, kbinomial_edges(n, max_k(n)));
    case KB_SHAPE_KBINOMIAL:
        require(params != nullptr && params->k >= 1, "KBINOMIAL needs params->k >= 1");
        return tree_from_chain(chain, kbinomial_edges(n, params->k));
    case KB_SHAPE_POSTAL:
        require(params != nullptr, "POSTAL needs params");
        check_lambda(params->lambda);
        return tree_from_chain(chain, postal_edges(n, params->lambda));
    case KB_SHAPE_KNOMIAL:
        require(params != nullptr && params->k >= 2, "KNOMIAL needs params->k >= 2");
        return tree_from_chain(chain, knomial_edges(n, params->k));
    }
    throw ArgError("unknown tree shape");
}

std::vector<int> checked_bfs_order(const kb_tree_t *t)
{
    require(t != nullptr && t->n >= 1, "tree is NULL or empty");
    const int n = t->n;
    require(t->root >= 0 && t->root < n, "tree root out of range");
    require(t->parent != nullptr && t->child_off != nullptr, "tree arrays are NULL");
    require(n == 1 || t->children != nullptr, "tree children array is NULL");
    require(t->child_off[0] == 0 && t->child_off[n] == n - 1, "bad child_off bounds");
    require(t->parent[t->root] == KB_NO_PEER, "root has a parent");
    for (int v = 0; v < n; ++v) {
        require(t->child_off[v] <= t->child_off[v + 1], "child_off not monotone");
    }
    /* Every listed child names its parent back; BFS from root then must see all n once. */
    std::vector<int> order{t->root};
    std::vector<char> seen(size_t(n), 0);
    seen[size_t(t->root)] = 1;
    int depth = 0;
    std::vector<int> level(size_t(n), 0);
    for (size_t h = 0; h < order.size(); ++h) {
        const int v = order[h];
        for (int i = t->child_off[v]; i < t->child_off[v + 1]; ++i) {
            const int c = t->children[i];
            require(c >= 0 && c < n && !seen[size_t(c)] && t->parent[c] == v,
                    "children and parent arrays disagree");
            seen[size_t(c)] = 1;
            level[size_t(c)] = level[size_t(v)] + 1;
            depth = std::max(depth, level[size_t(c)]);
            order.push_back(c);
        }
    }
    require(int(order.size()) == n, "tree does not span all ranks");
    require(depth == t->depth, "tree depth field is wrong");
    return order;
}

} // namespace kb
