/*
 * kb_param_int / _size / _double (strict reading of MCA parameter text): every int
 * around the type's bounds and powers of two, written in decimal, hex and octal, with
 * each suffix spelling and surrounding white space, is read back exactly and agrees
 * with Open MPI 4.1's lenient reading of the same text (modelled below); the same texts
 * with anything appended, out of the type's range, empty, or (sizes) negative are
 * refused.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kb_param.h"
#include "kbinomial.h"

/* Open MPI 4.1's reading of an integer parameter (opal/mca/base/mca_base_var.c,
 * int_from_string): strtoull in base 0, then a K, M or G right after the number
 * shifts by 10, 20, 30 bits, and everything else that follows is ignored. */
static uint64_t ompi_reading(const char *text)
{
    char *end = NULL;
    uint64_t v = strtoull(text, &end, 0);
    if (end != text) {
        switch (*end) {
        case 'g': case 'G': v <<= 30; break;
        case 'm': case 'M': v <<= 20; break;
        case 'k': case 'K': v <<= 10; break;
        default: break;
        }
    }
    return v;
}

static const char *const suffixes[] = {"", "k", "K", "kb", "KB", "KiB", "m", "MB", "g", "GiB"};
static int shift_of(const char *suffix)
{
    switch (suffix[0]) {
    case 'k': case 'K': return 10;
    case 'm': case 'M': return 20;
    case 'g': case 'G': return 30;
    default: return 0;
    }
}

/* Ints around every power of two and the type's bounds. */
static int64_t sample(int i, int *n)
{
    static int64_t v[200];
    static int count = 0;
    if (0 == count) {
        v[count++] = 0;
        for (int b = 0; b < 32; b++) {
            const int64_t p = (int64_t) 1 << b;
            v[count++] = p - 1;
            v[count++] = p;
            v[count++] = p + 1;
            v[count++] = -p;
            v[count++] = -p - 1;
        }
        v[count++] = INT_MAX;
        v[count++] = INT_MIN;
    }
    *n = count;
    return v[i];
}

static void write_int(char *buf, size_t len, int64_t v, int base, const char *suffix,
                      const char *pad)
{
    const char *sign = v < 0 ? "-" : "";
    const uint64_t m = v < 0 ? (uint64_t) -v : (uint64_t) v;
    if (16 == base) {
        snprintf(buf, len, "%s%s0x%llx%s%s", pad, sign, (unsigned long long) m, suffix, pad);
    } else if (8 == base) {
        snprintf(buf, len, "%s%s0%llo%s%s", pad, sign, (unsigned long long) m, suffix, pad);
    } else {
        snprintf(buf, len, "%s%s%llu%s%s", pad, sign, (unsigned long long) m, suffix, pad);
    }
}

static void test_int_round_trip(void **state)
{
    (void) state;
    static const int bases[] = {10, 16, 8};
    static const char *const pads[] = {"", " ", "\t "};
    int n = 0;
    sample(0, &n);
    for (int i = 0; i < n; i++) {
        const int64_t v = sample(i, &n);
        for (size_t s = 0; s < sizeof(suffixes) / sizeof(suffixes[0]); s++) {
            const int shift = shift_of(suffixes[s]);
            const int64_t scaled = v * ((int64_t) 1 << shift); /* |v| < 2^32: no overflow */
            const int in_range = scaled >= INT_MIN && scaled <= INT_MAX;
            for (int b = 0; b < 3; b++) {
                for (int p = 0; p < 3; p++) {
                    char text[96];
                    write_int(text, sizeof(text), v, bases[b], suffixes[s], pads[p]);
                    int got = 12345;
                    const int rc = kb_param_int(text, &got);
                    if (in_range) {
                        if (KB_OK != rc || got != scaled) {
                            fail_msg("\"%s\": rc %d, %d, want %lld", text, rc, got,
                                     (long long) scaled);
                        }
                        /* Open MPI reads the same int from it */
                        assert_int_equal((int) ompi_reading(text), got);
                    } else if (KB_ERR_ARG != rc) {
                        fail_msg("\"%s\" (%lld) is outside int, accepted as %d", text,
                                 (long long) scaled, got);
                    }
                }
            }
        }
    }
}

