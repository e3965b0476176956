/*
 * Reliable broadcast over an unreliable multicast group: wire format and a sans-I/O
 * protocol state machine (pure C++17 core, C API; no sockets, no MPI).
 *
 * The root cuts the packed message (M bytes) into chunks of C bytes (C = path MTU minus
 * IP/UDP and our header; the last chunk may be shorter) and multicasts each chunk once
 * as a DATA datagram.  Receivers keep a bitmap of the chunks they hold, drop duplicates
 * and foreign datagrams, and fetch what the group lost over point-to-point from their
 * REPAIR SOURCE (ring: the previous rank relative to the root; tree: the ACK parent),
 * which serves from its own copy and, when it lacks a chunk too, NACKs it upstream once
 * for all its clients (NACK suppression).  Flow control is a sliding window of W bytes:
 * the root sends chunk c only when every receiver has chunks [0, c - W/C) (cumulative
 * ACKs aggregated up a k-ary ACK tree, never a barrier per window).  When the root's ACK
 * children report the whole tree complete it sends DONE down the tree; every rank
 * completes on DONE, so a rank that returns success knows every rank holds the message.
 *
 *   root (v0) ==DATA/STATUS multicast==> group {v1..v7}         v = (rank - root) mod n
 *
 *   ACK tree (k = 2)              repair ring (default)       repair tree
 *        v0                        v0 -> v1 -> v2 -> ...        = the ACK tree
 *       /  \                       (v-1 repairs v)              (parent repairs child)
 *     v1    v2         ACK:  child -> parent, subtree minimum of the contiguous prefix
 *    / \    / \        DONE: parent -> child once the root saw the whole tree complete
 *  v3  v4  v5  v6      NACK: client -> source (bitmap);  REPAIR: source -> client (data)
 *  |
 *  v7
 *
 * Cost model (loss p per datagram and receiver, B bandwidth, R p2p round trip):
 *   root uplink  M (1 + H/C) + repairs (p M for the ring, p k M for the tree);
 *   latency      M/B + (depth_ack + 1) R / 2 up + depth_ack R / 2 down + per lost chunk
 *                one repair round trip (overlapped with the stream while the window lasts).
 * Background: seed 003 (Buntinas et al.: one host write, the network delivers to many);
 * MVAPICH2 MV2_USE_MCAST and UCC tl/mlx5 (NACK to the parent, repair over p2p), Khalilov
 * et al. SC24 (per-receiver chunk bitmap, repair from a ring neighbour, timeouts from
 * bytes / bandwidth).
 *
 * ------------------------------------------------------------------------------------
 * Wire format: every message (group datagram or point-to-point) is a 40-byte header,
 * big-endian, then `len` payload bytes; the CRC32C covers header (crc field zero) and
 * payload.  A datagram longer or shorter than 40 + len is malformed.
 *
 *    0  u16  magic 0x4D43 ("MC")          16  u32  epoch (one per collective)
 *    2  u8   version (1)                  20  u32  root (communicator rank)
 *    3  u8   type                         24  u32  seq   (meaning per type, below)
 *    4  u32  communicator context id      28  u32  crc32c
 *    8  u64  job identity                 32  u64  offset (high 48 bits) | len (low 16)
 *
 *   type     path   seq                        offset / payload
 *   DATA     group  chunk index                chunk offset / chunk bytes
 *   STATUS   group  counter                    0 / u64 M, u32 chunks sent, u32 C
 *   NACK     p2p    first chunk of the bitmap  0 / bitmap, bit i (LSB first) = chunk seq+i missing
 *   REPAIR   p2p    first chunk                its offset / whole chunks
 *   ACK      p2p    subtree contiguous chunks  0 / none
 *   KEEPALIVE p2p   chunks known sent by root  0 / none
 *   DONE     p2p    number of chunks           0 / none
 *   ABORT    both   origin rank                0 / i32 error code
 *   PROBE    group  sender rank                0 / u32 round (transports' setup check)
 *
 * Authentication (params.auth = 1, the default of the transports): the multicast group is
 * not trusted -- anyone on the network can read it and write to it -- so every group
 * datagram (DATA, STATUS, ABORT, PROBE) carries a 28-byte trailer after its payload:
 *
 *   40 + len  u32  sender rank       the nonce: (sender, counter), never used twice
 *   44 + len  u64  sender's counter  under one key (the sender counts every datagram)
 *   52 + len  16   AES-128-GMAC tag  over header, payload, sender and counter
 *
 * under a key of the communicator (params.auth_key) that travels only over the
 * point-to-point path (the PML is the trusted channel).  A receiver drops and counts, and
 * the protocol never sees: a datagram whose tag does not verify (PM_MC_RX_BAD_AUTH), one
 * whose sender is not the rank the header speaks for (DATA and STATUS: the root; ABORT
 * and PROBE: the rank in seq) (PM_MC_RX_BAD_PEER), and one whose (sender, counter) it
 * accepted before or that is older than the last 1024 it accepted from that sender
 * (PM_MC_RX_REPLAY).  Epochs are in the tag, so a captured datagram replayed in a later
 * collective is stale; a forged one never verifies.  What it stops: anyone outside the
 * job who can reach the group.  What it does not: a rank of the job (it holds the key),
 * nor loss or delay (the repair path recovers those as before).  Point-to-point messages
 * (NACK, REPAIR, ACK, KEEPALIVE, DONE, ABORT to a peer) carry no trailer.
 * ------------------------------------------------------------------------------------
 *
 * Driving the state machine (the engine owns all I/O and the clock):
 *
 *   pm_mc_start(sm, epoch, root, buf, M, now)    one broadcast; buf = packed bytes
 *   pm_mc_on_datagram(sm, bytes, len, now)       a datagram from the group
 *   pm_mc_on_p2p(sm, src, bytes, len, now)       a point-to-point message from rank src
 *   pm_mc_provide(sm, ready)                     root: bytes [0, ready) are packed
 *   pm_mc_next(sm, now, &act, out, cap)          loop until PM_MC_ACT_NONE:
 *        SEND_GROUP  multicast out[0, act.len)
 *        SEND_P2P    send out[0, act.len) to rank act.peer
 *        DELIVER     buf[act.off, act.off + act.len) is final (reported once per byte)
 *        COMPLETE    done, every rank holds the message;  ERROR: act.error
 *        NONE        nothing to do before act.wake_ns (call again then, or on input)
 *
 * Out holds one message and must have at least pm_mc_max_message() bytes; it may be
 * reused as soon as the action was carried out (copied or sent).  The engine calls
 * pm_mc_next only when it can carry out a send (backpressure); received data is copied
 * into buf by the state machine itself, only for chunks that are new and valid.
 *
 * Timeouts scale with the message and the network, never a fixed second: with B the
 * measured group bandwidth (bytes/s, EWMA over collectives, initially the parameter),
 * R the measured NACK->REPAIR round trip, C the chunk and E = M/B + (depth + 2) R:
 *   reorder allowance  T_ro = reorder_chunks C / B   (a hole is lost when 3 later chunks
 *                      arrived or nothing arrived for T_ro)
 *   NACK batching      max(T_ro, R/4);  retry  R + T_ro + requested/B, doubling per retry
 *   STATUS (root)      first T_ro + R after the last chunk, then doubling up to T_ka
 *   dead peer          T_dead = max(dead_min_ns, dead_factor E);  keepalives every T_dead/4
 *   silent fallback    nothing new for max(4 E, T_dead/16) after a first chunk: NACK what
 *                      the window let the root send (a receiver the group stopped reaching)
 * dead_min_ns is only a floor against descheduled processes (and arbitrary skew between
 * ranks entering the collective); the simulated tests set it low.
 */
