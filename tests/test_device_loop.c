/* The device loop every test runs its device part in: it visits each device present once with an
 * open context. check_device_loop.sh runs this program with no OpenCL platform at all, where the
 * test must be skipped, or fail where a device is required (CI, CLPERM_TEST_REQUIRE_DEVICE=1). */
#include <criterion/criterion.h>

#include "common.h"

Test(device_loop, visits_every_device) {
    size_t visited = 0;
    TEST_EACH_DEVICE(ctx) {
        cr_assert_not_null(clperm_ctx_cl_queue(ctx), "device %zu", visited);
        visited++;
    }
    cr_assert_eq(visited, test_device_count());
}
