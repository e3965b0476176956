/*
 * Broadcast through a shared segment inside one node (copy in, copy out), the core's
 * protocol over a region the glue maps in every rank (pure C++17, C API, no MPI).
 *
 *   root:    pack chunk g of the message into slot g mod S (at most C bytes: where a
 *            datatype's element does not fit, less; the slot says how many), publish
 *            ready[slot] = g + 1
 *   others:  wait for ready[slot] = g + 1, unpack the chunk, publish done[me] = g + 1
 *   a slot is written again (chunk g + S) only once every other rank's done >= g + 1
 *
 *       root ──memcpy──► [slot 0][slot 1] ... [slot S-1] ──memcpy──► every other rank
 *                          ring of S slots of C bytes, reused call after call
 *
 * A call's chunk is mcast_shm_chunk_bytes: the minimum chunk where every rank has a core
 * (with a core each, the smallest chunk pipelines best); with more ranks than cores
 * M / S, at least the minimum and at most a slot, so a message up to S slots fits the
 * ring at once (the root never waits for a slow rank: a waiting root costs scheduler
 * turns there, evidence E-SHM-1) and a small message touches the same few cache-hot
 * lines call after call.
 *
 * Every rank counts chunks the same way (g runs on across calls: collectives on a
 * communicator are ordered), so slots need no reset between calls and a call's root may
 * differ from the last one's.  The root's copy of chunk g + 1 overlaps the others'
 * copies of chunk g (a pipeline of C-byte chunks): two memcpy's per byte and receiver,
 * against one copy per receiver through the kernel (CMA single copy, several times
 * slower per byte than memcpy: evidence E-SHM-1).
 *
 * Cost model (the planner's, mcast_shm_predict_us): m = ceil(M / C) chunks of the call's
 * C, K cores for the node's ranks (K >= n: one each), c ns per byte of memcpy, h us per
 * hand-over (a flag seen by another core):
 *   per-chunk period  P = max(C c, (C c (R + 1)) / min(K, R + 1)) + h
 *   T = 2 h + C c + (m - 1) P + C c                  (first copy in, pipeline, last copy out)
 *
 * The chunks carry the root's message size: a receiver that expected another size still
 * consumes exactly the root's chunks (so the ring stays in step for the next call) and
 * reports MCAST_SHM_MISMATCH; a root whose pack failed still publishes its chunks, marked,
 * and the receivers report MCAST_SHM_ROOT_FAILED; a receiver whose unpack failed still
 * consumes its chunks.  A 0-byte call publishes one empty chunk, so a receiver of any size
 * meets a 0-byte root's size, and a 0-byte receiver a larger root's.  Nobody waits for a
 * chunk that never comes, as long as every rank of the region calls with the same root.
 */
#ifndef MCAST_SHM_H
#define MCAST_SHM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mcast_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Outcomes of mcast_shm_bcast besides KB_OK / KB_ERR_*. */
#define MCAST_SHM_MISMATCH MCAST_ERR_SIZE           /* the root's message size differs from this rank's */
#define MCAST_SHM_ROOT_FAILED MCAST_ERR_ROOT_FAILED /* the root could not pack its data */
#define MCAST_SHM_ABANDONED MCAST_ERR_ABORTED       /* a rank gave up the region (mcast_shm_abandon) */

/* Bytes of a region for n ranks and S slots of C bytes (0 on bad input). */
size_t mcast_shm_region_bytes(int nranks, int slots, size_t slot_bytes);
/* Lays the region out (one rank, before any other attaches).  KB_OK / KB_ERR_ARG. */
int mcast_shm_format(void *region, size_t region_bytes, int nranks, int slots, size_t slot_bytes);

typedef struct mcast_shm mcast_shm_t; /* one rank's view of a formatted region */
/* KB_ERR_ARG when the region is not one formatted for nranks ranks. */
int mcast_shm_attach(void *region, size_t region_bytes, int nranks, int me, mcast_shm_t **out);
void mcast_shm_detach(mcast_shm_t *s);
/* one != 0: only one thread ever calls into this view (a process without threads), so
 * its queue takes no lock: the locked instruction a lock costs waits, right after a
 * chunk's stores, until they reach the other cores (E-SHM-3).  Default 0: any thread. */