#ifndef PM_MCPROTO_H
#define PM_MCPROTO_H

#include <stddef.h>
#include <stdint.h>

#include "mcast_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Wire format
 * ------------------------------------------------------------------------- */
#define PM_MC_MAGIC 0x4D43u
#define PM_MC_VERSION 1u
#define PM_MC_HDR_BYTES 40u
#define PM_MC_MAX_PAYLOAD 65535u
#define PM_MC_MAX_OFFSET ((1ull << 48) - 1)
#define PM_MC_AUTH_KEY_BYTES 16u /* AES-128 */
#define PM_MC_AUTH_TAG_BYTES 16u
#define PM_MC_AUTH_BYTES 28u     /* trailer: sender, counter, tag */

typedef enum {
    PM_MC_T_DATA = 1,
    PM_MC_T_STATUS = 2,
    PM_MC_T_NACK = 3,
    PM_MC_T_REPAIR = 4,
    PM_MC_T_ACK = 5,
    PM_MC_T_KEEPALIVE = 6,
    PM_MC_T_DONE = 7,
    PM_MC_T_ABORT = 8,
    PM_MC_T_PROBE = 9
} pm_mc_type_t;

typedef struct pm_mc_hdr {
    uint8_t version, type;
    uint32_t ctx;
    uint64_t job;
    uint32_t epoch, root, seq;
    uint32_t crc;     /* as received (pm_mc_parse) */
    uint64_t offset;  /* < 2^48 */
    uint32_t len;     /* payload bytes, <= PM_MC_MAX_PAYLOAD */
} pm_mc_hdr_t;

