/*
 * The test programs' communicator: a dup of MPI_COMM_WORLD whose errors come back as
 * return codes.  MPI_COMM_WORLD returns them too: Open MPI 4.1 reports a collective
 * request's error (MPI_Wait on an MPI_Ibcast) through MPI_COMM_WORLD's handler
 * (ompi_errhandler_request_invoke: OMPI_REQUEST_COLL takes the default branch).
 */
#ifndef ERRORS_RETURN_H
#define ERRORS_RETURN_H

#include <mpi.h>

static inline MPI_Comm errors_return_dup(int *rank, int *size)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, size);
    return comm;
}

#endif /* ERRORS_RETURN_H */
