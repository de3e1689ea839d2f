/* Fault injection (CIP_FAULT_INJECT, see plugins/gstcudaimgprocfilter.h):
 * every element, on every path (CPU; GPU on system memory; GPU on CUDA
 * memory), with the N-th allocation, kernel launch or copy failing:
 * - the element posts a GStreamer error of the right kind (an allocation:
 *   RESOURCE/NO_SPACE_LEFT "out of memory"; a launch or copy: RESOURCE/FAILED)
 *   and its frame ends in GST_FLOW_ERROR (the source's "streaming stopped,
 *   reason error");
 * - after NULL -> PLAYING it gives the same outputs (pixels and metas) as an
 *   element that never failed;
 * - nothing leaks: live GstObjects and GstMiniObjects (the leaks tracer:
 *   pool buffers, pools, contexts, messages) and device memory are the same
 *   before the element was made and after it is gone.
 * The variable is read once per process, so the test runs itself once per
 * (kind, N), N = 1, 2, ... until no element meets an N-th operation: every
 * allocation, launch and copy site of each element is failed once, among
 * them the device allocation after acquire_aux took a pool buffer (issue 10
 * item 7). Also: with no variable nothing fails, and (GPU) a filled device
 * gives an out-of-memory error, never an abort, and works once freed. */
#include <gst/check/gstcheck.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "elementcheck.h"

#ifdef HAVE_GST_CUDA
#include <cuda_runtime_api.h>
#endif

using namespace testutil;


static const int N_FRAMES = 4;
static const int MAX_NTH = 16;

static const char *
fault_kind ()
{
  static std::string kind;
  const char *env = g_getenv ("CIP_FAULT_INJECT");
  if (!env)
    return NULL;
  kind = std::string (env).substr (0, std::string (env).find_first_of (":@"));
  return kind.c_str ();
}

static guint
fault_nth ()
{
  const char *env = g_getenv ("CIP_FAULT_INJECT");
  const char *colon = env ? strchr (env, ':') : NULL;
  return colon ? (guint) atoi (colon + 1) : 1;
}

static GstBuffer *
frame (FrameSource & src, int i)
{
  return src.make (i % 2 ? Content::natural : Content::random, 40 + i);
}

/* One element on one path: reference outputs from an element named "ref",
 * then the element named "victim" (the only one CIP_FAULT_INJECT=...@victim
 * fails) run until its outputs all match, with one NULL -> PLAYING after a
 * fault. Returns whether a fault was met. */
static bool
run_case (const char *launch, const Path & path, bool must_fire)
{
  const std::string what = std::string (launch) + " on " + path.name ();
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 66, 38);
  FrameSource src (&info, path.memory);
  const std::string line = std::string (launch) + " compute=" + path.compute;

  std::vector<std::vector<uint8_t>> want;
  {
    AppPipeline ref (line + " name=ref", src.caps (), true);
    fail_unless (ref.play ());
    for (int i = 0; i < N_FRAMES; i++) {
      GstBuffer *out = ref.process (frame (src, i));
      fail_unless (out != NULL, "%s: reference frame %d failed", what.c_str (),
          i);
      want.push_back (frame_digest (out, &info));
      gst_buffer_unref (out);
    }
  }

  LeakCheck leaks;
  const gint64 device_before = device_used_bytes ();
  bool fired = false;
  {
    AppPipeline v (line + " name=victim", src.caps (), true);
    fail_unless (v.play ());
    for (int i = 0; i < N_FRAMES; i++) {
      GstBuffer *out = v.process (frame (src, i));
      if (out) {
        fail_unless (frame_digest (out, &info) == want[i],
            "%s: frame %d differs from the reference%s", what.c_str (), i,
            fired ? " after the restart" : "");
        gst_buffer_unref (out);
        continue;
      }
      fail_if (fired, "%s: a second fault", what.c_str ());
      fired = true;
      fail_unless (v.errors.size () >= 2, "%s: expected our error and the "
          "source's", what.c_str ());
      GError *err = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (v.errors[0], &err, &dbg);
      fail_unless (GST_MESSAGE_SRC (v.errors[0]) ==
          GST_OBJECT (v.get ("victim")), "%s: error from %s: %s",
          what.c_str (), GST_MESSAGE_SRC_NAME (v.errors[0]), err->message);
      fail_unless (err->domain == GST_RESOURCE_ERROR, "%s: %s", what.c_str (),
          err->message);
      if (g_str_equal (fault_kind (), "alloc")) {
        fail_unless (err->code == GST_RESOURCE_ERROR_NO_SPACE_LEFT,
            "%s: %s", what.c_str (), err->message);
        gchar *lower = g_ascii_strdown (err->message, -1);
        fail_unless (strstr (lower, "memory") || strstr (lower, "allocate"),
            "%s: '%s' does not say it is out of memory", what.c_str (),
            err->message);
        g_free (lower);
      } else {
        fail_unless (err->code == GST_RESOURCE_ERROR_FAILED, "%s: %s",
            what.c_str (), err->message);
      }
      g_clear_error (&err);
      g_free (dbg);
      /* the frame's flow return, as the source saw it */
      gst_message_parse_error (v.errors[1], &err, &dbg);
      fail_unless (dbg && strstr (dbg, "reason error"), "%s: source: %s",
          what.c_str (), dbg ? dbg : "(no debug)");
      g_clear_error (&err);
      g_free (dbg);
      v.stop ();
      fail_unless (v.play (), "%s: no restart after the fault", what.c_str ());
      i = -1;                   /* every frame again */
    }
  }
  const std::string alive = leaks.alive ();
  fail_unless (alive.empty (), "%s: objects left alive:\n%s", what.c_str (),
      alive.c_str ());
  const gint64 device_after = device_used_bytes ();
  fail_unless (device_after <= device_before,
      "%s: device memory grew by %" G_GINT64_FORMAT " bytes", what.c_str (),
      device_after - device_before);
  fail_unless (fired || !must_fire, "%s: CIP_FAULT_INJECT=%s did not fire",
      what.c_str (), g_getenv ("CIP_FAULT_INJECT"));
  return fired;
}