/* Classification of a received message; also the index of the per-class counters. */
typedef enum {
    PM_MC_RX_ACCEPTED = 0,   /* new data or a useful control message */
    PM_MC_RX_DUPLICATE,      /* data already held, or a redundant control message */
    PM_MC_RX_TRUNCATED,      /* shorter than the header or than header + len */
    PM_MC_RX_BAD_MAGIC,
    PM_MC_RX_BAD_VERSION,
    PM_MC_RX_BAD_TYPE,
    PM_MC_RX_BAD_LENGTH,     /* longer than header + len */
    PM_MC_RX_BAD_CRC,
    PM_MC_RX_FOREIGN_JOB,
    PM_MC_RX_FOREIGN_CTX,
    PM_MC_RX_STALE_EPOCH,    /* an earlier collective (late retransmission) */
    PM_MC_RX_FUTURE_EPOCH,   /* the next collective: the engine may keep it for then */
    PM_MC_RX_FAR_EPOCH,      /* beyond the next collective: never legitimate (a peer is at
                                most one collective ahead: the next needs us to finish) */
    PM_MC_RX_BAD_ROOT,
    PM_MC_RX_BAD_RANGE,      /* offset/len/seq inconsistent with the message or payload */
    PM_MC_RX_BAD_PEER,       /* a type this rank never gets from that sender or path */
    PM_MC_RX_BAD_AUTH,       /* a group datagram whose tag does not verify (forged) */
    PM_MC_RX_REPLAY,         /* a group datagram accepted before (captured and replayed) */
    PM_MC_RX_NCLASSES
} pm_mc_rx_t;

/* CRC32C (Castagnoli, reflected 0x82F63B78), continuing from `crc` (0 to start).
 * pm_mc_crc32c uses the SSE4.2 instruction when the CPU has it; _soft is the table
 * version alone (the unit test checks that both agree). */
uint32_t pm_mc_crc32c(uint32_t crc, const void *data, size_t len);
uint32_t pm_mc_crc32c_soft(uint32_t crc, const void *data, size_t len);

/* Encodes header (crc computed here; h->crc ignored) + payload into out.  Returns the
 * message length, or 0 when cap is too small or a field is out of range (len !=
 * payload_len, offset >= 2^48, len > PM_MC_MAX_PAYLOAD). */
size_t pm_mc_encode(const pm_mc_hdr_t *h, const void *payload, size_t payload_len, void *out,
                    size_t cap);

/* Parses and checks one message: magic, version, type, length and CRC (identity fields
 * are the state machine's business).  Returns PM_MC_RX_ACCEPTED with *h filled and
 * *payload pointing into msg, or the first failed check. */
pm_mc_rx_t pm_mc_parse(const void *msg, size_t len, pm_mc_hdr_t *h, const uint8_t **payload);

const char *pm_mc_rx_name(pm_mc_rx_t c);

