/*
 * ib-mcjoin: join (or leave) InfiniBand multicast groups through the SA, as
 * the local port, with SubnAdmSet(MCMemberRecord) MADs (IBA 1.3 sec 15.2.5.17).
 * saquery cannot join; this is the small libibumad client the fabric tests use
 * (under ibsim: LD_PRELOAD=libumad2sim.so, SIM_HOST=<node> picks the port).
 *
 *   ib-mcjoin [--leave] [--state full|sendonly|nonmember] [--qkey Q] [--pkey P]
 *             [--ca NAME] [--port N] [--timeout MS] MGID...
 *
 * A group that does not exist is created by the first join (the record then
 * carries every component OpenSM requires for a create: MGID, PortGID, Q_Key,
 * P_Key, TClass, SL, FlowLabel, JoinState).  Prints "MGID mlid 0xNNNN" per
 * group; exit 0 all joined, 1 an SA error or timeout, 2 bad usage.
 *
 * Responses are matched on the low 32 bits of the transaction id (umad2sim
 * rewrites the upper half).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_sa_mcm.h>
#include <infiniband/umad_types.h>

#define SA_QP 1
#define SA_QKEY 0x80010000
#define MAD_BYTES 256
#define METHOD_SET 0x02
#define METHOD_GET_RESP 0x81

static void usage(FILE *f)
{
    fprintf(f, "Usage: ib-mcjoin [--leave] [--state full|sendonly|nonmember] [--qkey Q] [--pkey P]\n"
               "                 [--ca NAME] [--port N] [--timeout MS] MGID...\n"
               "Join (default) or leave multicast groups via the SA as the local port.\n"
               "Prints \"MGID mlid 0xNNNN\" for each group.\n");
}

struct options {
    int leave;
    uint8_t state;
    uint32_t qkey;
    uint16_t pkey;
    const char *ca;
    int port;
    int timeout_ms;
};

static int parse_state(const char *s, uint8_t *out)
{
    if (!strcmp(s, "full")) *out = UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER;
    else if (!strcmp(s, "nonmember")) *out = UMAD_SA_MCM_JOIN_STATE_NON_MEMBER;
    else if (!strcmp(s, "sendonly")) *out = UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_NON_MEMBER;
    else return -1;
    return 0;
}

/* One request/response exchange; returns 0 and the MLID, or -1 with a message. */
static int exchange(int fd, int agent, const umad_port_t *port, const struct options *o,
                    const uint8_t mgid[16], uint32_t tid, uint16_t *mlid)
{
    uint8_t *req = calloc(1, umad_size() + MAD_BYTES), *rsp = calloc(1, umad_size() + MAD_BYTES);
    int rc = -1;
    if (!req || !rsp) {
        fprintf(stderr, "ib-mcjoin: out of memory\n");
        goto out;
    }
    struct umad_sa_packet *sa = umad_get_mad(req);
    sa->mad_hdr.base_version = 1;
    sa->mad_hdr.mgmt_class = UMAD_CLASS_SUBN_ADM;
    sa->mad_hdr.class_version = UMAD_SA_CLASS_VERSION;
    sa->mad_hdr.method = o->leave ? UMAD_SA_METHOD_DELETE : METHOD_SET;
    sa->mad_hdr.tid = htobe64((uint64_t) tid);
    sa->mad_hdr.attr_id = htobe16(UMAD_SA_ATTR_MCMEMBER_REC);
    uint64_t mask = UMAD_SA_MCM_COMP_MASK_MGID | UMAD_SA_MCM_COMP_MASK_PORT_GID |
                    UMAD_SA_MCM_COMP_MASK_JOIN_STATE;
    if (!o->leave)
        mask |= UMAD_SA_MCM_COMP_MASK_QKEY | UMAD_SA_MCM_COMP_MASK_TCLASS | UMAD_SA_MCM_COMP_MASK_PKEY |
                UMAD_SA_MCM_COMP_MASK_SL | UMAD_SA_MCM_COMP_MASK_FLOW_LABEL;
    sa->comp_mask = htobe64(mask);
    struct umad_sa_mcmember_record rec;
    memset(&rec, 0, sizeof(rec));
    memcpy(rec.mgid, mgid, 16);
    memcpy(rec.portgid, &port->gid_prefix, 8);
    memcpy(rec.portgid + 8, &port->port_guid, 8);
    rec.qkey = htobe32(o->qkey);
    rec.pkey = htobe16(o->pkey);
    rec.sl_flow_hop = umad_sa_mcm_set_sl_flow_hop(0, 0, 0);
    rec.scope_state = umad_sa_mcm_set_scope_state(0, o->state);
    memcpy(sa->data, &rec, sizeof(rec));

    umad_set_addr(req, (int) port->sm_lid, SA_QP, (int) port->sm_sl, SA_QKEY);
    if (umad_send(fd, agent, req, MAD_BYTES, o->timeout_ms, 3) < 0) {
        fprintf(stderr, "ib-mcjoin: umad_send failed\n");
        goto out;
    }
    for (;;) {
        int len = MAD_BYTES;
        if (umad_recv(fd, rsp, &len, o->timeout_ms) < 0) {
            fprintf(stderr, "ib-mcjoin: no response from the SA (LID %u)\n", port->sm_lid);
            goto out;
        }
        if (umad_status(rsp)) {
            fprintf(stderr, "ib-mcjoin: request timed out (umad status %d)\n", umad_status(rsp));
            goto out;
        }
        struct umad_sa_packet *r = umad_get_mad(rsp);
        if ((uint32_t) be64toh(r->mad_hdr.tid) != tid) continue;   /* not ours */
        uint16_t status = be16toh(r->mad_hdr.status);
        if (status) {
            fprintf(stderr, "ib-mcjoin: SA rejected the request: MAD status 0x%04x (SA status %u)\n",
                    status, (unsigned) (status >> 8) & 0x7f);
            goto out;
        }
        struct umad_sa_mcmember_record got;
        memcpy(&got, r->data, sizeof(got));
        *mlid = be16toh(got.mlid);
        rc = 0;
        break;
    }
out:
    free(req);
    free(rsp);
    return rc;
}