/* Child: the fault of this process's CIP_FAULT_INJECT in every element on
 * every path; prints how many cases met it. */
GST_START_TEST (test_injected)
{
  const std::string kind = fault_kind ();
  const bool first = fault_nth () == 1;
  int fired = 0;
  for (const char *launch : element_launches)
    for_each_path ([&] (const Path & path) {
      /* the first of each kind is met everywhere it exists: launches on
       * every path, allocations and copies on the GPU's system-memory path
       * (scratch frames, uploads) */
      bool must = first && (kind == "launch" ||
          (std::string (path.compute) == "gpu" && !path.cuda ()));
      fired += run_case (launch, path, must) ? 1 : 0;
    });
  g_print ("cip-faults-fired: %d\n", fired);
}
GST_END_TEST;

/* The leaks tracer is there (libgstcoretracers.so): without it every case
 * below fails too, this one says why first. */
GST_START_TEST (test_leaks_tracer)
{
  LeakCheck leaks;
}
GST_END_TEST;

/* With no CIP_FAULT_INJECT nothing fails (the switch is off by default). */
GST_START_TEST (test_no_fault)
{
  for (const char *launch : element_launches)
    for_each_path ([&] (const Path & path) {
      fail_if (run_case (launch, path, false), "%s failed without a fault",
          launch);
    });
}
GST_END_TEST;

/* This process's command line as it was started, to start the children
 * the same way: the GStreamer 1.26 bundle starts tests through its own
 * loader (ld-linux-x86-64.so.2 --library-path ... test_faults), without
 * which the executable finds no libraries. */
static gchar **
own_command_line (const char *argv0)
{
  gchar *contents = NULL;
  gsize len = 0;
  if (g_file_get_contents ("/proc/self/cmdline", &contents, &len, NULL) &&
      len > 0 && contents[len - 1] == '\0') {
    GPtrArray *args = g_ptr_array_new ();
    for (gsize i = 0; i < len; i += strlen (contents + i) + 1)
      g_ptr_array_add (args, g_strdup (contents + i));
    g_ptr_array_add (args, NULL);
    g_free (contents);
    return (gchar **) g_ptr_array_free (args, FALSE);
  }
  g_free (contents);
  gchar *argv[] = { (gchar *) argv0, NULL };
  return g_strdupv (argv);
}

/* Parent: this executable once per kind and N, until no case meets the N-th
 * operation. */
