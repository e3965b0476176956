/*
 * C API of schedules (mcast_engine.h): thin wrappers that stop every C++ exception.
 */
#include "sched/mc_core.hpp"

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#define MC_API extern "C" __attribute__((visibility("default")))

using mc::guarded;

MC_API size_t mcast_sched_count(const mcast_sched_t *s, mcast_op_kind_t kind)
{
    if (s == nullptr || (kind != MCAST_OP_RECV && kind != MCAST_OP_SEND)) {
        return 0;
    }
    return s->count(kind);
}

MC_API int mcast_sched_op(const mcast_sched_t *s, mcast_op_kind_t kind, size_t i, mcast_op_t *op)
{
    if (s == nullptr || op == nullptr || (kind != MCAST_OP_RECV && kind != MCAST_OP_SEND) ||
        i >= s->count(kind)) {
        return KB_ERR_ARG;
    }
    *op = s->op(kind, i);
    return KB_OK;
}

MC_API uint32_t mcast_sched_nblocks(const mcast_sched_t *s)
{
    return s == nullptr ? 0 : s->nblocks;
}

MC_API int mcast_sched_rank(const mcast_sched_t *s)
{
    return s == nullptr ? -1 : s->rank;
}

MC_API void mcast_sched_free(mcast_sched_t *s)
{
    delete s;
}

MC_API int mcast_sched_tree(const kb_tree_t *tree, int rank, uint32_t nblocks, kb_discipline_t disc,
                            mcast_sched_t **out)
{
    if (out == nullptr) {
        return KB_ERR_ARG;
    }
    *out = nullptr;
    return guarded(nullptr, 0, [&] {
        kb::require(kb_tree_check(tree) == KB_OK, "invalid tree");
        kb::require(rank >= 0 && rank < tree->n, "rank out of range");
        kb::require(nblocks <= MCAST_MAX_BLOCKS, "too many blocks");
        kb::require(disc == KB_DISC_FPFS || disc == KB_DISC_FCFS, "unknown discipline");
        auto t = std::make_unique<mc::TreeSched>();
        t->n = tree->n;
        t->rank = rank;
        t->nblocks = nblocks;
        t->parent = tree->parent[rank];
        t->disc = disc;
        for (int v = rank; tree->parent[v] != KB_NO_PEER; v = tree->parent[v]) {
            ++t->depth;
        }
        t->children.assign(tree->children + tree->child_off[rank],
                           tree->children + tree->child_off[rank + 1]);
        *out = t.release();
    });
}

MC_API int mcast_sched_explicit(int n, int rank, uint32_t nblocks, const mcast_op_t *recvs,
                                size_t nrecv, const mcast_op_t *sends, size_t nsend,
                                mcast_sched_t **out)
{
    if (out == nullptr) {
        return KB_ERR_ARG;
    }
    *out = nullptr;
    return guarded(nullptr, 0, [&] {
        kb::require(n >= 1 && rank >= 0 && rank < n, "rank out of range");
        kb::require(nblocks <= MCAST_MAX_BLOCKS, "too many blocks");
        kb::require((recvs != nullptr || nrecv == 0) && (sends != nullptr || nsend == 0),
                    "NULL op list");
        auto s = std::make_unique<mc::ListSched>();
        s->n = n;
        s->rank = rank;
        s->nblocks = nblocks;
        s->lists[MCAST_OP_RECV].assign(recvs, recvs + nrecv);
        s->lists[MCAST_OP_SEND].assign(sends, sends + nsend);
        for (mc::Ops &ops : s->lists) {
            mc::check_ops(n, rank, nblocks, ops);
            mc::mark_last(ops);
        }
        *out = s.release();
    });
}

MC_API int mcast_sched_check(int n, int root, mcast_sched_t *const *scheds, int window,
                             int max_sends, long *rounds, char *errbuf, size_t errlen)
{
    if (scheds == nullptr || n < 1) {
        return KB_ERR_ARG;
    }
    long r = 0;
    const int rc = guarded(errbuf, errlen, [&] {
        std::vector<const mcast_sched *> v(scheds, scheds + n);
        r = mc::check_schedules(n, root, v, window, max_sends);
    });
    if (rc == KB_OK && rounds != nullptr) {
        *rounds = r;
    }
    return rc;
}
