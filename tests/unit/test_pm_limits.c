/*
 * Bounds of the pathmc parsers (pm_limits.h) and the regressions of issue 18:
 * an ibnetdiscover host without a link (was a heap overflow in the POC ordering),
 * Slurm host lists counted before they are expanded (n[0-3000]x[0-3000] and
 * n[0-999999]x[0-999999] are refused at once, a 2^20-host switch parses), each limit
 * at its value and one past it, non-regular files, and Slurm expansion checked
 * against a reference expander on a sweep of host lists.
 */
#include <ctype.h>
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

#include "pathmc.h"

static pm_topology_t *parse(const char *text, pm_format_t fmt, int want_rc, const char *want_err)
{
    pm_topology_t *t = (pm_topology_t *)0x1;
    char err[512] = "";
    int rc = pm_topology_parse_string(text, fmt, "in", &t, err, sizeof err);
    if (rc != want_rc) fail_msg("rc %d, want %d (%s)", rc, want_rc, err);
    if (want_err && !strstr(err, want_err)) fail_msg("expected '%s' in '%s'", want_err, err);
    if (rc != PM_OK) assert_null(t);
    return rc == PM_OK ? t : NULL;
}

static void expect_parse_error(const char *text, pm_format_t fmt, const char *want)
{
    parse(text, fmt, PM_ERR_PARSE, want);
}

/* Issue 18 item 1: a Ca block with no port line, or whose links all lead to
 * undeclared nodes, is an error at its line; every host of an accepted file is
 * linked, so the POC ordering of all hosts succeeds. */
static void test_ibnet_unlinked_host(void **state)
{
    (void)state;
    const char *sw = "Switch 4 \"S-1\" # \"sw0\"\n[1] \"H-a\"[1]\n";
    char text[512];
    snprintf(text, sizeof text, "%sCa 1 \"H-a\" # \"a HCA-1\"\n[1] \"S-1\"[1]\nCa 1 \"H-b\" # \"b HCA-1\"\n", sw);
    expect_parse_error(text, PM_FMT_IBNET, "in:5: host \"H-b\" has no link to a declared switch");
    snprintf(text, sizeof text, "%sCa 1 \"H-b\" # \"b\"\n[1] \"S-9\"[1]\n", sw);   /* only an undeclared peer */
    expect_parse_error(text, PM_FMT_AUTO, "in:3: host \"H-b\" has no link");
    expect_parse_error("Switch 4 \"S-1\"\nCa 0 \"H-a\"\n", PM_FMT_IBNET, "in:2: host \"H-a\" has no link");
    /* two hosts cabled to each other */
    expect_parse_error("Switch 2 \"S-1\"\nCa 1 \"H-a\"\n[1] \"H-b\"[1]\nCa 1 \"H-b\"\n[1] \"H-a\"[1]\n", PM_FMT_IBNET,
                       "in:3: link between two hosts");
    /* a dual-port HCA on two switches is fine; every host is ordered */
    pm_topology_t *t = parse("Switch 2 \"S-1\"\nSwitch 2 \"S-2\"\n[2] \"S-1\"[2]\nCa 2 \"H-a\" # \"a\"\n[1] \"S-1\"[1]\n"
                             "[2] \"S-2\"[1]\n", PM_FMT_IBNET, PM_OK, NULL);
    const char *hosts[2] = {"a", "a"};
    int ord[2];
    char err[128];
    assert_int_equal(pm_order_hosts(t, PM_ORDER_POC, 2, hosts, 1, ord, err, sizeof err), PM_OK);
    assert_int_equal(ord[0], 1);
    pm_topology_free(t);
}

