/*
 * Smoke driver for the fuzz target (make check; no libFuzzer needed): runs every
 * corpus input (hex text, see corpus/README), then a fixed number of deterministic
 * mutations of each (bit flips, byte writes, truncation, duplication of a span), and
 * prints how many inputs ran.  `--write-corpus DIR` writes the seed corpus.
 *
 *   fuzz_smoke [--mutations N] FILE...          exit 0, or abort() inside the target
 *   fuzz_smoke --write-corpus DIR
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_mcproto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXIN (1u << 20)

static size_t read_hex(const char *path, uint8_t *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t n = 0;
    int c, hi = -1;
    while ((c = fgetc(f)) != EOF) {
        if (c == '#') {
            while ((c = fgetc(f)) != EOF && c != '\n') {}
            continue;
        }
        int v = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (v < 0) continue;
        if (hi < 0) {
            hi = v;
        } else {
            if (n < cap) out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    fclose(f);
    return n;
}

/* --- corpus writer ------------------------------------------------------------ */
static uint8_t rec[1 << 16];
static size_t rlen;

static void add(uint8_t flags, const pm_mc_hdr_t *h, const void *pl, size_t plen)
{
    uint8_t m[PM_MC_HDR_BYTES + 4096];
    size_t len = pm_mc_encode(h, pl, plen, m, sizeof m);
    rec[rlen++] = flags;
    rec[rlen++] = (uint8_t)(len >> 8);
    rec[rlen++] = (uint8_t)len;
    memcpy(rec + rlen, m, len);
    rlen += len;
}

static void write_file(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.hex", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fprintf(f, "# fuzz_mcproto seed %s (written by fuzz_smoke --write-corpus)\n", name);
    for (size_t i = 0; i < rlen; ++i) fprintf(f, "%02x%s", rec[i], (i % 32 == 31 || i + 1 == rlen) ? "\n" : "");
    fclose(f);
}

static pm_mc_hdr_t hdr(uint8_t type, uint32_t seq, uint64_t off, uint32_t len)
{
    pm_mc_hdr_t h = {PM_MC_VERSION, type, 7, 0x6a6f62ull, 5, 0, seq, 0, off, len};
    return h;
}

static void write_corpus(const char *dir)
{
    uint8_t pl[4096];
    memset(pl, 0x42, sizeof pl);
    /* control byte: role | repair | size selector (6 = 5000 bytes = 79 chunks of 64) */
    static const struct { const char *name; uint8_t ctl; } roles[] = {
        {"root", 0 | 6 << 3}, {"interior", 1 | 6 << 3}, {"leaf", 2 | 6 << 3}, {"ring", 3 | 6 << 3 | 4}};
    char name[64];
    for (size_t r = 0; r < 4; ++r) {
        uint8_t ctl = roles[r].ctl;
        /* the whole stream, then DONE from the parent (leaf: rank 7's parent is 3) */
        rlen = 0;
        rec[rlen++] = ctl;
        for (uint32_t c = 0; c < 79; ++c) {
            pm_mc_hdr_t h = hdr(PM_MC_T_DATA, c, (uint64_t)c * 64, c == 78 ? 5000 - 78 * 64 : 64);
            add(6, &h, pl, h.len);
        }
        pm_mc_hdr_t d = hdr(PM_MC_T_DONE, 79, 0, 0);
        add(1 | 2 | 4 | (3 << 3), &d, NULL, 0);
        snprintf(name, sizeof name, "%s-stream", roles[r].name);
        write_file(dir, name);
        /* every control type once, from peers 0..4 */
        rlen = 0;
        rec[rlen++] = ctl;
        uint8_t bm[3] = {0xA5, 0x01, 0x80};
        pm_mc_hdr_t h = hdr(PM_MC_T_NACK, 10, 0, 3);
        add(1 | 6 | (2 << 3), &h, bm, 3);
        h = hdr(PM_MC_T_REPAIR, 4, 256, 192);
        add(1 | 6 | (0 << 3), &h, pl, 192);
        h = hdr(PM_MC_T_ACK, 40, 0, 0);
        add(1 | 6 | (3 << 3), &h, NULL, 0);
        h = hdr(PM_MC_T_KEEPALIVE, 0, 0, 0);
        add(1 | 6 | (1 << 3) | (2 << 6), &h, NULL, 0);
        uint8_t st[16] = {0, 0, 0, 0, 0, 0, 0x13, 0x88, 0, 0, 0, 79, 0, 0, 0, 64};
        h = hdr(PM_MC_T_STATUS, 1, 0, 16);
        add(6, &h, st, 16);
        uint8_t code[4] = {0xFF, 0xFF, 0xFF, 0xF5};
        h = hdr(PM_MC_T_ABORT, 4, 0, 4);
        add(6 | (3 << 6), &h, code, 4);
        h = hdr(PM_MC_T_PROBE, 3, 0, 4);
        add(6, &h, code, 4);
        snprintf(name, sizeof name, "%s-control", roles[r].name);
        write_file(dir, name);
    }
    /* foreign and malformed datagrams (no fix-up flags) */
    rlen = 0;
    rec[rlen++] = 2 | 6 << 3;
    pm_mc_hdr_t h = hdr(PM_MC_T_DATA, 3, 192, 64);
    h.job = 1;
    add(0, &h, pl, 64);
    h = hdr(PM_MC_T_DATA, 3, 192, 64);
    h.epoch = 4;
    add(0, &h, pl, 64);
    h = hdr(PM_MC_T_DATA, 3, 193, 64);
    add(0, &h, pl, 64);
    write_file(dir, "foreign");
}

