/*
 * InfiniBand UD multicast backend (see mcast_ib.h).
 *
 *   device/port   first device with an ACTIVE port of link layer InfiniBand (or the one
 *                 named by params->ib_device / ib_port)
 *   rdma_cm id    RDMA_PS_UDP, bound to the IPv4 address of that port's IPoIB interface
 *   QP            UD, created by rdma_create_qp (librdmacm moves it to RTS with the UDP
 *                 qkey); recv CQ and send CQ of their own
 *   join          rdma_join_multicast(group) -> MULTICAST_JOIN event: address handle,
 *                 QPN 0xFFFFFF, qkey; the QP is attached to the MGID by librdmacm
 *   buffers       one registered region: nrecv x (40 GRH + MTU) receive slots, all posted,
 *                 reposted after each completion; nsend x MTU send slots
 * Exercised on hardware: no (this machine has no RDMA device; the decline path runs in
 * the tests).
 */
#include "mcast_ib.h"
#include "mcast_udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define IB_GRH 40
#define IB_NSEND 64

typedef struct ib_state {
    struct rdma_event_channel *ch;
    struct rdma_cm_id *id;
    struct ibv_pd *pd;
    struct ibv_cq *scq, *rcq;
    struct ibv_mr *mr;
    struct ibv_ah *ah;
    uint8_t *mem;
    int nrecv, nsend, inflight, next_send, mtu;
    uint32_t remote_qpn, remote_qkey;
    bool joined, qp;
    struct sockaddr_in group;
    uint64_t recv_errors;
} ib_state_t;

static uint8_t *recv_slot(ib_state_t *s, int i) { return s->mem + (size_t) i * (IB_GRH + (size_t) s->mtu); }
static uint8_t *send_slot(ib_state_t *s, int i)
{
    return s->mem + (size_t) s->nrecv * (IB_GRH + (size_t) s->mtu) + (size_t) i * (size_t) s->mtu;
}

static int post_recv(ib_state_t *s, int i)
{
    struct ibv_sge sge = {.addr = (uintptr_t) recv_slot(s, i), .length = IB_GRH + (uint32_t) s->mtu, .lkey = s->mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = (uint64_t) i, .sg_list = &sge, .num_sge = 1}, *bad;
    return ibv_post_recv(s->id->qp, &wr, &bad);
}

static void reap_sends(ib_state_t *s)
{
    struct ibv_wc wc[16];
    int n;
    while ((n = ibv_poll_cq(s->scq, 16, wc)) > 0) s->inflight -= n;
}

static int ib_send(void *state, const void *buf, size_t len)
{
    ib_state_t *s = state;
    if ((int) len > s->mtu) return -1;
    reap_sends(s);
    if (s->inflight >= s->nsend) return 1;
    uint8_t *slot = send_slot(s, s->next_send);
    s->next_send = (s->next_send + 1) % s->nsend;
    memcpy(slot, buf, len);
    struct ibv_sge sge = {.addr = (uintptr_t) slot, .length = (uint32_t) len, .lkey = s->mr->lkey};
    struct ibv_send_wr wr, *bad;
    memset(&wr, 0, sizeof wr);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.ud.ah = s->ah;
    wr.wr.ud.remote_qpn = s->remote_qpn;
    wr.wr.ud.remote_qkey = s->remote_qkey;
    if (ibv_post_send(s->id->qp, &wr, &bad)) return ENOMEM == errno ? 1 : -1;
    s->inflight++;
    return 0;
}

static int ib_recv(void *state, mcast_mc_t *mc, mcast_mc_rx_fn rx, int max)
{
    ib_state_t *s = state;
    struct ibv_wc wc[64];
    if (max > 64) max = 64;
    int n = ibv_poll_cq(s->rcq, max, wc);
    if (n < 0) return -1;
    for (int i = 0; i < n; ++i) {
        int slot = (int) wc[i].wr_id;
        if (IBV_WC_SUCCESS == wc[i].status && wc[i].byte_len >= IB_GRH)
            rx(mc, recv_slot(s, slot) + IB_GRH, wc[i].byte_len - IB_GRH);
        else
            s->recv_errors++;
        if (post_recv(s, slot)) return -1;
    }
    return n;
}