/* Issue 18 item 6: Slurm lists are counted before expansion, across lines. */
static void test_slurm_counts(void **state)
{
    (void)state;
    expect_parse_error("SwitchName=a Nodes=n[0-3000]x[0-3000]\n", PM_FMT_AUTO, "in:1: too many hosts (limit 1048576)");
    expect_parse_error("SwitchName=a Nodes=n[0-999999]x[0-999999]\n", PM_FMT_AUTO, "in:1: too many hosts");
    expect_parse_error("SwitchName=a Nodes=n[0-99999999]x[0-99999999]x[0-99999999]\n", PM_FMT_AUTO, "too many hosts");
    expect_parse_error("SwitchName=a Switches=s[0-99999999]x[0-99999999]\n", PM_FMT_AUTO, "in:1: too many switch links");
    /* exactly PM_MAX_HOSTS hosts on one switch parse (in linear time: the switch's
     * free-port scan was quadratic); one more host on the next line does not */
    char text[128];
    snprintf(text, sizeof text, "SwitchName=a Nodes=n[0-%ld]\n", PM_MAX_HOSTS - 1);
    pm_topology_t *t = parse(text, PM_FMT_AUTO, PM_OK, NULL);
    assert_int_equal(pm_topology_nhosts(t), PM_MAX_HOSTS);
    assert_string_equal(pm_topology_host_name(t, 0), "n0");
    snprintf(text, sizeof text, "n%ld", PM_MAX_HOSTS - 1);
    assert_string_equal(pm_topology_host_name(t, PM_MAX_HOSTS - 1), text);
    assert_int_equal(pm_topology_ndirected_links(t), 2 * PM_MAX_HOSTS);
    pm_topology_free(t);
    snprintf(text, sizeof text, "SwitchName=a Nodes=n[0-%ld]\nSwitchName=b Nodes=m0\n", PM_MAX_HOSTS - 1);
    expect_parse_error(text, PM_FMT_AUTO, "in:2: too many hosts (limit 1048576)");
}

/* Reference expander: recursive, straight from the Slurm syntax (items of literal
 * text and [a-b,c] groups; the first group varies slowest). */
