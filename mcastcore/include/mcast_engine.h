/*
 * Broadcast schedules and the one engine that runs them (pure C++17 core, C API).
 *
 * A SCHEDULE is, for one rank, two ordered lists of block operations:
 *
 *   receives   "receive blocks [b, b+nb) from rank P"   (in the order they are posted)
 *   sends      "send blocks [b, b+nb) to rank C"         (in the order they are posted)
 *
 * Blocks are byte ranges of the packed type signature: block j covers bytes
 * [j*B, min((j+1)*B, M)) of an M-byte message cut into blocks of B bytes (the last block
 * may be shorter; nblocks = ceil(M/B), 0 when M = 0).  A send may be posted once every
 * block it carries is held (the root holds them all; others after the receive that
 * carried them completed).  Between two ranks, the sends of one side and the receives
 * of the other correspond one to one, in list order (MPI's non-overtaking rule then
 * matches them).  Each op also carries a `step`: the round in which the generator
 * scheduled it (nondecreasing along each list; a send's blocks arrive in earlier
 * steps).  The engine does not need it; checkers and simulators do.
 *
 * Generators (pure functions of n, root, rank and the plan's parameters) build them:
 * trees with FPFS or FCFS forwarding here; the bandwidth families elsewhere in this
 * header.  Every rank runs its own schedule; `mcast_sched_check` simulates all of them
 * together and proves the properties above.
 *
 * The ENGINE is a state machine over one schedule:
 *
 *   start            post receives (up to `window` outstanding) and every send whose
 *                    blocks are held (up to `max_sends` outstanding)
 *   op completed     mark its blocks held (receive), free its slot, post what became
 *                    possible
 *   done             every op of both lists completed
 *
 * It talks to the world only through a TRANSPORT (one `post` callback; completions come
 * back through mcast_engine_complete), so the same engine runs over Open MPI's PML (the
 * components), SimGrid's MPI (perf/sim) and the simulated networks of the unit tests.
 *
 * Errors never stop the engine: after the first error (a failed or mismatched op, a
 * peer that ended early) it keeps receiving what its peers send (so they never block
 * on it) and turns every later send into an empty message flagged MCAST_XF_VOID (a
 * one-byte message in place of a notice, which is empty anyway; so its peers see a
 * length mismatch and fail the same way); it finishes with that error.
 *
 * Slots: receives use slots [0, window), sends [window, window + max_sends); a
 * transport keeps one request per slot.
 */
#ifndef MCAST_ENGINE_H
#define MCAST_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include "kbinomial.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Schedules
 * ------------------------------------------------------------------------- */
typedef enum { MCAST_OP_RECV = 0, MCAST_OP_SEND = 1 } mcast_op_kind_t;

typedef struct mcast_op {
    int peer;          /* group rank */
    uint32_t block;    /* first block */
    uint32_t nblocks;  /* >= 1; 0 for a NOTICE: an empty message (block 0, last) that
                          closes a stream a peer expects (mcast_plan_schedule) */
    uint32_t step;     /* generator's round (nondecreasing along a list) */
    int last;          /* 1: the last op of this list with this peer */
    int after;         /* a notice send: 1 + the peer whose stream to this rank must have
                          ended first (its last receive completed), 0: none; so an error
                          this rank finds there still reaches the notice's receiver */
} mcast_op_t;

typedef struct mcast_sched mcast_sched_t; /* opaque, immutable once built */

/* Largest number of blocks a schedule may have (bounds memory and run time). */
#define MCAST_MAX_BLOCKS (1u << 20)

size_t mcast_sched_count(const mcast_sched_t *s, mcast_op_kind_t kind);
/* Op i of a list (0 <= i < count); KB_ERR_ARG when out of range. */
int mcast_sched_op(const mcast_sched_t *s, mcast_op_kind_t kind, size_t i, mcast_op_t *op);
uint32_t mcast_sched_nblocks(const mcast_sched_t *s);
int mcast_sched_rank(const mcast_sched_t *s);
void mcast_sched_free(mcast_sched_t *s);

/* A tree (CSR, over group ranks) as rank `rank`'s schedule for nblocks blocks:
 *   FPFS  receive block j from the parent (step j + depth), send it to every child in
 *         child order (step j + depth + 1), then block j + 1;
 *   FCFS  every block to child 1, then every block to child 2, ...
 * nblocks 0 gives an empty schedule. */