static uint64_t ib_drops(void *state) { return ((ib_state_t *) state)->recv_errors; }

static void ib_close(void *state)
{
    ib_state_t *s = state;
    if (NULL == s) return;
    if (s->joined) rdma_leave_multicast(s->id, (struct sockaddr *) &s->group);
    if (s->ah) ibv_destroy_ah(s->ah);
    if (s->qp) rdma_destroy_qp(s->id);
    if (s->mr) ibv_dereg_mr(s->mr);
    free(s->mem);
    if (s->scq) ibv_destroy_cq(s->scq);
    if (s->rcq) ibv_destroy_cq(s->rcq);
    if (s->pd) ibv_dealloc_pd(s->pd);
    if (s->id) rdma_destroy_id(s->id);
    if (s->ch) rdma_destroy_event_channel(s->ch);
    free(s);
}

static int mtu_bytes(enum ibv_mtu m)
{
    switch (m) {
    case IBV_MTU_256: return 256;
    case IBV_MTU_512: return 512;
    case IBV_MTU_1024: return 1024;
    case IBV_MTU_2048: return 2048;
    case IBV_MTU_4096: return 4096;
    default: return 0;
    }
}

/* The device and port to use; fills why and returns -1 when there is none. */
static int find_port(const mcast_mc_params_t *p, char *dev, size_t devlen, int *port, int *mtu, char *why,
                     size_t whylen)
{
    int ndev = 0;
    struct ibv_device **list = ibv_get_device_list(&ndev);
    if (NULL == list || 0 == ndev) {
        snprintf(why, whylen, "no RDMA device (ibv_get_device_list: %d devices%s%s)", ndev, list ? "" : ": ",
                 list ? "" : strerror(errno));
        if (list) ibv_free_device_list(list);
        return -1;
    }
    char seen[256] = "";
    int found = -1;
    for (int d = 0; d < ndev && found < 0; ++d) {
        const char *name = ibv_get_device_name(list[d]);
        if (p->ib_device && *p->ib_device && strcmp(p->ib_device, name)) continue;
        struct ibv_context *ctx = ibv_open_device(list[d]);
        struct ibv_device_attr da;
        if (NULL == ctx || ibv_query_device(ctx, &da)) {
            if (ctx) ibv_close_device(ctx);
            continue;
        }
        for (int pt = 1; pt <= da.phys_port_cnt && found < 0; ++pt) {
            struct ibv_port_attr pa;
            if ((p->ib_port > 0 && pt != p->ib_port) || ibv_query_port(ctx, (uint8_t) pt, &pa)) continue;
            size_t l = strlen(seen);
            snprintf(seen + l, sizeof seen - l, "%s%s:%d %s%s", l ? ", " : "", name, pt,
                     ibv_port_state_str(pa.state), IBV_LINK_LAYER_INFINIBAND == pa.link_layer ? "" : " (not IB)");
            if (IBV_PORT_ACTIVE == pa.state && IBV_LINK_LAYER_INFINIBAND == pa.link_layer) {
                found = d;
                *port = pt;
                *mtu = mtu_bytes(pa.active_mtu);
                snprintf(dev, devlen, "%s", name);
            }
        }
        ibv_close_device(ctx);
    }
    ibv_free_device_list(list);
    if (found < 0) {
        snprintf(why, whylen, "no active InfiniBand port (%s)", seen[0] ? seen : "no matching device");
        return -1;
    }
    return 0;
}

