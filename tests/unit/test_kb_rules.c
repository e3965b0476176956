/*
 * Decision rules of the k-binomial core (kb_rules_*): the format, first match
 * wins, locality, suffixes and open ranges, errors with file:line, the checksum
 * that lets ranks check they read the same table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kbinomial.h"

static const char *table =
    "# ranks bytes algorithm options\n"
    "2-8   0-1023    postal\n"
    "2-8   1k-64K    kbinomial k=2 segment_bytes=8k   # a comment\n"
    "*     1m-       linear where=net\n"
    "9-    *         binomial where=node\n"
    "\n"
    "*     *         auto\n";

static kb_rules_t *parse(const char *text)
{
    kb_rules_t *r;
    char err[256];
    if (kb_rules_parse(text, "t", &r, err, sizeof err) != KB_OK) fail_msg("%s", err);
    return r;
}

static void test_match(void **state)
{
    (void)state;
    kb_rules_t *r = parse(table);
    kb_rule_t m;
    assert_int_equal(kb_rules_count(r), 5);
    assert_int_equal(kb_rules_match(r, 4, 100, 1, &m), 1);
    assert_string_equal(m.algorithm, "postal");
    assert_int_equal(m.line, 2);
    assert_int_equal(m.k, 0);
    assert_int_equal(m.segment_bytes, 0);
    assert_int_equal(kb_rules_match(r, 8, 1023, 0, &m), 1);
    assert_string_equal(m.algorithm, "postal");
    assert_int_equal(kb_rules_match(r, 8, 1024, 0, &m), 1);   /* 1k = 1024 */
    assert_string_equal(m.algorithm, "kbinomial");
    assert_int_equal(m.k, 2);
    assert_int_equal(m.segment_bytes, 8192);
    assert_int_equal(m.line, 3);
    assert_int_equal(kb_rules_match(r, 2, 65536, 1, &m), 1);
    assert_string_equal(m.algorithm, "kbinomial");
    assert_int_equal(kb_rules_match(r, 2, 65537, 1, &m), 1);   /* not net: falls to auto */
    assert_string_equal(m.algorithm, "auto");
    assert_int_equal(kb_rules_match(r, 2, 1 << 20, 0, &m), 1); /* net, open range */
    assert_string_equal(m.algorithm, "linear");
    assert_int_equal(kb_rules_match(r, 100, (size_t)1 << 40, 0, &m), 1);
    assert_string_equal(m.algorithm, "linear");
    assert_int_equal(kb_rules_match(r, 100, 5, 1, &m), 1);
    assert_string_equal(m.algorithm, "binomial");
    assert_int_equal(kb_rules_match(r, 100, 5, 0, &m), 1);
    assert_string_equal(m.algorithm, "auto");
    assert_int_equal(kb_rules_get(r, 1, &m), KB_OK);
    assert_string_equal(m.algorithm, "kbinomial");
    assert_int_equal(kb_rules_get(r, 5, &m), KB_ERR_ARG);
    kb_rules_free(r);
    /* no line matches */
    r = parse("2 * linear\n");
    assert_int_equal(kb_rules_match(r, 3, 10, 1, &m), 0);
    assert_int_equal(kb_rules_match(r, 2, 10, 1, &m), 1);
    assert_int_equal(kb_rules_match(r, 0, 10, 1, &m), KB_ERR_ARG);
    assert_int_equal(kb_rules_match(NULL, 2, 10, 1, &m), KB_ERR_ARG);
    kb_rules_free(r);
}

static void test_empty_and_comments(void **state)
{
    (void)state;
    kb_rules_t *r = parse("");
    kb_rule_t m;
    assert_int_equal(kb_rules_count(r), 0);
    assert_int_equal(kb_rules_match(r, 4, 1, 1, &m), 0);
    kb_rules_free(r);
    r = parse("# only\n   \n# comments\n");
    assert_int_equal(kb_rules_count(r), 0);
    kb_rules_free(r);
}

static void test_errors(void **state)
{
    (void)state;
    const struct { const char *text; const char *msg; } bad[] = {
        {"2-8 0-10\n", "t:1: need RANKS BYTES ALGORITHM"},
        {"\n\n2-8 x linear\n", "t:3: bad number 'x'"},
        {"8-2 * linear\n", "t:1: empty range '8-2'"},
        {"* 10-5 linear\n", "t:1: empty range '10-5'"},
        {"* * kbinomial k=0\n", "t:1: k must be 1..1024"},
        {"* * kbinomial k=\n", "t:1: expected key=value, got 'k='"},
        {"* * kbinomial segment_bytes=0\n", "t:1: segment_bytes must be >= 1"},
        {"* * kbinomial where=moon\n", "t:1: where must be node, net or any"},
        {"* * kbinomial color=red\n", "t:1: unknown key 'color'"},
        {"* * lin/ear\n", "t:1: bad algorithm name 'lin/ear'"},
        {"* 1g linear\n", "t:1: bad number '1g'"},
        {"* 99999999999999999999 linear\n", "t:1: bad number '99999999999999999999'"},
        {"4294967296 * linear\n", "t:1: rank count out of range"},
        {"* -5 linear\n", "t:1: bad number ''"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        kb_rules_t *r = (kb_rules_t *)1;
        char err[256] = "";
        if (kb_rules_parse(bad[i].text, "t", &r, err, sizeof err) != KB_ERR_ARG)
            fail_msg("accepted: %s", bad[i].text);
        assert_null(r);
        if (strcmp(err, bad[i].msg) != 0) fail_msg("'%s': got '%s', want '%s'", bad[i].text, err, bad[i].msg);
    }
    kb_rules_t *r;
    char err[256];
    assert_int_equal(kb_rules_load("/nonexistent/rules", &r, err, sizeof err), KB_ERR_ARG);
    assert_string_equal(err, "/nonexistent/rules:0: cannot open file: No such file or directory");
    assert_int_equal(kb_rules_parse(NULL, "t", &r, err, sizeof err), KB_ERR_ARG);
}

static void test_checksum(void **state)
{
    (void)state;
    kb_rules_t *a = parse(table);
    kb_rules_t *b = parse("# other comments, other spacing\n2-8 0-1023 postal\n2-8\t1k-64K kbinomial k=2 segment_bytes=8k\n"
                          "* 1m- linear where=net\n9- * binomial where=node\n* * auto\n");
    kb_rules_t *c = parse("2-8 0-1023 postal\n2-8 1k-64K kbinomial k=3 segment_bytes=8k\n"
                          "* 1m- linear where=net\n9- * binomial where=node\n* * auto\n");
    assert_true(kb_rules_checksum(a) == kb_rules_checksum(b));
    assert_true(kb_rules_checksum(a) != kb_rules_checksum(c));
    assert_true(kb_rules_checksum(NULL) == 0);
    kb_rules_free(a);
    kb_rules_free(b);
    kb_rules_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_empty_and_comments),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_checksum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
