/*
 * Internal C++ interface of the k-binomial core.
 *
 * Every function here validates its parameters and throws kb::ArgError on bad
 * input (never loops, never returns garbage).  std::bad_alloc propagates.
 * kb_api.cpp is the only caller from C and maps exceptions to KB_ERR_*.
 */
#ifndef KB_CORE_HPP
#define KB_CORE_HPP

#include "kbinomial.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

namespace kb {

struct ArgError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

inline void require(bool ok, const char *what)
{
    if (!ok) {
        throw ArgError(what);
    }
}

/* The one place where the core's exceptions become C status codes: runs f() and
 * returns KB_OK, KB_ERR_ARG (an ArgError, its text into errbuf when given),
 * KB_ERR_NOMEM or KB_ERR_INTERNAL.  Every C entry point of the core goes through it. */
template <class F> int guarded(char *errbuf, size_t errlen, F &&f) noexcept
{
    try {
        f();
        return KB_OK;
    } catch (const ArgError &e) {
        if (errbuf != nullptr && errlen > 0) {
            std::snprintf(errbuf, errlen, "%s", e.what());
        }
        return KB_ERR_ARG;
    } catch (const std::bad_alloc &) {
        return KB_ERR_NOMEM;
    } catch (...) {
        return KB_ERR_INTERNAL;
    }
}

template <class F> int guarded(F &&f) noexcept
{
    return guarded(nullptr, 0, static_cast<F &&>(f));
}

/* A tree over group ranks in CSR form; the C struct is filled from this. */
struct Tree {
    int n = 0;
    int root = 0;
    int depth = 0;
    std::vector<int> parent;     /* [n]   */
    std::vector<int> child_off;  /* [n+1] */
    std::vector<int> children;   /* [n-1] */
};

/* Tree edges (parent position, child position) over chain positions, as a
 * builder emits them: each parent's children in send order, and every parent
 * emitted as a child (or being the root, position 0) before its own edges. */
using ChainEdges = std::vector<std::pair<int, int>>;

/* ---- tree.cpp ---------------------------------------------------------- */
/* The ordering rotated so that root is first (validates the permutation). */
std::vector<int> make_chain(int n, int root, const int *ordering);
/* Maps chain positions to ranks, lays out CSR and computes the depth. */
Tree tree_from_chain(const std::vector<int> &chain, const ChainEdges &edges);
ChainEdges linear_edges(int n);
ChainEdges chain_edges(int n);
ChainEdges kbinomial_edges(int n, int k);
/* k-nomial tree of radix r >= 2 (tree.cpp) */
ChainEdges knomial_edges(int n, int r);
Tree build_tree(kb_shape_t shape, int n, int root, const int *ordering,
                const kb_tree_params_t *params);
/* Checks a caller-supplied tree; returns its ranks in BFS order (root first). */
std::vector<int> checked_bfs_order(const kb_tree_t *tree);

/* ---- kbinomial_theory.cpp ---------------------------------------------- */
uint64_t N(int s, int k);
/* N(0,k), N(1,k), ... up to the first value >= n: the last index is L1(n,k). */
std::vector<uint64_t> N_table(int n, int k);
int L1(int n, int k);
int ceil_log2(int n);
int max_k(int n); /* max(1, ceil(log2 n)) */
long steps(int n, long m, int k);
int optimal_k(int n, long m);

/* ---- postal.cpp -------------------------------------------------------- */
void check_lambda(double lambda);
ChainEdges postal_edges(int n, double lambda);
uint64_t postal_F(double lambda, double t);
double postal_completion(int n, double lambda);
double postal_lambda(size_t seg_bytes, const kb_postal_model_t *model);
double sim_postal(const kb_tree_t *tree, double lambda);

/* ---- simulate.cpp ------------------------------------------------------ */
long sim_steps(const kb_tree_t *tree, long m, kb_discipline_t disc);

} // namespace kb

#endif /* KB_CORE_HPP */