static void ref_expand(const char *item, const char *prefix, char out[][64], int *n)
{
    const char *lb = strchr(item, '[');
    if (!lb) {
        snprintf(out[(*n)++], 64, "%s%s", prefix, item);
        return;
    }
    const char *rb = strchr(lb, ']');
    char body[64], pre[64];
    snprintf(pre, sizeof pre, "%s%.*s", prefix, (int)(lb - item), item);
    snprintf(body, sizeof body, "%.*s", (int)(rb - lb - 1), lb + 1);
    for (char *save = NULL, *part = strtok_r(body, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
        int lo = atoi(part), hi = strchr(part, '-') ? atoi(strchr(part, '-') + 1) : lo;
        int width = part[0] == '0' && isdigit((unsigned char)part[1]) ? (int)strcspn(part, "-") : 0;
        for (int v = lo; v <= hi; ++v) {
            char p2[64];
            snprintf(p2, sizeof p2, "%s%0*d", pre, width, v);
            ref_expand(rb + 1, p2, out, n);
        }
    }
}

static void test_slurm_expansion_sweep(void **state)
{
    (void)state;
    static const char *groups[] = {"[1-3]", "[01-03]", "[0,5-6]", "[7]", "[09-10,2]", "[000-002]"};
    static const char *lits[] = {"", "n", "r-", "x.y"};
    const int ng = (int)(sizeof groups / sizeof *groups), nl = (int)(sizeof lits / sizeof *lits);
    static char want[512][64];
    int checked = 0;
    for (int g1 = 0; g1 < ng; ++g1)
        for (int g2 = -1; g2 < ng; ++g2)
            for (int l = 0; l < nl; ++l) {
                char item[64];
                snprintf(item, sizeof item, "%s%s%s%s", lits[l][0] ? lits[l] : "h", groups[g1],
                         g2 >= 0 ? lits[(l + 1) % nl] : "", g2 >= 0 ? groups[g2] : "");
                int n = 0;
                ref_expand(item, "", want, &n);
                char text[128];
                snprintf(text, sizeof text, "SwitchName=sw Nodes=%s,single\n", item);
                pm_topology_t *t = parse(text, PM_FMT_SLURM, PM_OK, NULL);
                assert_int_equal(pm_topology_nhosts(t), n + 1);
                for (int i = 0; i < n; ++i)
                    if (strcmp(pm_topology_host_name(t, i), want[i]) != 0)
                        fail_msg("%s: host %d is %s, want %s", item, i, pm_topology_host_name(t, i), want[i]);
                assert_string_equal(pm_topology_host_name(t, n), "single");
                pm_topology_free(t);
                ++checked;
            }
    assert_int_equal(checked, ng * (ng + 1) * nl);
}

static void test_slurm_syntax(void **state)
{
    (void)state;
    expect_parse_error("SwitchName=a Nodes=n[0-1]x[0-1]x[0-1]x[0-1]x[0-1]x[0-1]x[0-1]x[0-1]x[0-1]\n", PM_FMT_SLURM,
                       "in:1: too many [] groups");
    pm_topology_t *t = parse("SwitchName=a Nodes=n[0-1]x[0-1]x[0-1]x[0-1]x[0-1]x[0-1]x[0-1]x[0-1]\n", PM_FMT_SLURM,
                             PM_OK, NULL);
    assert_int_equal(pm_topology_nhosts(t), 256);
    pm_topology_free(t);
    expect_parse_error("SwitchName=a Nodes=n[0-[1]]\n", PM_FMT_SLURM, "in:1: nested '['");
    expect_parse_error("SwitchName=a Nodes=n0]\n", PM_FMT_SLURM, "in:1: unmatched ']'");
    expect_parse_error("SwitchName=a Nodes=n[0-1\n", PM_FMT_SLURM, "in:1: unterminated '['");
    expect_parse_error("SwitchName=a Nodes=n[]\n", PM_FMT_SLURM, "in:1: bad range");
    expect_parse_error("SwitchName=a Nodes=n[3-1]\n", PM_FMT_SLURM, "in:1: bad range");
    expect_parse_error("SwitchName=a Nodes=n1,,n2\n", PM_FMT_SLURM, "in:1: empty item");
    expect_parse_error("SwitchName=a Nodes=n1,\n", PM_FMT_SLURM, "in:1: empty item");
    expect_parse_error("SwitchName=a Nodes=\n", PM_FMT_SLURM, "in:1: empty host list");
    expect_parse_error("SwitchName=a Nodes=n$1\n", PM_FMT_SLURM, "in:1: bad host name");
}

/* A string of n copies of c. */
static char *rep(char c, size_t n)
{
    char *s = malloc(n + 1);
    assert_non_null(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static void test_names_and_lines(void **state)
{
    (void)state;
    char *name = rep('h', PM_MAX_NAME_BYTES), *text = malloc(2 * PM_MAX_LINE_BYTES + 1024);
    assert_non_null(text);
    /* native: a name of PM_MAX_NAME_BYTES bytes, and one byte more */
    sprintf(text, "switch s\nhost %s\nlink s %s\n", name, name);
    pm_topology_free(parse(text, PM_FMT_NATIVE, PM_OK, NULL));
    sprintf(text, "switch s\nhost %sh\n", name);
    expect_parse_error(text, PM_FMT_NATIVE, "in:2: name 'hhhh");
    /* ibnet ids; Slurm names measured before expansion */
    sprintf(text, "Switch 2 \"%sh\"\n", name);
    expect_parse_error(text, PM_FMT_IBNET, "in:1: node id too long (limit 255)");
    name[PM_MAX_NAME_BYTES - 2] = '\0';
    sprintf(text, "SwitchName=a Nodes=%s[0-99]\n", name);   /* 253 + 2 digits */
    pm_topology_free(parse(text, PM_FMT_SLURM, PM_OK, NULL));
    sprintf(text, "SwitchName=a Nodes=%s[0-100]\n", name);  /* 253 + 3 digits */
    expect_parse_error(text, PM_FMT_SLURM, "in:1: host name too long (limit 255)");
    /* a line of PM_MAX_LINE_BYTES bytes (a comment), and one byte more */
    char *line = rep(' ', PM_MAX_LINE_BYTES);
    line[PM_MAX_LINE_BYTES - 1] = '#';
    sprintf(text, "torus 2x2\n%s\n", line);
    pm_topology_free(parse(text, PM_FMT_NATIVE, PM_OK, NULL));
    sprintf(text, "torus 2x2\n%s \n", line);
    expect_parse_error(text, PM_FMT_NATIVE, "in:2: line too long (limit 1048576)");
    free(line);
    free(name);
    free(text);
}

static void test_ports_and_dims(void **state)
{
    (void)state;
    char text[256];
    snprintf(text, sizeof text, "switch s %d\n", PM_MAX_DECLARED_PORTS);
    pm_topology_free(parse(text, PM_FMT_NATIVE, PM_OK, NULL));
    snprintf(text, sizeof text, "switch s %d\n", PM_MAX_DECLARED_PORTS + 1);
    expect_parse_error(text, PM_FMT_NATIVE, "in:1: usage: switch NAME [PORTS]");
    snprintf(text, sizeof text, "Switch %d \"S-1\"\n", PM_MAX_DECLARED_PORTS + 1);
    expect_parse_error(text, PM_FMT_IBNET, "in:1: 4097 ports declared (limit 4096)");
    /* PM_MAX_PORTS port slots in all: 4096 switches of 4096 ports, then one port more */
    size_t n = (size_t)(PM_MAX_PORTS / PM_MAX_DECLARED_PORTS);
    char *big = malloc(n * 32 + 64), *p = big;
    assert_non_null(big);
    for (size_t i = 0; i < n; ++i) p += sprintf(p, "Switch %d \"S-%zu\"\n", PM_MAX_DECLARED_PORTS, i);
    sprintf(p, "Switch 1 \"S-x\"\n");
    snprintf(text, sizeof text, "in:%zu: too many ports (limit %ld)", n + 1, PM_MAX_PORTS);
    expect_parse_error(big, PM_FMT_IBNET, text);
    free(big);
    expect_parse_error("torus 2x2x2x2x2x2x2x2x2\n", PM_FMT_NATIVE, "in:1: more than 8 dimensions");
    expect_parse_error("torus 2048x1024\n", PM_FMT_NATIVE, "in:1: torus with too many routers (limit 1048576)");
    expect_parse_error("fattree 256 3\n", PM_FMT_NATIVE, "in:1: fat-tree with too many hosts (limit 1048576)");
    /* a switch with a declared port count fills up: the next link is refused at its line */
    pm_topology_t *t = parse("switch s 2\nhost a\nhost b\nlink s a\nlink s b\n", PM_FMT_NATIVE, PM_OK, NULL);
    pm_topology_free(t);
    expect_parse_error("switch s 2\nhost a\nhost b\nhost c\nlink s a\nlink s b\nlink s c\n", PM_FMT_NATIVE,
                       "in:7: switch 's' has no free port");
}

static void test_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_pm_limits.XXXXXX", path[128], err[512];
    pm_topology_t *t = (pm_topology_t *)0x1;
    assert_non_null(mkdtemp(dir));
    assert_int_equal(pm_topology_load(dir, &t, err, sizeof err), PM_ERR_IO);
    assert_null(t);
    assert_non_null(strstr(err, ":0: not a regular file (a directory)"));
    assert_int_equal(pm_topology_load("/dev/zero", &t, err, sizeof err), PM_ERR_IO);
    assert_string_equal(err, "/dev/zero:0: not a regular file (a character device)");
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(pm_topology_load(path, &t, err, sizeof err), PM_ERR_IO);
    assert_non_null(strstr(err, "fifo:0: not a regular file (a FIFO)"));
    unlink(path);
    /* PM_MAX_FILE_BYTES + 1 bytes (sparse): refused from its size, nothing read */
    snprintf(path, sizeof path, "%s/big", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), PM_MAX_FILE_BYTES + 1), 0);
    fclose(f);
    assert_int_equal(pm_topology_load(path, &t, err, sizeof err), PM_ERR_IO);
    assert_non_null(strstr(err, "big:0: file larger than 67108864 bytes"));
    unlink(path);
    snprintf(path, sizeof path, "%s/missing", dir);
    assert_int_equal(pm_topology_load(path, &t, err, sizeof err), PM_ERR_IO);
    assert_non_null(strstr(err, "missing:0: cannot open file: No such file or directory"));
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ibnet_unlinked_host), cmocka_unit_test(test_slurm_counts),
        cmocka_unit_test(test_slurm_expansion_sweep), cmocka_unit_test(test_slurm_syntax),
        cmocka_unit_test(test_names_and_lines),     cmocka_unit_test(test_ports_and_dims),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
