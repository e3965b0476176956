/*
 * The shared segment of a one-node communicator (the core's protocol: mcast_shm.h) and
 * the blocking broadcast over it.
 *
 * Setup, once per communicator at its first shm plan (collective: every rank runs the
 * same plan for the same call): the first rank of each node creates a POSIX shared memory
 * object (/mcast-<job>-<cid>-<pid>) for the node's ranks, reserves its pages
 * (posix_fallocate: a full /dev/shm is an error here, not a SIGBUS later) and formats it;
 * it sends the name to the node's other ranks (PML, point to point); each maps it; one
 * allreduce (min) says whether every rank did; the creators then unlink the names (the mapping lives until the communicator is freed, and
 * nothing is left behind if the job dies).  If any rank failed, every rank frees its
 * mapping and the communicator's shm plans go to the module below from then on.
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

typedef struct mcast_shm_seg mcast_shm_seg_t;

/* MCAST_SHM_PASS: the segment could not be set up on every rank (the caller hands this
 * and later calls to the module below); else OMPI_SUCCESS or an MPI error class. */
#define MCAST_SHM_PASS 1

/* The segment (info->shm_slots x shm_slot_bytes; on a communicator across nodes, one per
 * node among its ranks: info->node_of_rank) is set up at the first call; the chunk policy
 * is the plan's (mcast_shm_chunk_bytes). */
int mcast_shm_run(mcast_shm_seg_t **seg, const mcast_plan_info_t *info, void *buf, int count,
                  struct ompi_datatype_t *dtype, size_t bytes, int root,
                  struct ompi_communicator_t *comm);

/* The same as an MPI_Ibcast request, moved on by Open MPI's progress engine (the setup at
 * the first use is collective and blocking, as every rank makes it in the same call). */
int mcast_shm_irun(mcast_shm_seg_t **seg, const mcast_plan_info_t *info, void *buf, int count,
                   struct ompi_datatype_t *dtype, size_t bytes, int root,
                   struct ompi_communicator_t *comm, ompi_request_t **request);

/* A twolevel plan with the node's segment inside every node (transport "pml+shm"): the
 * node leaders run the plan's schedule over the PML while each leader hands on through its
 * node's segment every chunk it holds.  memo and engine as for mcast_pml_bcast. */
int mcast_shm_twolevel_run(mcast_shm_seg_t **seg, const mcast_plan_t *plan,
                           mcast_sched_memo_t *memo, mcast_engine_t *engine, void *buf, int count,
                           struct ompi_datatype_t *dtype, size_t bytes, int root,
                           struct ompi_communicator_t *comm);
int mcast_shm_twolevel_irun(mcast_shm_seg_t **seg, const mcast_plan_t *plan,
                            mcast_sched_memo_t *memo, void *buf, int count,
                            struct ompi_datatype_t *dtype, size_t bytes, int root,
                            struct ompi_communicator_t *comm, ompi_request_t **request);

/* How many segments a process may map (communicators beyond it get PML plans). */
void mcast_shmseg_set_max_segments(int n);

/* Unmaps (communicator free). */
void mcast_shm_free(mcast_shm_seg_t *seg);

/* Whether setup failed on this communicator (its shm plans then go below). */
bool mcast_shm_failed(const mcast_shm_seg_t *seg);

#endif /* MCAST_SHMSEG_H */