/* IPv4 address of an IPoIB interface (ARPHRD_INFINIBAND = 32), or params->interface. */
static int ipoib_address(const mcast_mc_params_t *p, struct sockaddr_in *out, char *ifname, size_t iflen, char *why,
                         size_t whylen)
{
    struct ifaddrs *all = NULL;
    if (getifaddrs(&all)) {
        snprintf(why, whylen, "getifaddrs: %s", strerror(errno));
        return -1;
    }
    int rc = -1;
    for (struct ifaddrs *i = all; i && rc; i = i->ifa_next) {
        if (!i->ifa_addr || AF_INET != i->ifa_addr->sa_family || !(i->ifa_flags & IFF_UP)) continue;
        if (p->interface && *p->interface) {
            if (strcmp(p->interface, i->ifa_name)) continue;
        } else {
            char path[256], type[16] = "";
            snprintf(path, sizeof path, "/sys/class/net/%s/type", i->ifa_name);
            FILE *f = fopen(path, "r");
            if (!f) continue;
            if (!fgets(type, sizeof type, f)) type[0] = '\0';
            fclose(f);
            if (32 != atoi(type)) continue;
        }
        memcpy(out, i->ifa_addr, sizeof *out);
        snprintf(ifname, iflen, "%s", i->ifa_name);
        rc = 0;
    }
    freeifaddrs(all);
    if (rc) snprintf(why, whylen, "no IPoIB interface with an IPv4 address (rdma_cm joins through one)");
    return rc;
}

static int wait_event(ib_state_t *s, enum rdma_cm_event_type want, struct rdma_ud_param *ud, char *why,
                      size_t whylen)
{
    struct pollfd pfd = {.fd = s->ch->fd, .events = POLLIN};
    if (poll(&pfd, 1, 10000) <= 0) {
        snprintf(why, whylen, "rdma_cm: no event within 10 s");
        return -1;
    }
    struct rdma_cm_event *ev;
    if (rdma_get_cm_event(s->ch, &ev)) {
        snprintf(why, whylen, "rdma_get_cm_event: %s", strerror(errno));
        return -1;
    }
    int ok = ev->event == want;
    if (ok && ud) *ud = ev->param.ud;
    if (!ok) snprintf(why, whylen, "rdma_cm: %s instead of %s", rdma_event_str(ev->event), rdma_event_str(want));
    rdma_ack_cm_event(ev);
    return ok ? 0 : -1;
}

