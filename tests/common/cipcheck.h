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

/* CIP_TEST_SMALL=1 (tests/sanitize-gpu.sh, for compute-sanitizer, whose
 * racecheck is too slow for full-size frames): tests skip their large frames
 * and repeat fewer times. */
gboolean cip_test_small (void);

/* Returns from the running test when CIP_TEST_SMALL=1 (a large-frame case). */
#define CIP_SKIP_IF_SMALL()                                                \
  do {                                                                     \
    if (cip_test_small ()) {                                               \
      g_print ("%s: skipped (CIP_TEST_SMALL)\n", __func__);                \
      return;                                                              \
    }                                                                      \
  } while (0)

/* gst_check_init, then make_suite() (which may probe the GPU), then the
 * runner; returns the process exit code (0, 1, or 77 when no test ran). */
int cip_check_run (Suite * (*make_suite) (void), int argc, char **argv);

#ifdef __cplusplus
}
#endif
