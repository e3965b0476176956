/*
 * families-notices: what the notices of mcast_plan_schedule cost (E-PAIRS-1), on the
 * core's deterministic simulated network (mcast_simnet_run), no MPI.
 *
 *   perf/families/notices [--sizes 8,1024,65536] [--ranks 8,16,64,256] [--segment 0]
 *
 * For the two-tree, the scatter + ring allgather and the circulant, forced, on the
 * built-in machine model (mcast_machine_default): the simulated time of the plan's
 * schedules as mcast_plan_schedule builds them (with notices where the plan has fewer
 * blocks than its pairs need) against the family's schedules alone (mcast_sched_level,
 * same blocks, same chain), and the notices per rank.  Prints one line per case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcast_engine.h"
#include "mcast_families.h"
#include "mcast_planner.h"

static int parse_list(const char *s, size_t *out, int cap)
{
    int n = 0;
    while (*s && n < cap) {
        char *end;
        out[n++] = strtoull(s, &end, 0);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s) {
            break;
        }
    }
    return n;
}

static double run(int n, const mcast_plan_t *p, const mcast_plan_info_t *info, size_t M,
                  uint32_t m, int padded, long *notices)
{
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    mcast_sched_t **sc = calloc((size_t) n, sizeof(*sc));
    for (int r = 0; r < n; ++r) {
        int rc;
        if (padded) {
            rc = mcast_plan_schedule(p, r, M, &sc[r]);
        } else {
            mcast_level_t l;
            memset(&l, 0, sizeof(l));
            l.family = (mcast_family_t) info->family;
            l.variant = info->variant;
            rc = mcast_sched_level(&l, n, 0, r, info->chain, m, &sc[r]);
        }
        if (KB_OK != rc) {
            fprintf(stderr, "schedule of rank %d: %d\n", r, rc);
            exit(1);
        }
        for (int k = 0; padded && k < 2; ++k) {
            const size_t c = mcast_sched_count(sc[r], (mcast_op_kind_t) k);
            for (size_t i = 0; i < c; ++i) {
                mcast_op_t o;
                mcast_sched_op(sc[r], (mcast_op_kind_t) k, i, &o);
                *notices += k == MCAST_OP_SEND && 0 == o.nblocks;
            }
        }
    }
    mcast_engine_params_t ep;
    mcast_plan_engine_params(p, 0, M, &ep);
    mcast_simnet_params_t sp;
    memset(&sp, 0, sizeof(sp));
    sp.net = mach.net;
    sp.fail_rank = -1;
    mcast_simnet_result_t res;
    char err[256] = "";
    if (KB_OK != mcast_simnet_run(n, 0, sc, &ep, &sp, NULL, NULL, &res, err, sizeof(err))) {
        fprintf(stderr, "simnet: %s\n", err);
        exit(1);
    }
    for (int r = 0; r < n; ++r) {
        mcast_sched_free(sc[r]);
    }
    free(sc);
    return res.finish_us;
}

int main(int argc, char **argv)
{
    size_t sizes[16] = {8, 1024, 65536}, ranks[16] = {8, 16, 64, 256};
    int nsizes = 3, nranks = 4;
    size_t seg = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sizes")) {
            nsizes = parse_list(argv[i + 1], sizes, 16);
        } else if (!strcmp(argv[i], "--ranks")) {
            nranks = parse_list(argv[i + 1], ranks, 16);
        } else if (!strcmp(argv[i], "--segment")) {
            seg = strtoull(argv[i + 1], NULL, 0);
        } else {
            fprintf(stderr, "usage: %s [--sizes L] [--ranks L] [--segment B]\n", argv[0]);
            return 2;
        }
    }
    const int algs[] = {MCAST_ALG_TWOTREE, MCAST_ALG_SCATTER_ALLGATHER, MCAST_ALG_CIRCULANT};
    mcast_machine_t mach;
    mcast_machine_default(&mach);
    for (int a = 0; a < 3; ++a) {
        for (int si = 0; si < nsizes; ++si) {
            for (int ni = 0; ni < nranks; ++ni) {
                const int n = (int) ranks[ni];
                const size_t M = sizes[si];
                mcast_forced_t f;
                mcast_forced_default(&f);
                f.algorithm = algs[a];
                f.segment_bytes = seg;
                f.allgather = 1; /* ring */
                mcast_plan_input_t in;
                memset(&in, 0, sizeof(in));
                in.component = MCAST_COMP_KBINOMIAL;
                in.n = n;
                in.bytes = M;
                in.nnodes = n;
                in.machine = &mach;
                in.forced = &f;
                mcast_plan_t *p = NULL;
                char eb[256] = "";
                if (KB_OK != mcast_plan_select(&in, &p, eb, sizeof(eb))) {
                    fprintf(stderr, "plan: %s\n", eb);
                    return 1;
                }
                mcast_plan_info_t info;
                mcast_plan_get_info(p, &info);
                size_t B;
                uint32_t m;
                mcast_plan_blocks(p, M, &B, &m);
                long notices = 0;
                const double plain = run(n, p, &info, M, m, 0, &notices);
                const double with = run(n, p, &info, M, m, 1, &notices);
                printf("%-17s n=%-4d M=%-7zu m=%-4u plain %8.2f us  planned %8.2f us  x%.2f  "
                       "notices/rank %.2f\n",
                       info.name, n, M, m, plain, with, with / plain, (double) notices / n);
                mcast_plan_free(p);
            }
        }
    }
    return 0;
}
