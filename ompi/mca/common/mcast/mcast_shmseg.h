/*
 * The shared segment of a one-node communicator (the core's protocol: mcast_shm.h) and
 * the blocking broadcast over it.
 *
 * Setup, once per communicator at its first shm plan (collective: every rank runs the
 * same plan for the same call): rank 0 creates a POSIX shared memory object
 * (/mcast-<job>-<cid>-<pid>), reserves its pages (posix_fallocate: a full /dev/shm is an
 * error here, not a SIGBUS later) and formats it; its name goes to the others with the
 * module below's bcast; each maps it; one allreduce (min) says whether every rank did;
 * rank 0 then unlinks the name (the mapping lives until the communicator is freed, and
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

typedef struct mcast_shm_seg mcast_shm_seg_t;

/* MCAST_SHM_PASS: the segment could not be set up on every rank (the caller hands this
 * and later calls to the module below); else OMPI_SUCCESS or an MPI error class. */
#define MCAST_SHM_PASS 1

/* The segment (slots x slot_bytes) is set up at the first call; chunk_min and fit_ring:
 * the plan's chunk policy (mcast_shm_chunk_bytes). */
int mcast_shm_run(mcast_shm_seg_t **seg, int slots, size_t slot_bytes, size_t chunk_min,
                  int fit_ring, void *buf, int count,
                  struct ompi_datatype_t *dtype, size_t bytes, int root,
                  struct ompi_communicator_t *comm, mca_coll_base_module_bcast_fn_t below,
                  mca_coll_base_module_t *below_module);

/* The same as an MPI_Ibcast request, moved on by Open MPI's progress engine (the setup at
 * the first use is collective and blocking, as every rank makes it in the same call). */
int mcast_shm_irun(mcast_shm_seg_t **seg, int slots, size_t slot_bytes, size_t chunk_min,
                   int fit_ring, void *buf, int count, struct ompi_datatype_t *dtype, size_t bytes, int root,
                   struct ompi_communicator_t *comm, mca_coll_base_module_bcast_fn_t below,
                   mca_coll_base_module_t *below_module, ompi_request_t **request);

/* How many segments a process may map (communicators beyond it get PML plans). */
void mcast_shmseg_set_max_segments(int n);

/* Unmaps (communicator free). */
void mcast_shm_free(mcast_shm_seg_t *seg);

/* Whether setup failed on this communicator (its shm plans then go below). */
bool mcast_shm_failed(const mcast_shm_seg_t *seg);

#endif /* MCAST_SHMSEG_H */