void mcast_shm_one_thread(mcast_shm_t *s, int one);
/* Writes (an atomic add of 0: no byte changes) each page of this view it has not written
 * yet: the lines before the data and the first min(bytes, slot bytes) of every slot (none
 * for a call whose bytes travel on the slot's line).  The
 * first write to a page of a shared mapping costs a fault in each process (on a virtual
 * machine microseconds even after MAP_POPULATE): calls timed against another plan
 * (verification) call this first so that they time the broadcast (E-SHM-3). */
void mcast_shm_warm(mcast_shm_t *s, size_t bytes);
/* Copies a chunk into or out of the segment (no overlap): `rep movsb` from
 * MCAST_SHM_REP_BYTES where the CPU has enhanced rep movsb, memcpy otherwise.  Not the
 * libc's choice: newer glibc leaves rep movsb out on AMD CPUs (Debian 13), and its vector
 * copy took several times as long per chunk between two cores of such a CPU (E-COPY-1). */
#define MCAST_SHM_REP_BYTES 2048
void mcast_shm_copy_large(void *dst, const void *src, size_t n); /* n >= MCAST_SHM_REP_BYTES */
static inline void mcast_shm_copy(void *dst, const void *src, size_t n)
{
    if (n < MCAST_SHM_REP_BYTES) {
        memcpy(dst, src, n); /* (a small call's cost: no call, E-CALL-1) */
    } else {
        mcast_shm_copy_large(dst, src, n);
    }
}
/* Slot bytes of the region. */
size_t mcast_shm_slot_bytes(const mcast_shm_t *s);
/* The chunk of an M-byte call: the smallest chunk min(chunk_min, slot_bytes) (chunk_min
 * 0 = a slot), or with fit_ring (more ranks than cores) ceil(M / slots) within
 * [that, slot_bytes].  Only the root's choice matters (the slots carry their lengths). */
size_t mcast_shm_chunk_bytes(size_t bytes, size_t chunk_min, size_t slot_bytes, int slots,
                             int fit_ring);
/* Whether a call's chunks fill the ring: the node's cores (0 = one per rank) fewer than
 * the ranks sharing its region. */
int mcast_shm_fit_ring(int node_cores, int node_ranks);
/* The slot a region needs for chunks of at least chunk_min and at most max_slot bytes:
 * max_slot where the chunks fill the ring, else the smallest chunk (no call's chunk is
 * larger there, and every slot byte is reserved when the region is made).  0 on bad
 * input. */
size_t mcast_shm_slot_bytes_for(size_t chunk_min, size_t max_slot, int node_cores, int node_ranks);
/* Whether a region's creator reserves every page at the setup (1: a full file system then
 * fails the setup, not a later copy with SIGBUS) or leaves each page to the first call that
 * writes it (0): 0 where free_bytes holds max_segments regions of region_bytes for each of
 * the node's node_ranks ranks (every segment they may map at this size), else 1
 * (E-FIRST-4).  node_ranks and max_segments below 1 count as 1. */
int mcast_shm_reserve_at_setup(uint64_t free_bytes, size_t region_bytes, int node_ranks,
                               int max_segments);

typedef struct mcast_shm_io {
    void *ctx;
    /* root: up to `max` bytes of the packed stream from `off` on into dst, *packed of
     * them (>= 1: a convertor stops at an element boundary); 0 on success */
    int (*pack)(void *ctx, size_t off, size_t max, void *dst, size_t *packed);
    /* others: bytes [off, off + len) of the stream from src; 0 on success */
    int (*unpack)(void *ctx, size_t off, size_t len, const void *src);
    /* called while waiting (progress other work, yield) */
    void (*idle)(void *ctx);
    /* root, optional (NULL: the whole message is there): bytes [0, avail) of the packed
     * stream are ready to pack.  A root that receives the message while it hands it on
     * (the node leader of a two-level plan) publishes a chunk only once all of it is
     * there (or the stream is complete); avail must grow to the message size, also on
     * failure (pack then reports it: the chunks go out marked). */
    size_t (*avail)(void *ctx);
} mcast_shm_io_t;

/* One broadcast of `bytes` bytes (0: one empty chunk) from `root` over the region, the
 * root packing chunks of at most chunk_bytes (0 or more than a slot: a slot).  KB_OK,
 * MCAST_SHM_MISMATCH, MCAST_SHM_ROOT_FAILED, a failed unpack's KB_ERR_INTERNAL (the
 * chunks are still consumed), or KB_ERR_ARG (nothing done).  It allocates nothing (its op
 * lives on the stack), so it cannot stop half-way for want of memory. */
