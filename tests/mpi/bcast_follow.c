/*
 * A size class's verdict followed by its later calls (verification on live calls,
 * mcast_planner.h): per size class, blocking MPI_Bcast calls from every root in turn (the
 * trials and the verdict, whichever candidate wins: ours, the module below or our
 * runner-up), then MPI_Ibcast calls and, where the library has it, persistent
 * MPI_Bcast_init requests of the same class, which run the verdict's plan.  MPI_BYTE and a
 * strided vector of ints (its holes must keep the receiver's bytes); fresh data before every
 * call, checked byte for byte after it.
 *
 *   bcast_follow [-b BLOCKING] [-n NONBLOCKING]
 *
 * Prints "bcast_follow: np=N C checks, F failures" and exits non-zero on a failure.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define HAVE_BCAST_INIT 1
#else
#define HAVE_BCAST_INIT 0
#endif

static unsigned char pattern(size_t i, int call, int cls)
{
    return (unsigned char) (i * 131u + (unsigned) call * 7u + (unsigned) cls * 29u + 1u);
}

/* Fills buf (span bytes) for one call: the root's data bytes with the pattern, everything
 * else (the receivers' data bytes, everyone's holes) with a rank-dependent filler; expect
 * gets what the receiver must hold after the call. */
static void fill(unsigned char *buf, unsigned char *expect, size_t span, const char *is_data,
                 int rank, int root, int call, int cls)
{
    for (size_t i = 0; i < span; i++) {
        const unsigned char filler = (unsigned char) (0xA0 + rank);
        buf[i] = is_data[i] && rank == root ? pattern(i, call, cls) : filler;
        expect[i] = is_data[i] ? pattern(i, call, cls) : filler;
    }
}

int main(int argc, char **argv)
{
    int blocking = 24, nonblocking = 12, opt;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "b:n:")) != -1) {
        if (opt == 'b') {
            blocking = atoi(optarg);
        } else if (opt == 'n') {
            nonblocking = atoi(optarg);
        }
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype vec;
    MPI_Type_vector(1, 1, 2, MPI_INT, &vec); /* (resized below: an int, then a hole) */
    MPI_Datatype vec2;
    MPI_Type_create_resized(vec, 0, 2 * sizeof(int), &vec2);
    MPI_Type_commit(&vec2);
    const size_t sizes[] = {64, 3000, 40000, 200000, 900000};
    long checks = 0, failures = 0;
    for (int t = 0; t < 2; t++) {
        for (int si = 0; si < (int) (sizeof(sizes) / sizeof(sizes[0])); si++) {
            const int cls = t * 16 + si;
            /* count units of the type: data bytes = sizes[si] either way */
            const int count = t == 0 ? (int) sizes[si] : (int) (sizes[si] / sizeof(int));
            const MPI_Datatype dt = t == 0 ? MPI_BYTE : vec2;
            const size_t span = t == 0 ? sizes[si] : (size_t) count * 2 * sizeof(int);
            unsigned char *buf = malloc(span), *expect = malloc(span);
            char *is_data = malloc(span);
            if (buf == NULL || expect == NULL || is_data == NULL) {
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            for (size_t i = 0; i < span; i++) {
                is_data[i] = t == 0 || (i % (2 * sizeof(int))) < sizeof(int);
            }
            for (int call = 0; call < blocking + 2 * nonblocking; call++) {
                const int root = call % size;
                fill(buf, expect, span, is_data, rank, root, call, cls);
                int rc;
                if (call < blocking) {
                    rc = MPI_Bcast(buf, count, dt, root, MPI_COMM_WORLD);
                } else if (call < blocking + nonblocking || !HAVE_BCAST_INIT) {
                    MPI_Request r;
                    rc = MPI_Ibcast(buf, count, dt, root, MPI_COMM_WORLD, &r);
                    if (rc == MPI_SUCCESS) {
                        rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
                    }
                } else {
#if HAVE_BCAST_INIT
                    MPI_Request r;
                    rc = MPI_Bcast_init(buf, count, dt, root, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
                    if (rc == MPI_SUCCESS) {
                        rc = MPI_Start(&r);
                    }
                    if (rc == MPI_SUCCESS) {
                        rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
                    }
                    MPI_Request_free(&r);
#endif
                }
                checks++;
                if (rc != MPI_SUCCESS || memcmp(buf, expect, span) != 0) {
                    failures++;
                    if (failures <= 5) {
                        fprintf(stderr, "FAIL rank=%d type=%s bytes=%zu call=%d root=%d rc=%d\n",
                                rank, t == 0 ? "byte" : "vector", sizes[si], call, root, rc);
                    }
                }
            }
            free(buf);
            free(expect);
            free(is_data);
        }
    }
    long all[2] = {checks, failures}, sum[2];
    MPI_Reduce(all, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("bcast_follow: np=%d %ld checks, %ld failures\n", size, sum[0], sum[1]);
    }
    MPI_Type_free(&vec2);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return rank == 0 && sum[1] != 0 ? 1 : 0;
}
