/*
 * Parsers of the pathmc core: native, ibnetdiscover / ibsim, Slurm
 * topology.conf.  Valid, malformed ("file:line:" in the message) and empty
 * input, from files under data/ and from strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pathmc.h"

#ifndef PM_DATA_DIR
#define PM_DATA_DIR "data"
#endif

static pm_topology_t *load(const char *file, char *err, size_t errlen, int *rc)
{
    char path[512];
    pm_topology_t *t = NULL;
    snprintf(path, sizeof path, "%s/%s", PM_DATA_DIR, file);
    *rc = pm_topology_load(path, &t, err, errlen);
    return t;
}

static void expect_error(const char *text, pm_format_t fmt, const char *where)
{
    pm_topology_t *t = (pm_topology_t *)0x1;
    char err[256] = "";
    int rc = pm_topology_parse_string(text, fmt, "in.txt", &t, err, sizeof err);
    assert_int_equal(rc, PM_ERR_PARSE);
    assert_null(t);
    if (!strstr(err, where)) fail_msg("expected '%s' in '%s'", where, err);
}

static int host_index(const pm_topology_t *t, const char *name)
{
    for (int i = 0; i < pm_topology_nhosts(t); ++i)
        if (strcmp(pm_topology_host_name(t, i), name) == 0) return i;
    return -1;
}

static void test_native_torus(void **state)
{
    (void)state;
    char err[256];
    int rc, nd, dims[8], wrap, bidir, c[2];
    pm_topology_t *t = load("pm_torus_4x4.topo", err, sizeof err, &rc);
    assert_int_equal(rc, PM_OK);
    assert_int_equal(pm_topology_kind(t), PM_TOPO_TORUS);
    assert_int_equal(pm_topology_nhosts(t), 4);
    assert_int_equal(pm_topology_nswitches(t), 16);
    assert_int_equal(pm_topology_torus_shape(t, &nd, dims, 8, &wrap, &bidir), PM_OK);
    assert_int_equal(nd, 2);
    assert_int_equal(dims[0] * 10 + dims[1], 44);
    assert_true(wrap && bidir);
    assert_int_equal(pm_topology_host_coords(t, "d", c, 2), PM_OK);
    assert_int_equal(c[0] * 10 + c[1], 33);
    assert_int_equal(pm_topology_host_coords(t, "zz", c, 2), PM_ERR_NOTFOUND);
    /* 16 routers x 2 dims links + 4 host links, two directions each */
    assert_int_equal(pm_topology_ndirected_links(t), 2 * (32 + 4));
    pm_topology_free(t);

    /* auto-named hosts, mesh, unidirectional, 3 dims */
    assert_int_equal(pm_topology_parse_string("torus 3x2x2 mesh\n", PM_FMT_NATIVE, "m", &t, err, sizeof err), PM_OK);
    assert_int_equal(pm_topology_nhosts(t), 12);
    assert_true(host_index(t, "n2-1-1") >= 0);
    pm_topology_free(t);
    assert_int_equal(pm_topology_parse_string("torus 8 torus unidirectional # ring\n", PM_FMT_AUTO, "r", &t, err,
                                              sizeof err), PM_OK);
    assert_int_equal(pm_topology_torus_shape(t, &nd, dims, 8, &wrap, &bidir), PM_OK);
    assert_int_equal(nd, 1);
    assert_false(bidir);
    pm_topology_free(t);
}

static void test_native_graph_fattree(void **state)
{
    (void)state;
    char err[256];
    int rc;
    pm_topology_t *t = load("pm_graph.topo", err, sizeof err, &rc);
    assert_int_equal(rc, PM_OK);
    assert_int_equal(pm_topology_kind(t), PM_TOPO_GRAPH);
    assert_int_equal(pm_topology_nhosts(t), 3);
    assert_int_equal(pm_topology_nswitches(t), 4);
    pm_topology_free(t);

    /* IBFT(4,3): 2*(m/2)^n = 16 hosts, (2n-1)(m/2)^(n-1) = 20 switches (seed 004) */
    assert_int_equal(pm_topology_parse_string("fattree 4 3\n", PM_FMT_NATIVE, "f", &t, err, sizeof err), PM_OK);
    assert_int_equal(pm_topology_kind(t), PM_TOPO_FATTREE);
    assert_int_equal(pm_topology_nhosts(t), 16);
    assert_int_equal(pm_topology_nswitches(t), 20);
    assert_true(host_index(t, "p3-1-1") >= 0);
    pm_topology_free(t);
    assert_int_equal(pm_topology_parse_string("fattree 8 2\n", PM_FMT_NATIVE, "f", &t, err, sizeof err), PM_OK);
    assert_int_equal(pm_topology_nhosts(t), 32);
    assert_int_equal(pm_topology_nswitches(t), 12);
    pm_topology_free(t);
}

