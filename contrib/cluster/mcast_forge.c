/*
 * mcast-forge: an outsider on the emulated cluster's network (a host that runs no rank)
 * attacking the multicast groups of a job it knows nothing about.
 *
 * It listens on its interface (AF_PACKET: the bridge floods multicast to every port) and
 * learns from live traffic what any sniffer could: each group's address and port, the
 * job and communicator ids, the current epoch, root and chunk size, and it keeps the
 * latest datagrams.  Then it sends, at --rate per second, cycling through the kinds:
 *
 *   random    random bytes, 1..1500 of them
 *   replay    a captured datagram again, byte for byte (from this and earlier epochs)
 *   future    DATA for the next 1..4 epochs, a random root, valid CRC, junk payload at a
 *             valid chunk offset, and a trailer of random bytes where the tag goes
 *   status    STATUS of this or the next epoch claiming 2^60 bytes, chunks of 0 bytes or
 *             2^32 - 1 of them, valid CRC, random trailer
 *   abort     ABORT of this or the next epoch from a random rank, valid CRC, random trailer
 *   oversize  the current epoch's DATA with out-of-range fields: length 65535 on a short
 *             datagram, offset 2^48 - 1, chunk index 2^32 - 1, valid CRC, random trailer
 *
 *   mcast-forge --interface IF [--port P] [--rate N] [--duration S] [--stop FILE]
 *
 * Prints what it learned and sent per kind when it ends (duration, stop file or SIGTERM).
 * Exit 0 when it sent forgeries into at least one group it learned, 1 when it never saw
 * a group, 2 on bad usage.  A test tool: not installed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pm_mcproto.h"

#define MAX_GROUPS 16
#define KEEP 64 /* datagrams kept per group for replays */

enum { K_RANDOM, K_REPLAY, K_FUTURE, K_STATUS, K_ABORT, K_OVERSIZE, NKINDS };
static const char *const kind_name[NKINDS] = {"random", "replay", "future", "status", "abort",
                                              "oversize"};

typedef struct {
    uint8_t b[2048];
    size_t len;
} dgram_t;

typedef struct {
    uint32_t addr; /* network order */
    uint16_t port; /* host order */
    uint64_t job;
    uint32_t ctx, epoch, root, chunk, size_hint;
    uint64_t seen;
    dgram_t keep[KEEP];
    unsigned nkeep, next;
} group_t;

static group_t groups[MAX_GROUPS];
static int ngroups;
static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
    (void) sig;
    stop_now = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rnd(void)
{
    uint64_t v = 0;
    if (sizeof v != getrandom(&v, sizeof v, 0)) v = (uint64_t) rand() << 32 ^ (uint64_t) rand();
    return v;
}

static void fill_random(uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got <= 0) {
            for (size_t i = 0; i < n; ++i) p[i] = (uint8_t) rand();
            return;
        }
        p += got;
        n -= (size_t) got;
    }
}

/* A captured UDP datagram to a multicast address: learn from it and keep it. */
static void learn(uint32_t daddr, uint16_t dport, const uint8_t *d, size_t len)
{
    pm_mc_hdr_t h;
    /* what a sniffer reads without a key: the header in front of the payload (a trailer,
     * when there is one, makes the length check fail: strip what follows the payload) */
    if (len < PM_MC_HDR_BYTES) return;
    const size_t plen = (size_t) (((uint32_t) d[38] << 8) | d[39]);
    if (PM_MC_HDR_BYTES + plen > len || PM_MC_RX_ACCEPTED != pm_mc_parse(d, PM_MC_HDR_BYTES + plen, &h, NULL)) {
        return;
    }
    group_t *g = NULL;
    for (int i = 0; i < ngroups; ++i) {
        if (groups[i].addr == daddr && groups[i].port == dport && groups[i].ctx == h.ctx) g = &groups[i];
    }
    if (NULL == g) {
        if (MAX_GROUPS == ngroups) return;
        g = &groups[ngroups++];
        memset(g, 0, sizeof *g);
        g->addr = daddr;
        g->port = dport;
        g->ctx = h.ctx;
        g->job = h.job;
        char a[32];
        inet_ntop(AF_INET, &daddr, a, sizeof a);
        printf("mcast-forge: learned group %s:%u job %016llx ctx %u from a %s datagram\n", a,
               dport, (unsigned long long) h.job, h.ctx, PM_MC_T_DATA == h.type ? "DATA" : "group");
        fflush(stdout);
    }
    g->seen++;
    if ((int32_t) (h.epoch - g->epoch) > 0 || 0 == g->epoch) g->epoch = h.epoch;
    if (PM_MC_T_DATA == h.type) {
        g->root = h.root;
        if (h.seq > 0 && 0 == h.offset % h.seq) g->chunk = (uint32_t) (h.offset / h.seq);
        else if (0 == g->chunk) g->chunk = h.len;
        if (h.seq + 1 > g->size_hint) g->size_hint = h.seq + 1;
    }
    if (len <= sizeof g->keep[0].b) {
        memcpy(g->keep[g->next].b, d, len);
        g->keep[g->next].len = len;
        g->next = (g->next + 1) % KEEP;
        if (g->nkeep < KEEP) g->nkeep++;
    }
}

