/*
 * Deterministic simulation of the multicast protocol (pm_mcsim_run, coll_pathmc core):
 * completion time and root uplink bytes of one broadcast on a star switch with host
 * links of --rate bytes/s, per seed and loss rate.  No MPI; results are bit-identical
 * across runs.
 *
 *   mcast_sim [--hosts 8] [--bytes 16777216] [--losses 0,0.05] [--chunk 1432]
 *             [--seeds 5] [--rate 125e6] [--repair ring|tree] [--fanin 8]
 *
 * Prints CSV: hosts,bytes,loss,chunk,repair,seed,end_ms,root_uplink_ratio,
 * copies_dropped,nack_chunks,repair_bytes; then per loss the median end time and its
 * ratio to the first loss rate's (throughput ratio = t(first) / t(loss)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_mcproto.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    unsigned hosts = 8, chunk = 1432, seeds = 5, fanin = 8, repair = PM_MC_REPAIR_RING;
    unsigned long long bytes = 16ull << 20;
    double rate = 125e6, losses[16] = {0, 0.05};
    int nloss = 2;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--hosts")) hosts = (unsigned) atoi(v);
        else if (!strcmp(a, "--bytes")) bytes = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--chunk")) chunk = (unsigned) atoi(v);
        else if (!strcmp(a, "--seeds")) seeds = (unsigned) atoi(v);
        else if (!strcmp(a, "--rate")) rate = atof(v);
        else if (!strcmp(a, "--fanin")) fanin = (unsigned) atoi(v);
        else if (!strcmp(a, "--repair")) repair = strcmp(v, "tree") ? PM_MC_REPAIR_RING : PM_MC_REPAIR_TREE;
        else if (!strcmp(a, "--losses")) {
            nloss = 0;
            for (char *s = strdup(v), *t = strtok(s, ","); t && nloss < 16; t = strtok(NULL, ",")) losses[nloss++] = atof(t);
        } else {
            fprintf(stderr, "mcast_sim: unknown option %s\n", a);
            return 2;
        }
    }
    if (hosts < 2 || hosts > 1024 || seeds < 1 || seeds > 1000) return 2;
    unsigned char **bufs = calloc(hosts, sizeof *bufs);
    for (unsigned r = 0; r < hosts; ++r) bufs[r] = calloc(1, bytes ? bytes : 1);
    for (unsigned long long i = 0; i < bytes; ++i) bufs[0][i] = (unsigned char) (i * 131);
    pm_mcsim_rank_t *ranks = calloc(hosts, sizeof *ranks);
    double *t = calloc(seeds, sizeof *t), median[16];
    printf("hosts,bytes,loss,chunk,repair,seed,end_ms,root_uplink_ratio,copies_dropped,nack_chunks,repair_bytes\n");
    for (int l = 0; l < nloss; ++l) {
        for (unsigned s = 0; s < seeds; ++s) {
            pm_mcsim_params_t p;
            pm_mcsim_params_default(&p);
            p.n = hosts;
            p.root = 0;
            p.bytes = bytes;
            p.loss = losses[l];
            p.seed = 1000 + s;
            p.link_Bps = rate;
            p.sndbuf_bytes = 256 * 1024;
            p.proto.chunk_bytes = chunk;
            p.proto.repair = repair;
            p.proto.ack_fanin = fanin;
            p.proto.bandwidth_Bps = rate;
            pm_mcsim_result_t res;
            if (pm_mcsim_run(&p, (void *const *) bufs, NULL, NULL, ranks, &res) != PM_MC_OK || res.hung) {
                fprintf(stderr, "mcast_sim: run failed (hung=%d)\n", res.hung);
                return 1;
            }
            unsigned long long nack = 0, rep = 0;
            for (unsigned r = 0; r < hosts; ++r) {
                if (ranks[r].status != PM_MC_OK) {
                    fprintf(stderr, "mcast_sim: rank %u ended with %d\n", r, ranks[r].status);
                    return 1;
                }
                nack += ranks[r].stats.nack_chunks;
                rep += ranks[r].stats.repair_bytes_sent;
            }
            t[s] = res.end_ns / 1e6;
            printf("%u,%llu,%g,%u,%s,%u,%.3f,%.4f,%llu,%llu,%llu\n", hosts, bytes, losses[l], chunk,
                   repair == PM_MC_REPAIR_RING ? "ring" : "tree", 1000 + s, t[s],
                   bytes ? (double) ranks[0].up_bytes / (double) bytes : 0.0,
                   (unsigned long long) res.group_copies_dropped, nack, rep);
        }
        qsort(t, seeds, sizeof *t, cmp_double);
        median[l] = t[seeds / 2];
    }
    for (int l = 0; l < nloss; ++l)
        printf("# loss %g: median %.3f ms over %u seeds, throughput ratio vs loss %g: %.3f\n", losses[l], median[l], seeds,
               losses[0], median[0] / median[l]);
    return 0;
}
