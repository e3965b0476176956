/*
 * IP multicast backend (see mcast_udp.h).
 *
 *   rank r:  socket(UDP, nonblocking) --bind--> group:port   (SO_REUSEADDR: ranks of one
 *            IP_ADD_MEMBERSHIP(group, ifindex)                 node share the port)
 *            IP_MULTICAST_IF / _TTL / _LOOP, IP_MULTICAST_ALL = 0 (only this group)
 *            SO_RCVBUF(FORCE) >= 2 window, SO_RXQ_OVFL (kernel drop counter)
 *   send:    sendto(group)       EAGAIN/ENOBUFS -> "would block", retried by the driver
 *   receive: recvmmsg, 64 at a time
 */
#include "mcast_udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ompi/proc/proc.h"

#define UDP_BATCH 64
#define UDP_DGRAM_MAX 65536

typedef struct udp_state {
    int fd;
    uint64_t drops;
    struct sockaddr_in group;
    struct mmsghdr msgs[UDP_BATCH];
    struct iovec iov[UDP_BATCH];
    char ctrl[UDP_BATCH][CMSG_SPACE(sizeof(uint32_t))];
    uint8_t *bufs;
} udp_state_t;

static int udp_send(void *state, const void *buf, size_t len)
{
    udp_state_t *s = state;
    ssize_t r = sendto(s->fd, buf, len, MSG_DONTWAIT, (const struct sockaddr *) &s->group, sizeof s->group);
    if (r == (ssize_t) len) return 0;
    if (r < 0 && (EAGAIN == errno || EWOULDBLOCK == errno || ENOBUFS == errno || EINTR == errno)) return 1;
    return -1;
}

static int udp_recv(void *state, mcast_mc_t *mc, mcast_mc_rx_fn rx, int max)
{
    udp_state_t *s = state;
    if (max > UDP_BATCH) max = UDP_BATCH;
    for (int i = 0; i < max; ++i) {
        s->iov[i].iov_base = s->bufs + (size_t) i * UDP_DGRAM_MAX;
        s->iov[i].iov_len = UDP_DGRAM_MAX;
        memset(&s->msgs[i].msg_hdr, 0, sizeof s->msgs[i].msg_hdr);
        s->msgs[i].msg_hdr.msg_iov = &s->iov[i];
        s->msgs[i].msg_hdr.msg_iovlen = 1;
        s->msgs[i].msg_hdr.msg_control = s->ctrl[i];
        s->msgs[i].msg_hdr.msg_controllen = sizeof s->ctrl[i];
    }
    int n = recvmmsg(s->fd, s->msgs, (unsigned) max, MSG_DONTWAIT, NULL);
    if (n < 0) return (EAGAIN == errno || EWOULDBLOCK == errno || EINTR == errno) ? 0 : -1;
    for (int i = 0; i < n; ++i) {
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&s->msgs[i].msg_hdr); c; c = CMSG_NXTHDR(&s->msgs[i].msg_hdr, c)) {
            if (SOL_SOCKET == c->cmsg_level && SO_RXQ_OVFL == c->cmsg_type) {
                uint32_t d;
                memcpy(&d, CMSG_DATA(c), sizeof d);
                s->drops = d;
            }
        }
        rx(mc, s->iov[i].iov_base, s->msgs[i].msg_len);
    }
    return n;
}

static uint64_t udp_drops(void *state) { return ((udp_state_t *) state)->drops; }

static void udp_close(void *state)
{
    udp_state_t *s = state;
    if (NULL == s) return;
    if (s->fd >= 0) close(s->fd); /* leaves the group */
    free(s->bufs);
    free(s);
}

/* ---------------------------------------------------------------------------
 * Group and interface
 * ------------------------------------------------------------------------- */
static int parse_cidr(const char *spec, uint32_t *base, int *bits)
{
    char a[64];
    const char *slash = strchr(spec, '/');
    size_t l = slash ? (size_t) (slash - spec) : strlen(spec);
    if (l >= sizeof a) return -1;
    memcpy(a, spec, l);
    a[l] = '\0';
    struct in_addr in;
    if (1 != inet_pton(AF_INET, a, &in)) return -1;
    int b = slash ? atoi(slash + 1) : 32;
    if (b < 0 || b > 32) return -1;
    uint32_t mask = b ? ~0u << (32 - b) : 0;
    *base = ntohl(in.s_addr) & mask;
    *bits = b;
    return 0;
}

int mcast_udp_group(const char *range, uint64_t job, uint32_t ctx, uint32_t *addr_be)
{
    uint32_t base;
    int bits;
    if (NULL == range || parse_cidr(range, &base, &bits) || bits < 4 || bits > 30 ||
        (base >> 28) != 0xE || (base >> 8) == 0xE00000 /* 224.0.0.0/24: link-local control */) {
        return -1;
    }
    uint64_t size = 1ull << (32 - bits), h = job ^ ((uint64_t) ctx * 0x9E3779B97F4A7C15ull);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    for (uint64_t k = 0; k < size; ++k) {
        uint32_t a = base + (uint32_t) ((h + k) % size);
        uint32_t last = a & 0xFF;
        if (last == 0 || last == 255 || (a >> 8) == 0xEFFFFF /* 239.255.255.x: SSDP, SLP */) continue;
        *addr_be = htonl(a);
        return 0;
    }
    return -1;
}

