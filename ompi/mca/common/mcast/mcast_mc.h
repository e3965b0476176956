/*
 * Multicast transports for MPI_Bcast: the reliable protocol of the core (pm_mcproto.h)
 * driven over a datagram backend (IP multicast: mcast_udp.h; InfiniBand UD multicast:
 * mcast_ib.h) plus a point-to-point repair channel over Open MPI's PML on the
 * communicator (tag MCAST_MC_TAG).  One handle per communicator; it works on contiguous
 * packed bytes and is independent of the schedule executor.
 *
 *   mcast_mc_t *mc;  char why[256];
 *   if (mcast_udp_open(comm, &params, &mc, why, sizeof why) != OMPI_SUCCESS)
 *       ... multicast unusable on this communicator (same answer on every rank), why says why
 *   mcast_mc_start(mc, root, buf, bytes);           the handle numbers its collectives
 *   while (!mcast_mc_progress(mc)) { ... }          (epochs) itself
 *   rc = mcast_mc_status(mc);                       OMPI_SUCCESS or an MPI error class
 *   ...
 *   mcast_mc_close(mc);                             (collective only in the sense that
 *                                                    every rank should call it)
 *
 * Opening is collective over the communicator (allreduces of a few words, point-to-point,
 * no bcast): ranks agree on the job identity (FNV-1a of rank 0's PMIx namespace), an epoch
 * base (rank 0's random value, so a reused context id never matches old datagrams), the
 * key that authenticates the group's datagrams (the XOR of every rank's random bytes:
 * it travels only over the PML; pm_mcproto.h "Authentication"),
 * chunk size (smallest path MTU) and window (smallest receive buffer), then run a probe
 * round: every rank multicasts a PROBE and all must hear every other rank (up to
 * probe_rounds rounds, waits doubling from probe_wait_us).  Every rank returns the same
 * answer.  The agreements are point-to-point (mcast_mc_open_start below), so an open can
 * also run without waiting, from a nonblocking call.
 */
#ifndef MCAST_MC_H
#define MCAST_MC_H

#include "ompi_config.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "pm_mcproto.h"

/* Our p2p tag: the last tag of the range coll_tags.h reserves for hcoll (hcoll is another
 * hardware-multicast collective provider; the two are never used together); the open's
 * agreements use the next two (MCAST_MC_OPEN_TAG up to rank 0, + 1 back). */
#define MCAST_MC_TAG (MCA_COLL_BASE_TAG_HCOLL_END)
#define MCAST_MC_OPEN_TAG (MCA_COLL_BASE_TAG_HCOLL_END + 1)

typedef struct mcast_mc_params {
    /* IP multicast */
    const char *group_range;    /* "239.255.0.0/16": one group per communicator in it */
    int port;                   /* UDP port (default 47470) */
    const char *interface;      /* name ("eth0") or CIDR ("10.77.0.0/16"); NULL/"": the
                                   route to the group, else the only multicast interface */
    int ttl;                    /* 1: no router crossing */
    /* InfiniBand */
    const char *ib_device;      /* NULL/"": the first device with an active port */
    int ib_port;                /* 0: the first active port */
    /* protocol (pm_mc_params_t) */
    int chunk_bytes;            /* 0: path MTU - IP/UDP (or GRH) - 40 */
    size_t window_bytes;        /* capped by every rank's receive buffer */
    int ack_fanin;
    int repair;                 /* PM_MC_REPAIR_RING / _TREE */
    int repair_chunks;
    double bandwidth_Bps;       /* initial estimate; measured afterwards */
    double rtt_us;
    double rate_Bps;            /* root pacing, 0 = none */
    double dead_factor;
    double dead_min_s;          /* dead-peer floor (skew between ranks entering a bcast) */
    /* probe round */
    int probe_rounds;
    int probe_wait_us;
    /* buffers */
    int p2p_recvs;              /* irecvs kept posted */
    int p2p_sends;              /* isends in flight at most */
    int verbose;                /* 1: open result, 2: a line per collective */
    int auth;                   /* 1 (default): group datagrams authenticated (pm_mcproto.h);
                                   0 only to measure what that costs on a trusted network */
} mcast_mc_params_t;

void mcast_mc_params_default(mcast_mc_params_t *p);

typedef struct mcast_mc mcast_mc_t;

/* Per-handle counters beyond the protocol's (pm_mc_stats_t). */
typedef struct mcast_mc_xstats {
    uint64_t dgram_sent, dgram_rcvd, send_blocked, send_errors;
    uint64_t p2p_sent, p2p_rcvd;
    uint64_t stashed, stash_dropped;
    uint64_t kernel_drops;      /* datagrams the socket/QP dropped (SO_RXQ_OVFL, no WQE) */
    uint32_t probe_rounds;      /* rounds the probe needed */
    uint32_t chunk_bytes;
    uint64_t window_bytes;
    uint64_t job;
    uint32_t ctx, epoch_base;
    char group[128];            /* "239.255.12.34:47470 on eth0" / "ib mlx5_0:1 mgid ..." */
} mcast_mc_xstats_t;

/* Every rank of the communicator starts the same sequence of broadcasts (same roots and
 * sizes, as MPI requires); the handle numbers them itself (epochs), skipping empty ones. */