static void test_native_malformed(void **state)
{
    (void)state;
    char err[256];
    int rc;
    pm_topology_t *t = load("pm_bad_native.topo", err, sizeof err, &rc);
    assert_int_equal(rc, PM_ERR_PARSE);
    assert_null(t);
    assert_non_null(strstr(err, "pm_bad_native.topo:3:"));
    expect_error("torus 4y4\n", PM_FMT_NATIVE, "in.txt:1:");
    expect_error("torus 4x1\n", PM_FMT_NATIVE, "in.txt:1:");
    expect_error("torus 4x4 sideways\n", PM_FMT_NATIVE, "in.txt:1:");
    expect_error("torus 4x4 mesh unidirectional\n", PM_FMT_NATIVE, "in.txt:1:");
    expect_error("\n\ntorus 4x4\nhost a 0\n", PM_FMT_NATIVE, "in.txt:4:");
    expect_error("torus 4x4\nhost a 0 0\nhost a 1 1\n", PM_FMT_NATIVE, "in.txt:3:");
    expect_error("torus 4x4\nswitch s\n", PM_FMT_NATIVE, "in.txt:2:");
    expect_error("switch s\nlink s t\n", PM_FMT_NATIVE, "in.txt:2:");
    expect_error("switch s\nswitch s\n", PM_FMT_NATIVE, "in.txt:2:");
    expect_error("switch s\nlink s s\n", PM_FMT_NATIVE, "in.txt:2:");
    expect_error("switch s 1\nswitch t\nhost h\nlink h s\nlink s t\n", PM_FMT_NATIVE, "in.txt:5:");
    expect_error("switch s\nswitch t\nhost h\nlink h s\nlink h t\n", PM_FMT_NATIVE, "in.txt:5:");
    expect_error("switch s\nhost h\n", PM_FMT_NATIVE, "in.txt:2:");          /* host without link */
    expect_error("host h\n", PM_FMT_NATIVE, "in.txt:1:");                    /* no switch */
    expect_error("fattree 5 2\n", PM_FMT_NATIVE, "in.txt:1:");
    expect_error("frobnicate\n", PM_FMT_NATIVE, "in.txt:1:");
}

static void test_empty(void **state)
{
    (void)state;
    char err[256];
    int rc;
    pm_topology_t *t = load("pm_empty.topo", err, sizeof err, &rc);
    assert_int_equal(rc, PM_ERR_PARSE);
    assert_non_null(strstr(err, "pm_empty.topo:1:"));
    assert_non_null(strstr(err, "empty"));
    expect_error("", PM_FMT_NATIVE, "in.txt:1: empty");
    expect_error("# only a comment\n\n", PM_FMT_NATIVE, "empty");
    expect_error("", PM_FMT_IBNET, "in.txt:1: empty");
    expect_error("vendid=0x2c9\n", PM_FMT_IBNET, "in.txt:1: empty");
    expect_error("", PM_FMT_SLURM, "in.txt:1: empty");
    expect_error("# nothing\n", PM_FMT_SLURM, "empty");
    assert_int_equal(pm_topology_load(PM_DATA_DIR "/pm_does_not_exist", &t, err, sizeof err), PM_ERR_IO);
    assert_non_null(strstr(err, "pm_does_not_exist"));
}