/* One forgery of `kind` for group g into out; its length (0: nothing to send yet). */
static size_t forge(const group_t *g, int kind, uint64_t n, uint8_t *out, size_t cap)
{
    uint8_t pl[1500];
    const uint32_t chunk = g->chunk ? g->chunk : 1024;
    const uint32_t nchunks = g->size_hint ? g->size_hint : 64;
    pm_mc_hdr_t h = {PM_MC_VERSION, PM_MC_T_DATA, g->ctx, g->job, g->epoch, g->root, 0, 0, 0, 0};
    size_t plen = 0;
    switch (kind) {
    case K_RANDOM: {
        size_t len = 1 + rnd() % 1500;
        fill_random(out, len);
        return len;
    }
    case K_REPLAY: {
        if (0 == g->nkeep) return 0;
        const dgram_t *k = &g->keep[rnd() % g->nkeep];
        memcpy(out, k->b, k->len);
        return k->len;
    }
    case K_FUTURE:
        h.epoch = g->epoch + 1 + (uint32_t) (n % 4);
        h.root = (uint32_t) (rnd() % 8);
        h.seq = (uint32_t) (rnd() % nchunks);
        h.offset = (uint64_t) h.seq * chunk;
        plen = chunk < sizeof pl ? chunk : sizeof pl;
        memset(pl, 0xEE, plen);
        break;
    case K_STATUS: {
        h.type = PM_MC_T_STATUS;
        h.epoch = g->epoch + (uint32_t) (n % 2);
        h.seq = (uint32_t) (n & 0xFFFF);
        plen = 16;
        memset(pl, 0, 16);
        pl[0] = 0x10; /* 2^60 bytes, big-endian */
        const int variant = (int) (n / 2 % 3);
        if (1 == variant) memset(pl + 8, 0xFF, 4); /* 2^32 - 1 chunks sent */
        if (2 == variant) { /* the real chunk, 2^32 - 1 chunks */
            memset(pl + 8, 0xFF, 4);
            pl[12] = (uint8_t) (chunk >> 24);
            pl[13] = (uint8_t) (chunk >> 16);
            pl[14] = (uint8_t) (chunk >> 8);
            pl[15] = (uint8_t) chunk;
        }
        break; /* variant 0: chunks of 0 bytes */
    }
    case K_ABORT:
        h.type = PM_MC_T_ABORT;
        h.epoch = g->epoch + (uint32_t) (n % 2);
        h.seq = (uint32_t) (rnd() % 8);
        plen = 4;
        memset(pl, 0xFF, 4);
        break;
    case K_OVERSIZE: {
        const int variant = (int) (n % 3);
        plen = 64;
        memset(pl, 0xEE, plen);
        h.seq = 0 == variant ? 0xFFFFFFFFu : (uint32_t) (rnd() % nchunks);
        h.offset = 1 == variant ? PM_MC_MAX_OFFSET : (uint64_t) h.seq * chunk;
        if (2 == variant) { /* a length of 65535 on a 64-byte payload */
            h.len = (uint32_t) plen;
            size_t len = pm_mc_encode(&h, pl, plen, out, cap);
            out[38] = out[39] = 0xFF;
            return len;
        }
        break;
    }
    default:
        return 0;
    }
    h.len = (uint32_t) plen;
    size_t len = pm_mc_encode(&h, pl, plen, out, cap);
    if (len > 0 && len + PM_MC_AUTH_BYTES <= cap) {
        fill_random(out + len, PM_MC_AUTH_BYTES); /* where a tag would be */
        len += PM_MC_AUTH_BYTES;
    }
    return len;
}