/* ---------------------------------------------------------------------------
 * Protocol state machine
 * ------------------------------------------------------------------------- */
/* Status codes: the cores' one enum (mcast_status.h) under this header's names. */
typedef enum {
    PM_MC_OK = MCAST_OK,
    PM_MC_ERR_ARG = MCAST_ERR_ARG,             /* invalid parameter or call out of order */
    PM_MC_ERR_NOMEM = MCAST_ERR_NOMEM,
    PM_MC_ERR_INTERNAL = MCAST_ERR_INTERNAL,
    PM_MC_ERR_PEER_DEAD = MCAST_ERR_PEER_DEAD, /* a peer was silent for T_dead */
    PM_MC_ERR_ABORTED = MCAST_ERR_ABORTED,     /* another rank aborted this collective */
    PM_MC_ERR_SIZE = MCAST_ERR_SIZE,           /* the root's message size differs from ours */
    PM_MC_ERR_PROTOCOL = MCAST_ERR_PROTOCOL    /* e.g. DONE before holding every chunk */
} pm_mc_status_t;

typedef enum {
    PM_MC_REPAIR_RING = 0,     /* from the previous rank relative to the root */
    PM_MC_REPAIR_TREE = 1      /* from the ACK-tree parent */
} pm_mc_repair_t;

typedef struct pm_mc_params {
    uint64_t job;              /* job identity (e.g. FNV-1a of the PMIx namespace) */
    uint32_t ctx;              /* communicator context id */
    uint32_t rank, size;       /* this rank, communicator size (>= 1) */
    uint32_t chunk_bytes;      /* payload per DATA datagram, 16..65535; equal on all ranks */
    uint64_t window_bytes;     /* >= chunk_bytes; equal on all ranks */
    uint32_t ack_fanin;        /* ACK tree radix k >= 1 */
    uint32_t repair;           /* pm_mc_repair_t */
    uint32_t repair_chunks;    /* chunks per REPAIR message, >= 1 (capped: payload <= 65535) */
    uint32_t reorder_chunks;   /* later chunks that declare a hole lost, >= 1 */
    double bandwidth_Bps;      /* initial group bandwidth estimate (> 0) */
    double rtt_ns;             /* initial p2p round trip estimate (> 0) */
    double rate_Bps;           /* root pacing of group sends; 0 = as fast as accepted */
    double dead_factor;        /* T_dead = max(dead_min_ns, dead_factor * E) */
    uint64_t dead_min_ns;
    uint32_t auth;             /* 1: group datagrams carry and need the trailer (header) */
    uint8_t auth_key[PM_MC_AUTH_KEY_BYTES]; /* the communicator's key; equal on all ranks */
} pm_mc_params_t;

/* Defaults: chunk 1432 (MTU 1500), window 2 MiB, k = 8, ring repair, 11 chunks per
 * repair, reorder 3, 1 Gbit/s, 200 us, unpaced, dead_factor 8, dead_min 10 s, no
 * authentication.  job/ctx/rank/size and the key are zeroed: the caller sets them. */
void pm_mc_params_default(pm_mc_params_t *p);

typedef struct pm_mc_stats {
    uint64_t rx[PM_MC_RX_NCLASSES]; /* received messages per class (group and p2p) */
    uint64_t data_sent, data_bytes_sent;       /* DATA datagrams multicast */
    uint64_t status_sent, nack_sent, nack_chunks, nack_retries;
    uint64_t repair_sent, repair_bytes_sent, repair_bytes_rcvd;
    uint64_t ack_sent, keepalive_sent, done_sent, abort_sent;
    uint64_t delivered_bytes;
    uint64_t collectives, failures;
    int64_t error_peer;        /* last failure: the silent peer, or the ABORT's origin; -1 */
    double bandwidth_Bps, rtt_ns;               /* current estimates */
} pm_mc_stats_t;

typedef enum {
    PM_MC_ACT_NONE = 0,
    PM_MC_ACT_SEND_GROUP = 1,
    PM_MC_ACT_SEND_P2P = 2,
    PM_MC_ACT_DELIVER = 3,
    PM_MC_ACT_COMPLETE = 4,
    PM_MC_ACT_ERROR = 5
} pm_mc_act_kind_t;