static ib_state_t *ib_setup(const mcast_mc_params_t *p, const mcast_mc_ident_t *id, uint32_t *chunk,
                            uint64_t *window_cap, char *desc, size_t desclen, char *why, size_t whylen)
{
    char dev[32], ifname[IF_NAMESIZE];
    int port = 0, mtu = 0;
    struct sockaddr_in local;
    uint32_t gaddr;
    if (find_port(p, dev, sizeof dev, &port, &mtu, why, whylen)) return NULL;
    if (mtu <= (int) PM_MC_HDR_BYTES + 64) {
        snprintf(why, whylen, "%s:%d: MTU %d too small", dev, port, mtu);
        return NULL;
    }
    if (ipoib_address(p, &local, ifname, sizeof ifname, why, whylen)) return NULL;
    if (mcast_udp_group(p->group_range, id->job, id->ctx, &gaddr)) {
        snprintf(why, whylen, "bad group range \"%s\"", p->group_range ? p->group_range : "");
        return NULL;
    }
    ib_state_t *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    s->mtu = mtu;
    s->group = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr = {.s_addr = gaddr}};
    const char *step = NULL;
    struct ibv_qp_init_attr qa;
    if (!(s->ch = rdma_create_event_channel())) step = "rdma_create_event_channel";
    else if (rdma_create_id(s->ch, &s->id, NULL, RDMA_PS_UDP)) step = "rdma_create_id";
    else if (rdma_bind_addr(s->id, (struct sockaddr *) &local)) step = "rdma_bind_addr";
    else if (!s->id->verbs) step = "rdma_bind_addr (no device behind the address)";
    else if (strcmp(ibv_get_device_name(s->id->verbs->device), dev))
        step = "rdma_bind_addr (the IPoIB address belongs to another device)";
    if (step) {
        snprintf(why, whylen, "%s on %s (%s): %s", step, ifname, dev, strerror(errno));
        ib_close(s);
        return NULL;
    }
    struct ibv_device_attr da;
    int maxwr = ibv_query_device(s->id->verbs, &da) ? 1024 : da.max_qp_wr;
    s->nrecv = (int) (2 * p->window_bytes / (size_t) mtu) + 64;
    if (s->nrecv > maxwr) s->nrecv = maxwr;
    if (s->nrecv > 16384) s->nrecv = 16384;
    s->nsend = IB_NSEND < maxwr ? IB_NSEND : maxwr;
    size_t memlen = (size_t) s->nrecv * (IB_GRH + (size_t) mtu) + (size_t) s->nsend * (size_t) mtu;
    memset(&qa, 0, sizeof qa);
    if (!(s->pd = ibv_alloc_pd(s->id->verbs))) step = "ibv_alloc_pd";
    else if (!(s->scq = ibv_create_cq(s->id->verbs, s->nsend, NULL, NULL, 0))) step = "ibv_create_cq (send)";
    else if (!(s->rcq = ibv_create_cq(s->id->verbs, s->nrecv, NULL, NULL, 0))) step = "ibv_create_cq (recv)";
    else if (!(s->mem = malloc(memlen))) step = "malloc";
    else if (!(s->mr = ibv_reg_mr(s->pd, s->mem, memlen, IBV_ACCESS_LOCAL_WRITE))) step = "ibv_reg_mr";
    else {
        qa.qp_type = IBV_QPT_UD;
        qa.send_cq = s->scq;
        qa.recv_cq = s->rcq;
        qa.cap.max_send_wr = (uint32_t) s->nsend;
        qa.cap.max_recv_wr = (uint32_t) s->nrecv;
        qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
        if (rdma_create_qp(s->id, s->pd, &qa)) step = "rdma_create_qp (UD)";
        else s->qp = true;
    }
    for (int i = 0; !step && i < s->nrecv; ++i)
        if (post_recv(s, i)) step = "ibv_post_recv";
    if (!step && rdma_join_multicast(s->id, (struct sockaddr *) &s->group, NULL)) step = "rdma_join_multicast";
    if (step) {
        snprintf(why, whylen, "%s on %s:%d: %s", step, dev, port, strerror(errno));
        ib_close(s);
        return NULL;
    }
    struct rdma_ud_param ud;
    if (wait_event(s, RDMA_CM_EVENT_MULTICAST_JOIN, &ud, why, whylen)) {
        ib_close(s);
        return NULL;
    }
    s->joined = true;
    s->remote_qpn = ud.qp_num;
    s->remote_qkey = ud.qkey;
    if (!(s->ah = ibv_create_ah(s->pd, &ud.ah_attr))) {
        snprintf(why, whylen, "ibv_create_ah: %s", strerror(errno));
        ib_close(s);
        return NULL;
    }
    *chunk = (uint32_t) (mtu - (int) PM_MC_HDR_BYTES);
    *window_cap = (uint64_t) s->nrecv / 2 * (uint64_t) *chunk;
    char g[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &s->group.sin_addr, g, sizeof g);
    snprintf(desc, desclen, "%s via %s:%d (%s, mtu %d)", g, dev, port, ifname, mtu);
    return s;
}

void mcast_ib_setup_fn(struct ompi_communicator_t *comm, const mcast_mc_params_t *params,
                        const mcast_mc_ident_t *id, mcast_mc_setup_t *out)
{
    (void) comm;
    ib_state_t *s = ib_setup(params, id, &out->chunk, &out->window_cap, out->desc, sizeof out->desc, out->why,
                             sizeof out->why);
    out->be = (mcast_mc_backend_t){"ib", s, ib_send, ib_recv, ib_drops, ib_close};
}

int mcast_ib_open(struct ompi_communicator_t *comm, const mcast_mc_params_t *params, mcast_mc_t **mc, char *why,
                  size_t whylen)
{
    return mcast_mc_open(comm, params, mcast_ib_setup_fn, mc, why, whylen);
}
