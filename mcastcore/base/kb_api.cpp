/*
 * C API of the k-binomial core: thin wrappers that call kb:: and stop every
 * C++ exception here (ArgError -> KB_ERR_ARG / error value, bad_alloc ->
 * KB_ERR_NOMEM, anything else -> KB_ERR_INTERNAL).
 */
#include "base/kb_core.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#define KB_API extern "C" __attribute__((visibility("default")))

namespace {

/* Runs f(); maps exceptions to a status (kb::guarded). */
template <class F> int status_of(F &&f) noexcept
{
    return kb::guarded(static_cast<F &&>(f));
}

/* A C caller may pass any int for an enum parameter; reading an out-of-range value as
 * the C++ enum is undefined (UBSan -fsanitize=enum), so the raw bits are checked first. */
template <class E> bool enum_in(const E *e, int lo, int hi)
{
    static_assert(sizeof(E) == sizeof(int), "C enums are int-sized");
    int v;
    std::memcpy(&v, e, sizeof v);
    return v >= lo && v <= hi;
}

/* Runs f() and returns its value, or `fail` on any exception. */
template <class T, class F> T value_or(T fail, F &&f) noexcept
{
    try {
        return f();
    } catch (...) {
        return fail;
    }
}

template <class T> T *copy_out(const std::vector<T> &v)
{
    if (v.empty()) {
        return nullptr;
    }
    T *p = static_cast<T *>(std::malloc(v.size() * sizeof(T)));
    if (p == nullptr) {
        throw std::bad_alloc();
    }
    std::copy(v.begin(), v.end(), p);
    return p;
}

} // namespace

KB_API int kb_tree_build(kb_shape_t shape, int n, int root, const int *ordering,
                         const kb_tree_params_t *params, kb_tree_t **out)
{
    if (out == nullptr) {
        return KB_ERR_ARG;
    }
    *out = nullptr;
    if (!enum_in(&shape, KB_SHAPE_LINEAR, KB_SHAPE_KNOMIAL)) {
        return KB_ERR_ARG;
    }
    kb_tree_t *t = nullptr;
    const int rc = status_of([&] {
        const kb::Tree tree = kb::build_tree(shape, n, root, ordering, params);
        t = static_cast<kb_tree_t *>(std::calloc(1, sizeof(kb_tree_t)));
        if (t == nullptr) {
            throw std::bad_alloc();
        }
        t->n = tree.n;
        t->root = tree.root;
        t->depth = tree.depth;
        t->parent = copy_out(tree.parent);
        t->child_off = copy_out(tree.child_off);
        t->children = copy_out(tree.children);
    });
    if (rc != KB_OK) {
        kb_tree_free(t);
        return rc;
    }
    *out = t;
    return KB_OK;
}

KB_API void kb_tree_free(kb_tree_t *tree)
{
    if (tree == nullptr) {
        return;
    }
    std::free(tree->parent);
    std::free(tree->child_off);
    std::free(tree->children);
    std::free(tree);
}

KB_API int kb_tree_nchildren(const kb_tree_t *tree, int v)
{
    if (tree == nullptr || tree->child_off == nullptr || v < 0 || v >= tree->n) {
        return 0;
    }
    return tree->child_off[v + 1] - tree->child_off[v];
}

KB_API int kb_tree_check(const kb_tree_t *tree)
{
    return status_of([&] { kb::checked_bfs_order(tree); });
}

KB_API uint64_t kb_N(int s, int k)
{
    return value_or<uint64_t>(0, [&] { return kb::N(s, k); });
}

KB_API int kb_L1(int n, int k)
{
    return value_or(-1, [&] { return kb::L1(n, k); });
}

KB_API int kb_ceil_log2(int n)
{
    return value_or(-1, [&] { return kb::ceil_log2(n); });
}

KB_API long kb_steps(int n, long m, int k)
{
    return value_or(-1L, [&] { return kb::steps(n, m, k); });
}

KB_API int kb_optimal_k(int n, long m)
{
    return value_or(-1, [&] { return kb::optimal_k(n, m); });
}

KB_API uint64_t kb_postal_F(double lambda, double t)
{
    return value_or<uint64_t>(0, [&] { return kb::postal_F(lambda, t); });
}

KB_API double kb_postal_completion(int n, double lambda)
{
    return value_or(-1.0, [&] { return kb::postal_completion(n, lambda); });
}

KB_API double kb_postal_lambda(size_t seg_bytes, const kb_postal_model_t *model)
{
    return value_or(-1.0, [&] { return kb::postal_lambda(seg_bytes, model); });
}

KB_API long kb_sim_steps(const kb_tree_t *tree, long m, kb_discipline_t disc)
{
    if (!enum_in(&disc, KB_DISC_FPFS, KB_DISC_FCFS)) {
        return -1L;
    }
    return value_or(-1L, [&] { return kb::sim_steps(tree, m, disc); });
}

KB_API double kb_sim_postal(const kb_tree_t *tree, double lambda)
{
    return value_or(-1.0, [&] { return kb::sim_postal(tree, lambda); });
}

KB_API const char *mcast_status_str(int status)
{
    switch (status) {
    case MCAST_OK: return "success";
    case MCAST_ERR_ARG: return "invalid argument";
    case MCAST_ERR_NOMEM: return "out of memory";
    case MCAST_ERR_INTERNAL: return "internal error";
    case MCAST_ERR_PARSE: return "malformed input";
    case MCAST_ERR_IO: return "file cannot be read or written";
    case MCAST_ERR_NOTFOUND: return "unknown name";
    case MCAST_ERR_UNSUPPORTED: return "does not apply here";
    case MCAST_ERR_PEER_DEAD: return "a peer was silent for the dead-peer timeout";
    case MCAST_ERR_ABORTED: return "aborted by another rank";
    case MCAST_ERR_SIZE: return "the root's message size differs";
    case MCAST_ERR_PROTOCOL: return "protocol violation";
    case MCAST_ERR_ROOT_FAILED: return "the root could not pack its data";
    default: return "unknown error";
    }
}
