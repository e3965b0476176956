/*
 * The glue's reader of PMIx fabric coordinates (mcast_fabric_parse): every value
 * shape a resource manager may give (pmix_coord_t, pmix_geometry_t with several
 * views, arrays of them or of uint32, shape strings) and what it must refuse.
 * The resource-manager path itself (PMIx_Get of PMIX_FABRIC_COORDINATES) cannot be
 * exercised here: "pmix."-keys are reserved, a process cannot post them, and
 * mpirun's server does not provide them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <pmix.h>

#include "mcast_fabric.h"

#if defined(PMIX_FABRIC_COORDINATES) && defined(PMIX_GEOMETRY) && defined(PMIX_COORD_LOGICAL_VIEW)

static void test_coord(void **state)
{
    (void) state;
    uint32_t c[3] = {3, 1, 4};
    pmix_coord_t coord = {PMIX_COORD_LOGICAL_VIEW, c, 3};
    pmix_value_t v = {.type = PMIX_COORD, .data.coord = &coord};
    int32_t out[6] = {0};
    assert_int_equal(mcast_fabric_parse(&v, out, 6), 3);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 1);
    assert_int_equal(out[2], 4);
    assert_int_equal(mcast_fabric_parse(&v, out, 2), 0); /* more dimensions than room */
    coord.dims = 0;
    assert_int_equal(mcast_fabric_parse(&v, out, 6), 0);
}

static void test_geometry_prefers_logical(void **state)
{
    (void) state;
    uint32_t phys[2] = {17, 23}, logi[2] = {1, 2};
    pmix_coord_t views[2] = {{PMIX_COORD_PHYSICAL_VIEW, phys, 2}, {PMIX_COORD_LOGICAL_VIEW, logi, 2}};
    pmix_geometry_t g = {0, "uuid", "ib0", views, 2};
    pmix_data_array_t arr = {PMIX_GEOMETRY, 1, &g};
    pmix_value_t v = {.type = PMIX_DATA_ARRAY, .data.darray = &arr};
    int32_t out[6] = {0};
    assert_int_equal(mcast_fabric_parse(&v, out, 6), 2);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 2);
    views[1].view = PMIX_COORD_PHYSICAL_VIEW; /* no logical view: the first one */
    assert_int_equal(mcast_fabric_parse(&v, out, 6), 2);
    assert_int_equal(out[0], 17);
    pmix_value_t one = {.type = PMIX_GEOMETRY, .data.geometry = &g};
    assert_int_equal(mcast_fabric_parse(&one, out, 6), 2);
}

static void test_arrays_and_strings(void **state)
{
    (void) state;
    uint32_t dims[2] = {8, 4};
    pmix_data_array_t arr = {PMIX_UINT32, 2, dims};
    pmix_value_t v = {.type = PMIX_DATA_ARRAY, .data.darray = &arr};
    int32_t out[6] = {0};
    assert_int_equal(mcast_fabric_parse(&v, out, 6), 2);
    assert_int_equal(out[0], 8);
    assert_int_equal(out[1], 4);
    arr.type = PMIX_STRING; /* unknown element type */
    assert_int_equal(mcast_fabric_parse(&v, out, 6), 0);
    pmix_value_t s = {.type = PMIX_STRING, .data.string = "10x12x2"};
    assert_int_equal(mcast_fabric_parse(&s, out, 6), 3);
    assert_int_equal(out[0], 10);
    assert_int_equal(out[1], 12);
    assert_int_equal(out[2], 2);
    const char *bad[] = {"", "x8", "8x", "8y4", "0x4", "-2x4", "8x4 "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        s.data.string = (char *) bad[i];
        if (0 != mcast_fabric_parse(&s, out, 6)) fail_msg("shape string '%s' accepted", bad[i]);
    }
    pmix_value_t n = {.type = PMIX_INT, .data.integer = 3};
    assert_int_equal(mcast_fabric_parse(&n, out, 6), 0);
    assert_int_equal(mcast_fabric_parse(NULL, out, 6), 0);
}

/* Outside a PMIx job (this test) the reader finds nothing and says so. */
static void test_no_pmix_job(void **state)
{
    (void) state;
    int32_t c[6], s[6];
    assert_int_equal(mcast_fabric_own_coords(c, s, 6), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coord),
        cmocka_unit_test(test_geometry_prefers_logical),
        cmocka_unit_test(test_arrays_and_strings),
        cmocka_unit_test(test_no_pmix_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
int main(void)
{
    printf("# PMIx < 4: no fabric coordinates\n");
    return 77; /* skipped */
}
#endif
