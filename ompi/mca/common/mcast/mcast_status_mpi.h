/* The cores' status (mcast_status.h: KB_*, PM_*, PM_MC_*, MCAST_SHM_* are its names) as
 * what a call returns to Open MPI: the one place the glue maps it (issue 45); and the
 * glue's own outcomes that are not errors, below every OMPI/OPAL/ORTE error code
 * (OMPI_ERR_MAX) and every MPI error class (positive), so that no error is taken for one. */
#ifndef MCAST_STATUS_MPI_H
#define MCAST_STATUS_MPI_H

#include "mpi.h"
#include "ompi/constants.h"
#include "mcast_status.h"

enum {
    MCAST_SHM_PASS = -1001, /* the segment could not be set up on every rank: hand the call down */
    MCAST_AGAIN = -1002,    /* the exchange or the segment's setup is not over yet (or a lock is taken) */
    MCAST_NOTHING = -1003   /* nothing to move (0 bytes on a plan other than the segment's) */
};
_Static_assert(MCAST_NOTHING < OMPI_ERR_MAX && MCAST_SHM_PASS < OMPI_ERR_MAX,
               "the glue's outcomes must not be Open MPI error codes");

static inline int mcast_status_to_mpi(int status)
{
    switch (status) {
    case MCAST_OK: return OMPI_SUCCESS;
    case MCAST_ERR_ARG: return MPI_ERR_ARG;
    case MCAST_ERR_NOMEM: return OMPI_ERR_OUT_OF_RESOURCE;
    case MCAST_ERR_SIZE: return MPI_ERR_TRUNCATE;  /* the root's message size differs */
    case MCAST_ERR_INTERNAL:
    case MCAST_ERR_ROOT_FAILED: return MPI_ERR_INTERN;
    default: return MPI_ERR_OTHER; /* a peer dead, an abort, a protocol violation, I/O */
    }
}

#endif