static void test_int_refused(void **state)
{
    (void) state;
    static const char *const junk[] = {"x", ".5", "e3", "abc", "kk", "kbx", "%", "-", "k k", "0x"};
    static const char *const bad[] = {"", " ", "bogus", "-", "+", "0x", "--1", "- 1", "1 2",
                                      "2147483648", "-2147483649", "4294967296",
                                      "0x80000000", "2097152k", "2048m", "2g",
                                      "99999999999999999999999", "1.5", "1e3", "12abc", "0b1",
                                      "1kib2"};
    int x = 7;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (KB_ERR_ARG != kb_param_int(bad[i], &x)) {
            fail_msg("\"%s\" accepted as %d", bad[i], x);
        }
    }
    int n = 0;
    sample(0, &n);
    for (int i = 0; i < n; i++) {
        for (size_t j = 0; j < sizeof(junk) / sizeof(junk[0]); j++) {
            char text[96];
            char base[64];
            write_int(base, sizeof(base), sample(i, &n), 10, "", "");
            snprintf(text, sizeof(text), "%s%s", base, junk[j]);
            if (KB_ERR_ARG != kb_param_int(text, &x)) {
                fail_msg("\"%s\" accepted as %d", text, x);
            }
        }
    }
    assert_int_equal(x, 7); /* never written on refusal */
    assert_int_equal(kb_param_int(NULL, &x), KB_ERR_ARG);
    assert_int_equal(kb_param_int("1", NULL), KB_ERR_ARG);
}

static void test_size(void **state)
{
    (void) state;
    size_t z = 0;
    for (int b = 0; b < 64; b++) {
        const uint64_t v = (uint64_t) 1 << b;
        for (int d = -1; d <= 1; d++) {
            char text[64];
            snprintf(text, sizeof(text), "%llu", (unsigned long long) (v + (uint64_t) d));
            assert_int_equal(kb_param_size(text, &z), KB_OK);
            assert_true(z == v + (uint64_t) d);
            assert_true(z == ompi_reading(text));
            for (size_t s = 1; s < sizeof(suffixes) / sizeof(suffixes[0]); s++) {
                const int shift = shift_of(suffixes[s]);
                const uint64_t m = v + (uint64_t) d;
                snprintf(text, sizeof(text), "%llu%s", (unsigned long long) m, suffixes[s]);
                const int rc = kb_param_size(text, &z);
                if (m <= (UINT64_MAX >> shift)) {
                    assert_int_equal(rc, KB_OK);
                    assert_true(z == m << shift);
                    assert_true(z == ompi_reading(text));
                } else {
                    assert_int_equal(rc, KB_ERR_ARG);
                }
            }
        }
    }
    assert_int_equal(kb_param_size("18446744073709551615", &z), KB_OK);
    assert_true(z == SIZE_MAX);
    assert_int_equal(kb_param_size(" 0x10k ", &z), KB_OK);
    assert_true(z == 16384);
    static const char *const bad[] = {"", "garbage", "-1", "-0", " -5", "+-1",
                                      "18446744073709551616", "17179869184G", "1.5M", "64kx",
                                      "4096 bytes", "1e6"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        z = 99;
        if (KB_ERR_ARG != kb_param_size(bad[i], &z) || 99 != z) {
            fail_msg("\"%s\" accepted as %zu", bad[i], z);
        }
    }
    assert_int_equal(kb_param_size(NULL, &z), KB_ERR_ARG);
}

static void test_double(void **state)
{
    (void) state;
    static const struct {
        const char *text;
        double value;
    } good[] = {{"0", 0.0}, {"1", 1.0}, {"1.5", 1.5}, {" 2.5 ", 2.5}, {"1e6", 1e6},
                {"-3", -3.0}, {"0x1p3", 8.0}, {".25", 0.25}};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        double d = -1.0;
        assert_int_equal(kb_param_double(good[i].text, &d), KB_OK);
        assert_true(d == good[i].value);
        assert_true(d == strtod(good[i].text, NULL)); /* what Open MPI reads */
    }
    static const char *const bad[] = {"", " ", "bogus", "1.5x", "nan", "inf", "-inf",
                                      "1e999", "2,5", "1 2"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        double d = 42.0;
        if (KB_ERR_ARG != kb_param_double(bad[i], &d) || 42.0 != d) {
            fail_msg("\"%s\" accepted as %g", bad[i], d);
        }
    }
    double d = 0.0;
    assert_int_equal(kb_param_double(NULL, &d), KB_ERR_ARG);
    assert_int_equal(kb_param_double("1", NULL), KB_ERR_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_round_trip),
        cmocka_unit_test(test_int_refused),
        cmocka_unit_test(test_size),
        cmocka_unit_test(test_double),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
