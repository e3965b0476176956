/*
 * mcast_auth_bench: what authenticating the multicast group's datagrams costs the CPU
 * (pm_mcproto.h, "Authentication"), per datagram and per byte, on this machine.
 *
 * For each payload size (the chunk of an MTU-1500 and an MTU-9000 path with the trailer,
 * and 64 bytes): a root state machine seals `n` datagrams (pm_mc_seal: the trailer and its
 * AES-128-GMAC tag), a receiver opens them (pm_mc_open_group: tag, sender, replay window,
 * parse), and the CRC32C the wire format computes anyway is timed over the same bytes.
 * Best of `reps` runs (the minimum: the machine's cost without interference).
 *
 *   mcast_auth_bench [-n DATAGRAMS (20000)] [-r REPS (7)]
 *
 * Prints one CSV line per size: payload,seal_ns,open_ns,crc_ns,seal_ns_per_byte,
 * open_ns_per_byte (per datagram of header + payload + trailer).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pm_mcproto.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static pm_mc_t *machine(uint32_t rank, uint32_t chunk)
{
    pm_mc_params_t p;
    pm_mc_params_default(&p);
    p.job = 1;
    p.ctx = 1;
    p.rank = rank;
    p.size = 2;
    p.chunk_bytes = chunk;
    p.window_bytes = chunk;
    p.auth = 1;
    for (unsigned i = 0; i < PM_MC_AUTH_KEY_BYTES; ++i) p.auth_key[i] = (uint8_t) (i * 13 + 1);
    int err;
    pm_mc_t *sm = pm_mc_create(&p, &err);
    if (NULL == sm) {
        fprintf(stderr, "mcast_auth_bench: pm_mc_create: %s\n", pm_mc_strerror(err));
        exit(1);
    }
    return sm;
}

int main(int argc, char **argv)
{
    int n = 20000, reps = 7;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n")) n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-r")) reps = atoi(argv[i + 1]);
    }
    if (n < 1 || reps < 1) {
        fprintf(stderr, "usage: mcast_auth_bench [-n DATAGRAMS] [-r REPS]\n");
        return 2;
    }
    /* MTU 1500 and 9000 minus IP, UDP, our header and the trailer; and a small one */
    const uint32_t sizes[] = {1500 - 28 - PM_MC_HDR_BYTES - PM_MC_AUTH_BYTES,
                              9000 - 28 - PM_MC_HDR_BYTES - PM_MC_AUTH_BYTES, 64};
    printf("payload,seal_ns,open_ns,crc_ns,seal_ns_per_byte,open_ns_per_byte\n");
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
        const uint32_t pl = sizes[s];
        const size_t stride = PM_MC_HDR_BYTES + pl + PM_MC_AUTH_BYTES;
        uint8_t *msgs = malloc(stride * (size_t) n), *payload = malloc(pl);
        size_t *lens = malloc(sizeof(size_t) * (size_t) n);
        if (NULL == msgs || NULL == payload || NULL == lens) return 1;
        for (uint32_t i = 0; i < pl; ++i) payload[i] = (uint8_t) (i * 31);
        double best_seal = 1e30, best_open = 1e30, best_crc = 1e30;
        for (int r = 0; r < reps; ++r) {
            pm_mc_t *root = machine(0, pl), *recv = machine(1, pl);
            for (int i = 0; i < n; ++i) {
                pm_mc_hdr_t h = {PM_MC_VERSION, PM_MC_T_DATA, 1, 1, 5, 0, (uint32_t) i, 0,
                                 (uint64_t) i * pl, pl};
                lens[i] = pm_mc_encode(&h, payload, pl, msgs + (size_t) i * stride, stride);
            }
            double t0 = now_ns();
            for (int i = 0; i < n; ++i) {
                lens[i] = pm_mc_seal(root, msgs + (size_t) i * stride, lens[i], stride);
            }
            double t1 = now_ns();
            int bad = 0;
            for (int i = 0; i < n; ++i) {
                bad += PM_MC_RX_ACCEPTED !=
                       pm_mc_open_group(recv, msgs + (size_t) i * stride, lens[i], NULL, NULL);
            }
            double t2 = now_ns();
            uint32_t c = 0;
            for (int i = 0; i < n; ++i) {
                c ^= pm_mc_crc32c(0, msgs + (size_t) i * stride, lens[i] - PM_MC_AUTH_BYTES);
            }
            double t3 = now_ns();
            if (bad || 0 == lens[0] || c == 0x12345678u) {
                fprintf(stderr, "mcast_auth_bench: %d datagrams did not verify\n", bad);
                return 1;
            }
            best_seal = (t1 - t0) / n < best_seal ? (t1 - t0) / n : best_seal;
            best_open = (t2 - t1) / n < best_open ? (t2 - t1) / n : best_open;
            best_crc = (t3 - t2) / n < best_crc ? (t3 - t2) / n : best_crc;
            pm_mc_destroy(root);
            pm_mc_destroy(recv);
        }
        printf("%u,%.1f,%.1f,%.1f,%.4f,%.4f\n", pl, best_seal, best_open, best_crc,
               best_seal / (double) stride, best_open / (double) stride);
        free(msgs);
        free(payload);
        free(lens);
    }
    return 0;
}
