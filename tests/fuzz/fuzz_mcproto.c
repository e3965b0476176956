/*
 * Fuzz target for the multicast protocol's input path: the datagram parser and the
 * state machine's handling of every parsed message (group and point-to-point), with
 * the user buffer allocated to its exact size so that any write outside it is caught
 * by AddressSanitizer.
 *
 * Input: a control byte, then records  [flags u8][len u16 big-endian][len bytes]:
 *   control  bit 0-1: role (0 root, 1 interior rank 1, 2 leaf rank 7, 3 rank 2)
 *            bit 2: tree repair (else ring);  bits 3-7: message size selector
 *   flags    bit 0: send as point-to-point (else group datagram)
 *            bit 1: fix the CRC32C (so the fuzzer reaches the per-type checks)
 *            bit 2: fix the identity (job, ctx, epoch, root) before the CRC
 *            bits 3-5: source rank for point-to-point;  bits 6-7: time step class
 * After each record the state machine is driven (pm_mc_next until NONE, at most 64
 * actions); every action must be well formed (sends parse back, deliveries in range).
 * Built with libFuzzer (tests/fuzz/run-libfuzzer.sh) or with the smoke driver
 * (fuzz_smoke.c, make check).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pm_mcproto.h"

#define FZ_JOB 0x6a6f62ull
#define FZ_CTX 7u
#define FZ_EPOCH 5u
#define FZ_SIZE 8u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond) abort();
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void drive(pm_mc_t *sm, uint64_t now, uint8_t *out, size_t cap, uint64_t bytes, int is_root)
{
    for (int i = 0; i < 64; ++i) {
        pm_mc_action_t a;
        check(pm_mc_next(sm, now, &a, out, cap) == PM_MC_OK);
        switch (a.kind) {
        case PM_MC_ACT_NONE: return;
        case PM_MC_ACT_SEND_GROUP:
        case PM_MC_ACT_SEND_P2P: {
            pm_mc_hdr_t h;
            check(a.len >= PM_MC_HDR_BYTES && a.len <= cap);
            check(pm_mc_parse(out, a.len, &h, NULL) == PM_MC_RX_ACCEPTED);
            check(h.job == FZ_JOB && h.ctx == FZ_CTX && h.epoch == FZ_EPOCH);
            if (a.kind == PM_MC_ACT_SEND_P2P) check(a.peer < FZ_SIZE);
            break;
        }
        case PM_MC_ACT_DELIVER:
            check(!is_root && a.len > 0 && a.off + a.len <= bytes);
            break;
        case PM_MC_ACT_COMPLETE:
        case PM_MC_ACT_ERROR: return;
        default: check(0);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t ranks[4] = {0, 1, 7, 2};
    static const uint64_t sizes[8] = {1, 63, 64, 65, 1000, 4096, 5000, 20000};
    if (size < 1) return 0;
    /* the bare parser on the whole input */
    pm_mc_hdr_t h;
    const uint8_t *pl = NULL;
    if (pm_mc_parse(data, size, &h, &pl) == PM_MC_RX_ACCEPTED) check(pl == data + PM_MC_HDR_BYTES && h.len == size - PM_MC_HDR_BYTES);

    uint8_t ctl = data[0];
    pm_mc_params_t p;
    pm_mc_params_default(&p);
    p.job = FZ_JOB;
    p.ctx = FZ_CTX;
    p.size = FZ_SIZE;
    p.rank = ranks[ctl & 3];
    p.repair = (ctl & 4) ? PM_MC_REPAIR_TREE : PM_MC_REPAIR_RING;
    p.ack_fanin = 2;
    p.chunk_bytes = 64;
    p.repair_chunks = 4;
    p.window_bytes = 64 * 16;
    p.dead_min_ns = 1000000;
    p.dead_factor = 4;
    int err;
    pm_mc_t *sm = pm_mc_create(&p, &err);
    check(sm != NULL);
    uint64_t bytes = sizes[(ctl >> 3) & 7];
    uint8_t *buf = malloc(bytes);
    check(buf != NULL);
    memset(buf, 0x5A, bytes);
    size_t cap = pm_mc_max_message(sm);
    uint8_t *out = malloc(cap);
    check(out != NULL);
    uint64_t now = 1000;
    check(pm_mc_start(sm, FZ_EPOCH, 0, buf, bytes, now) == PM_MC_OK);
    drive(sm, now, out, cap, bytes, p.rank == 0);

    uint8_t msg[PM_MC_HDR_BYTES + PM_MC_MAX_PAYLOAD];
    size_t at = 1;
    for (int rec = 0; rec < 32 && at + 3 <= size; ++rec) {
        uint8_t flags = data[at];
        size_t len = (size_t)data[at + 1] << 8 | data[at + 2];
        at += 3;
        if (len > size - at) len = size - at;
        memcpy(msg, data + at, len);
        at += len;
        if (len >= PM_MC_HDR_BYTES) {
            if (flags & 4) {
                put32(msg + 4, FZ_CTX);
                for (int i = 0; i < 8; ++i) msg[8 + i] = (uint8_t)(FZ_JOB >> (56 - 8 * i));
                put32(msg + 16, FZ_EPOCH);
                put32(msg + 20, 0);
            }
            if (flags & 2) {
                put32(msg + 28, 0);
                put32(msg + 28, pm_mc_crc32c(0, msg, len));
            }
        }
        static const uint64_t steps[4] = {0, 1000, 1000000, 50000000};
        now += steps[flags >> 6];
        if (flags & 1)
            pm_mc_on_p2p(sm, (flags >> 3) & 7, msg, len, now);
        else
            pm_mc_on_datagram(sm, msg, len, now);
        drive(sm, now, out, cap, bytes, p.rank == 0);
    }
    /* run the clock out: every collective ends (COMPLETE or ERROR), none hangs */
    for (int i = 0; i < 200 && pm_mc_active(sm); ++i) {
        now += 20000000;
        drive(sm, now, out, cap, bytes, p.rank == 0);
    }
    check(!pm_mc_active(sm));
    free(out);
    free(buf);
    pm_mc_destroy(sm);
    return 0;
}
