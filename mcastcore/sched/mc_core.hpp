/*
 * Internal C++ interface of schedules and the engine (mcast_engine.h is the C API).
 *
 * A schedule is a small immutable object answering "op i of the receive/send list":
 * trees compute it in O(1) from the CSR arrays (no per-block storage, so a 16 MiB
 * message in 1 KiB blocks costs nothing to describe); generators that are naturally
 * lists (scatter + allgather, circulant) store vectors.
 */
#ifndef MC_CORE_HPP
#define MC_CORE_HPP

#include "base/kb_core.hpp"
#include "mcast_engine.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>
#include <vector>

/* The C API's opaque type is the schedule base class itself. */
struct mcast_sched {
    int n = 0;
    int rank = 0;
    uint32_t nblocks = 0;
    virtual ~mcast_sched() = default;
    virtual size_t count(mcast_op_kind_t kind) const = 0;
    /* i < count(kind); no range check (callers check). */
    virtual mcast_op_t op(mcast_op_kind_t kind, size_t i) const = 0;
};

namespace mc {

using Ops = std::vector<mcast_op_t>;

/* Rank `rank`'s part of a tree (FPFS or FCFS forwarding). */
struct TreeSched final : mcast_sched {
    int parent = KB_NO_PEER;
    int depth = 0;             /* edges from the root */
    std::vector<int> children; /* send order */
    kb_discipline_t disc = KB_DISC_FPFS;
    size_t count(mcast_op_kind_t kind) const override;
    mcast_op_t op(mcast_op_kind_t kind, size_t i) const override;
};

/* Stored lists. */
struct ListSched final : mcast_sched {
    Ops lists[2]; /* [MCAST_OP_RECV], [MCAST_OP_SEND] */
    size_t count(mcast_op_kind_t kind) const override { return lists[kind].size(); }
    mcast_op_t op(mcast_op_kind_t kind, size_t i) const override { return lists[kind][i]; }
};

/* Sets the `last` flag of every op (the last op of its list with its peer). */
void mark_last(Ops &ops);

/* `s` with a NOTICE (an op of no blocks: an empty message, flagged last) appended to each
 * list for every peer that `full` (the same rank's schedule with more blocks) talks to in
 * that list and `s` does not.  A family whose graph grows with the block count (the
 * two-tree's second tree carries nothing of one block, a position of the scatter beyond
 * the block count owns nothing; mcast_plan_schedule pads those two) then talks over the
 * same pairs at every block count, so ranks of an erroneous program whose signatures
 * differ in size never wait for a peer that sends nothing: every stream ends with a last
 * message, and the engine's length and stream checks see the difference (E-PAIRS-1).
 * With `after`, a notice send names the peer that brings, in `full`, the first block this
 * rank sends that pair (mcast_op_t.after): the engine sends it once that peer's stream
 * ended, so an error found there travels on.  Returns `s` itself when nothing is missing. */
std::unique_ptr<mcast_sched> with_pairs_of(std::unique_ptr<mcast_sched> s, const mcast_sched &full,
                                          bool after);

/* Validates a list schedule's ops against n, rank, nblocks (throws kb::ArgError). */
void check_ops(int n, int rank, uint32_t nblocks, const Ops &ops);

/* Unit-step execution of all ranks' schedules (mcast_sched_check's semantics). Throws
 * kb::ArgError with the first violation; returns the number of rounds. */
long check_schedules(int n, int root, const std::vector<const mcast_sched *> &s, int window,
                     int max_sends);

/* Byte range of blocks [b, b + nb) of an M-byte message in B-byte blocks. */
inline void block_range(size_t M, size_t B, uint32_t b, uint32_t nb, size_t *off, size_t *len)
{
    const size_t lo = size_t(b) * B;
    size_t hi = (size_t(b) + nb) * B;
    if (hi > M) {
        hi = M;
    }
    *off = lo;
    *len = hi > lo ? hi - lo : 0;
}

using kb::guarded; /* exceptions -> KB_ERR_* (kb_core.hpp) */

inline uint32_t nblocks_of(size_t M, size_t B)
{
    return B == 0 ? 0 : uint32_t((M + B - 1) / B);
}

} // namespace mc

#endif /* MC_CORE_HPP */
