/*
 * families-compare: the bandwidth families against pipelined trees on the simulated
 * network of the core (mcast_simnet_run), deterministic, no MPI.
 *
 *   families-compare [--ranks 1024] [--window 4] [--max-sends 2] [--csv FILE]
 *
 * Machine: perf/sim/platforms/flat-1024.env as mcast_loggp_t: o_send = o_recv = 0.5 us,
 * latency 1.0 us host to host (0.4 + 0.2 + 0.4 us of links), 12.5 GB/s for the sender and
 * the wire (gap = wire = 0.08 ns/B), eager up to 64 KiB (SMPI's default detached-send
 * threshold).  Every contender is run by the engine with the same window and send bound
 * (two-tree: at least mcast_level_window's window).
 *
 * Table 1, same block size, m >= 16 (the target): circulant vs pipelined binomial
 * tree (FPFS) and vs the k-binomial FPFS tree with the best k (k = 1..ceil(log2 n)).
 * Table 2, every contender at its own best block count (searched over m = 1, 2, 4, ...,
 * 1024 with blocks >= 64 B in the simulation): circulant, two-tree, scatter + ring and
 * scatter + RD (m = min(n, M)), binomial and k-binomial (best k) pipelined.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbinomial.h"
#include "mcast_engine.h"
#include "mcast_families.h"

static const mcast_loggp_t FLAT = {0.5, 0.5, 1.0, 0.08, 0.08, 65536, 0.0, 0};
static int N = 1024, WINDOW = 4, MAX_SENDS = 2;
static FILE *csv = NULL;

static mcast_level_t fam(mcast_family_t f, int variant)
{
    mcast_level_t l;
    memset(&l, 0, sizeof(l));
    l.family = f;
    l.variant = variant;
    return l;
}

static mcast_level_t tree(kb_shape_t shape, int k)
{
    mcast_level_t l = fam(MCAST_FAM_TREE, 0);
    l.shape = shape;
    l.tree.k = k;
    l.tree.lambda = 2.0;
    return l;
}

/* Simulated time (us) of level l for M bytes in m blocks; also the model's prediction. */
static double run(const mcast_level_t *l, size_t M, uint32_t m, double *model)
{
    const size_t B = (M + m - 1) / m;
    m = (uint32_t) ((M + B - 1) / B);
    int w = mcast_level_window(l, N, M, m, &FLAT, MAX_SENDS);
    w = w > WINDOW ? w : WINDOW;
    mcast_sched_t **s = calloc((size_t) N, sizeof(*s));
    if (s == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (int r = 0; r < N; ++r) {
        if (mcast_sched_level(l, N, 0, r, NULL, m, &s[r]) != KB_OK) {
            fprintf(stderr, "generator failed (family %d, m %u)\n", (int) l->family, m);
            exit(1);
        }
    }
    mcast_engine_params_t ep = {M, B, w, MAX_SENDS, 0};
    mcast_simnet_params_t np = {FLAT, 0, -1, 0, 0};
    mcast_simnet_result_t res;
    char err[256] = "";
    if (mcast_simnet_run(N, 0, s, &ep, &np, NULL, NULL, &res, err, sizeof(err)) != KB_OK ||
        res.status != 0) {
        fprintf(stderr, "simulation failed: %s\n", err);
        exit(1);
    }
    for (int r = 0; r < N; ++r) {
        mcast_sched_free(s[r]);
    }
    free(s);
    if (model != NULL) {
        *model = mcast_level_predict_us(l, N, M, m, &FLAT, w, MAX_SENDS);
    }
    return res.finish_us;
}

static void row(const char *table, size_t M, const char *who, uint32_t m, int k, double t, double model)
{
    if (csv != NULL) {
        fprintf(csv, "%s,%zu,%s,%u,%zu,%d,%.3f,%.3f\n", table, M, who, m, (M + m - 1) / m, k, t, model);
    }
}

/* Best k-binomial tree for a block count: k = 1..ceil(log2 n). */
static double best_kbin(size_t M, uint32_t m, int *kbest, double *model)
{
    double best = -1.0;
    for (int k = 1; k <= kb_ceil_log2(N); ++k) {
        const mcast_level_t l = tree(KB_SHAPE_KBINOMIAL, k);
        double mod;
        const double t = run(&l, M, m, &mod);
        if (best < 0.0 || t < best) {
            best = t;
            *kbest = k;
            *model = mod;
        }
    }
    return best;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--ranks") && i + 1 < argc) {
            N = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--window") && i + 1 < argc) {
            WINDOW = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--max-sends") && i + 1 < argc) {
            MAX_SENDS = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            csv = fopen(argv[++i], "w");
            if (csv == NULL) {
                perror("csv");
                return 1;
            }
            fprintf(csv, "table,size_bytes,contender,nblocks,block_bytes,k,simulated_us,model_us\n");
        } else {
            fprintf(stderr, "usage: %s [--ranks N] [--window W] [--max-sends S] [--csv FILE]\n", argv[0]);
            return 2;
        }
    }
    if (N < 2 || WINDOW < 1 || MAX_SENDS < 1) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    static const size_t sizes[] = {64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20};
    static const uint32_t ms[] = {16, 32, 64, 128, 256};
    const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
    printf("# families-compare: n = %d, flat-1024 machine (o_s = o_r = 0.5 us, latency 1 us, "
           "0.08 ns/B, eager <= 64 KiB), engine window %d, max_sends %d\n\n", N, WINDOW, MAX_SENDS);

    const mcast_level_t circ = fam(MCAST_FAM_CIRCULANT, 0), binom = tree(KB_SHAPE_BINOMIAL, 0);
    printf("## 1. Same block size, m >= 16 blocks (simulated us; model in parentheses)\n\n");
    printf("| size | m | block | circulant | binomial pipelined | circ/binom | k-binomial best k | k | circ/kbin |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    int pairs = 0, below_06 = 0, below_kbin = 0;
    double worst_binom = 0.0, worst_kbin = 0.0;
    for (size_t si = 0; si < nsizes; ++si) {
        for (size_t mi = 0; mi < sizeof(ms) / sizeof(ms[0]); ++mi) {
            const size_t M = sizes[si];
            const uint32_t m = ms[mi];
            double mc, mb, mk;
            int k = 0;
            const double tc = run(&circ, M, m, &mc), tb = run(&binom, M, m, &mb);
            const double tk = best_kbin(M, m, &k, &mk);
            row("same_block", M, "circulant", m, 0, tc, mc);
            row("same_block", M, "binomial", m, 0, tb, mb);
            row("same_block", M, "kbinomial", m, k, tk, mk);
            printf("| %zu KiB | %u | %zu | %.1f (%.1f) | %.1f (%.1f) | %.2f | %.1f (%.1f) | %d | %.2f |\n",
                   M >> 10, m, (M + m - 1) / m, tc, mc, tb, mb, tc / tb, tk, mk, k, tc / tk);
            pairs++;
            below_06 += tc <= 0.6 * tb;
            below_kbin += tc < tk;
            worst_binom = tc / tb > worst_binom ? tc / tb : worst_binom;
            worst_kbin = tc / tk > worst_kbin ? tc / tk : worst_kbin;
        }
    }
    printf("\ncirculant <= 0.6x binomial (same block size, m >= 16): %d of %d (largest ratio %.2f)\n",
           below_06, pairs, worst_binom);
    printf("circulant < k-binomial with the best k (same block size): %d of %d (largest ratio %.2f)\n\n",
           below_kbin, pairs, worst_kbin);

    printf("## 2. Every contender at its own best block count (simulated us [m])\n\n");
    printf("| size | circulant | two-tree | scatter+ring | scatter+RD | binomial pipelined | "
           "k-binomial best (k) | circ / best tree | best family / best tree |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    int best_wins = 0;
    for (size_t si = 0; si < nsizes; ++si) {
        const size_t M = sizes[si];
        double best[4] = {-1, -1, -1, -1};
        uint32_t bm[4] = {0, 0, 0, 0};
        int bk = 0;
        const mcast_level_t two = fam(MCAST_FAM_TWOTREE, 0);
        for (uint32_t m = 1; m <= 1024 && M / m >= 64; m *= 2) {
            const mcast_level_t *ls[3] = {&circ, &two, &binom};
            for (int j = 0; j < 3; ++j) {
                double mod;
                const double t = run(ls[j], M, m, &mod);
                if (best[j] < 0.0 || t < best[j]) {
                    best[j] = t;
                    bm[j] = m;
                }
            }
            int k = 0;
            double mod;
            const double t = best_kbin(M, m, &k, &mod);
            if (best[3] < 0.0 || t < best[3]) {
                best[3] = t;
                bm[3] = m;
                bk = k;
            }
        }
        const uint32_t msag = (uint32_t) (M < (size_t) N ? M : (size_t) N);
        const mcast_level_t ring = fam(MCAST_FAM_SCATTER_ALLGATHER, MCAST_SAG_RING);
        const mcast_level_t rd = fam(MCAST_FAM_SCATTER_ALLGATHER, MCAST_SAG_RD);
        double mring, mrd;
        const double tring = run(&ring, M, msag, &mring), trd = run(&rd, M, msag, &mrd);
        row("best", M, "circulant", bm[0], 0, best[0], -1);
        row("best", M, "twotree", bm[1], 0, best[1], -1);
        row("best", M, "scatter_ring", msag, 0, tring, mring);
        row("best", M, "scatter_rd", msag, 0, trd, mrd);
        row("best", M, "binomial", bm[2], 0, best[2], -1);
        row("best", M, "kbinomial", bm[3], bk, best[3], -1);
        const double tree_best = best[2] < best[3] ? best[2] : best[3];
        double fam_best = best[0];
        fam_best = best[1] < fam_best ? best[1] : fam_best;
        fam_best = tring < fam_best ? tring : fam_best;
        fam_best = trd < fam_best ? trd : fam_best;
        best_wins += best[0] < tree_best;
        printf("| %zu KiB | %.1f [%u] | %.1f [%u] | %.1f | %.1f | %.1f [%u] | %.1f [%u] (%d) | %.2f | %.2f |\n",
               M >> 10, best[0], bm[0], best[1], bm[1], tring, trd, best[2], bm[2], best[3], bm[3], bk,
               best[0] / tree_best, fam_best / tree_best);
    }
    printf("\ncirculant at its best m below the best tree at its best (m, k): %d of %zu sizes\n",
           best_wins, nsizes);
    if (csv != NULL) {
        fclose(csv);
    }
    return 0;
}
