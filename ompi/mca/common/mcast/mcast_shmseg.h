/*
 * The shared segment of a one-node communicator (the core's protocol: mcast_shm.h) and
 * the blocking broadcast over it.
 *
 * Setup, once per communicator, started after its first call's exchange (mcast_module.h)
 * and run without blocking (its steps may run from Open MPI's progress engine): the
 * first rank of each node creates a POSIX shared memory object
 * (/mcast-<job>-<cid>-<pid>) for the node's ranks, reserves its pages (posix_fallocate:
 * a full /dev/shm is an error here, not a SIGBUS later) and formats it; it sends the name
 * to the node's other ranks (PML, point to point); each maps it and sends rank 0 whether
 * it did; rank 0 sends every rank the verdict; the creators then unlink the names (the
 * mapping lives until the communicator is freed, and nothing is left behind if the job
 * dies).  If any rank failed, every rank frees its mapping and the communicator's shm
 * plans go elsewhere from then on.  The messages use three tags reserved at the first
 * call, so the steps may run late without meeting another collective's messages.
 *
 * Data: contiguous buffers are copied in place; other datatypes go through Open MPI's
 * convertor, chunk after chunk of the packed stream (the chunks are consecutive, so one
 * convertor per call continues where it stopped).
 */
#ifndef MCAST_SHMSEG_H
#define MCAST_SHMSEG_H

#include "ompi_config.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/coll.h"
#include "mcast_plan.h"
#include "mcast_planner.h"
#include "mcast_pml.h"

typedef struct mcast_shm_seg mcast_shm_seg_t;

/* MCAST_SHM_PASS (mcast_status_mpi.h): the segment could not be set up on every rank (the
 * caller hands this and later calls to the module below); else OMPI_SUCCESS or an MPI
 * error class. */
#include "mcast_status_mpi.h"

/* A segment's state for a communicator of n ranks, before its setup (it counts as failed
 * until a setup succeeds): allocated at the communicator's first call, so that a rank
 * without memory for it says so in the exchange rather than in the middle of the setup.
 * NULL without memory. */
mcast_shm_seg_t *mcast_shm_seg_new(int n);
/* Starts the setup of a segment of `slots` x slot_bytes per node (node_of_rank NULL: one
 * node), once.  tags: three tags of the communicator reserved by every rank at the same
 * call.  Each page is mapped by the first call that touches it (a verified class's pages
 * are written by every rank before its first counted trial: mcast_shm_seg_warm, E-SHM-3),
 * and where the node's file system has room for every segment at its full size it is
 * allocated then too, not at the setup (E-FIRST-4). */
int mcast_shm_setup_start(mcast_shm_seg_t *seg, int slots, size_t slot_bytes,
                          const int *node_of_rank, struct ompi_communicator_t *comm,
                          const int tags[3]);
/* Takes part in the setup without a segment, once, where the other ranks start it: this
 * rank creates and maps nothing and its flag is 0, so the setup fails on every rank and
 * the communicator plans without the segment (a rank whose preparation failed alone:
 * docs/local-failures.md).  node_of_rank as for mcast_shm_setup_start. */
int mcast_shm_setup_decline(mcast_shm_seg_t *seg, const int *node_of_rank,
                            struct ompi_communicator_t *comm, const int tags[3]);
/* Moves the setup on without waiting; true once it is over (the segment is then usable on
 * every rank, or mcast_shm_failed on every rank). */
bool mcast_shm_setup_test(mcast_shm_seg_t *seg);

/* A broadcast over the segment set up above (MCAST_SHM_PASS: none, or it failed); the
 * chunk policy is the plan's (mcast_shm_chunk_bytes). */
int mcast_shm_run(mcast_shm_seg_t **seg, const mcast_plan_info_t *info, void *buf, int count,
                  struct ompi_datatype_t *dtype, size_t bytes, int root,
                  struct ompi_communicator_t *comm);

/* The same as an MPI_Ibcast request, moved on by Open MPI's progress engine. */
int mcast_shm_irun(mcast_shm_seg_t **seg, const mcast_plan_info_t *info, void *buf, int count,
                   struct ompi_datatype_t *dtype, size_t bytes, int root,
                   struct ompi_communicator_t *comm, ompi_request_t **request);

/* A twolevel plan with the node's segment inside every node (transport "pml+shm"): the
 * node leaders run the plan's schedule over the PML while each leader hands on through its
 * node's segment every chunk it holds.  memo and engine as for mcast_pml_bcast. */
int mcast_shm_twolevel_run(mcast_shm_seg_t **seg, const mcast_plan_t *plan,
                           mcast_sched_memo_t *memo, mcast_engine_t *engine, void *buf, int count,
                           struct ompi_datatype_t *dtype, size_t bytes, int root,
                           struct ompi_communicator_t *comm, int tag);
int mcast_shm_twolevel_irun(mcast_shm_seg_t **seg, const mcast_plan_t *plan,
                            mcast_sched_memo_t *memo, void *buf, int count,
                            struct ompi_datatype_t *dtype, size_t bytes, int root,
                            struct ompi_communicator_t *comm, int tag, ompi_request_t **request);

/* This rank's part of a segment plan, started now, as the state of a runner (mcast_pml.h):
 * plan NULL with info for a one-node shm plan, or a twolevel plan whose PML messages use
 * `tag` (mcast_tags_take at the call).  MCAST_SHM_PASS: no
 * segment.  On success *runner and *state go to mcast_ireq_runner_start or are driven by
 * another runner. */
int mcast_shm_begin(mcast_shm_seg_t **seg, const mcast_plan_t *plan,
                    const mcast_plan_info_t *info, void *buf, int count,
                    struct ompi_datatype_t *dtype, size_t bytes, int root,
                    struct ompi_communicator_t *comm, int tag, const mcast_runner_t **runner,
                    void **state);

/* Frees the nonblocking calls' kept states (component close). */
void mcast_shmseg_fini(void);

/* How many segments a process may map (communicators beyond it get PML plans). */
void mcast_shmseg_set_max_segments(int n);

/* Unmaps (communicator free). */
void mcast_shm_free(mcast_shm_seg_t *seg);

/* Whether setup failed on this communicator (its shm plans then go below). */
bool mcast_shm_failed(const mcast_shm_seg_t *seg);
/* The segment's board (mcast_shm.h: mcast_shm_board_put / _max) once it is set up: -1
 * (put: an error) where this rank has no view of it. */
int mcast_shm_seg_board_put(mcast_shm_seg_t *seg, int key, const double v[2]);
int mcast_shm_seg_board_max(const mcast_shm_seg_t *seg, int key, double out[2]);
/* The board's gate (mcast_shm_gate_arrive / _open): this rank reached call n of key; 1
 * once every rank has, 0 before, -1 where this rank has no view of the segment or it was
 * abandoned (no waiting for a rank that may never come). */
int mcast_shm_seg_gate(mcast_shm_seg_t *seg, int key, uint64_t n);
/* Whether the segment is set up and a rank abandoned it (mcast_shm_abandoned). */
bool mcast_shm_seg_abandoned(const mcast_shm_seg_t *seg);
/* mcast_shm_warm of this rank's view for a call of `bytes`, once the segment is set up
 * (nothing otherwise): before a timed trial call (E-SHM-3). */
void mcast_shm_seg_warm(mcast_shm_seg_t *seg, size_t bytes);
/* mcast_shm_abandon of the segment, now or (a setup still to come or under way) once its
 * setup succeeds. */
void mcast_shm_seg_abandon(mcast_shm_seg_t *seg);

#endif /* MCAST_SHMSEG_H */
