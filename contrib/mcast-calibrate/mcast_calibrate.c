/*
 * mcast-calibrate: measures the machine model of the broadcast planner
 * (mcastcore/include/mcast_planner.h, mcast_loggp_t) over point-to-point MPI and writes a
 * machine file (mcast_machine_write) that the components read with
 * `--mca coll_kbinomial_machine_file FILE`.
 *
 * One model across nodes (net) and one inside a node (shm).  Rank 0 measures against
 * peers: for net, up to --peers ranks on other hosts (spread over the hosts); for shm,
 * ranks on rank 0's own host (else the first host holding two ranks).  A model without a
 * pair keeps the built-in defaults, and the file and the output say so.
 *
 *   o_send_us         duration of MPI_Isend of 0..1 KiB (median)
 *   o_recv_us         receiver-delay method: the message has arrived (the receiver slept
 *                     --delay-us first); duration of its MPI_Wait, 0..512 B (median).
 *                     When that exceeds the ping-pong intercept minus o_send, the message
 *                     had not arrived during the sleep (a transport that moves data only
 *                     inside MPI progress, e.g. TCP): o_recv = o_send instead (said so)
 *   wire, latency     ping-pong (pre-posted receives) at 0 B .. --max-bytes: half the round
 *                     trip pp(S); slope = Theil-Sen over S >= 16 KiB, intercept = median of
 *                     pp(S) - slope*S over S <= 4 KiB; latency = intercept - o_send - o_recv;
 *                     wire = slope - recv (the part of the per-byte cost the receiver
 *                     does not serialise); both medians over the peers
 *   gap_ns_per_byte   one-to-many bursts: rank 0 sends N messages round-robin to its
 *                     peers; per-message time g(S) = (T(N2) - T(N1)) / (N2 - N1); gap =
 *                     Theil-Sen slope of g(S) over S >= 16 KiB
 *   recv_ns_per_byte  many-to-one bursts, the same way: recv = max(0, slope - gap) (what
 *                     the receiver serialises beyond the sender's injection)
 *   sync_wait_us      (net only) what a synchronous send waits for after its bytes
 *                     arrived: MPI_Issend + MPI_Wait to a posted receive takes
 *                     o_send + latency + S*wire + W; W = that minus the half round trip
 *                     plus o_recv, median over 0..512 B (0 under SMPI: no acknowledgement)
 *   shared_flows      (net only) b posts receives of S bytes (the largest eager size up
 *                     to 32 KiB) and of S / 8 and sends a token; a sends the two at once,
 *                     the large one first.  A connection that is FIFO completes them in
 *                     that order whatever the load; a network whose flows share the link
 *                     (SimGrid) completes the small one first: 1 if it came first in more
 *                     than half of >= 16 repetitions; 0 also where S w is too short to
 *                     tell (S w < o + latency)
 *   eager_bytes       the largest size whose MPI_Isend completes before the receiver
 *                     posts its receive (receiver delayed by --delay-us) in one of up to 5
 *                     trials: doubling, then bisection
 *   shm.copy_ns_per_byte, shm.handover_us   (the shared segment, mcast_shm.h) rank 0 and
 *                     its first shm peer map one MPI_Win_allocate_shared window: hand-over =
 *                     half the round trip of a flag written by one and awaited by the other
 *                     (the least of 50 batches of 20, at most the least MPI half round
 *                     trip of 0 - 512 B: a flag handed over more slowly waited for a
 *                     time slice);
 *                     copy = per byte of rank 0's memcpy of 4 MiB into the window in 32 KiB
 *                     chunks, or of the peer's memcpy of it out, whichever is slower
 *                     (medians).  Not under SMPI (its ranks share one thread: a spin on a
 *                     flag would never end)
 *
 * --probe: only what the components' self-calibration measures (coll_kbinomial_self_calibrate,
 * docs/machine-model.md), with the same code: the core's mcast_probe_pairs_routed (with
 * --topology FILE, the components' topology file, the route latency's and the switch
 * links' pairs too),
 * mcast_probe_run and mcast_probe_fit_pairs over MPI point-to-point (the components
 * run them over the PML); the other keys keep their built-in values.
 *
 * The same source builds with smpicc (SimGrid SMPI), so perf/sim's platforms get their
 * machine files the way a user's machine does.  Timings are medians of --reps
 * repetitions after two warm-ups.  Run with one rank per host on at least two hosts for
 * net, and two ranks on one host for shm, e.g.
 *
 *   mpirun -np 4 --map-by ppr:2:node mcast-calibrate --out /etc/mcast-machine.txt
 */
#include <mpi.h>

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcast_planner.h"

#define TAG_PP 101
#define TAG_TOKEN 102
#define TAG_OR 103
#define TAG_BURST 104
#define TAG_READY 105
#define TAG_DONE 106
#define TAG_EAGER 107
#define TAG_PROBE 108
#define TAG_RESULT 108
#define TAG_SYNC 109
#define TAG_FLOW 110 /* and 111 */
#define MAX_PEERS 64
#define MAX_SIZES 32

typedef struct options {
    const char *out;
    int reps;
    size_t max_bytes;
    int peers;
    double delay_us;
    int quick;
    int probe;
    const char *topology;
} options_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun [...] mcast-calibrate [--out FILE] [--quick] [--reps N]\n"
            "                    [--max-bytes BYTES] [--peers N] [--delay-us US]\n"
            "\n"
            "Measures the broadcast planner's machine model over point-to-point MPI and\n"
            "writes it as a machine file (default mcast-machine.txt), with provenance.\n"
            "Components read it with:  mpirun --mca coll_kbinomial_machine_file FILE ...\n"
            "(coll/pathmc reads coll/kbinomial's parameter too).\n"
            "\n"
            "  --out FILE        machine file to write (rank 0)\n"
            "  --quick           fewer repetitions and sizes (a few seconds)\n"
            "  --reps N          repetitions per measurement, median taken (default 20)\n"
            "  --max-bytes B     largest message, K/M suffixes (default 4M)\n"
            "  --peers N         peers on other hosts (and on rank 0's host) (default 8)\n"
            "  --delay-us US     receiver delay of the o_recv and eager probes (default 200)\n"
            "  --probe           measure only what the components' self-calibration measures\n"
            "                    (coll_kbinomial_self_calibrate), the same way: pairs of hosts\n"
            "                    spread over the job, at once; writes those net keys and\n"
            "                    keeps the built-in values of the others\n"
            "  --topology FILE   with --probe: the topology file naming every host (as\n"
            "                    coll_kbinomial_topology_file); where its routes differ in\n"
            "                    length the probe also fits net.hop_latency_us; where it\n"
            "                    has links between switches, net.switch_links\n"
            "  --help            this text\n"
            "\n"
            "Across nodes (net) it needs ranks on at least two hosts, inside a node (shm)\n"
            "two ranks on one host; a model without such a pair keeps the built-in\n"
            "defaults and the file says so.  Place one rank per host plus one extra rank\n"
            "on the first host, e.g. mpirun -np 4 --map-by ppr:2:node.\n"
            "Keys written: net.* and shm.* o_send_us o_recv_us latency_us gap_ns_per_byte\n"
            "wire_ns_per_byte recv_ns_per_byte eager_bytes, net.sync_wait_us, net.shared_flows,\n"
            "shm.copy_ns_per_byte shm.handover_us (see mcast_planner.h).\n");
}

