/*
 * One executor for every broadcast plan.
 *
 * A plan is a tree (group ranks, ordered children) plus a byte segmentation of the
 * packed type signature and a forwarding discipline:
 *
 *   FPFS  every node forwards segment j to all its children (in child order) as soon
 *         as it has it, then segment j+1; receives are posted `window` segments ahead
 *         and sends of segment j need not complete before j+1 is forwarded (at most
 *         max_sends outstanding, window*children by default).  Kesavan & Panda's
 *         First-Packet-First-Served.
 *   FCFS  a node sends every segment to child 1 (as the segments arrive), then all of
 *         them to child 2, ...  (First-Child-First-Served, for comparison).
 *
 * Messages go through the PML (MCA_PML_CALL isend/irecv) as MPI_BYTE ranges of the
 * packed signature.  Contiguous buffers are used in place; other datatypes go through
 * Open MPI's convertor segment by segment, so ranks that pass different
 * (count, datatype) pairs with the same signature agree on every byte range.
 */
#ifndef MCAST_EXEC_H
#define MCAST_EXEC_H

#include "ompi_config.h"
#include <stddef.h>
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"

typedef enum { MCAST_DISC_FPFS = 0, MCAST_DISC_FCFS = 1 } mcast_discipline_t;

/* What one rank needs to run its part of a plan. */
typedef struct mcast_local_plan {
    int parent;             /* comm rank of the parent, -1 at the root */
    int nchildren;
    const int *children;    /* comm ranks, in send order */
    size_t seg_bytes;       /* >= 1 */
    int window;             /* >= 1: receives posted ahead */
    int max_sends;          /* sends in flight at once; 0 = window * children.  1 sends the
                               copies of a segment one after the other, as the FPFS model
                               (and a network card) does: the first child can forward sooner */
    mcast_discipline_t discipline;
} mcast_local_plan_t;

/* Run one broadcast of (buf, count, dtype) over `comm` following `plan`.
 * Returns OMPI_SUCCESS or an MPI error class (e.g. MPI_ERR_TRUNCATE). */
int mcast_exec_bcast(void *buf, int count, struct ompi_datatype_t *dtype,
                     const mcast_local_plan_t *plan, struct ompi_communicator_t *comm);

/* Bytes of the packed type signature of (count, dtype); returns false on overflow. */
bool mcast_signature_bytes(int count, struct ompi_datatype_t *dtype, size_t *bytes);

#endif /* MCAST_EXEC_H */