typedef struct pm_mc_action {
    int kind;           /* pm_mc_act_kind_t */
    uint32_t peer;      /* SEND_P2P */
    uint64_t off, len;  /* DELIVER: buffer range; SEND_*: len = message bytes in out */
    int error;          /* ERROR: pm_mc_status_t */
    uint64_t wake_ns;   /* NONE: next call due (UINT64_MAX: only on input) */
} pm_mc_action_t;

typedef struct pm_mc pm_mc_t;

/* NULL on invalid parameters (*err = PM_MC_ERR_ARG) or no memory. */
pm_mc_t *pm_mc_create(const pm_mc_params_t *p, int *err);
void pm_mc_destroy(pm_mc_t *sm);
/* Largest message pm_mc_next writes (size of `out`; with authentication, the trailer
 * included). */
size_t pm_mc_max_message(const pm_mc_t *sm);

/* Authentication outside the protocol's own traffic (the transports' probe round, tests,
 * injectors).  pm_mc_seal appends the trailer with sm's key, rank and next counter (the
 * length unchanged without authentication); 0 when cap is too small.  pm_mc_open_group
 * checks a group datagram as pm_mc_on_datagram does (tag, sender, replay) and parses it,
 * without the protocol: PM_MC_RX_ACCEPTED with *h and *sender (the rank that sealed it).
 * pm_mc_seal_with seals with a given key, sender and counter (no state). */
size_t pm_mc_seal(pm_mc_t *sm, void *msg, size_t len, size_t cap);
pm_mc_rx_t pm_mc_open_group(pm_mc_t *sm, const void *msg, size_t len, pm_mc_hdr_t *h,
                            uint32_t *sender);
size_t pm_mc_seal_with(const uint8_t key[PM_MC_AUTH_KEY_BYTES], uint32_t sender,
                       uint64_t counter, void *msg, size_t len, size_t cap);
/* Chunk count of an M-byte message (0 for M = 0); PM_MC_ERR_ARG beyond 2^32 - 1 chunks
 * or 2^48 bytes. */
int pm_mc_chunks(const pm_mc_t *sm, uint64_t bytes, uint32_t *nchunks);

/* Start one broadcast.  The previous one must have reported COMPLETE or ERROR (or none
 * ran).  buf holds M bytes: the root's data (read while the collective runs; see
 * pm_mc_provide), the receivers' destination.  M = 0 or size 1 completes at once,
 * without messages, and consumes no epoch.  Epochs are equal on all ranks and count the
 * collectives that move data: e, e+1, e+2, ... (messages of e+1 are FUTURE, of later
 * ones FAR; see pm_mc_on_datagram). */
int pm_mc_start(pm_mc_t *sm, uint32_t epoch, uint32_t root, void *buf, uint64_t bytes,
                uint64_t now_ns);
/* Root only: bytes [0, ready) of buf may be sent (default after start: all M). */
int pm_mc_provide(pm_mc_t *sm, uint64_t ready);

/* Input.  Returns the classification (PM_MC_RX_*); invalid or foreign messages change
 * nothing but a counter.  A FUTURE_EPOCH message (epoch + 1: a rank already in the next
 * collective; before the first start: any epoch) may be kept by the engine and passed
 * again after the next start. */
pm_mc_rx_t pm_mc_on_datagram(pm_mc_t *sm, const void *msg, size_t len, uint64_t now_ns);
pm_mc_rx_t pm_mc_on_p2p(pm_mc_t *sm, uint32_t src, const void *msg, size_t len, uint64_t now_ns);

/* Output (and timers): fills *act; see the header comment.  PM_MC_ERR_ARG when cap <
 * pm_mc_max_message(). */
int pm_mc_next(pm_mc_t *sm, uint64_t now_ns, pm_mc_action_t *act, void *out, size_t cap);

