#include "cipcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gboolean
gpu_required (void)
{
  const char *e = g_getenv ("CIP_REQUIRE_GPU");
  return e && *e && strcmp (e, "0") != 0;
}

gboolean
cip_test_small (void)
{
  const char *e = g_getenv ("CIP_TEST_SMALL");
  return e && *e && strcmp (e, "0") != 0;
}

GST_START_TEST (test_gpu_missing)
{
  fail ("CIP_REQUIRE_GPU=1 but no usable CUDA device was found");
}
GST_END_TEST;

void
cip_check_add_gpu_tcase (Suite * s, TCase * tc, gboolean available)
{
  if (available) {
    suite_add_tcase (s, tc);
    return;
  }
  g_printerr ("no usable CUDA device: GPU test case skipped\n");
  if (gpu_required ()) {
    TCase *f = tcase_create ("gpu-required");
    tcase_add_test (f, test_gpu_missing);
    suite_add_tcase (s, f);
  }
}

int
cip_check_run (Suite * (*make_suite) (void), int argc, char **argv)
{
  SRunner *sr;
  int failed, n_run;

  gst_check_init (&argc, &argv);
  /* lines out as they are written, also into a pipe: with
   * CK_TAP_LOG_FILE_NAME=- each test's line as it ends (timing runs) */
  setvbuf (stdout, NULL, _IOLBF, 0);
  sr = srunner_create (make_suite ());
  /* CK_VERBOSITY=verbose lists every test */
  srunner_run_all (sr, CK_ENV);
  failed = srunner_ntests_failed (sr);
  n_run = srunner_ntests_run (sr);
  srunner_free (sr);
  if (n_run == 0) {
    g_printerr ("no test ran: skip\n");
    return 77;
  }
  return failed == 0 ? 0 : 1;
}