static int parse_bytes(const char *s, size_t *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || v < 0) {
        return -1;
    }
    if (*end == 'K' || *end == 'k') {
        v *= 1024;
        end++;
    } else if (*end == 'M' || *end == 'm') {
        v *= 1024 * 1024;
        end++;
    }
    if (*end != '\0' || v > 1e12) {
        return -1;
    }
    *out = (size_t) v;
    return 0;
}

/* 0 ok, 1 help printed, 2 bad usage */
static int parse_args(int argc, char **argv, options_t *o)
{
    o->out = "mcast-machine.txt";
    o->reps = 20;
    o->max_bytes = 4u << 20;
    o->peers = 8;
    o->delay_us = 200;
    o->quick = 0;
    o->probe = 0;
    o->topology = NULL;
    int reps_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (0 == strcmp(a, "--help") || 0 == strcmp(a, "-h")) {
            return 1;
        } else if (0 == strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (0 == strcmp(a, "--probe")) {
            o->probe = 1;
        } else if (0 == strcmp(a, "--topology") && v) {
            o->topology = v;
            i++;
        } else if (0 == strcmp(a, "--out") && v) {
            o->out = v;
            i++;
        } else if (0 == strcmp(a, "--reps") && v) {
            o->reps = atoi(v);
            reps_given = 1;
            i++;
        } else if (0 == strcmp(a, "--max-bytes") && v) {
            if (parse_bytes(v, &o->max_bytes) != 0) {
                return 2;
            }
            i++;
        } else if (0 == strcmp(a, "--peers") && v) {
            o->peers = atoi(v);
            i++;
        } else if (0 == strcmp(a, "--delay-us") && v) {
            o->delay_us = atof(v);
            i++;
        } else {
            fprintf(stderr, "mcast-calibrate: unknown or incomplete option '%s' (--help)\n", a);
            return 2;
        }
    }
    if (o->quick && !reps_given) {
        o->reps = 5;
    }
    if (o->reps < 1 || o->peers < 1 || o->peers > MAX_PEERS || o->delay_us <= 0 ||
        o->max_bytes < 1024) {
        fprintf(stderr, "mcast-calibrate: --reps >= 1, 1 <= --peers <= %d, --delay-us > 0, "
                        "--max-bytes >= 1K\n", MAX_PEERS);
        return 2;
    }
    return 0;
}

/* ---- statistics -------------------------------------------------------------- */
static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : (x > y);
}

static double median(double *v, int n)
{
    if (n <= 0) {
        return NAN;
    }
    qsort(v, (size_t) n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Theil-Sen: the median of the slopes of all pairs (robust against outliers). */
static double theil_sen_slope(const double *x, const double *y, int n)
{
    double s[MAX_SIZES * MAX_SIZES];
    int k = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            if (x[j] != x[i]) {
                s[k++] = (y[j] - y[i]) / (x[j] - x[i]);
            }
        }
    }
    return k ? median(s, k) : NAN;
}

