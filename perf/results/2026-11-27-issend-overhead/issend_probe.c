/*
 * What SMPI charges for MPI_Isend and MPI_Issend: rank 0 times the call and the wait of
 * one send of each kind, below and above the eager (detached) limit; then rank 1 times a
 * receive of a 1000-byte message, sent standard or synchronous, posted 20 us after the
 * send (the message is there).  Build and run (README.md next to this file):
 *
 *   smpicc -O2 issend_probe.c -o issend_probe
 *   smpirun -platform flat-64.xml -hostfile TWO_HOSTS -np 2 --cfg=smpi/simulate-computation:no \
 *       --cfg=smpi/os:0:0.7e-6:0 --cfg=smpi/ois:0:0.3e-6:0 --cfg=smpi/or:0:0.5e-6:0 \
 *       --cfg=smpi/send-is-detached-thresh:65536 ./issend_probe
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int sizes[] = {1000, 200000}; /* below and above the 65536-byte detached limit */
    char *buf = calloc(1, 200000);
    for (int i = 0; i < 2; ++i) {
        for (int sync = 0; sync < 2; ++sync) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                MPI_Request q;
                const double t0 = MPI_Wtime();
                if (sync) {
                    MPI_Issend(buf, sizes[i], MPI_BYTE, 1, 0, MPI_COMM_WORLD, &q);
                } else {
                    MPI_Isend(buf, sizes[i], MPI_BYTE, 1, 0, MPI_COMM_WORLD, &q);
                }
                const double t1 = MPI_Wtime();
                MPI_Wait(&q, MPI_STATUS_IGNORE);
                const double t2 = MPI_Wtime();
                printf("%s %d: call %.3f us, wait %.3f us\n", sync ? "Issend" : "Isend", sizes[i],
                       (t1 - t0) * 1e6, (t2 - t1) * 1e6);
            } else if (rank == 1) {
                MPI_Recv(buf, sizes[i], MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
    }
    for (int sync = 0; sync < 2; ++sync) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            if (sync) {
                MPI_Ssend(buf, 1000, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            } else {
                MPI_Send(buf, 1000, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            }
        } else if (rank == 1) {
            const double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 20e-6) {
                struct timespec ts = {0, 1000};
                smpi_nanosleep(&ts, NULL);
            }
            const double t1 = MPI_Wtime();
            MPI_Request q;
            MPI_Irecv(buf, 1000, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            printf("receive of a %s send, 1000: %.3f us\n", sync ? "synchronous" : "standard",
                   (MPI_Wtime() - t1) * 1e6);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
