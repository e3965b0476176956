/*
 * The Open MPI transport of the core engine (mcast_engine.h) over the PML, and the two
 * drivers that run a plan: blocking (MPI_Bcast) and nonblocking (MPI_Ibcast, progressed
 * by Open MPI's progress engine).
 *
 * Transport contract, as the engine expects it:
 *   - an op is bytes [off, off + len) of the packed type signature: contiguous buffers in
 *     place; other datatypes through Open MPI's convertor, packed (send) or unpacked
 *     (receive) per op into a staging slot of one op's bytes (mcast_dtio.h: an op may cut
 *     an element), so memory stays bounded by (window + max_sends) ops whatever the
 *     message size;
 *   - a send always puts a message on the wire: when staging fails it sends 0 bytes, the
 *     receiver sees the length mismatch (error mode of the engine); a receive always
 *     consumes its message (0-byte buffer when staging fails, which truncates);
 *   - every broadcast takes two fresh tags of the communicator's collective tag space
 *     (the counter libnbc and adapt use), one for a peer's last message: messages of a
 *     broadcast never match another broadcast, blocking or not;
 *   - a received length different from the expected one is MPI_ERR_TRUNCATE;
 *   - when a rank waits without progress it probes its peers: a peer's last message
 *     arriving where more was expected (its message was shorter: the peer's stream ended)
 *     cancels the remaining receives from it; a peer sending more than expected is
 *     drained until its last message.  So ranks that pass different signatures end with
 *     MPI_ERR_TRUNCATE instead of waiting forever or matching a later broadcast;
 *   - a rank that cannot set its call up (no memory for its slots, its engine, its
 *     request) still runs its schedule, without data: it consumes what it is sent and
 *     sends empty messages, returns the error, and its peers that depend on it end with
 *     MPI_ERR_TRUNCATE; an MPI_Ibcast without memory for its request does its part before
 *     it returns.  What it cannot do without its schedule: a rank that has no memory for
 *     the schedule itself (a size this plan has not run before: the memo keeps the last
 *     size's) returns the error and its peers may wait for it (docs/local-failures.md).
 */
#ifndef MCAST_PML_H
#define MCAST_PML_H

#include "ompi_config.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/request/request.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "mcast_planner.h"
#include "mcast_plan.h"

/* A nonblocking call's start (MPI_Ibcast, MPI_Start) on this thread, begin/end nested:
 * while it runs nothing of ours calls opal_progress.  Stock Open MPI's nonblocking starts
 * never progress, and MPI_Comm_idup depends on it: its steps, which draw the libnbc tags
 * of their allreduces from the communicator, run inside the progress engine, so progress
 * inside one rank's MPI_Ibcast between two of the application's idups reordered that
 * rank's draws against the others' (a hang: E-IDUP-1). */
void mcast_calltime_begin(void);
void mcast_calltime_end(void);
bool mcast_calltime(void);
/* A blocking wait inside such a start (a rank without memory for its request does its
 * part at once): it progresses, and everything else with it; suspend returns what resume
 * restores. */
int mcast_calltime_suspend(void);
void mcast_calltime_resume(int saved);

/* One blocking broadcast of (buf, count, dtype) = `bytes` signature bytes along `plan`.
 * `engine` is reused across calls (NULL: a temporary one); `memo` (may be NULL) keeps
 * this rank's schedule for the next call of the same size.  Returns OMPI_SUCCESS or an
 * MPI error class. */
int mcast_pml_bcast(const mcast_plan_t *plan, mcast_sched_memo_t *memo, mcast_engine_t *engine,
                    void *buf, int count,
                    struct ompi_datatype_t *dtype, size_t bytes, struct ompi_communicator_t *comm,
                    int tag);

/* The same, nonblocking: *request completes (MPI_Wait/Test) when this rank's part is done.
 * `memo` (may be NULL) as for mcast_pml_bcast: the call shares its schedule. */
int mcast_pml_ibcast(const mcast_plan_t *plan, mcast_sched_memo_t *memo, void *buf, int count,
                     struct ompi_datatype_t *dtype, size_t bytes, struct ompi_communicator_t *comm,
                     int tag, ompi_request_t **request);

/* Another runner behind the same MPI_Ibcast request (the shared segment): `test` moves
 * the broadcast on without waiting and returns true once it is complete, with its MPI
 * status; `release` frees the state (after completion, or at MPI_Request_free if later). */
/* One broadcast over the PML as an object: set up and started; progress polls it once
 * (true when the engine is done: then status is its outcome); held_bytes is the prefix
 * of the packed stream this rank holds (mcast_engine_held_bytes).  engine and memo as
 * for mcast_pml_bcast (NULL: its own). */