static int gcd(int a, int b)
{
    while (b != 0) {
        const int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* ---- waiting: a simulated sleep under SMPI (smpicc maps nanosleep to it) ----------- */
static void delay_us(double us)
{
    struct timespec ts;
    ts.tv_sec = (time_t) (us / 1e6);
    ts.tv_nsec = (long) ((us - (double) ts.tv_sec * 1e6) * 1e3);
    nanosleep(&ts, NULL);
}

/* ---- experiments (every rank calls each; roles by rank) ----------------------------- */
/* This rank's buffers (no global state: SMPI may run ranks as threads of one process). */
typedef struct bufs {
    char *s, *r;
    size_t scap, rcap;
} bufs_t;

static char *buf_grow(char **p, size_t *cap, size_t want)
{
    if (want == 0) {
        want = 1;
    }
    if (*cap < want) {
        char *q = realloc(*p, want);
        if (NULL == q) {
            fprintf(stderr, "mcast-calibrate: out of memory (%zu bytes)\n", want);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(q, 0x5a, want);
        *p = q;
        *cap = want;
    }
    return *p;
}

/* Ping-pong a <-> b at S bytes: half round trips and the sender's MPI_Isend duration
 * (medians, on a). */
static void pingpong(bufs_t *B, int me, int a, int b, size_t S, int reps, double *half_rtt, double *isend)
{
    const int total = reps + 2;
    double rt[256], is[256];
    if (me == a) {
        char *s = buf_grow(&B->s, &B->scap, S), *r = buf_grow(&B->r, &B->rcap, S);
        for (int i = 0; i < total; i++) {
            MPI_Request rr, sr;
            MPI_Irecv(r, (int) S, MPI_BYTE, b, TAG_PP, MPI_COMM_WORLD, &rr);
            const double t0 = MPI_Wtime();
            MPI_Isend(s, (int) S, MPI_BYTE, b, TAG_PP, MPI_COMM_WORLD, &sr);
            const double t1 = MPI_Wtime();
            MPI_Wait(&sr, MPI_STATUS_IGNORE);
            MPI_Wait(&rr, MPI_STATUS_IGNORE);
            const double t2 = MPI_Wtime();
            if (i >= 2 && i - 2 < 256) {
                rt[i - 2] = 0.5 * (t2 - t0) * 1e6;
                is[i - 2] = (t1 - t0) * 1e6;
            }
        }
        const int n = reps < 256 ? reps : 256;
        *half_rtt = median(rt, n);
        *isend = median(is, n);
    } else if (me == b) {
        char *s = buf_grow(&B->s, &B->scap, S), *r = buf_grow(&B->r, &B->rcap, S);
        MPI_Request rr, sr;
        MPI_Irecv(r, (int) S, MPI_BYTE, a, TAG_PP, MPI_COMM_WORLD, &rr);
        for (int i = 0; i < total; i++) {
            MPI_Wait(&rr, MPI_STATUS_IGNORE);
            if (i + 1 < total) {
                MPI_Irecv(r, (int) S, MPI_BYTE, a, TAG_PP, MPI_COMM_WORLD, &rr);
            }
            MPI_Isend(s, (int) S, MPI_BYTE, a, TAG_PP, MPI_COMM_WORLD, &sr);
            MPI_Wait(&sr, MPI_STATUS_IGNORE);
        }
    }
}

/* Two probes with a token (b posts its receive, then sends a token to a, which sends):
 *   sync = 0, the receiver-delay method: a sends (standard), b sleeps `delay` us, then
 *             times the MPI_Wait of the message that has arrived; the median on b;
 *   sync = 1: a times its MPI_Issend + MPI_Wait to the posted receive; the median on a.
 * (us; NAN on the other ranks) */
static double token_probe(bufs_t *B, int me, int a, int b, size_t S, int reps, double delay, int sync)
{
    const int total = reps + 2;
    const int tag = sync ? TAG_SYNC : TAG_OR;
    double v[256];
    if (me == a) {
        char *s = buf_grow(&B->s, &B->scap, S);
        for (int i = 0; i < total; i++) {
            MPI_Recv(NULL, 0, MPI_BYTE, b, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            const double t0 = MPI_Wtime();
            if (sync) {
                MPI_Request q;
                MPI_Issend(s, (int) S, MPI_BYTE, b, tag, MPI_COMM_WORLD, &q);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            } else {
                MPI_Send(s, (int) S, MPI_BYTE, b, tag, MPI_COMM_WORLD);
            }
            if (sync && i >= 2 && i - 2 < 256) {
                v[i - 2] = (MPI_Wtime() - t0) * 1e6;
            }
        }
    } else if (me == b) {
        char *r = buf_grow(&B->r, &B->rcap, S);
        for (int i = 0; i < total; i++) {
            MPI_Request rr;
            MPI_Irecv(r, (int) S, MPI_BYTE, a, tag, MPI_COMM_WORLD, &rr);
            MPI_Send(NULL, 0, MPI_BYTE, a, TAG_TOKEN, MPI_COMM_WORLD);
            if (!sync) {
                delay_us(delay);
            }
            const double t0 = MPI_Wtime();
            MPI_Wait(&rr, MPI_STATUS_IGNORE);
            if (!sync && i >= 2 && i - 2 < 256) {
                v[i - 2] = (MPI_Wtime() - t0) * 1e6;
            }
        }
    }
    return me == (sync ? a : b) ? median(v, reps < 256 ? reps : 256) : NAN;
}

/* A burst of N messages of S bytes between a and its peers: out = a sends round-robin to
 * the peers, in = the peers send to a.  Time on a from the start (every receive posted)
 * to the last completion (us). */
static double burst(bufs_t *B, int me, int a, const int *peers, int np, size_t S, int N, int out)
{
    int mine = -1;
    for (int j = 0; j < np; j++) {
        if (peers[j] == me) {
            mine = j;
        }
    }
    if (me != a && mine < 0) {
        return NAN;
    }
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t) (N + np));
    if (NULL == req) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double t = NAN;
    if (me == a) {
        char *s = buf_grow(&B->s, &B->scap, S), *r = out ? NULL : buf_grow(&B->r, &B->rcap, S * (size_t) N);
        if (!out) {
            for (int i = 0; i < N; i++) {
                MPI_Irecv(r + (size_t) i * S, (int) S, MPI_BYTE, peers[i % np], TAG_BURST,
                          MPI_COMM_WORLD, &req[i]);
            }
        }
        for (int j = 0; j < np; j++) { /* every peer ready (its receives posted) */
            MPI_Recv(NULL, 0, MPI_BYTE, peers[j], TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        const double t0 = MPI_Wtime();
        if (out) {
            for (int i = 0; i < N; i++) {
                MPI_Isend(s, (int) S, MPI_BYTE, peers[i % np], TAG_BURST, MPI_COMM_WORLD, &req[i]);
            }
            for (int j = 0; j < np; j++) {
                MPI_Irecv(NULL, 0, MPI_BYTE, peers[j], TAG_DONE, MPI_COMM_WORLD, &req[N + j]);
            }
            MPI_Waitall(N + np, req, MPI_STATUSES_IGNORE);
        } else {
            for (int j = 0; j < np; j++) {
                MPI_Send(NULL, 0, MPI_BYTE, peers[j], TAG_DONE, MPI_COMM_WORLD); /* go */
            }
            MPI_Waitall(N, req, MPI_STATUSES_IGNORE);
        }
        t = (MPI_Wtime() - t0) * 1e6;
    } else {
        int cnt = 0;
        for (int i = 0; i < N; i++) {
            cnt += (i % np) == mine;
        }
        if (out) {
            char *r = buf_grow(&B->r, &B->rcap, S * (size_t) (cnt ? cnt : 1));
            for (int i = 0; i < cnt; i++) {
                MPI_Irecv(r + (size_t) i * S, (int) S, MPI_BYTE, a, TAG_BURST, MPI_COMM_WORLD, &req[i]);
            }
            MPI_Send(NULL, 0, MPI_BYTE, a, TAG_READY, MPI_COMM_WORLD);
            MPI_Waitall(cnt, req, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, a, TAG_DONE, MPI_COMM_WORLD);
        } else {
            char *s = buf_grow(&B->s, &B->scap, S);
            MPI_Send(NULL, 0, MPI_BYTE, a, TAG_READY, MPI_COMM_WORLD);
            MPI_Recv(NULL, 0, MPI_BYTE, a, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < cnt; i++) {
                MPI_Isend(s, (int) S, MPI_BYTE, a, TAG_BURST, MPI_COMM_WORLD, &req[i]);
            }
            MPI_Waitall(cnt, req, MPI_STATUSES_IGNORE);
        }
    }
    free(req);
    return t;
}

/* Does an S-byte MPI_Isend complete before the receiver (delayed) posts its receive?
 * Decided on a, returned on every participant (1 eager, 0 not).  Up to EAGER_TRIES
 * trials: a message that waits for its receiver cannot complete early, so one early
 * completion proves the size eager, while a busy host or a full socket can make an eager
 * send late once (a single trial read 1023 B instead of 32 KiB over TCP, 2 runs in 6). */
#define EAGER_TRIES 5
static int eager_probe_once(bufs_t *B, int me, int a, int b, size_t S, double delay);
static int eager_probe(bufs_t *B, int me, int a, int b, size_t S, double delay)
{
    int eager = 0;
    for (int t = 0; t < EAGER_TRIES && !eager; t++) {
        eager = eager_probe_once(B, me, a, b, S, delay);
    }
    return eager;
}

static int eager_probe_once(bufs_t *B, int me, int a, int b, size_t S, double delay)
{
    int eager = 0;
    if (me == a) {
        char *s = buf_grow(&B->s, &B->scap, S);
        MPI_Request sr;
        MPI_Recv(NULL, 0, MPI_BYTE, b, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const double t0 = MPI_Wtime();
        MPI_Isend(s, (int) S, MPI_BYTE, b, TAG_EAGER, MPI_COMM_WORLD, &sr);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        eager = (MPI_Wtime() - t0) * 1e6 < 0.5 * delay;
        MPI_Send(&eager, 1, MPI_INT, b, TAG_RESULT, MPI_COMM_WORLD);
    } else if (me == b) {
        char *r = buf_grow(&B->r, &B->rcap, S);
        MPI_Send(NULL, 0, MPI_BYTE, a, TAG_TOKEN, MPI_COMM_WORLD);
        delay_us(delay);
        MPI_Recv(r, (int) S, MPI_BYTE, a, TAG_EAGER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&eager, 1, MPI_INT, a, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return eager;
}

/* Two messages from a to b's posted receives at once: S bytes, then S / 8.  The fraction
 * of the repetitions in which the small one completed first (on b; NAN elsewhere).  A
 * FIFO connection cannot complete it first: its bytes follow the large one's in the
 * stream, so a late or descheduled receiver finds both done and MPI_Waitany, which scans
 * in order, reports the large one (index 0).  On a network whose flows share the link
 * (SimGrid) the small flow ends long before the large one.  Completion order, not
 * timing: a ratio of completion times read 0.8 - 1.0 on a loaded host whose emulated TCP
 * links were FIFO (ksoftirqd batching the packets), where the order cannot change. */
#define FLOW_REPS 16
static double flow_probe(bufs_t *B, int me, int a, int b, size_t S, int reps)
{
    reps = reps < FLOW_REPS ? FLOW_REPS : reps;
    const size_t small = S / 8;
    MPI_Request q[2];
    int first = 0;
    if (me == a) {
        char *s = buf_grow(&B->s, &B->scap, S);
        for (int i = 0; i < reps + 2; i++) {
            MPI_Recv(NULL, 0, MPI_BYTE, b, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Isend(s, (int) S, MPI_BYTE, b, TAG_FLOW, MPI_COMM_WORLD, &q[0]);
            MPI_Isend(s, (int) small, MPI_BYTE, b, TAG_FLOW + 1, MPI_COMM_WORLD, &q[1]);
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        }
    } else if (me == b) {
        char *r = buf_grow(&B->r, &B->rcap, S + small);
        for (int i = 0; i < reps + 2; i++) {
            MPI_Irecv(r, (int) S, MPI_BYTE, a, TAG_FLOW, MPI_COMM_WORLD, &q[0]);
            MPI_Irecv(r + S, (int) small, MPI_BYTE, a, TAG_FLOW + 1, MPI_COMM_WORLD, &q[1]);
            MPI_Send(NULL, 0, MPI_BYTE, a, TAG_TOKEN, MPI_COMM_WORLD);
            int idx = 0;
            MPI_Waitany(2, q, &idx, MPI_STATUS_IGNORE);
            MPI_Wait(&q[1 - idx], MPI_STATUS_IGNORE);
            first += i >= 2 && idx == 1;
        }
    }
    return me == b ? (double) first / reps : NAN;
}

/* ---- one model (net or shm) ---------------------------------------------------------- */
typedef struct fit {
    mcast_loggp_t g;
    int npeers;
    double pp[MAX_SIZES]; /* first peer's half round trip per size */
    double gout[MAX_SIZES], gin[MAX_SIZES];
    size_t sizes[MAX_SIZES], bsizes[MAX_SIZES];
    int nsizes, nbsizes;
    int eager_found;      /* 0: every probed size was eager (eager_bytes is a lower bound) */
    int orecv_fallback;   /* 1: the receiver-delay probe exceeded the half round trip */
    double orecv_raw_us;  /* what that probe measured */
    double sync_wait_us;  /* net.sync_wait_us (net only) */
    double flow_first;    /* flow_probe's fraction (NAN: not measured) */
    int shared_flows;     /* net.shared_flows (net only) */
} fit_t;

/* Result of rank `from` to rank 0 (value only meaningful there). */
static double to_root(int me, int from, double v)
{
    if (from == 0) {
        return v;
    }
    if (me == from) {
        MPI_Send(&v, 1, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
    } else if (me == 0) {
        MPI_Recv(&v, 1, MPI_DOUBLE, from, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return v;
}

static void measure(bufs_t *B, int me, const int *peers, int np, const options_t *o, fit_t *f)
{
    const int a = 0;
    const int reps = o->reps;
    /* sizes: 0, 8, 64, 512 B, then 4 KiB .. max by 4x (plus the max) */
    size_t sz[MAX_SIZES];
    int ns = 0;
    const size_t small[] = {0, 8, 64, 512, 1024, 4096};
    for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
        sz[ns++] = small[i];
    }
    for (size_t s = 16384; s <= o->max_bytes && ns < MAX_SIZES - 1; s *= o->quick ? 8 : 4) {
        sz[ns++] = s;
    }
    if (sz[ns - 1] != o->max_bytes && ns < MAX_SIZES) {
        sz[ns++] = o->max_bytes;
    }
    f->nsizes = ns;
    memcpy(f->sizes, sz, sizeof(sz[0]) * (size_t) ns);
    f->npeers = np;

    /* ping-pong with every peer; o_send from the first */
    double lat[MAX_PEERS], slope[MAX_PEERS], isend_small[MAX_SIZES];
    int nis = 0;
    double x[MAX_SIZES] = {0}, y[MAX_SIZES] = {0};
    double pps[MAX_PEERS][MAX_SIZES];
    for (int p = 0; p < np; p++) {
        for (int i = 0; i < ns; i++) {
            /* large messages: fewer repetitions (at least 3) */
            int r = reps;
            if (sz[i] >= (1u << 20)) {
                r = reps / 4 > 3 ? reps / 4 : 3;
            }
            double hr = NAN, is = NAN;
            pingpong(B, me, a, peers[p], sz[i], r, &hr, &is);
            pps[p][i] = hr;
            if (p == 0 && sz[i] <= 1024 && me == a) {
                isend_small[nis++] = is;
            }
        }
    }
    double osend = me == a ? median(isend_small, nis) : NAN;
    /* o_recv on the first peer (receiver side) */
    double orv[4];
    const size_t orsz[4] = {0, 8, 64, 512};
    for (int i = 0; i < 4; i++) {
        orv[i] = to_root(me, peers[0], token_probe(B, me, a, peers[0], orsz[i], reps, o->delay_us, 0));
    }
    /* synchronous sends on the first peer, same sizes (on a) */
    double issend_us[4];
    for (int i = 0; i < 4; i++) {
        issend_us[i] = token_probe(B, me, a, peers[0], orsz[i], reps, 0.0, 1);
    }
    /* bursts: sizes 1 KiB .. min(1 MiB, max) by 4x */
    const int N1 = o->quick ? 4 : 8, N2 = o->quick ? 12 : 24;
    int nb = 0;
    for (size_t s = 1024; s <= o->max_bytes && s <= (1u << 20) && nb < MAX_SIZES; s *= 4) {
        f->bsizes[nb++] = s;
    }
    f->nbsizes = nb;
    for (int i = 0; i < nb; i++) {
        for (int dir = 1; dir >= 0; dir--) {
            double t1[64], t2[64];
            const int r = reps < 64 ? reps : 64;
            for (int k = 0; k < r + 1; k++) { /* one warm-up */
                const double x1 = burst(B, me, a, peers, np, f->bsizes[i], N1, dir);
                const double x2 = burst(B, me, a, peers, np, f->bsizes[i], N2, dir);
                if (k > 0) {
                    t1[k - 1] = x1;
                    t2[k - 1] = x2;
                }
            }
            if (me == a) {
                const double g = (median(t2, r) - median(t1, r)) / (double) (N2 - N1);
                (dir ? f->gout : f->gin)[i] = g;
            }
        }
    }
    /* eager threshold with the first peer */
    size_t lo = 0, hi = 0; /* largest eager, smallest not eager */
    for (size_t s = 1024; s <= o->max_bytes; s *= 2) {
        if (eager_probe(B, me, a, peers[0], s, o->delay_us)) {
            lo = s;
        } else {
            hi = s;
            break;
        }
    }
    if (hi == 0) {
        f->eager_found = 0;
    } else {
        f->eager_found = 1;
        if (lo == 0 && !eager_probe(B, me, a, peers[0], 0, o->delay_us)) {
            hi = 0; /* not even an empty message is eager */
        }
        while (hi > lo + 1) {
            const size_t mid = lo + (hi - lo) / 2;
            if (eager_probe(B, me, a, peers[0], mid, o->delay_us)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }
    /* shared flows: the largest eager size up to 32 KiB (a and peers[0] both know lo) */
    const size_t fs = lo < 32768 ? lo : 32768;
    const double fr = to_root(me, peers[0], fs >= 1024 ? flow_probe(B, me, a, peers[0], fs, reps) : NAN);
    if (me != a) {
        return;
    }
    f->flow_first = fr;
    /* fits */
    double orecv_us = median(orv, 4);
    int nb16 = 0;
    for (int i = 0; i < nb; i++) {
        if (f->bsizes[i] >= 16384) {
            x[nb16] = (double) f->bsizes[i];
            y[nb16++] = f->gout[i];
        }
    }
    const double gap = theil_sen_slope(x, y, nb16);
    nb16 = 0;
    for (int i = 0; i < nb; i++) {
        if (f->bsizes[i] >= 16384) {
            x[nb16] = (double) f->bsizes[i];
            y[nb16++] = f->gin[i];
        }
    }
    const double gin = theil_sen_slope(x, y, nb16);
    const double recv = fmax(0.0, gin - fmax(0.0, gap));
    for (int p = 0; p < np; p++) {
        int k = 0;
        for (int i = 0; i < ns; i++) {
            if (sz[i] >= 16384) {
                x[k] = (double) sz[i];
                y[k++] = pps[p][i];
            }
        }
        slope[p] = theil_sen_slope(x, y, k);
        double r[MAX_SIZES];
        int m = 0;
        for (int i = 0; i < ns; i++) {
            if (sz[i] <= 4096) {
                r[m++] = pps[p][i] - slope[p] * (double) sz[i];
            }
        }
        lat[p] = median(r, m); /* the intercept: o_send + latency + o_recv */
    }
    const double icpt = median(lat, np);
    f->orecv_raw_us = orecv_us;
    if (orecv_us > icpt - fmax(0.0, osend)) {
        /* the message had not arrived while the receiver slept (a transport that moves
         * data only inside MPI progress, e.g. TCP): the receiver-delay probe measured
         * the transfer, not the overhead; take o_recv = o_send */
        f->orecv_fallback = 1;
        orecv_us = fmax(0.0, fmin(osend, icpt / 2.0));
    }
    for (int p = 0; p < np; p++) {
        lat[p] -= osend + orecv_us;
    }
    memcpy(f->pp, pps[0], sizeof(double) * (size_t) ns);
    const double wire_us_per_byte = median(slope, np) - recv;
    f->g.o_send_us = fmax(0.0, osend);
    f->g.o_recv_us = fmax(0.0, orecv_us);
    f->g.latency_us = fmax(0.0, median(lat, np));
    f->g.gap_ns_per_byte = fmax(0.0, gap * 1e3);
    f->g.wire_ns_per_byte = fmax(0.0, wire_us_per_byte * 1e3);
    f->g.recv_ns_per_byte = recv * 1e3;
    f->g.eager_bytes = lo;
    /* the synchronous wait: a synchronous send takes o_send + latency + S wire + W, the
     * half round trip o_send + latency + S wire + o_recv (sizes 0 .. 512 B are sz[0..3]) */
    double w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = issend_us[i] - pps[0][i] + f->g.o_recv_us;
    }
    f->sync_wait_us = fmax(0.0, median(w, 4));
    /* shared flows: the core's rule (self-calibration's too) */
    f->shared_flows = mcast_probe_shared_flows(fr, fs, fs / 8, f->g.wire_ns_per_byte,
                                               f->g.o_send_us);
}

/* ---- the shared segment (not under SMPI) ------------------------------------------ */
#define SEG_BYTES ((size_t) 4 << 20)
#define SEG_CHUNK ((size_t) 32 << 10)
#define SEG_DATA 256 /* the flags take the first two 128-byte lines */

/* Wait for *flag == v: spin, then yield the core (as a waiting rank of an oversubscribed
 * node does: Open MPI's progress loop yields there, and so does the shm protocol's). */
static void await_flag(const uint64_t *flag, uint64_t v)
{
    for (long spins = 0; __atomic_load_n(flag, __ATOMIC_ACQUIRE) != v; spins++) {
        if (spins > 1000) {
            sched_yield();
        }
    }
}

/* Collective over MPI_COMM_WORLD.  On rank 0 *copy_ns / *handover_us are set and 1 is
 * returned when measured; 0 (the defaults stay) when there is no peer or no window. */
static int shm_segment(int me, int peer, int reps, double *copy_ns, double *handover_us)
{
#ifdef SMPI_H
    (void) me;
    (void) peer;
    (void) reps;
    (void) copy_ns;
    (void) handover_us;
    return 0;
#else
    MPI_Comm pair = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, (peer > 0 && (me == 0 || me == peer)) ? 0 : MPI_UNDEFINED, me,
                   &pair);
    if (MPI_COMM_NULL == pair) {
        return 0;
    }
    int ok = 0;
    char *seg = NULL, *mine = NULL;
    MPI_Win win = MPI_WIN_NULL;
    if (MPI_SUCCESS == MPI_Win_allocate_shared(me == 0 ? (MPI_Aint) (SEG_DATA + SEG_BYTES) : 0, 1,
                                               MPI_INFO_NULL, pair, &seg, &win)) {
        MPI_Aint sz = 0;
        int du = 0;
        MPI_Win_shared_query(win, 0, &sz, &du, &seg);
        mine = malloc(SEG_BYTES);
        ok = NULL != seg && NULL != mine && sz >= (MPI_Aint) (SEG_DATA + SEG_BYTES);
    }
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, pair);
    double *tin = calloc((size_t) reps, sizeof(double)), *tout = calloc((size_t) reps, sizeof(double));
    if (all && NULL != tin && NULL != tout) {
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        uint64_t *ping = (uint64_t *) seg, *pong = (uint64_t *) (seg + 128);
        if (0 == me) {
            __atomic_store_n(ping, 0, __ATOMIC_RELEASE);
            __atomic_store_n(pong, 0, __ATOMIC_RELEASE);
            memset(mine, 0x5a, SEG_BYTES);
        }
        MPI_Win_sync(win);
        MPI_Barrier(pair);
        /* hand-over: a flag there and back, the least of 50 batches of 20: the cores'
         * hand-over, not the scheduler's (on a loaded machine most batches wait for a
         * time slice: CI beside other work read a median of 68.6 us, idle 0.85) */
        enum { BATCHES = 50, PER_BATCH = 20 };
        const int rounds = BATCHES * PER_BATCH;
        double batch[BATCHES];
        for (int b = 0; b < BATCHES; b++) {
            const double t0 = MPI_Wtime();
            for (uint64_t i = (uint64_t) b * PER_BATCH + 1; i <= (uint64_t) (b + 1) * PER_BATCH; i++) {
                if (0 == me) {
                    __atomic_store_n(ping, i, __ATOMIC_RELEASE);
                    await_flag(pong, i);
                } else {
                    await_flag(ping, i);
                    __atomic_store_n(pong, i, __ATOMIC_RELEASE);
                }
            }
            batch[b] = (MPI_Wtime() - t0) / (2.0 * PER_BATCH) * 1e6;
        }
        double least = batch[0];
        for (int b = 1; b < BATCHES; b++) {
            least = batch[b] < least ? batch[b] : least;
        }
        *handover_us = least;
        /* copies: rank 0 in, the peer out, one after the other */
        for (int r = 0; r < reps; r++) {
            const uint64_t go = (uint64_t) rounds + 1 + (uint64_t) r;
            if (0 == me) {
                const double a = MPI_Wtime();
                for (size_t off = 0; off < SEG_BYTES; off += SEG_CHUNK) {
                    memcpy(seg + SEG_DATA + off, mine + off, SEG_CHUNK);
                }
                tin[r] = MPI_Wtime() - a;
                __atomic_store_n(ping, go, __ATOMIC_RELEASE);
                await_flag(pong, go);
            } else {
                await_flag(ping, go);
                const double a = MPI_Wtime();
                for (size_t off = 0; off < SEG_BYTES; off += SEG_CHUNK) {
                    memcpy(mine + off, seg + SEG_DATA + off, SEG_CHUNK);
                }
                tout[r] = MPI_Wtime() - a;
                __atomic_store_n(pong, go, __ATOMIC_RELEASE);
            }
        }
        MPI_Win_unlock_all(win);
        double out = 0.0;
        if (0 == me) {
            MPI_Recv(&out, 1, MPI_DOUBLE, 1, TAG_RESULT, pair, MPI_STATUS_IGNORE);
            const double in = median(tin, reps);
            *copy_ns = (in > out ? in : out) / (double) SEG_BYTES * 1e9;
        } else {
            out = median(tout, reps);
            MPI_Send(&out, 1, MPI_DOUBLE, 0, TAG_RESULT, pair);
        }
    }
    free(tin);
    free(tout);
    free(mine);
    if (MPI_WIN_NULL != win) {
        MPI_Win_free(&win);
    }
    MPI_Comm_free(&pair);
    return all;
#endif
}

static void describe(FILE *out, const char *what, const fit_t *f, const char *prefix)
{
    char flows[64];
    if (isnan(f->flow_first)) { /* eager messages under 1 KiB: no probe, FIFO assumed */
        snprintf(flows, sizeof(flows), "not probed: eager below 1 KiB");
    } else {
        snprintf(flows, sizeof(flows), "the later, smaller of two first in %.0f %%", 100.0 * f->flow_first);
    }
    fprintf(out, "%s%s: %d peer(s); o_send %.4g us, o_recv %.4g us, latency %.4g us, gap %.4g ns/B, "
                 "wire %.4g ns/B, recv %.4g ns/B, eager %zu B, synchronous wait %.4g us, "
                 "shared flows %d (%s)%s\n",
            prefix, what, f->npeers, f->g.o_send_us, f->g.o_recv_us, f->g.latency_us,
            f->g.gap_ns_per_byte, f->g.wire_ns_per_byte, f->g.recv_ns_per_byte, f->g.eager_bytes,
            f->sync_wait_us, f->shared_flows, flows,
            f->eager_found ? "" : " (every probed size was eager: a lower bound)");
    if (f->orecv_fallback) {
        fprintf(out, "%s%s: o_recv probe measured %.4g us, more than the half round trip: the "
                     "transport moves data only during MPI progress; o_recv = o_send\n",
                prefix, what, f->orecv_raw_us);
    }
    fprintf(out, "%s%s ping-pong half round trip (us), first peer:", prefix, what);
    for (int i = 0; i < f->nsizes; i++) {
        fprintf(out, " %zu:%.4g", f->sizes[i], f->pp[i]);
    }
    fprintf(out, "\n%s%s per-message burst time (us) one-to-many / many-to-one:", prefix, what);
    for (int i = 0; i < f->nbsizes; i++) {
        fprintf(out, " %zu:%.4g/%.4g", f->bsizes[i], f->gout[i], f->gin[i]);
    }
    fprintf(out, "\n");
}

/* ---- --probe: the components' self-calibration over MPI ------------------------ */
/* The core's measurement (mcast_probe_run) and fit (mcast_probe_fit_rows): the same
 * code the components run over the PML (ompi/mca/common/mcast/mcast_calib.c). */
/* Where a host runs more of the job's ranks than it has cores (or mpi_yield_when_idle is
 * set, as Open MPI does then and the emulated cluster does), every wait polls and naps
 * once idle (as the components' probe does where Open MPI yields when idle, evidence
 * E-CAL-3 (6)): a rank waiting its turn would otherwise take a core from the pair whose
 * stream is being timed.  Under SMPI the ranks share no cores: MPI's own waits. */
typedef struct {
    MPI_Request reqs[MCAST_PROBE_STREAM_BLOCKS];
    int nap; /* the most a nap takes (us); 0: MPI's own waits */
} probe_ctx_t;

/* MPI_Waitall (index NULL) or MPI_Waitany over r[0, n); after 200 us idle it naps, from
 * 50 us up to max_nap_us (0: MPI's wait) */
static int probe_wait(int n, MPI_Request *r, int *index, int max_nap_us)
{
    if (max_nap_us <= 0) {
        return NULL != index ? MPI_Waitany(n, r, index, MPI_STATUS_IGNORE)
                             : MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
    }
    double idle_since = -1.0;
    int nap = 50;
    for (;;) {
        int done = 0;
        const int rc = NULL != index ? MPI_Testany(n, r, index, &done, MPI_STATUS_IGNORE)
                                     : MPI_Testall(n, r, &done, MPI_STATUSES_IGNORE);
        if (MPI_SUCCESS != rc || done) {
            return rc;
        }
        const double now = 1e6 * MPI_Wtime();
        if (idle_since < 0.0) {
            idle_since = now;
        } else if (now - idle_since >= 200.0) {
            delay_us(nap);
            nap = 2 * nap < max_nap_us ? 2 * nap : max_nap_us;
        }
    }
}

static double probe_now(void *ctx)
{
    (void) ctx;
    return 1e6 * MPI_Wtime();
}

static int probe_isend(void *ctx, int peer, const void *buf, size_t bytes, int slot)
{
    probe_ctx_t *c = ctx;
    return MPI_Isend(buf, (int) bytes, MPI_BYTE, peer, TAG_PROBE, MPI_COMM_WORLD, &c->reqs[slot]);
}

static int probe_waitall(void *ctx, int n)
{
    probe_ctx_t *c = ctx;
    return probe_wait(n, c->reqs, NULL, c->nap);
}

static int probe_send(void *ctx, int peer, const void *buf, size_t bytes)
{
    probe_ctx_t *c = ctx;
    MPI_Request r;
    const int rc = MPI_Isend(buf, (int) bytes, MPI_BYTE, peer, TAG_PROBE, MPI_COMM_WORLD, &r);
    return MPI_SUCCESS != rc ? rc : probe_wait(1, &r, NULL, c->nap);
}

static int probe_ssend(void *ctx, int peer, const void *buf, size_t bytes)
{
    probe_ctx_t *c = ctx;
    MPI_Request r;
    const int rc = MPI_Issend(buf, (int) bytes, MPI_BYTE, peer, TAG_PROBE, MPI_COMM_WORLD, &r);
    return MPI_SUCCESS != rc ? rc : probe_wait(1, &r, NULL, c->nap);
}

static int probe_recv(void *ctx, int peer, void *buf, size_t bytes)
{
    probe_ctx_t *c = ctx;
    MPI_Request r;
    const int rc = MPI_Irecv(buf, (int) bytes, MPI_BYTE, peer, TAG_PROBE, MPI_COMM_WORLD, &r);
    return MPI_SUCCESS != rc ? rc : probe_wait(1, &r, NULL, c->nap);
}

static int probe_irecv(void *ctx, int peer, void *buf, size_t bytes, int slot)
{
    probe_ctx_t *c = ctx;
    return MPI_Irecv(buf, (int) bytes, MPI_BYTE, peer, TAG_PROBE, MPI_COMM_WORLD, &c->reqs[slot]);
}

static int probe_waitany(void *ctx, int n, int *index)
{
    probe_ctx_t *c = ctx;
    return probe_wait(n, c->reqs, index, c->nap);
}

/* Every rank: node_of[n] from the host names (hosts[r * stride ..]); rank 0 writes the
 * file.  Returns the exit code. */
static int probe_main(const options_t *o, int me, int n, const char *hosts, int stride, int argc,
                      char **argv)
{
    int *node_of = malloc(sizeof(int) * (size_t) n);
    if (NULL == node_of) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int r = 0; r < n; r++) {
        node_of[r] = r;
        for (int q = 0; q < r; q++) {
            if (0 == strcmp(hosts + (size_t) q * (size_t) stride,
                            hosts + (size_t) r * (size_t) stride)) {
                node_of[r] = node_of[q];
                break;
            }
        }
    }
    /* the topology (every rank reads the same file): routes of different lengths add the
     * pairs of the route latency's */
    pm_topology_t *topo = NULL;
    const char **names = malloc(sizeof(char *) * (size_t) n);
    if (NULL == names) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int r = 0; r < n; r++) {
        names[r] = hosts + (size_t) r * (size_t) stride;
    }
    if (NULL != o->topology) {
        char err[256] = "";
        if (PM_OK != pm_topology_load(o->topology, &topo, err, sizeof(err))) {
            if (0 == me) {
                fprintf(stderr, "mcast-calibrate --probe: %s: %s\n", o->topology, err);
            }
            free(node_of);
            free(names);
            return 1;
        }
    }
    mcast_probe_pair_t pairs[MCAST_PROBE_MAX_ALL];
    const int np = mcast_probe_pairs_routed(n, node_of, topo, names, MCAST_PROBE_MAX_PAIRS, pairs);
    free(node_of);
    double rows[MCAST_PROBE_MAX_ALL * MCAST_PROBE_ROW];
    memset(rows, 0, sizeof(rows));
    static char buf[MCAST_PROBE_STREAM_BYTES];
    probe_ctx_t ctx = {.nap = 0};
#ifndef SMPI_H
    MPI_Comm host;
    int local = 1;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_size(host, &local);
    MPI_Comm_free(&host);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *y = getenv("OMPI_MCA_mpi_yield_when_idle"); /* (mpirun --mca passes it so) */
    ctx.nap = (cores > 0 && local > cores) || (NULL != y && 0 != atoi(y)) ? 50 : 0;
#endif
    const mcast_probe_ops_t ops = {&ctx,       probe_now,  probe_isend, probe_waitall,
                                   probe_send, probe_recv, probe_irecv, probe_waitany,
                                   probe_ssend};
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    (void) mcast_probe_run(&ops, me, pairs, np, buf, rows);
    if (ctx.nap > 0) {
        MPI_Request all;
        MPI_Iallreduce(MPI_IN_PLACE, rows, np * MCAST_PROBE_ROW, MPI_DOUBLE, MPI_SUM,
                       MPI_COMM_WORLD, &all);
        probe_wait(1, &all, NULL, 1000); /* (naps up to 1 ms: it times nothing) */
    } else {
        /* (SMPI's nonblocking allreduce sends every rank's rows to every other rank: slow
         * to simulate at scale, and its flows disturbed the streams: E-HOP-1) */
        MPI_Allreduce(MPI_IN_PLACE, rows, np * MCAST_PROBE_ROW, MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
    }
    const double took = MPI_Wtime() - t0;
    int rc = 0;
    if (0 == me) {
        mcast_machine_t m;
        mcast_machine_default(&m);
        char why[160] = "";
        if (np <= 0) {
            fprintf(stderr, "mcast-calibrate --probe: every rank is on one host (no pair)\n");
            rc = 1;
        } else if (KB_OK != mcast_probe_fit_pairs(rows, pairs, np, &m, why, sizeof(why))) {
            fprintf(stderr, "mcast-calibrate --probe: %s\n", why);
            rc = 1;
        } else {
            char cmd[512] = "";
            size_t at = 0;
            for (int i = 0; i < argc && at + 2 < sizeof(cmd); i++) {
                at += (size_t) snprintf(cmd + at, sizeof(cmd) - at, "%s%s", i ? " " : "", argv[i]);
            }
            char prov[768];
            snprintf(prov, sizeof(prov), "mcast-calibrate --probe: %s, measured in %.1f ms; "
                                         "command=\"%s\"", m.source, 1e3 * took, cmd);
            if (KB_OK != mcast_machine_write(o->out, &m, prov)) {
                fprintf(stderr, "mcast-calibrate: cannot write %s: %s\n", o->out, strerror(errno));
                rc = 1;
            } else {
                printf("net: %s, measured in %.1f ms\n", m.source, 1e3 * took);
                printf("wrote %s (use: --mca coll_kbinomial_machine_file %s)\n", o->out, o->out);
            }
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    pm_topology_free(topo);
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    options_t o;
    const int pa = parse_args(argc, argv, &o);
    if (pa == 1) {
        usage(stdout);
        return 0;
    }
    if (pa == 2) {
        usage(stderr);
        return 2;
    }
    MPI_Init(&argc, &argv);
    int me = 0, n = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int hl = 0;
    MPI_Get_processor_name(host, &hl);
    /* every host name, at the longest one's stride; gathered and broadcast, not
     * MPI_Allgather: SMPI's default allgather posts n - 1 requests on every rank and its
     * kernel removes each finished one from a list of them, O(n^3) in all (sim_bcast.cpp
     * gathers alike; E-SIM-3) */
    int name_stride = (int) strlen(host) + 1;
    MPI_Allreduce(MPI_IN_PLACE, &name_stride, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    char *hosts = calloc((size_t) n, (size_t) name_stride);
    if (NULL == hosts) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(host, name_stride, MPI_CHAR, hosts, name_stride, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(hosts, n * name_stride, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (o.probe) {
        const int prc = probe_main(&o, me, n, hosts, name_stride, argc, argv);
        free(hosts);
        MPI_Finalize();
        return prc;
    }
#define HOST(r) (hosts + (size_t) (r) * (size_t) name_stride)
    /* net peers: the first rank of each other host; a sample of those hosts that does
     * not follow rank order (on a torus numbered row by row, evenly spaced ranks would
     * all sit in one column): stride ~0.618 of the hosts, coprime with their count */
    int *first_of_host = malloc(sizeof(int) * (size_t) n);
    int nh = 0;
    for (int r = 0; r < n; r++) {
        int seen = 0;
        for (int q = 0; q < r && !seen; q++) {
            seen = 0 == strcmp(HOST(q), HOST(r));
        }
        if (!seen && 0 != strcmp(HOST(r), HOST(0))) {
            first_of_host[nh++] = r;
        }
    }
    int net_peers[MAX_PEERS], nnet = nh < o.peers ? nh : o.peers;
    int stride = nh > 2 ? (int) (0.618 * nh) : 1;
    while (stride > 1 && gcd(stride, nh) != 1) {
        stride--;
    }
    for (int j = 0; j < nnet; j++) {
        net_peers[j] = first_of_host[(int) (((long) j * stride) % nh)];
    }
    /* shm peers: other ranks on rank 0's host */
    int shm_peers[MAX_PEERS], nshm = 0;
    for (int r = 1; r < n && nshm < o.peers; r++) {
        if (0 == strcmp(HOST(r), HOST(0))) {
            shm_peers[nshm++] = r;
        }
    }
    free(first_of_host);

    mcast_machine_t m;
    mcast_machine_default(&m);
    bufs_t bufs = {NULL, NULL, 0, 0};
    fit_t fnet, fshm;
    memset(&fnet, 0, sizeof(fnet));
    memset(&fshm, 0, sizeof(fshm));
    const double t0 = MPI_Wtime();
    if (nnet > 0) {
        measure(&bufs, me, net_peers, nnet, &o, &fnet);
        m.net = fnet.g;
        m.sync_wait_us = fnet.sync_wait_us;
        m.net.shared_flows = fnet.shared_flows;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (nshm > 0) {
        measure(&bufs, me, shm_peers, nshm, &o, &fshm);
        m.shm = fshm.g;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* every rank computed the same shm_peers from the same host list */
    const int seg = shm_segment(me, nshm > 0 ? shm_peers[0] : -1, o.quick ? 5 : o.reps, &m.shm_copy_ns_per_byte,
                                &m.shm_handover_us);
    if (seg && nshm > 0) {
        /* an MPI message of up to 512 B between the two cores hands a flag over too, and
         * more: a slower flag is the scheduler's (ranks sharing a core); the least of
         * those half round trips (sizes 0, 8, 64, 512: one of them may have waited too) */
        for (int i = 0; i < fshm.nsizes && fshm.sizes[i] <= 512; i++) {
            if (fshm.pp[i] > 0.0 && fshm.pp[i] < m.shm_handover_us) {
                m.shm_handover_us = fshm.pp[i];
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = 0;
    if (me == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
        int ll = 0;
        MPI_Get_library_version(lib, &ll);
        char *nl = strpbrk(lib, "\r\n,");
        if (nl) {
            *nl = '\0';
        }
        char date[64] = "";
        const time_t now = time(NULL);
        strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
        char cmd[512] = "";
        size_t at = 0;
        for (int i = 0; i < argc && at + 2 < sizeof(cmd); i++) {
            at += (size_t) snprintf(cmd + at, sizeof(cmd) - at, "%s%s", i ? " " : "", argv[i]);
        }
        if (at >= sizeof(cmd)) {
            at = sizeof(cmd) - 1;
        }
        char prov[1024];
        snprintf(prov, sizeof(prov),
                 "mcast-calibrate host=%s date=%s mpi=\"%s\" ranks=%d hosts=%d net=%s shm=%s "
                 "command=\"%s\"",
                 host, date, lib, n, nh + 1, nnet ? "measured" : "defaults(no second host)",
                 nshm ? "measured" : "defaults(no two ranks on one host)", cmd);
        if (KB_OK != mcast_machine_write(o.out, &m, prov)) {
            fprintf(stderr, "mcast-calibrate: cannot write %s: %s\n", o.out, strerror(errno));
            rc = 1;
        } else {
            FILE *f = fopen(o.out, "a");
            if (f) {
                fprintf(f, "# measured in %.1f s\n", MPI_Wtime() - t0);
                if (nnet) {
                    describe(f, "net", &fnet, "# ");
                } else {
                    fprintf(f, "# net: defaults kept: every rank is on host %s (no second host)\n", host);
                }
                if (nshm) {
                    describe(f, "shm", &fshm, "# ");
                    fprintf(f, "# shm segment: %s\n", seg ? "copy and hand-over measured (MPI_Win_allocate_shared)"
                                                           : "copy and hand-over: defaults kept");
                } else {
                    fprintf(f, "# shm: defaults kept: no two ranks on one host\n");
                }
                fclose(f);
            }
            char err[512] = "";
            mcast_machine_t back;
            if (KB_OK != mcast_machine_load(o.out, &back, err, sizeof(err))) {
                fprintf(stderr, "mcast-calibrate: the written file does not load: %s\n", err);
                rc = 1;
            }
            if (nnet) {
                describe(stdout, "net", &fnet, "");
            } else {
                printf("net: no second host; the defaults are kept\n");
            }
            if (nshm) {
                describe(stdout, "shm", &fshm, "");
                if (seg) {
                    printf("shm segment: copy %.4g ns/B, hand-over %.4g us\n", m.shm_copy_ns_per_byte,
                           m.shm_handover_us);
                } else {
                    printf("shm segment: not measured; the defaults are kept\n");
                }
            } else {
                printf("shm: no two ranks on one host; the defaults are kept\n");
            }
            printf("wrote %s (use: --mca coll_kbinomial_machine_file %s)\n", o.out, o.out);
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(hosts);
    free(bufs.s);
    free(bufs.r);
    MPI_Finalize();
    return rc;
}