int main(int argc, char **argv)
{
    const char *ifname = NULL, *stopfile = NULL;
    double rate = 2000, duration = 120;
    int port = 47470;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--interface")) ifname = argv[i + 1];
        else if (!strcmp(argv[i], "--port")) port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--rate")) rate = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--duration")) duration = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--stop")) stopfile = argv[i + 1];
        else {
            fprintf(stderr, "usage: mcast-forge --interface IF [--port P] [--rate N] [--duration S] "
                            "[--stop FILE]\n");
            return 2;
        }
    }
    const unsigned ifindex = ifname ? if_nametoindex(ifname) : 0;
    if (0 == ifindex || rate <= 0) {
        fprintf(stderr, "mcast-forge: need --interface (an existing one) and a rate > 0\n");
        return 2;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    const int sniff = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
    struct sockaddr_ll ll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP),
                             .sll_ifindex = (int) ifindex};
    if (sniff < 0 || bind(sniff, (struct sockaddr *) &ll, sizeof ll) < 0) {
        perror("mcast-forge: AF_PACKET socket (needs root)");
        return 2;
    }
    const int out_fd = socket(AF_INET, SOCK_DGRAM, 0);
    unsigned char ttl = 1, loop = 0;
    struct ip_mreqn mif = {.imr_ifindex = (int) ifindex};
    setsockopt(out_fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl);
    setsockopt(out_fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof loop);
    setsockopt(out_fd, IPPROTO_IP, IP_MULTICAST_IF, &mif, sizeof mif);

    unsigned long long sent[NKINDS] = {0}, captured = 0;
    uint8_t pkt[65536], msg[2048];
    const double start = now_s();
    double next_send = start;
    uint64_t n = 0;
    while (!stop_now && now_s() - start < duration) {
        if (stopfile && 0 == (n & 63) && 0 == access(stopfile, F_OK)) break;
        /* capture whatever arrived */
        struct pollfd pf = {.fd = sniff, .events = POLLIN};
        const double wait = next_send - now_s();
        if (poll(&pf, 1, wait > 0 ? (int) (wait * 1000) : 0) > 0) {
            ssize_t got;
            while ((got = recv(sniff, pkt, sizeof pkt, MSG_DONTWAIT)) > 0) {
                const struct iphdr *ip = (const struct iphdr *) pkt;
                const size_t ihl = (size_t) ip->ihl * 4;
                if ((size_t) got < ihl + sizeof(struct udphdr) || IPPROTO_UDP != ip->protocol ||
                    (ntohl(ip->daddr) >> 28) != 0xE || (ntohs(ip->frag_off) & 0x3FFF)) {
                    continue; /* not a whole UDP multicast datagram */
                }
                const struct udphdr *u = (const struct udphdr *) (pkt + ihl);
                if ((int) ntohs(u->dest) != port) continue;
                captured++;
                learn(ip->daddr, ntohs(u->dest), pkt + ihl + sizeof *u, (size_t) got - ihl - sizeof *u);
            }
        }
        if (now_s() < next_send || 0 == ngroups) {
            if (0 == ngroups) next_send = now_s() + 0.001;
            continue;
        }
        const group_t *g = &groups[n % (uint64_t) ngroups];
        const int kind = (int) (n / (uint64_t) ngroups % NKINDS);
        const size_t len = forge(g, kind, n / (uint64_t) (ngroups * NKINDS), msg, sizeof msg);
        struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(g->port),
                                 .sin_addr = {.s_addr = g->addr}};
        if (len > 0 && sendto(out_fd, msg, len, 0, (struct sockaddr *) &to, sizeof to) == (ssize_t) len) {
            sent[kind]++;
        }
        n++;
        next_send += 1.0 / rate;
        if (next_send < now_s() - 1.0) next_send = now_s(); /* descheduled: no burst after */
    }
    unsigned long long total = 0;
    printf("mcast-forge: %.1f s, %llu datagrams captured, %d group(s), sent", now_s() - start,
           captured, ngroups);
    for (int k = 0; k < NKINDS; ++k) {
        printf(" %s=%llu", kind_name[k], sent[k]);
        total += sent[k];
    }
    printf(" (total %llu)\n", total);
    return total > 0 ? 0 : 1;
}