static void
run_kind (const char *kind, const char *self_exe)
{
  gchar **argv = own_command_line (self_exe);
  int n;
  for (n = 1; n <= MAX_NTH; n++) {
    gchar *spec = g_strdup_printf ("%s:%d@victim", kind, n);
    gchar **envp = g_get_environ ();
    envp = g_environ_setenv (envp, "CIP_FAULT_INJECT", spec, TRUE);
    gchar *out = NULL, *err = NULL;
    gint status = 0;
    GError *error = NULL;
    fail_unless (g_spawn_sync (NULL, argv, envp, G_SPAWN_DEFAULT, NULL, NULL,
            &out, &err, &status, &error), "spawn: %s",
        error ? error->message : "?");
    const char *line = strstr (out, "cip-faults-fired: ");
    int fired = line ? atoi (line + strlen ("cip-faults-fired: ")) : -1;
    g_print ("CIP_FAULT_INJECT=%s: %d case(s) met it\n", spec, fired);
    if (!g_spawn_check_wait_status (status, NULL) || fired < 0)
      fail ("CIP_FAULT_INJECT=%s failed:\n%s\n%s", spec, out, err);
    g_free (out);
    g_free (err);
    g_strfreev (envp);
    g_free (spec);
    if (fired == 0)
      break;
  }
  g_strfreev (argv);
  fail_unless (n > 1, "no %s fault was met at all", kind);
}

static const char *self_exe;

GST_START_TEST (test_alloc)
{
  run_kind ("alloc", self_exe);
}
GST_END_TEST;

GST_START_TEST (test_launch)
{
  run_kind ("launch", self_exe);
}
GST_END_TEST;

GST_START_TEST (test_copy)
{
  run_kind ("copy", self_exe);
}
GST_END_TEST;

#ifdef HAVE_GST_CUDA
/* A device filled by another allocation: every element's first frame on the
 * GPU (system memory, 1080p) is refused with an out-of-memory error; freed,
 * the element works again after NULL -> PLAYING. */
GST_START_TEST (test_device_full)
{
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 1920, 1080);
  FrameSource src (&info, Memory::system);
  for (const char *launch : element_launches) {
    AppPipeline p (std::string (launch) + " compute=gpu name=e", src.caps (),
        true);
    fail_unless (p.play ());
    GstBuffer *in = frame (src, 0);
    /* fill: large blocks, then small ones */
    std::vector<void *> fill;
    for (size_t chunk = (size_t) 1 << 30; chunk >= ((size_t) 1 << 20);
        chunk /= 4) {
      void *d = NULL;
      while (cudaMalloc (&d, chunk) == cudaSuccess)
        fill.push_back (d);
      cudaGetLastError ();
    }
    GstBuffer *out = p.process (in);
    for (void *d : fill)
      cudaFree (d);
    fail_unless (out == NULL, "%s: a frame on a full device", launch);
    GError *err = NULL;
    gst_message_parse_error (p.errors[0], &err, NULL);
    fail_unless (err->domain == GST_RESOURCE_ERROR &&
        err->code == GST_RESOURCE_ERROR_NO_SPACE_LEFT, "%s: %s", launch,
        err->message);
    g_print ("%s on a full device: %s\n", launch, err->message);
    g_error_free (err);
    p.stop ();
    fail_unless (p.play ());
    out = p.process (frame (src, 0));
    fail_unless (out != NULL, "%s: no frame once the device was freed",
        launch);
    gst_buffer_unref (out);
  }
}
GST_END_TEST;
#endif

static Suite *
faults_suite (void)
{
  ElementSuite s ("faults");
  if (g_getenv ("CIP_FAULT_INJECT")) {
    /* a child: the cases at this fault, on every path */
    tcase_add_test (s.cpu, test_injected);
    return s.suite;
  }
  tcase_set_timeout (s.cpu, 600);
  tcase_add_test (s.cpu, test_leaks_tracer);
  tcase_add_test (s.cpu, test_no_fault);
  tcase_add_test (s.cpu, test_alloc);
  tcase_add_test (s.cpu, test_launch);
  tcase_add_test (s.cpu, test_copy);
#ifdef HAVE_GST_CUDA
  tcase_add_test (s.gpu, test_device_full);
#endif
  return s.finish ();
}

int
main (int argc, char **argv)
{
  self_exe = argv[0];
  /* LeakCheck's tracer, in this process and in its children */
  g_setenv ("GST_TRACERS", "leaks", TRUE);
  return cip_check_run (faults_suite, argc, argv);
}