typedef struct ifsel {
    char name[IF_NAMESIZE];
    int index, mtu;
    struct in_addr addr;
} ifsel_t;

static int fill_if(const struct ifaddrs *ifa, ifsel_t *out)
{
    snprintf(out->name, sizeof out->name, "%s", ifa->ifa_name);
    out->addr = ((const struct sockaddr_in *) ifa->ifa_addr)->sin_addr;
    out->index = (int) if_nametoindex(ifa->ifa_name);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifa->ifa_name);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    out->mtu = (fd >= 0 && 0 == ioctl(fd, SIOCGIFMTU, &ifr)) ? ifr.ifr_mtu : 1500;
    if (fd >= 0) close(fd);
    return out->index > 0 ? 0 : -1;
}

static int choose_interface(const char *spec, struct in_addr group, int port, ifsel_t *out, char *why,
                            size_t whylen)
{
    struct ifaddrs *all = NULL;
    if (getifaddrs(&all)) {
        snprintf(why, whylen, "getifaddrs: %s", strerror(errno));
        return -1;
    }
    int rc = -1;
    const struct ifaddrs *hit = NULL;
    if (spec && *spec) {
        uint32_t base;
        int bits;
        bool cidr = strchr(spec, '/') && 0 == parse_cidr(spec, &base, &bits);
        uint32_t mask = (cidr && bits) ? ~0u << (32 - bits) : 0;
        for (const struct ifaddrs *i = all; i && !hit; i = i->ifa_next) {
            if (!i->ifa_addr || AF_INET != i->ifa_addr->sa_family || !(i->ifa_flags & IFF_UP)) continue;
            uint32_t a = ntohl(((const struct sockaddr_in *) i->ifa_addr)->sin_addr.s_addr);
            if (cidr ? ((a & mask) == base) : 0 == strcmp(i->ifa_name, spec)) hit = i;
        }
        if (!hit) snprintf(why, whylen, "no up IPv4 interface matches \"%s\"", spec);
    } else {
        /* the route to the group */
        struct in_addr local = {0};
        int fd = socket(AF_INET, SOCK_DGRAM, 0);
        struct sockaddr_in g = {.sin_family = AF_INET, .sin_port = htons((uint16_t) port), .sin_addr = group};
        struct sockaddr_in me;
        socklen_t ml = sizeof me;
        if (fd >= 0 && 0 == connect(fd, (struct sockaddr *) &g, sizeof g) &&
            0 == getsockname(fd, (struct sockaddr *) &me, &ml))
            local = me.sin_addr;
        if (fd >= 0) close(fd);
        for (const struct ifaddrs *i = all; i && !hit && local.s_addr; i = i->ifa_next)
            if (i->ifa_addr && AF_INET == i->ifa_addr->sa_family && (i->ifa_flags & IFF_UP) &&
                (i->ifa_flags & IFF_MULTICAST) && !(i->ifa_flags & IFF_LOOPBACK) &&
                ((const struct sockaddr_in *) i->ifa_addr)->sin_addr.s_addr == local.s_addr)
                hit = i;
        if (!hit) { /* no usable route: the only multicast-capable interface */
            int n = 0;
            char names[128] = "";
            for (const struct ifaddrs *i = all; i; i = i->ifa_next) {
                if (!i->ifa_addr || AF_INET != i->ifa_addr->sa_family || !(i->ifa_flags & IFF_UP) ||
                    !(i->ifa_flags & IFF_MULTICAST) || (i->ifa_flags & IFF_LOOPBACK))
                    continue;
                if (n++ == 0) hit = i;
                size_t l = strlen(names);
                snprintf(names + l, sizeof names - l, "%s%s", l ? "," : "", i->ifa_name);
            }
            if (n != 1) {
                hit = NULL;
                if (n)
                    snprintf(why, whylen,
                             "no route to the group and %d multicast interfaces (%s): set the interface parameter", n,
                             names);
                else
                    snprintf(why, whylen, "no up, multicast-capable IPv4 interface");
            }
        }
    }
    if (hit) rc = fill_if(hit, out);
    if (hit && rc) snprintf(why, whylen, "interface %s has no index", hit->ifa_name);
    freeifaddrs(all);
    return rc;
}

static bool local_peer(struct ompi_communicator_t *comm)
{
    int me = ompi_comm_rank(comm);
    for (int r = 0; r < ompi_comm_size(comm); ++r) {
        ompi_proc_t *p = ompi_comm_peer_lookup(comm, r);
        if (r != me && p && OPAL_PROC_ON_LOCAL_NODE(p->super.proc_flags)) return true;
    }
    return false;
}