typedef struct mcast_call mcast_call_t;
/* The tags of a module's broadcasts on its communicator, two a call (tag and tag - 1),
 * taken at the MPI call so that a call whose messages start later (its setup still under
 * way) has the same tags on every rank: a sequence of the module's own, which only its
 * calls advance, in the order every rank makes them, in a range of Open MPI's collective
 * tag space that no other component draws from (the far end of hcoll's, which hcoll
 * counts from its other end; one lane per component of ours).  Not the communicator's
 * nonblocking-collective counter: MPI_Comm_idup draws from that inside the progress
 * engine, on each rank at another point among the application's calls, and a broadcast
 * whose tags came from it then had other tags on other ranks (one cause of MPICH's
 * comm_idup_nb hang; docs/limits.md says what of those tests still fails). */
typedef struct mcast_tags {
    int32_t low, high, next;
} mcast_tags_t;
#define MCAST_TAGS_LANE_SPAN (1 << 22)
#define MCAST_TAGS_LOW (MCA_COLL_BASE_TAG_HCOLL_END + 64) /* below: the multicast's fixed tags */
/* lane 0: coll/kbinomial, 1: coll/pathmc */
void mcast_tags_init(mcast_tags_t *t, int lane);
int mcast_tags_take(mcast_tags_t *t);
/* tag: from mcast_tags_take at the call (non-zero). */
int mcast_pml_call_start(const mcast_plan_t *plan, mcast_sched_memo_t *memo,
                         mcast_engine_t *engine, void *buf, int count,
                         struct ompi_datatype_t *dtype, size_t bytes,
                         struct ompi_communicator_t *comm, int tag, mcast_call_t **out);
bool mcast_pml_call_progress(mcast_call_t *c);
int mcast_pml_call_status(const mcast_call_t *c);
size_t mcast_pml_call_held_bytes(mcast_call_t *c);
void mcast_pml_call_free(mcast_call_t *c);

typedef struct mcast_runner {
    bool (*test)(void *state, int *status);
    void (*release)(void *state);
} mcast_runner_t;

/* A request for such a runner, taken before its broadcast starts (so that a rank without
 * memory for it knows before it touches anything): new (its memory only;
 * OMPI_ERR_OUT_OF_RESOURCE), then start with the runner's started state (the request is
 * made then, the datatype and communicator retained until it is released; the progress
 * function moves it from then on), or discard unused. */
int mcast_ireq_runner_new(struct ompi_communicator_t *comm, struct ompi_datatype_t *dtype,
                          ompi_request_t **request);
void mcast_ireq_runner_start(ompi_request_t *request, const mcast_runner_t *runner, void *state);
void mcast_ireq_runner_discard(ompi_request_t *request);
/* No request of ours is in progress in this process (none started and not yet complete):
 * a call that finishes at its start may then hand back a completed request without
 * overtaking an earlier one (they complete in call order: E-IDUP-2). */
bool mcast_ireq_none_active(void);

/* Bytes of the packed type signature of (count, dtype); false on overflow or count < 0. */
bool mcast_signature_bytes(int count, struct ompi_datatype_t *dtype, size_t *bytes);

/* A collective request of ours on comm: initialised (persistent: inactive, else active),
 * freed by free_fn, never cancelled. */
void mcast_request_prepare(ompi_request_t *r, bool persistent, ompi_request_free_fn_t free_fn,
                           struct ompi_communicator_t *comm);

/* A few freed objects of one kind kept for the next nonblocking call, whose cost is its
 * start (E-IBC-1, E-SHM-3): engines, requests, a call's state.  Process-wide, any thread. */
#define MCAST_SPARES 8
typedef struct {
    void *item[MCAST_SPARES];
    int n;
    opal_mutex_t lock;
} mcast_spares_t;
#define MCAST_SPARES_INIT {{NULL}, 0, OPAL_MUTEX_STATIC_INIT}
/* One kept object, NULL when there is none. */
void *mcast_spare_take(mcast_spares_t *s);
/* Keeps p: NULL, or p itself when the spares are full (the caller frees it then). */
void *mcast_spare_give(mcast_spares_t *s, void *p);

/* Zeroed room of len bytes from pages mapped fresh, for what this rank must take part in
 * although its heap refused it (a local failure); NULL when not even that (or len 0).
 * Given back with mcast_pages_unmap(p, len) (p NULL: nothing). */
void *mcast_pages_map(size_t len);
void mcast_pages_unmap(void *p, size_t len);

/* Unregister the progress function, free the spares (component close). */
void mcast_pml_fini(void);

#endif /* MCAST_PML_H */
