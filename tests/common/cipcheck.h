/* Runs a Check suite the way every test of this project does:
 * - GPU test cases are added only when a device works; with CIP_REQUIRE_GPU=1
 *   (set on the GPU machine) a missing device is a failure, not a skip;
 * - a suite left with no test case exits 77, which Meson reports as SKIP. */
#pragma once

#include <gst/check/gstcheck.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Adds tc to s when `available`; otherwise logs why and, if the GPU is
 * required (CIP_REQUIRE_GPU=1), adds a test that fails with that reason. */
void cip_check_add_gpu_tcase (Suite * s, TCase * tc, gboolean available);

/* gst_check_init, then make_suite() (which may probe the GPU), then the
 * runner; returns the process exit code (0, 1, or 77 when no test ran). */
int cip_check_run (Suite * (*make_suite) (void), int argc, char **argv);

#ifdef __cplusplus
}
#endif