int mcast_sched_tree(const kb_tree_t *tree, int rank, uint32_t nblocks, kb_discipline_t disc,
                     mcast_sched_t **out);

/* An explicit schedule (copies the lists; `last` flags are recomputed). For generators
 * written as lists and for tests. */
int mcast_sched_explicit(int n, int rank, uint32_t nblocks, const mcast_op_t *recvs,
                         size_t nrecv, const mcast_op_t *sends, size_t nsend,
                         mcast_sched_t **out);

/* Checks n schedules (one per rank, scheds[r] for rank r) of one broadcast from root:
 * peers in range and never self; blocks in range; every non-root rank receives every
 * block exactly once and the root none; sends and receives correspond pair by pair in
 * list order with equal block ranges; no send carries a block its rank can only hold
 * later (a unit-step execution in list order completes: no deadlock); steps
 * nondecreasing.  KB_OK, or KB_ERR_ARG with the first violation in errbuf.  The number
 * of rounds of that execution (each rank posts at most max_sends sends and window
 * receives per round, a block received in round t is forwarded from round t+1) goes to
 * *rounds when not NULL: the round the last block arrives (notices, ops of no blocks,
 * must complete but are not counted). */
int mcast_sched_check(int n, int root, mcast_sched_t *const *scheds, int window, int max_sends,
                      long *rounds, char *errbuf, size_t errlen);

/* ---------------------------------------------------------------------------
 * Engine and transport seam
 * ------------------------------------------------------------------------- */
#define MCAST_XF_LAST 1u  /* the last op of its list with this peer */
#define MCAST_XF_VOID 2u  /* error mode: send 0 bytes instead of the data (1 byte, len 1,
                             in place of a notice; never the buffer's bytes) */
#define MCAST_XF_SYNC 4u  /* a synchronous send (MPI_Issend semantics): it completes only
                             once its receiver has it, so max_sends bounds the messages on
                             the wire for eager sizes too (mcast_engine_params_t.sync_sends) */

typedef struct mcast_xport {
    void *ctx;
    /* Post one op: bytes [off, off + len) of the packed stream to/from `peer`.  Return 0,
     * or a nonzero error (the engine then treats the op as failed with that error).
     * Completion is reported later through mcast_engine_complete(slot, status), possibly
     * from inside this call's caller's progress loop, never from inside post itself. */
    int (*post)(void *ctx, int slot, mcast_op_kind_t kind, int peer, size_t off, size_t len,
                unsigned flags);
} mcast_xport_t;

typedef struct mcast_engine_params {
    size_t bytes;       /* M */
    size_t block_bytes; /* B >= 1 */
    int window;         /* receives outstanding, >= 1 */
    int max_sends;      /* sends outstanding, >= 1 */
    int sync_sends;     /* post every send with MCAST_XF_SYNC (0 = standard sends) */
} mcast_engine_params_t;

typedef struct mcast_engine mcast_engine_t;

mcast_engine_t *mcast_engine_create(void);
/* The bytes [*off, *off + *len) of the packed stream that op o moves under params p. */
void mcast_op_range(const mcast_engine_params_t *p, const mcast_op_t *o, size_t *off,
                    size_t *len);
void mcast_engine_destroy(mcast_engine_t *e);
/* p's window and max_sends no larger than s's receives and sends (at least 1 each): the
 * engine never has more of them outstanding, so it runs the same, and a transport that
 * keeps state per slot (window + max_sends of them) keeps only what a call can use
 * (E-IBC-2). */
void mcast_engine_params_fit(mcast_engine_params_t *p, const mcast_sched_t *s);
/* Start one broadcast (the engine can be restarted after it is done).  The schedule must
 * outlive the run.  KB_ERR_ARG on inconsistent input (nblocks != ceil(M/B), window or
 * max_sends < 1); otherwise KB_OK (errors of posted ops show in mcast_engine_status). */
int mcast_engine_start(mcast_engine_t *e, const mcast_sched_t *s, const mcast_engine_params_t *p,
                       const mcast_xport_t *xport);
/* The op in `slot` finished; status 0 = success, else the transport's error code. */
int mcast_engine_complete(mcast_engine_t *e, int slot, int status);
/* `peer` will send nothing more (its stream ended early): receives from it that are not
 * posted yet fail with `status`; the transport completes the posted ones itself. */