/* 1 while a started collective has not reported COMPLETE/ERROR. */
int pm_mc_active(const pm_mc_t *sm);
/* Ends a running collective with an error of the caller (e.g. a failed send): ABORT goes
 * to the peers, then ERROR(err) is reported by pm_mc_next. */
int pm_mc_abort(pm_mc_t *sm, int err);
void pm_mc_get_stats(const pm_mc_t *sm, pm_mc_stats_t *st);
const char *pm_mc_strerror(int err);

/* ---------------------------------------------------------------------------
 * Simulated lossy network (tests and deterministic measurements): n state machines on
 * a star switch, each host link shaped to link_Bps in both directions (FIFO,
 * store-and-forward, `latency_ns` per hop).  Group datagrams are replicated by the
 * switch; each copy is dropped with probability `loss`, duplicated with `dup` and
 * delayed by up to reorder_ns with `reorder` (reordering it); point-to-point messages
 * are reliable and FIFO per pair (as MPI's PML).  A rank may not send group datagrams
 * while sndbuf_bytes are queued on its uplink; a receiver spends rx_cpu_ns per message
 * and drops group datagrams beyond rcvbuf_bytes of unprocessed input (0 = unbounded).
 * dead_rank never starts; rank r starts at a seeded random time in [0, start_skew_ns].
 * An outside host injects `foreign` datagrams into the group during the run, cycling
 * through other job, other communicator, stale, next and far epoch, corrupted CRC,
 * truncation, bad magic/version/type, wrong root, out-of-range and misaligned offsets;
 * with proto.auth also DATA right in every field, a STATUS claiming 2^60 bytes and ABORTs,
 * sealed under a key of its own, and it captures foreign / 8 genuine group datagrams and
 * sends them again later (replays).
 * ------------------------------------------------------------------------- */
typedef struct pm_mcsim_params {
    uint32_t n, root;
    uint64_t bytes;
    pm_mc_params_t proto;      /* rank and size are set per rank by the simulator */
    double link_Bps;           /* > 0 */
    uint64_t latency_ns;
    uint32_t frame_overhead;   /* wire bytes per message beyond ours (Ethernet+IP+UDP: 42) */
    double loss, dup, reorder; /* probabilities per group datagram copy */
    uint64_t reorder_ns;
    uint64_t rx_cpu_ns;
    uint64_t sndbuf_bytes, rcvbuf_bytes;
    int dead_rank;             /* -1: none */
    uint64_t start_skew_ns;
    uint32_t foreign;          /* foreign datagrams to inject */
    uint32_t epoch;
    uint64_t seed;
    uint64_t max_time_ns;      /* a rank still running then = hang (reported) */
} pm_mcsim_params_t;

void pm_mcsim_params_default(pm_mcsim_params_t *p);

typedef struct pm_mcsim_rank {
    int status;                /* PM_MC_OK, a pm_mc_status_t error, or 1 = still running */
    uint64_t finish_ns;
    uint64_t up_bytes, down_bytes;  /* wire bytes on the host link (incl. frame overhead) */
    uint64_t rcvbuf_drops;
    pm_mc_stats_t stats;
} pm_mcsim_rank_t;

typedef struct pm_mcsim_result {
    uint64_t end_ns;           /* when the last live rank finished (or max_time_ns) */
    int hung;                  /* live ranks still running at max_time_ns */
    uint64_t group_copies_dropped, group_copies_duplicated, foreign_injected;
} pm_mcsim_result_t;

typedef void (*pm_mcsim_deliver_fn)(void *ctx, uint32_t rank, uint64_t off, uint64_t len);

/* bufs[r]: rank r's M-byte buffer (the root's holds the data).  deliver (optional) sees
 * every DELIVER action.  ranks: n entries.  PM_MC_OK, or PM_MC_ERR_ARG/NOMEM. */
int pm_mcsim_run(const pm_mcsim_params_t *p, void *const *bufs, pm_mcsim_deliver_fn deliver,
                 void *ctx, pm_mcsim_rank_t *ranks, pm_mcsim_result_t *res);

#ifdef __cplusplus
}
#endif
#endif /* PM_MCPROTO_H */
