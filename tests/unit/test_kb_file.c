/*
 * kb_file_read (bounded reading of parser input) and the rules parser's limits:
 * regular files only (a directory, /dev/zero, a FIFO are refused before a byte is
 * read, a FIFO without blocking), the size bound at every size around it, NUL
 * bytes with their line, strerror in "cannot open file", the digest; rules lines
 * and counts at their limits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "kb_file.h"
#include "kbinomial.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/test_kb_file.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *path_of(const char *name)
{
    static char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static uint64_t fnv(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; ++i) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h;
}

/* Every size from 0 to 3 * max: read exactly when size <= max, refused above. */
static void test_sizes(void **state)
{
    (void)state;
    char buf[64], err[256];
    for (size_t i = 0; i < sizeof buf; ++i) buf[i] = (char)('a' + i % 26);
    for (size_t max = 0; max <= 16; ++max) {
        for (size_t size = 0; size <= 3 * max + 1; ++size) {
            const char *p = path_of("sized");
            write_file(p, buf, size);
            char *text = (char *)0x1;
            size_t len = 99;
            int rc = kb_file_read(p, max, &text, &len, err, sizeof err);
            if (size <= max) {
                assert_int_equal(rc, KB_OK);
                assert_int_equal(len, size);
                assert_memory_equal(text, buf, size);
                assert_int_equal(text[size], '\0');
                assert_true(kb_digest64(text, len) == fnv(buf, size));
                free(text);
            } else {
                assert_int_equal(rc, KB_FILE_ERR_IO);
                assert_null(text);
                char want[256];
                snprintf(want, sizeof want, "%s:0: file larger than %zu bytes", p, max);
                assert_string_equal(err, want);
            }
        }
    }
}

static void expect_io(const char *path, const char *want_suffix)
{
    char err[256] = "", *text = NULL, want[512];
    size_t len;
    assert_int_equal(kb_file_read(path, 1 << 20, &text, &len, err, sizeof err), KB_FILE_ERR_IO);
    assert_null(text);
    snprintf(want, sizeof want, "%s:0: %s", path, want_suffix);
    assert_string_equal(err, want);
}

static void test_not_regular(void **state)
{
    (void)state;
    expect_io(dir, "not a regular file (a directory)");
    expect_io("/dev/zero", "not a regular file (a character device)");
    const char *fifo = path_of("fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    expect_io(fifo, "not a regular file (a FIFO)");   /* would block forever without O_NONBLOCK */
    expect_io(path_of("missing"), "cannot open file: No such file or directory");
    if (geteuid() != 0) {   /* root reads anything */
        const char *p = path_of("noperm");
        write_file(p, "x", 1);
        assert_int_equal(chmod(p, 0), 0);
        expect_io(p, "cannot open file: Permission denied");
    }
}

static void test_nul_and_digest(void **state)
{
    (void)state;
    char err[256], *text = NULL, want[256];
    size_t len;
    const char *p = path_of("bin");
    write_file(p, "a\nb\nc\0d\n", 8);
    assert_int_equal(kb_file_read(p, 100, &text, &len, err, sizeof err), KB_FILE_ERR_BINARY);
    assert_null(text);
    snprintf(want, sizeof want, "%s:3: binary file (NUL byte)", p);
    assert_string_equal(err, want);
    assert_int_equal(kb_file_read(NULL, 1, &text, &len, err, sizeof err), KB_ERR_ARG);
    assert_int_equal(kb_file_read(p, 1, NULL, &len, err, sizeof err), KB_ERR_ARG);
    /* one flipped bit anywhere changes the digest */
    char a[32];
    for (size_t i = 0; i < sizeof a; ++i) a[i] = (char)i;
    uint64_t d = kb_digest64(a, sizeof a);
    for (size_t i = 0; i < sizeof a; ++i)
        for (int bit = 0; bit < 8; ++bit) {
            a[i] ^= (char)(1 << bit);
            assert_true(kb_digest64(a, sizeof a) != d);
            a[i] ^= (char)(1 << bit);
        }
    assert_true(kb_digest64(a, sizeof a) == d);
}

/* The rules file goes through the same reader (issue 18: a directory was an empty table). */
static void test_rules_files(void **state)
{
    (void)state;
    kb_rules_t *r = (kb_rules_t *)0x1;
    char err[256], want[256];
    assert_int_equal(kb_rules_load(dir, &r, err, sizeof err), KB_ERR_ARG);
    assert_null(r);
    snprintf(want, sizeof want, "%s:0: not a regular file (a directory)", dir);
    assert_string_equal(err, want);
    assert_int_equal(kb_rules_load("/dev/zero", &r, err, sizeof err), KB_ERR_ARG);
    assert_string_equal(err, "/dev/zero:0: not a regular file (a character device)");
    const char *p = path_of("rules");
    write_file(p, "* * linear\n", 11);
    assert_int_equal(kb_rules_load(p, &r, err, sizeof err), KB_OK);
    assert_int_equal(kb_rules_count(r), 1);
    kb_rules_free(r);
}

static void test_rules_limits(void **state)
{
    (void)state;
    kb_rules_t *r = NULL;
    char err[256];
    /* a line of exactly KB_RULES_MAX_LINE_BYTES parses, one byte more does not */
    size_t n = KB_RULES_MAX_LINE_BYTES;
    char *text = malloc(2 * n + 64);
    assert_non_null(text);
    strcpy(text, "# first\n* * linear");
    size_t at = strlen(text);
    while (at - 8 < n) text[at++] = ' ';
    text[at] = '\0';
    assert_int_equal(at - 8, n);
    assert_int_equal(kb_rules_parse(text, "t", &r, err, sizeof err), KB_OK);
    kb_rules_free(r);
    strcpy(text + at, " \n");
    assert_int_equal(kb_rules_parse(text, "t", &r, err, sizeof err), KB_ERR_ARG);
    assert_null(r);
    assert_string_equal(err, "t:2: line too long (limit 4096)");
    free(text);
    /* KB_RULES_MAX_RULES rules parse; one more is refused at its line */
    const char *line = "* * linear\n";
    size_t ll = strlen(line);
    text = malloc(ll * (KB_RULES_MAX_RULES + 1) + 1);
    assert_non_null(text);
    for (int i = 0; i <= KB_RULES_MAX_RULES; ++i) memcpy(text + i * ll, line, ll);
    text[ll * KB_RULES_MAX_RULES] = '\0';
    assert_int_equal(kb_rules_parse(text, "t", &r, err, sizeof err), KB_OK);
    assert_int_equal(kb_rules_count(r), KB_RULES_MAX_RULES);
    kb_rules_free(r);
    text[ll * KB_RULES_MAX_RULES] = line[0];
    text[ll * (KB_RULES_MAX_RULES + 1)] = '\0';
    assert_int_equal(kb_rules_parse(text, "t", &r, err, sizeof err), KB_ERR_ARG);
    assert_string_equal(err, "t:10001: too many rules (limit 10000)");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),        cmocka_unit_test(test_not_regular),
        cmocka_unit_test(test_nul_and_digest), cmocka_unit_test(test_rules_files),
        cmocka_unit_test(test_rules_limits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
