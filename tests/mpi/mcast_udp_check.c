/*
 * Drives the multicast transports (ompi/mca/common/mcast/mcast_mc.h) directly, without a
 * coll component: open on MPI_COMM_WORLD (and optionally a split communicator), then
 * broadcasts of every size in --sizes from every root in --roots, each checked byte by
 * byte on every rank, then the protocol counters summed over ranks.
 *
 *   mcast_udp_check [--transport ip|ib] [--sizes 1,1000,1M] [--roots all|rotate|R,..]
 *                   [--iters N] [--interface IF] [--window BYTES] [--verbose N]
 *                   [--ident-file F [--wait-injector SEC]]     foreign-sender handshake
 *                   [--expect-foreign]                          foreign datagrams seen: dropped as
 *                                                               not authentic (without --no-auth),
 *                                                               else every foreign class > 0
 *                   [--no-auth]                                 group datagrams without the MAC
 *                   [--expect-decline]                          open must fail (with a reason)
 *                   [--split]                                   also two halves at once
 *                   [--time BYTES --reps R [--counter IF]]      latency of one size from root 0 (max
 *                                                               over ranks); with --counter the root's
 *                                                               tx bytes on IF per bcast
 *
 * Last line on rank 0: "mcast_udp_check: ok ..." or "mcast_udp_check: FAILED ...";
 * exit 0 / 1 (77 when the transport declines and no decline was expected).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>

#include "ompi_config.h"
#include "ompi/communicator/communicator.h"
#include "mcast_mc.h"
#include "mcast_udp.h"
#include "mcast_build_config.h"
#if MCAST_HAVE_VERBS
#include "mcast_ib.h"
#endif

static int rank, nprocs;

static size_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'k' || *end == 'K') v *= 1024;
    if (*end == 'm' || *end == 'M') v *= 1024 * 1024;
    return (size_t) v;
}

static uint8_t pattern(uint64_t seed, size_t i)
{
    uint64_t x = (seed + i / 8) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    return (uint8_t) (x >> (8 * (i % 8)));
}

static uint64_t tx_bytes(const char *ifname)
{
    char path[256];
    unsigned long long v = 0;
    snprintf(path, sizeof path, "/sys/class/net/%s/statistics/tx_bytes", ifname);
    FILE *f = fopen(path, "r");
    if (f) {
        if (1 != fscanf(f, "%llu", &v)) v = 0;
        fclose(f);
    }
    return v;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_transport(const char *transport, MPI_Comm comm, const mcast_mc_params_t *p, mcast_mc_t **mc,
                          char *why, size_t len)
{
    struct ompi_communicator_t *c = (struct ompi_communicator_t *) comm;
    if (0 == strcmp(transport, "ip")) return mcast_udp_open(c, p, mc, why, len);
#if MCAST_HAVE_VERBS
    if (0 == strcmp(transport, "ib")) return mcast_ib_open(c, p, mc, why, len);
#endif
    snprintf(why, len, "transport %s not built", transport);
    return OMPI_ERR_NOT_SUPPORTED;
}

/* One broadcast, checked; returns the number of wrong bytes on this rank (or -1 on error). */
static long one_bcast(mcast_mc_t *mc, MPI_Comm comm, int root, uint8_t *buf, size_t bytes, uint64_t seed)
{
    int me;
    MPI_Comm_rank(comm, &me);
    if (me == root)
        for (size_t i = 0; i < bytes; ++i) buf[i] = pattern(seed, i);
    else
        memset(buf, 0xA5, bytes);
    int rc = mcast_mc_bcast(mc, root, buf, bytes);
    if (OMPI_SUCCESS != rc) return -1;
    long bad = 0;
    for (size_t i = 0; i < bytes; ++i) bad += buf[i] != pattern(seed, i);
    return bad;
}