int mcast_mc_start(mcast_mc_t *mc, int root, void *buf, size_t bytes);
/* Moves everything that can move without blocking; 1 when the collective ended.  _poll
 * does the same without calling opal_progress (for callers that run inside it: a
 * nonblocking call's progress function); mcast_mc_progressed: whether the last poll
 * moved anything. */
int mcast_mc_progress(mcast_mc_t *mc);
int mcast_mc_poll(mcast_mc_t *mc);
bool mcast_mc_progressed(const mcast_mc_t *mc);
bool mcast_mc_done(const mcast_mc_t *mc);
/* OMPI_SUCCESS, or MPI_ERR_OTHER (peer dead / aborted), MPI_ERR_TRUNCATE (size differs). */
int mcast_mc_status(const mcast_mc_t *mc);
/* start + progress until done; the status. */
int mcast_mc_bcast(mcast_mc_t *mc, int root, void *buf, size_t bytes);
/* This rank's part of a broadcast it cannot hold (no memory for its data, or the root's
 * data could not be packed): the collective is taken in step with the others' (its epoch
 * counted) and ends at once with an ABORT to the peers, who end with an error instead of
 * waiting for a dead peer.  Returns OMPI_ERR_OUT_OF_RESOURCE. */
int mcast_mc_bcast_failed(mcast_mc_t *mc, int root, size_t bytes);
/* Its start alone: the collective then ends (mcast_mc_done) at the next polls. */
int mcast_mc_start_failed(mcast_mc_t *mc, int root, size_t bytes);
void mcast_mc_stats(const mcast_mc_t *mc, pm_mc_stats_t *proto, mcast_mc_xstats_t *x);
const char *mcast_mc_transport(const mcast_mc_t *mc); /* "ip" or "ib" */
void mcast_mc_close(mcast_mc_t *mc);

/* ---------------------------------------------------------------------------
 * Backend seam (used by mcast_udp.c and mcast_ib.c)
 * ------------------------------------------------------------------------- */
typedef void (*mcast_mc_rx_fn)(mcast_mc_t *mc, const void *dgram, size_t len);

typedef struct mcast_mc_backend {
    const char *transport;      /* "ip" / "ib" */
    void *state;
    /* One datagram to the group: 0 sent, 1 would block (try again), < 0 error. */
    int (*send)(void *state, const void *buf, size_t len);
    /* Up to max datagrams, each passed to rx(mc, ...); the count (0 if none), < 0 error. */
    int (*recv)(void *state, mcast_mc_t *mc, mcast_mc_rx_fn rx, int max);
    uint64_t (*drops)(void *state);
    void (*close)(void *state);
} mcast_mc_backend_t;

/* Identity agreed by every rank (first allreduce of an open). */
typedef struct mcast_mc_ident {
    uint64_t job;
    uint32_t epoch_base;
    uint32_t ctx;
    uint8_t key[PM_MC_AUTH_KEY_BYTES]; /* the group's key (XOR of every rank's random bytes) */
} mcast_mc_ident_t;

/* What a backend's local setup reports: be.state == NULL means it failed (why says why). */
typedef struct mcast_mc_setup {
    mcast_mc_backend_t be;
    uint32_t chunk;        /* payload per datagram the path carries */
    uint64_t window_cap;   /* bytes of datagrams the receive side holds */
    char desc[128];        /* for verbose output and mcast_mc_xstats_t.group */
    char why[256];
} mcast_mc_setup_t;

typedef void (*mcast_mc_setup_fn)(struct ompi_communicator_t *comm, const mcast_mc_params_t *params,
                                  const mcast_mc_ident_t *id, mcast_mc_setup_t *out);

/* The collective open every backend shares: agree on the identity, run the backend's
 * local setup, agree on success, chunk (smallest) and window (smallest), build the
 * handle, run the probe round.  On any failure the backend is closed, *mc is NULL and
 * why says why; every rank returns the same error code. */
int mcast_mc_open(struct ompi_communicator_t *comm, const mcast_mc_params_t *params, mcast_mc_setup_fn setup,
                  mcast_mc_t **mc, char *why, size_t whylen);

/* The same open without waiting (mcast_mc_open is start, then test until done): start is
 * local (OMPI_ERR_OUT_OF_RESOURCE: this rank cannot take part, its peers may wait);
 * test moves it on and returns MCAST_AGAIN (mcast_status_mpi.h) until it ended, then
 * mcast_mc_open's outcome with *mc and why set; free at any point (an unfinished open's
 * requests are cancelled).  Its agreements are point-to-point on tags of its own
 * (MCAST_MC_OPEN_TAG), never the communicator's collectives, so it may run from Open
 * MPI's progress engine at moments that differ between ranks; every rank must start it
 * once per communicator, at the same point of its collective sequence.  Several
 * communicators' opens may run at once. */
typedef struct mcast_mc_opener mcast_mc_opener_t;
int mcast_mc_open_start(struct ompi_communicator_t *comm, const mcast_mc_params_t *params,
                        mcast_mc_setup_fn setup, mcast_mc_opener_t **op);
int mcast_mc_open_test(mcast_mc_opener_t *op, mcast_mc_t **mc, char *why, size_t whylen);
/* Whether the open is in its probe's wait (datagrams, no point-to-point to progress). */
bool mcast_mc_open_waiting(const mcast_mc_opener_t *op);
void mcast_mc_open_free(mcast_mc_opener_t *op);

#endif /* MCAST_MC_H */