static void test_ibnet(void **state)
{
    (void)state;
    char err[256];
    int rc, links[16], nl;
    pm_topology_t *t = load("pm_ibnet.txt", err, sizeof err, &rc);
    if (rc) fail_msg("%s", err);
    assert_int_equal(pm_topology_kind(t), PM_TOPO_GRAPH);
    assert_int_equal(pm_topology_nhosts(t), 3);
    assert_int_equal(pm_topology_nswitches(t), 2);
    assert_true(host_index(t, "node01") >= 0 && host_index(t, "node03") >= 0);
    /* 2 host links on sw-a, 1 on sw-b, one switch link: 4 links */
    assert_int_equal(pm_topology_ndirected_links(t), 8);
    assert_int_equal(pm_route(t, PM_ROUTE_DEFAULT, "node01", "node03", links, 16, &nl), PM_OK);
    assert_int_equal(nl, 3);
    /* the guid id is an alias of the host name */
    assert_int_equal(pm_route(t, PM_ROUTE_DEFAULT, "H-0002c903000a0a0a", "node02", links, 16, &nl), PM_OK);
    assert_int_equal(nl, 2);
    pm_topology_free(t);

    t = load("pm_ibsim.net", err, sizeof err, &rc);
    if (rc) fail_msg("%s", err);
    assert_int_equal(pm_topology_nhosts(t), 3);
    assert_true(host_index(t, "hostA") >= 0);
    assert_int_equal(pm_route(t, PM_ROUTE_UPDOWN, "hostA", "hostC", links, 16, &nl), PM_OK);
    assert_int_equal(nl, 3);
    pm_topology_free(t);

    t = load("pm_bad_ibnet.txt", err, sizeof err, &rc);
    assert_int_equal(rc, PM_ERR_PARSE);
    assert_non_null(strstr(err, "pm_bad_ibnet.txt:3:"));
    expect_error("[1]\t\"S-x\"[1]\n", PM_FMT_IBNET, "in.txt:1:");
    expect_error("Switch 4 \"S-a\"\n[1] \"S-b\"\n", PM_FMT_IBNET, "in.txt:2:");
    expect_error("Switch 4 \"S-a\"\n[x] \"S-b\"[1]\n", PM_FMT_IBNET, "in.txt:2:");
    expect_error("Switch 4 \"S-a\"\nSwitch 4 \"S-a\"\n", PM_FMT_IBNET, "in.txt:2:");
    expect_error("Switch 4 \"S-a\n", PM_FMT_IBNET, "in.txt:1:");
    expect_error("Switch 4 \"S-a\"\ngarbage here\n", PM_FMT_IBNET, "in.txt:2:");
    expect_error("Switch 4 \"S-a\"\n[1] \"S-b\"[2]\nSwitch 4 \"S-b\"\n[2] \"S-a\"[3]\n", PM_FMT_IBNET, "in.txt:4:");
}

static void test_slurm(void **state)
{
    (void)state;
    char err[256];
    int rc, links[16], nl;
    pm_topology_t *t = load("pm_slurm.conf", err, sizeof err, &rc);
    if (rc) fail_msg("%s", err);
    assert_int_equal(pm_topology_nswitches(t), 4);
    assert_int_equal(pm_topology_nhosts(t), 13);
    assert_true(host_index(t, "tux01") >= 0 && host_index(t, "tux10") >= 0 && host_index(t, "tux09") < 0);
    assert_true(host_index(t, "rack2n1") >= 0);
    assert_int_equal(pm_route(t, PM_ROUTE_DEFAULT, "tux01", "tux10", links, 16, &nl), PM_OK);
    assert_int_equal(nl, 4);   /* tux01 -> s0 -> top -> s1 -> tux10 */
    pm_topology_free(t);

    t = load("pm_bad_slurm.conf", err, sizeof err, &rc);
    assert_int_equal(rc, PM_ERR_PARSE);
    assert_non_null(strstr(err, "pm_bad_slurm.conf:2:"));
    expect_error("SwitchName=a Nodes=n[3-1]\n", PM_FMT_SLURM, "in.txt:1:");
    expect_error("SwitchName=a Nodes=n[1-2]\nNodes=x\n", PM_FMT_SLURM, "in.txt:2:");
    expect_error("SwitchName=a\nSwitchName=a\n", PM_FMT_SLURM, "in.txt:2:");
    expect_error("SwitchName=a Switches=b\n", PM_FMT_SLURM, "in.txt:1:");
    expect_error("SwitchName=a Nodes=n1\nSwitchName=b Nodes=n1\n", PM_FMT_SLURM, "in.txt:2:");
    expect_error("SwitchName=a Nodes\n", PM_FMT_SLURM, "in.txt:1:");
    expect_error("SwitchName=a Nodes=n[1-2],,x\n", PM_FMT_SLURM, "in.txt:1:");
}