/* --- mutations ------------------------------------------------------------------ */
static uint64_t rs = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static size_t mutate(uint8_t *b, size_t n, size_t cap)
{
    int k = 1 + (int)(rnd() % 4);
    while (k--) {
        if (n == 0) return n;
        switch (rnd() % 6) {
        case 0: b[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8)); break;
        case 1: b[rnd() % n] = (uint8_t)rnd(); break;
        case 2: n = rnd() % (n + 1); break;
        case 3: { /* duplicate a span */
            size_t a = rnd() % n, l = rnd() % (n - a) + 1;
            if (n + l <= cap) {
                memmove(b + a + l, b + a, n - a);
                n += l;
            }
            break;
        }
        case 4: b[0] = (uint8_t)rnd(); break; /* role/size */
        default: { /* an interesting 32-bit value somewhere */
            static const uint32_t v[] = {0, 1, 0x7FFFFFFFu, 0xFFFFFFFFu, 79, 78, 80, 65535};
            if (n >= 4) {
                size_t a = rnd() % (n - 3);
                uint32_t x = v[rnd() % 8];
                b[a] = (uint8_t)(x >> 24);
                b[a + 1] = (uint8_t)(x >> 16);
                b[a + 2] = (uint8_t)(x >> 8);
                b[a + 3] = (uint8_t)x;
            }
            break;
        }
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    long mutations = 200;
    int i = 1;
    if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0) {
        write_corpus(argv[2]);
        return 0;
    }
    if (argc > 2 && strcmp(argv[1], "--mutations") == 0) {
        mutations = atol(argv[2]);
        i = 3;
    }
    static uint8_t in[MAXIN], buf[MAXIN];
    long runs = 0, files = 0;
    for (; i < argc; ++i) {
        size_t n = read_hex(argv[i], in, MAXIN);
        LLVMFuzzerTestOneInput(in, n);
        ++runs;
        ++files;
        for (long m = 0; m < mutations; ++m) {
            memcpy(buf, in, n);
            size_t k = mutate(buf, n, MAXIN);
            LLVMFuzzerTestOneInput(buf, k);
            ++runs;
        }
    }
    printf("fuzz_smoke: %ld corpus files, %ld inputs, no finding\n", files, runs);
    return files ? 0 : 2;
}