int mcast_shm_bcast(mcast_shm_t *s, int root, size_t bytes, size_t chunk_bytes,
                    const mcast_shm_io_t *io);

/* The same without waiting (MPI_Ibcast): start an op (queued behind the region's earlier
 * ops: they complete in the order they started), move every queued op as far as it goes
 * with mcast_shm_poll (returns how many completed; a poll running on another thread makes
 * it return 0), and test it: 1 and *result (as mcast_shm_bcast returns) once complete.
 * mcast_shm_op_free may come before completion (the op then completes and goes away in
 * a later poll).  io->idle is not used.  KB_OK, KB_ERR_ARG, KB_ERR_NOMEM. */
typedef struct mcast_shm_op mcast_shm_op_t;
int mcast_shm_start(mcast_shm_t *s, int root, size_t bytes, size_t chunk_bytes,
                    const mcast_shm_io_t *io, mcast_shm_op_t **op);
/* mcast_shm_start in the caller's memory: nothing allocated, so it cannot fail for want of
 * memory (KB_OK or KB_ERR_ARG).  The op must complete before its space goes:
 * mcast_shm_op_free of an op not yet complete polls the region until it is. */
typedef union mcast_shm_op_space {
    long double align_ld;
    void *align_ptr;
    uint64_t align_u64;
    unsigned char bytes[256];
} mcast_shm_op_space_t;
int mcast_shm_start_in(mcast_shm_t *s, int root, size_t bytes, size_t chunk_bytes,
                       const mcast_shm_io_t *io, mcast_shm_op_space_t *space,
                       mcast_shm_op_t **op);
int mcast_shm_poll(mcast_shm_t *s);
int mcast_shm_op_test(const mcast_shm_op_t *op, int *result);
void mcast_shm_op_free(mcast_shm_op_t *op);

/* The board: MCAST_SHM_BOARD_KEYS entries of two numbers per rank in the region, each
 * written once by its rank and read by every rank (the ranks of a node agree on numbers
 * without messages: the verification of nonblocking calls, mcast_planner.h).  put: this
 * rank's entry for key (KB_ERR_ARG: a bad key, or written already).  max: 1 once every
 * rank's entry for key is there, out[c] = the largest of the ranks' v[c] (-1 when some
 * rank's is negative or NaN: unmeasured); 0 before; -1 on bad input.  Every rank that
 * reads 1 reads the same numbers. */
#define MCAST_SHM_BOARD_KEYS 32
int mcast_shm_board_put(mcast_shm_t *s, int key, const double v[2]);
int mcast_shm_board_max(const mcast_shm_t *s, int key, double out[2]);

/* A rank that could not follow a call on the region (it did not know the call's plan:
 * no memory for it) abandons it: from then on no op of any rank reads or writes the ring
 * any more; an op that starts, or would wait for a chunk or for room, ends with
 * MCAST_SHM_ABANDONED.  An op that completes without waiting completes as before (its
 * data are its root's).  So that rank never takes the chunks of the call it missed for
 * its next call's, and its peers never wait for it on the ring.  (The board and its gate
 * are not affected: what a rank reads there stays what every rank reads.)  abandoned: 1
 * once any rank abandoned the region. */
void mcast_shm_abandon(mcast_shm_t *s);
int mcast_shm_abandoned(const mcast_shm_t *s);

/* The board's gate: trial calls of a key start together (the verification of nonblocking
 * calls times a call from the moment every rank has reached it, not from its own start,
 * which carries the ranks' skew: E-VERIFY-6).  arrive: this rank reached the key's call n
 * (n >= 1; arrivals only grow, a smaller n writes nothing).  open: 1 once every rank
 * reached call n of key, 0 before, -1 on bad input.  Never waits. */
int mcast_shm_gate_arrive(mcast_shm_t *s, int key, uint64_t n);
int mcast_shm_gate_open(const mcast_shm_t *s, int key, uint64_t n);

/* The cost model above (us) for chunks of chunk_bytes; cores <= 0 means one per rank. */
double mcast_shm_predict_us(int nranks, size_t bytes, size_t chunk_bytes, int cores,
                            double copy_ns_per_byte, double handover_us);

#ifdef __cplusplus
}
#endif
#endif /* MCAST_SHM_H */