static void test_bad_args(void **state)
{
    (void)state;
    pm_topology_t *t;
    assert_int_equal(pm_topology_parse_string(NULL, PM_FMT_AUTO, "x", &t, NULL, 0), PM_ERR_ARG);
    assert_int_equal(pm_topology_parse_string("torus 4x4", (pm_format_t)9, "x", &t, NULL, 0), PM_ERR_ARG);
    assert_int_equal(pm_topology_load(NULL, &t, NULL, 0), PM_ERR_ARG);
    /* NULL error buffer is fine */
    assert_int_equal(pm_topology_parse_string("torus 4x", PM_FMT_NATIVE, "x", &t, NULL, 0), PM_ERR_PARSE);
}

/* Torus/mesh from per-rank node coordinates (the PMIx fabric path of the glue). */
static void test_from_coords(void **state)
{
    (void)state;
    const char *hosts[5] = {"a", "b", "a", "c", "d"};
    int coords[10] = {0, 0, 1, 3, 0, 0, 2, 1, 3, 3};
    int shape[2] = {4, 4};
    pm_topology_t *t;
    char err[256];
    int nd, dims[2], wrap, bidir, c[2];
    assert_int_equal(pm_topology_from_coords(5, hosts, 2, coords, shape, &t, err, sizeof err), PM_OK);
    assert_int_equal(pm_topology_kind(t), PM_TOPO_TORUS);
    assert_int_equal(pm_topology_nhosts(t), 4);
    assert_int_equal(pm_topology_torus_shape(t, &nd, dims, 2, &wrap, &bidir), PM_OK);
    assert_int_equal(nd, 2);
    assert_int_equal(dims[0], 4);
    assert_int_equal(dims[1], 4);
    assert_int_equal(wrap, 1);
    assert_int_equal(bidir, 1);
    assert_int_equal(pm_topology_host_coords(t, "b", c, 2), PM_OK);
    assert_int_equal(c[0], 1);
    assert_int_equal(c[1], 3);
    int ord[5];
    assert_int_equal(pm_order_hosts(t, PM_ORDER_AUTO, 5, hosts, 0, ord, err, sizeof err), PM_OK);
    assert_int_equal(ord[0], 0);
    assert_int_equal(ord[1], 2);   /* same host as the root: next */
    pm_topology_free(t);
    /* no shape: the smallest mesh holding every coordinate */
    assert_int_equal(pm_topology_from_coords(5, hosts, 2, coords, NULL, &t, err, sizeof err), PM_OK);
    assert_int_equal(pm_topology_torus_shape(t, &nd, dims, 2, &wrap, &bidir), PM_OK);
    assert_int_equal(dims[0], 4);
    assert_int_equal(dims[1], 4);
    assert_int_equal(wrap, 0);
    pm_topology_free(t);
    /* two ranks of host a disagree */
    coords[5] = 1;
    assert_int_equal(pm_topology_from_coords(5, hosts, 2, coords, shape, &t, err, sizeof err), PM_ERR_ARG);
    assert_non_null(strstr(err, "ranks 0 and 2"));
    assert_null(t);
    coords[5] = 0;
    /* a coordinate outside the shape */
    shape[1] = 3;
    assert_int_equal(pm_topology_from_coords(5, hosts, 2, coords, shape, &t, err, sizeof err), PM_ERR_ARG);
    assert_non_null(strstr(err, "outside"));
    shape[1] = 4;
    const char *badh[5] = {"a", "b c", "a", "c", "d"};
    assert_int_equal(pm_topology_from_coords(5, badh, 2, coords, shape, &t, err, sizeof err), PM_ERR_ARG);
    assert_int_equal(pm_topology_from_coords(0, hosts, 2, coords, shape, &t, err, sizeof err), PM_ERR_ARG);
    assert_int_equal(pm_topology_from_coords(5, hosts, 0, coords, shape, &t, err, sizeof err), PM_ERR_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_native_torus),     cmocka_unit_test(test_native_graph_fattree),
        cmocka_unit_test(test_native_malformed), cmocka_unit_test(test_empty),
        cmocka_unit_test(test_ibnet),            cmocka_unit_test(test_slurm),
        cmocka_unit_test(test_bad_args),        cmocka_unit_test(test_from_coords),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
