/*
 * The one status enum of the cores (issue 45): 0 is success, every error is negative.
 * The older names (KB_*, PM_*, PM_MC_*, MCAST_SHM_*) are the same values under the names
 * their headers used; the glue maps any of them to an MPI error class in one function
 * (mcast_status_to_mpi, ompi/mca/common/mcast/mcast_glue.h).
 */
#ifndef MCAST_STATUS_H
#define MCAST_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mcast_status {
    MCAST_OK = 0,
    MCAST_ERR_ARG = -1,          /* invalid parameter or call out of order (message in errbuf) */
    MCAST_ERR_NOMEM = -2,        /* allocation failed */
    MCAST_ERR_INTERNAL = -3,     /* unexpected exception in the core */
    MCAST_ERR_PARSE = -4,        /* malformed input (message in errbuf) */
    MCAST_ERR_IO = -5,           /* file cannot be read or written */
    MCAST_ERR_NOTFOUND = -6,     /* unknown host/switch name */
    MCAST_ERR_UNSUPPORTED = -7,  /* operation does not apply to this topology/routing */
    MCAST_ERR_PEER_DEAD = -10,   /* multicast: a peer was silent for T_dead */
    MCAST_ERR_ABORTED = -11,     /* another rank aborted this collective (multicast; the shared
                                    segment: a rank that could not follow a call) */
    MCAST_ERR_SIZE = -12,        /* the root's message size differs from this rank's */
    MCAST_ERR_PROTOCOL = -13,    /* multicast: e.g. DONE before holding every chunk */
    MCAST_ERR_ROOT_FAILED = -14  /* the root could not pack its data (its chunks came marked) */
} mcast_status_t;

/* What a status means, in a few words ("the root's message size differs");
 * "unknown error" for a value not above. */
const char *mcast_status_str(int status);

#ifdef __cplusplus
}
#endif

#endif