int main(int argc, char **argv)
{
    struct options o = {0, UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER, 0x1234, 0xffff, NULL, 0, 1000};
    static const struct option longopts[] = {
        {"leave", no_argument, NULL, 'l'},     {"state", required_argument, NULL, 's'},
        {"qkey", required_argument, NULL, 'q'}, {"pkey", required_argument, NULL, 'k'},
        {"ca", required_argument, NULL, 'C'},   {"port", required_argument, NULL, 'P'},
        {"timeout", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'l': o.leave = 1; break;
        case 's':
            if (parse_state(optarg, &o.state)) {
                fprintf(stderr, "ib-mcjoin: --state: expected full, sendonly or nonmember\n");
                return 2;
            }
            break;
        case 'q': o.qkey = (uint32_t) strtoul(optarg, &end, 0); break;
        case 'k': o.pkey = (uint16_t) strtoul(optarg, &end, 0); break;
        case 'C': o.ca = optarg; break;
        case 'P': o.port = (int) strtol(optarg, &end, 0); break;
        case 't': o.timeout_ms = (int) strtol(optarg, &end, 0); break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (end && *end) {
            fprintf(stderr, "ib-mcjoin: '%s' is not a number\n", optarg);
            return 2;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    if (umad_init() < 0) {
        fprintf(stderr, "ib-mcjoin: umad_init failed\n");
        return 1;
    }
    umad_port_t port;
    if (umad_get_port(o.ca, o.port, &port) < 0) {
        fprintf(stderr, "ib-mcjoin: no InfiniBand port found\n");
        return 1;
    }
    int fd = umad_open_port(o.ca, o.port);
    int agent = fd < 0 ? -1 : umad_register(fd, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, 0, NULL);
    if (fd < 0 || agent < 0) {
        fprintf(stderr, "ib-mcjoin: cannot open the port or register an SA agent\n");
        return 1;
    }
    int rc = 0;
    uint32_t tid = (uint32_t) getpid() << 12 ^ (uint32_t) time(NULL);
    for (int i = optind; i < argc && rc == 0; ++i) {
        uint8_t mgid[16];
        uint16_t mlid = 0;
        if (inet_pton(AF_INET6, argv[i], mgid) != 1 || mgid[0] != 0xff) {
            fprintf(stderr, "ib-mcjoin: '%s' is not a multicast GID (ff..:...)\n", argv[i]);
            rc = 2;
            break;
        }
        if (exchange(fd, agent, &port, &o, mgid, ++tid, &mlid)) rc = 1;
        else printf("%s mlid 0x%04x\n", argv[i], mlid);
    }
    umad_unregister(fd, agent);
    umad_close_port(fd);
    umad_release_port(&port);
    umad_done();
    return rc;
}
