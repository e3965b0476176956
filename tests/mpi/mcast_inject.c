/*
 * A foreign sender for the multicast transport test: reads the identity file that
 * mcast_udp_check --ident-file writes (group, job, ctx, epoch base, chunk), then
 * multicasts datagrams into that group that the receivers must drop and count, cycling
 * through: another job, another communicator, a stale epoch, a far-future epoch, a
 * corrupted CRC (otherwise this job's identity), a truncated datagram.  Every payload is
 * 0xEE bytes at a valid chunk offset, so a datagram that got through would corrupt the
 * checked data.  Creates IDENT.go after the first datagram; stops at IDENT.stop.
 *
 *   mcast_inject IDENT [--rate N/s (2000)] [--timeout S (120)] [--interface IF]
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pm_mcproto.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: mcast_inject IDENT [--rate N] [--timeout S] [--interface IF]\n");
        return 2;
    }
    const char *ident = argv[1], *ifname = NULL;
    double rate = 2000, timeout = 120;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rate")) rate = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--timeout")) timeout = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--interface")) ifname = argv[i + 1];
    }
    char path[4096], line[256], gaddr[64] = "";
    int port = 0;
    unsigned long long job = 0;
    unsigned ctx = 0, base = 0, chunk = 0;
    double t0 = now_s();
    FILE *f = NULL;
    while (!(f = fopen(ident, "r")) && now_s() - t0 < timeout) usleep(20000);
    if (!f) {
        fprintf(stderr, "mcast_inject: no %s after %.0f s\n", ident, timeout);
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
        sscanf(line, "group %63[0-9.]:%d", gaddr, &port);
        sscanf(line, "job %llu", &job);
        sscanf(line, "ctx %u", &ctx);
        sscanf(line, "epoch_base %u", &base);
        sscanf(line, "chunk %u", &chunk);
    }
    fclose(f);
    if (!gaddr[0] || !port || !chunk || chunk > 65000) {
        fprintf(stderr, "mcast_inject: cannot parse %s\n", ident);
        return 1;
    }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    unsigned char ttl = 1, loop = 0;
    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl);
    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof loop);
    if (ifname) {
        struct ip_mreqn m = {.imr_ifindex = (int) if_nametoindex(ifname)};
        setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &m, sizeof m);
    }
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t) port)};
    inet_pton(AF_INET, gaddr, &to.sin_addr);

    static const char *names[6] = {"other_job", "other_ctx", "stale_epoch", "far_epoch", "bad_crc", "truncated"};
    unsigned long long sent[6] = {0};
    uint8_t *pl = malloc(chunk), *msg = malloc(chunk + PM_MC_HDR_BYTES);
    memset(pl, 0xEE, chunk);
    snprintf(path, sizeof path, "%s.stop", ident);
    double start = now_s();
    unsigned long long n = 0;
    for (;; ++n) {
        if (n % 64 == 0 && (0 == access(path, F_OK) || now_s() - start > timeout)) break;
        int kind = (int) (n % 6);
        uint32_t c = (uint32_t) (n / 6 % 16);
        pm_mc_hdr_t h = {PM_MC_VERSION, PM_MC_T_DATA, ctx, job, base, 0, c, 0, (uint64_t) c * chunk, chunk};
        if (0 == kind) h.job ^= 0xDEADBEEFull;
        if (1 == kind) h.ctx += 1;
        if (2 == kind) h.epoch = base - 1000;
        if (3 == kind) h.epoch = base + 1000000;
        size_t len = pm_mc_encode(&h, pl, chunk, msg, chunk + PM_MC_HDR_BYTES);
        if (4 == kind) msg[len - 1] ^= 0x40;
        if (5 == kind) len -= 10;
        if (sendto(fd, msg, len, 0, (struct sockaddr *) &to, sizeof to) == (ssize_t) len) sent[kind]++;
        else if (0 == sent[0] + sent[1] + sent[2] + sent[3] + sent[4] + sent[5] && n > 100) {
            perror("mcast_inject: sendto (set --interface?)");
            return 1;
        }
        if (1 == n) {
            char go[4096];
            snprintf(go, sizeof go, "%s.go", ident);
            FILE *g = fopen(go, "w");
            if (g) fclose(g);
        }
        double due = start + (double) (n + 1) / rate, t = now_s();
        if (due > t) usleep((useconds_t) ((due - t) * 1e6));
    }
    printf("mcast_inject: %llu datagrams to %s:%d in %.1f s:", n, gaddr, port, now_s() - start);
    for (int k = 0; k < 6; ++k) printf(" %s=%llu", names[k], sent[k]);
    printf("\n");
    return 0;
}