int main(int argc, char **argv)
{
    const char *transport = "ip", *sizes_arg = "0,1,1431,1432,1433,65536,1000000", *roots_arg = "rotate";
    const char *ident = NULL, *counter = NULL;
    int iters = 1, expect_decline = 0, expect_foreign = 0, split = 0, reps = 0;
    double wait_injector = 0;
    size_t time_bytes = 0;
    mcast_mc_params_t p;
    mcast_mc_params_default(&p);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--transport")) transport = v, ++i;
        else if (!strcmp(a, "--sizes")) sizes_arg = v, ++i;
        else if (!strcmp(a, "--roots")) roots_arg = v, ++i;
        else if (!strcmp(a, "--iters")) iters = atoi(v), ++i;
        else if (!strcmp(a, "--interface")) p.interface = v, ++i;
        else if (!strcmp(a, "--window")) p.window_bytes = parse_size(v), ++i;
        else if (!strcmp(a, "--verbose")) p.verbose = atoi(v), ++i;
        else if (!strcmp(a, "--ident-file")) ident = v, ++i;
        else if (!strcmp(a, "--wait-injector")) wait_injector = atof(v), ++i;
        else if (!strcmp(a, "--expect-decline")) expect_decline = 1;
        else if (!strcmp(a, "--expect-foreign")) expect_foreign = 1;
        else if (!strcmp(a, "--no-auth")) p.auth = 0;
        else if (!strcmp(a, "--split")) split = 1;
        else if (!strcmp(a, "--time")) time_bytes = parse_size(v), ++i;
        else if (!strcmp(a, "--reps")) reps = atoi(v), ++i;
        else if (!strcmp(a, "--counter")) counter = v, ++i;
        else {
            fprintf(stderr, "mcast_udp_check: unknown option %s\n", a);
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    mcast_mc_t *mc = NULL;
    char why[256] = "";
    double t0 = now_s();
    int rc = open_transport(transport, MPI_COMM_WORLD, &p, &mc, why, sizeof why);
    double t_open = now_s() - t0;
    if (expect_decline) {
        int ok = (OMPI_SUCCESS != rc && why[0] != '\0');
        if (0 == rank) printf("mcast_udp_check: %s transport %s: %s\n", ok ? "ok, declined:" : "FAILED, expected a decline:",
                              transport, ok ? why : "it opened");
        if (mc) mcast_mc_close(mc);
        MPI_Finalize();
        return ok ? 0 : 1;
    }
    if (OMPI_SUCCESS != rc) {
        if (0 == rank) printf("mcast_udp_check: SKIP transport %s declined: %s\n", transport, why);
        MPI_Finalize();
        return 77;
    }
    mcast_mc_xstats_t x;
    mcast_mc_stats(mc, NULL, &x);
    if (0 == rank)
        printf("mcast_udp_check: %s transport on %d ranks, group %s, chunk %u, window %llu, probe %u round(s), "
               "open %.1f ms\n",
               transport, nprocs, x.group, x.chunk_bytes, (unsigned long long) x.window_bytes, x.probe_rounds,
               t_open * 1e3);
    if (ident && 0 == rank) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", ident);
        FILE *f = fopen(tmp, "w");
        if (f) {
            fprintf(f, "group %s\njob %llu\nctx %u\nepoch_base %u\nchunk %u\n", x.group, (unsigned long long) x.job,
                    x.ctx, x.epoch_base, x.chunk_bytes);
            fclose(f);
            rename(tmp, ident);
        }
    }
    if (ident && wait_injector > 0) { /* the injector creates IDENT.go once it sends */
        int go = 0;
        if (0 == rank) {
            char path[4096];
            snprintf(path, sizeof path, "%s.go", ident);
            for (double t = now_s(); now_s() - t < wait_injector && !go;) {
                go = 0 == access(path, F_OK);
                if (!go) usleep(10000);
            }
            if (!go) fprintf(stderr, "mcast_udp_check: no injector after %.0f s\n", wait_injector);
        }
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }

    /* sizes and roots */
    size_t sizes[64];
    int nsizes = 0;
    for (char *s = strdup(sizes_arg), *tok = strtok(s, ","); tok && nsizes < 64; tok = strtok(NULL, ","))
        sizes[nsizes++] = parse_size(tok);
    size_t maxb = 1;
    for (int i = 0; i < nsizes; ++i) maxb = sizes[i] > maxb ? sizes[i] : maxb;
    if (time_bytes > maxb) maxb = time_bytes;
    uint8_t *buf = malloc(maxb);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 2);

    long bad = 0, errors = 0, count = 0;
    uint64_t seq = 0;
    for (int it = 0; it < iters; ++it)
        for (int si = 0; si < nsizes; ++si) {
            int roots[1024], nroots = 0;
            if (!strcmp(roots_arg, "all")) {
                for (int r = 0; r < nprocs && r < 1024; ++r) roots[nroots++] = r;
            } else if (!strcmp(roots_arg, "rotate")) {
                roots[nroots++] = (si + it) % nprocs;
            } else {
                for (char *s = strdup(roots_arg), *tok = strtok(s, ","); tok && nroots < 1024; tok = strtok(NULL, ","))
                    roots[nroots++] = atoi(tok) % nprocs;
            }
            for (int ri = 0; ri < nroots; ++ri) {
                long b = one_bcast(mc, MPI_COMM_WORLD, roots[ri], buf, sizes[si], ++seq * 7919u + sizes[si]);
                if (b < 0) ++errors;
                else bad += b;
                ++count;
                if (b != 0)
                    fprintf(stderr, "mcast_udp_check: rank %d: size %zu root %d: %s (%ld wrong bytes, status %d)\n", rank,
                            sizes[si], roots[ri], b < 0 ? "error" : "data mismatch", b < 0 ? 0 : b,
                            mcast_mc_status(mc));
            }
        }

    /* two communicators broadcasting at the same time (odd/even halves, own groups) */
    if (split && nprocs >= 4) {
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        mcast_mc_t *hm = NULL;
        char hwhy[256];
        if (OMPI_SUCCESS != open_transport(transport, half, &p, &hm, hwhy, sizeof hwhy)) {
            fprintf(stderr, "mcast_udp_check: rank %d: split communicator declined: %s\n", rank, hwhy);
            ++errors;
        } else {
            int hn;
            MPI_Comm_size(half, &hn);
            for (int si = 0; si < nsizes; ++si)
                for (int r = 0; r < hn; ++r) {
                    long b = one_bcast(hm, half, r, buf, sizes[si],
                                       (uint64_t) (rank % 2) * 1000003u + sizes[si] + (uint64_t) r);
                    if (b < 0) ++errors;
                    else bad += b;
                    ++count;
                }
            mcast_mc_close(hm);
        }
        MPI_Comm_free(&half);
    }

    /* latency of one size: max over ranks per repetition, median and min */
    double med = 0, best = 0;
    uint64_t uplink = 0;
    if (time_bytes && reps > 0) {
        double *t = malloc(sizeof(double) * (size_t) reps);
        for (int r = 0; r < reps; ++r) {
            MPI_Barrier(MPI_COMM_WORLD);
            uint64_t tx0 = (counter && 0 == rank) ? tx_bytes(counter) : 0;
            double a = now_s();
            long b = one_bcast(mc, MPI_COMM_WORLD, 0, buf, time_bytes, 99);
            double d = now_s() - a;
            if (counter && 0 == rank) uplink += tx_bytes(counter) - tx0; /* the root is done: all data sent */
            if (b < 0) ++errors;
            else bad += b;
            MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            t[r] = d;
        }
        for (int i = 1; i < reps; ++i)
            for (int j = i; j > 0 && t[j] < t[j - 1]; --j) {
                double s = t[j];
                t[j] = t[j - 1];
                t[j - 1] = s;
            }
        med = t[reps / 2];
        best = t[0];
        free(t);
    }

    /* counters over all ranks */
    pm_mc_stats_t st;
    mcast_mc_stats(mc, &st, &x);
    uint64_t cnt[PM_MC_RX_NCLASSES + 7];
    for (int c = 0; c < PM_MC_RX_NCLASSES; ++c) cnt[c] = st.rx[c];
    cnt[PM_MC_RX_NCLASSES + 0] = st.nack_chunks;
    cnt[PM_MC_RX_NCLASSES + 1] = st.repair_bytes_sent;
    cnt[PM_MC_RX_NCLASSES + 2] = x.kernel_drops;
    cnt[PM_MC_RX_NCLASSES + 3] = st.data_sent;
    cnt[PM_MC_RX_NCLASSES + 4] = x.stash_dropped;
    cnt[PM_MC_RX_NCLASSES + 5] = x.send_errors;
    cnt[PM_MC_RX_NCLASSES + 6] = st.repair_bytes_rcvd;
    MPI_Allreduce(MPI_IN_PLACE, cnt, PM_MC_RX_NCLASSES + 7, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    long tot[3] = {bad, errors, count};
    MPI_Allreduce(MPI_IN_PLACE, tot, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);

    int fail = tot[0] || tot[1];
    static const pm_mc_rx_t foreign[] = {PM_MC_RX_FOREIGN_JOB, PM_MC_RX_FOREIGN_CTX, PM_MC_RX_STALE_EPOCH,
                                         PM_MC_RX_FAR_EPOCH, PM_MC_RX_BAD_CRC, PM_MC_RX_TRUNCATED};
    if (expect_foreign && p.auth)
        fail |= 0 == cnt[PM_MC_RX_BAD_AUTH];
    else if (expect_foreign)
        for (size_t i = 0; i < sizeof foreign / sizeof *foreign; ++i) fail |= 0 == cnt[foreign[i]];
    if (0 == rank) {
        printf("mcast_udp_check: counters:");
        for (int c = 0; c < PM_MC_RX_NCLASSES; ++c)
            if (cnt[c]) printf(" %s=%llu", pm_mc_rx_name((pm_mc_rx_t) c), (unsigned long long) cnt[c]);
        printf(" nack_chunks=%llu repair_bytes=%llu (new %llu) kernel_drops=%llu data_sent=%llu stash_dropped=%llu "
               "send_errors=%llu\n",
               (unsigned long long) cnt[PM_MC_RX_NCLASSES], (unsigned long long) cnt[PM_MC_RX_NCLASSES + 1],
               (unsigned long long) cnt[PM_MC_RX_NCLASSES + 6],
               (unsigned long long) cnt[PM_MC_RX_NCLASSES + 2], (unsigned long long) cnt[PM_MC_RX_NCLASSES + 3],
               (unsigned long long) cnt[PM_MC_RX_NCLASSES + 4], (unsigned long long) cnt[PM_MC_RX_NCLASSES + 5]);
        if (time_bytes && reps > 0)
            printf("mcast_udp_check: time %zu B: median %.3f ms, min %.3f ms over %d reps (max over ranks): %.1f MB/s\n",
                   time_bytes, med * 1e3, best * 1e3, reps, time_bytes / med / 1e6);
        if (time_bytes && reps > 0 && counter)
            printf("mcast_udp_check: root uplink %.4f x M per bcast (%llu bytes on %s over %d bcasts of %zu B, %d ranks)\n",
                   (double) uplink / reps / time_bytes, (unsigned long long) uplink, counter, reps, time_bytes, nprocs);
        printf("mcast_udp_check: %s %ld bcasts on %d ranks, %ld wrong bytes, %ld errors%s\n", fail ? "FAILED" : "ok",
               tot[2] / nprocs, nprocs, tot[0], tot[1],
               expect_foreign ? (fail && !tot[0] && !tot[1] ? ", a foreign class was not seen" : ", foreign datagrams dropped and counted") : "");
    }
    if (ident && 0 == rank) { /* tell the injector to stop */
        char path[4096];
        snprintf(path, sizeof path, "%s.stop", ident);
        FILE *f = fopen(path, "w");
        if (f) fclose(f);
    }
    mcast_mc_close(mc);
    free(buf);
    MPI_Finalize();
    return fail ? 1 : 0;
}