int mcast_engine_peer_ended(mcast_engine_t *e, int peer, int status);
int mcast_engine_done(const mcast_engine_t *e);
/* Bytes [0, held) of the message this rank holds without a gap (the blocks received so far
 * from block 0 on, up to the first whose receive failed; the root: all).  A two-level plan's node leader hands them on inside
 * its node while the rest arrives. */
size_t mcast_engine_held_bytes(mcast_engine_t *e);
/* 0, or the first error seen. */
int mcast_engine_status(const mcast_engine_t *e);
/* Ops of each kind posted and completed so far (for tests and verbose output). */
void mcast_engine_counts(const mcast_engine_t *e, size_t *posted_recv, size_t *posted_send,
                         size_t *done_recv, size_t *done_send);
/* Peer of the posted op in `slot`, -1 if the slot is free. */
int mcast_engine_slot_peer(const mcast_engine_t *e, int slot, unsigned *flags);

/* ---------------------------------------------------------------------------
 * Machine model shared by the cost models and the simulated network (LogGP-like):
 *
 *   sender   a send occupies its rank's injection for o_send_us + len*gap_ns_per_byte
 *            (one send at a time per rank)
 *   network  the message reaches its receiver latency_us + len*wire_ns_per_byte after
 *            the sender's overhead (store and forward in one hop)
 *   receiver busy o_recv_us + len*recv_ns_per_byte per message (one at a time per rank;
 *            the per-byte part is a copy-out, or the pull of a single-copy transport)
 *   MPI      a send completes for the engine when injected if len <= eager_bytes, else
 *            when delivered (rendezvous)
 *   sharing  shared_flows = 0: a sender's messages to one peer leave one after the
 *            other (a connection's FIFO: TCP, an InfiniBand queue pair); 1: every message
 *            matched by a posted receive is a flow of its own and the flows share the
 *            sender's link (a flow-level network: SimGrid).  The simulated network below
 *            keeps FIFO; the two-tree's model charges the sharing (fam_twotree.cpp).
 *
 * Unit steps (the seeds' model: one send per rank per step, a block received in step t
 * forwarded in step t + 1) are o_send_us = 1 and everything else 0.
 * ------------------------------------------------------------------------- */
typedef struct mcast_loggp {
    double o_send_us, o_recv_us, latency_us;
    double gap_ns_per_byte;   /* sender per byte */
    double wire_ns_per_byte;  /* network per byte */
    size_t eager_bytes;
    double recv_ns_per_byte;  /* receiver per byte */
    int shared_flows;         /* 0 FIFO per connection, 1 flows share the link (above) */
} mcast_loggp_t;

/* ---------------------------------------------------------------------------
 * Simulated network (tests, model checks): runs n engines, one per rank, on the machine
 * model above and reports the time each rank finished.  Options: deliver simultaneous
 * events in a seeded random order (out-of-order completions); make the k-th post of one
 * rank fail with an error (a send then puts an empty message on the wire, a receive
 * still consumes its message: the glue's transport contract).
 * ------------------------------------------------------------------------- */
typedef struct mcast_simnet_params {
    mcast_loggp_t net;
    uint64_t shuffle_seed;    /* 0: FIFO order of simultaneous events */
    int fail_rank;            /* -1: none */
    long fail_op;             /* the fail_rank's fail_op-th post (0-based) fails */
    int fail_status;          /* error to report */
} mcast_simnet_params_t;

typedef struct mcast_simnet_result {
    double finish_us;         /* the last rank's finish time */
    int status;               /* first error over all ranks (0 if none) */
    int ranks_with_error;     /* ranks whose engine ended with an error */
    long max_sends_in_flight; /* largest number of outstanding sends of one rank */
    long max_recvs_in_flight;
    long deliveries;          /* block receptions over all ranks */
} mcast_simnet_result_t;

/* Runs scheds[0..n-1] (rank r's schedule at r) for an M-byte message in B-byte blocks.
 * finish_us[r] and status[r] (optional, n entries each) get each rank's finish time and
 * engine status.  Verifies that every
 * byte delivered to a rank is the byte the root sent at that offset and that every
 * rank received every byte exactly once unless it ended with an error.  KB_OK, or
 * KB_ERR_ARG (bad input or a violated property, described in errbuf). */
int mcast_simnet_run(int n, int root, mcast_sched_t *const *scheds, const mcast_engine_params_t *p,
                     const mcast_simnet_params_t *net, double *finish_us, int *status,
                     mcast_simnet_result_t *result, char *errbuf, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* MCAST_ENGINE_H */