/* ---------------------------------------------------------------------------
 * Open
 * ------------------------------------------------------------------------- */
static udp_state_t *udp_setup(struct ompi_communicator_t *comm, const mcast_mc_params_t *p,
                              const mcast_mc_ident_t *id, uint32_t *chunk, uint64_t *window_cap, char *desc,
                              size_t desclen, char *why, size_t whylen)
{
    uint32_t gaddr;
    if (mcast_udp_group(p->group_range, id->job, id->ctx, &gaddr)) {
        snprintf(why, whylen, "bad group range \"%s\" (need a multicast CIDR, /4../30)",
                 p->group_range ? p->group_range : "");
        return NULL;
    }
    if (p->port <= 0 || p->port > 65535 || p->ttl < 0 || p->ttl > 255) {
        snprintf(why, whylen, "bad port %d or ttl %d", p->port, p->ttl);
        return NULL;
    }
    struct in_addr group = {.s_addr = gaddr};
    ifsel_t ifs;
    if (choose_interface(p->interface, group, p->port, &ifs, why, whylen)) return NULL;
    int mtu_payload = ifs.mtu - 20 - 8 - (int) PM_MC_HDR_BYTES;
    if (mtu_payload < 64) {
        snprintf(why, whylen, "interface %s MTU %d too small", ifs.name, ifs.mtu);
        return NULL;
    }
    *chunk = (uint32_t) (mtu_payload > (int) PM_MC_MAX_PAYLOAD ? (int) PM_MC_MAX_PAYLOAD : mtu_payload);

    udp_state_t *s = calloc(1, sizeof(*s));
    if (NULL == s || NULL == (s->bufs = malloc((size_t) UDP_BATCH * UDP_DGRAM_MAX))) {
        free(s);
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    s->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    s->group = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t) p->port), .sin_addr = group};
    int one = 1, zero = 0, ttl = p->ttl, loop = local_peer(comm) ? 1 : 0;
    struct ip_mreqn mreq = {.imr_multiaddr = group, .imr_address = ifs.addr, .imr_ifindex = ifs.index};
    const char *step = NULL;
    if (s->fd < 0) step = "socket";
    else if (setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one)) step = "SO_REUSEADDR";
    else if (bind(s->fd, (struct sockaddr *) &s->group, sizeof s->group)) step = "bind";
    else if (setsockopt(s->fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof mreq)) step = "IP_ADD_MEMBERSHIP";
    else if (setsockopt(s->fd, IPPROTO_IP, IP_MULTICAST_IF, &mreq, sizeof mreq)) step = "IP_MULTICAST_IF";
    else if (setsockopt(s->fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof ttl)) step = "IP_MULTICAST_TTL";
    else if (setsockopt(s->fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof loop)) step = "IP_MULTICAST_LOOP";
    else if (setsockopt(s->fd, IPPROTO_IP, IP_MULTICAST_ALL, &zero, sizeof zero)) step = "IP_MULTICAST_ALL";
    else if (setsockopt(s->fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one)) step = "SO_RXQ_OVFL";
    if (step) {
        snprintf(why, whylen, "%s on %s for group %s:%d: %s", step, ifs.name, inet_ntoa(group), p->port,
                 strerror(errno));
        udp_close(s);
        return NULL;
    }
    /* receive buffer: twice the window (skb overhead of ~1.6x per full datagram) */
    int want = (int) ((p->window_bytes * 2 + (256u << 10)) > (size_t) (1 << 30) ? (1 << 30)
                                                                              : p->window_bytes * 2 + (256u << 10));
    int got = 0;
    socklen_t gl = sizeof got;
    setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof want);
    getsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &got, &gl);
    if (got < 2 * want) { /* the kernel reports twice the request; capped by rmem_max */
        setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof want);
        gl = sizeof got;
        getsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &got, &gl);
    }
    *window_cap = (uint64_t) got / 2 / 2; /* reported = 2x usable; usable ~2x payload */
    /* send buffer: modest, so that a full socket blocks before the qdisc drops */
    int snd = 256 << 10;
    setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &snd, sizeof snd);
    snprintf(desc, desclen, "%s:%d on %s (mtu %d%s)", inet_ntoa(group), p->port, ifs.name, ifs.mtu,
             loop ? ", loop" : "");
    return s;
}

void mcast_udp_setup_fn(struct ompi_communicator_t *comm, const mcast_mc_params_t *params,
                         const mcast_mc_ident_t *id, mcast_mc_setup_t *out)
{
    udp_state_t *s = udp_setup(comm, params, id, &out->chunk, &out->window_cap, out->desc, sizeof out->desc,
                               out->why, sizeof out->why);
    out->be = (mcast_mc_backend_t){"ip", s, udp_send, udp_recv, udp_drops, udp_close};
}

int mcast_udp_open(struct ompi_communicator_t *comm, const mcast_mc_params_t *params, mcast_mc_t **mc,
                   char *why, size_t whylen)
{
    return mcast_mc_open(comm, params, mcast_udp_setup_fn, mc, why, whylen);
}
