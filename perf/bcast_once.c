/*
 * bcast_once.c -- exactly one MPI_Bcast of M bytes (for link byte counters).
 *
 * usage: bcast_once M [ROOT]
 *   M may carry a k/K or m/M suffix. The root fills the buffer with a pattern,
 *   every rank checks it after the broadcast; rank 0 prints
 *   "bcast_once: ok size=M root=R ranks=P" or the number of bad ranks.
 *   Exit status: 0 ok, 1 wrong data, 2 usage.
 *
 * No barrier or other collective runs before the broadcast, so the only
 * payload traffic of the program is the broadcast itself (plus one small
 * MPI_Reduce of the error count afterwards and the connection set-up).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, nprocs, root = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: %s M [ROOT]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    char *end = NULL;
    unsigned long long m = strtoull(argv[1], &end, 10);
    if (*end == 'k' || *end == 'K') m <<= 10;
    else if (*end == 'm' || *end == 'M') m <<= 20;
    if (argc > 2) root = atoi(argv[2]);
    if (root < 0 || root >= nprocs || m > (unsigned long long)INT32_MAX) {
        if (rank == 0) fprintf(stderr, "bcast_once: bad size or root\n");
        MPI_Finalize();
        return 2;
    }

    size_t n = (size_t)m;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < n; i++)
        buf[i] = rank == root ? (uint8_t)(i * 31u + 7u + (i >> 12)) : 0;

    MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);

    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != (uint8_t)(i * 31u + 7u + (i >> 12))) {
            fprintf(stderr, "bcast_once: rank %d: byte %zu wrong (0x%02x)\n", rank, i, buf[i]);
            bad = 1;
            break;
        }
    }
    int nbad = 0;
    MPI_Reduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (nbad == 0) printf("bcast_once: ok size=%zu root=%d ranks=%d\n", n, root, nprocs);
        else printf("bcast_once: FAILED on %d rank(s) size=%zu root=%d ranks=%d\n", nbad, n, root, nprocs);
        fflush(stdout);
    }
    free(buf);
    MPI_Finalize();
    return nbad ? 1 : 0;
}
