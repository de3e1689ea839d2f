/* Soak: all five elements chained, many frames in one run (default: 20,000
 * frames of 1080p on the GPU in CUDA memory, CIP_SOAK_FRAMES; 1,000 frames
 * of 320x240 on the CPU (CI), CIP_SOAK_CPU_FRAMES; tests/reliability-gpu.sh
 * runs 100,000 on the GPU). Every frame comes out; every CIP_SOAK_SAMPLE-th
 * (default frames / 20) output, pixels and metas, equals the same chain's
 * output on the CPU path (computed once per distinct input); host RSS and
 * device memory, sampled along the run, are flat after the first tenth:
 * device memory not one byte up, RSS less than half of what a leak of one
 * 1080p frame every 1,000 frames would add (at most 8 MiB). */
#include <gst/check/gstcheck.h>

#include <string>
#include <vector>

#include "elementcheck.h"

using namespace testutil;

/* Stateless settings, so that an output depends on its input only. */
static std::string
chain (const char *compute)
{
  std::string c = std::string (" compute=") + compute;
  return "cudaintegral" + c + " ! cudaboxfilter radius-x=4 radius-y=4" + c +
      " ! cudahistogram bins=64" + c + " ! cudahistequalize" + c +
      " ! cudahalftone levels=4" + c;
}

static int
env_int (const char *name, int dflt)
{
  const char *v = g_getenv (name);
  return v && *v ? atoi (v) : dflt;
}

static const int N_INPUTS = 4;

/* The slowest leak the RSS check catches, in bytes per frame: one 1080p
 * NV12 frame every 1,000 frames. */
static const double LEAK_PER_FRAME = 1920.0 * 1080 * 3 / 2 / 1000;

static void
soak (const Path & path, int width, int height, int frames)
{
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, width, height);
  FrameSource src (&info, path.memory);
  FrameSource sys (&info, Memory::system);
  const int sample = MAX (1, env_int ("CIP_SOAK_SAMPLE", frames / 20));

  /* the CPU path's output for each input */
  std::vector<std::vector<uint8_t>> want;
  {
    AppPipeline ref (chain ("cpu"), sys.caps ());
    fail_unless (ref.play ());
    for (int i = 0; i < N_INPUTS; i++) {
      GstBuffer *out = ref.process (sys.make (Content::natural, 300 + i));
      fail_unless (out != NULL);
      want.push_back (frame_digest (out, &info));
      gst_buffer_unref (out);
    }
  }
  std::vector<GstBuffer *> inputs;
  for (int i = 0; i < N_INPUTS; i++)
    inputs.push_back (src.make (Content::natural, 300 + i));

  /* a first sample: the CUDA runtime's one-off start is not growth */
  memory_use ();
  AppPipeline p (chain (path.compute), src.caps (), true);
  fail_unless (p.play ());
  MemoryUse base = { 0, 0 }, max = { G_MININT64, G_MININT64 };
  const int warm = frames / 10;
  int compared = 0;
  const gint64 t0 = g_get_monotonic_time ();
  for (int f = 0; f < frames; f++) {
    /* a ref: elements that add metas copy it first (not writable) */
    GstBuffer *out = p.process (gst_buffer_ref (inputs[f % N_INPUTS]));
    if (!out) {
      GError *err = NULL;
      gst_message_parse_error (p.errors[0], &err, NULL);
      fail ("%s: frame %d: %s", path.name ().c_str (), f, err->message);
    }
    if (f % sample == 0 || f == frames - 1) {
      const std::vector<uint8_t> got = frame_digest (out, &info);
      fail_unless (got == want[f % N_INPUTS], "%s: frame %d differs from the "
          "CPU path: %s", path.name ().c_str (), f,
          digest_difference (got, want[f % N_INPUTS], &info).c_str ());
      compared++;
    }
    gst_buffer_unref (out);
    if (f == warm || (f > warm && (f % MAX (1, frames / 50) == 0 ||
                f == frames - 1))) {
      MemoryUse u = memory_use ();
      if (f == warm)
        base = u;
      max.rss = MAX (max.rss, u.rss);
      max.device = MAX (max.device, u.device);
    }
  }
  const double secs = (g_get_monotonic_time () - t0) / 1e6;
  for (GstBuffer *b : inputs)
    gst_buffer_unref (b);
  /* half of what one leaked 1080p frame per 1,000 frames adds, between 1
   * MiB (short runs: allocator noise) and 8 MiB */
  const gint64 rss_limit = (gint64) CLAMP (LEAK_PER_FRAME * (frames - 1 -
          warm) / 2, 1048576.0, 8.0 * 1048576);
  g_print ("%s: %d frames of %dx%d in %.1f s (%.0f fps), %d compared with "
      "the CPU path; RSS %.1f -> max %.1f MiB (limit +%.2f), device %.1f -> "
      "max %.1f MiB\n", path.name ().c_str (), frames, width, height, secs,
      frames / secs, compared, base.rss / 1048576.0, max.rss / 1048576.0,
      rss_limit / 1048576.0, base.device / 1048576.0,
      max.device / 1048576.0);
  fail_unless (base.rss < 0 || max.rss - base.rss <= rss_limit, "%s: RSS grew "
      "by %" G_GINT64_FORMAT " bytes over %d frames", path.name ().c_str (),
      max.rss - base.rss, frames - 1 - warm);
  fail_unless (max.device - base.device <= 0, "%s: device memory grew by %"
      G_GINT64_FORMAT " bytes", path.name ().c_str (),
      max.device - base.device);
}

GST_START_TEST (test_soak_cpu)
{
  soak (Path { Memory::system, "cpu" }, 320, 240,
      env_int ("CIP_SOAK_CPU_FRAMES", 1000));
}
GST_END_TEST;

GST_START_TEST (test_soak_gpu)
{
  soak (Path { Memory::cuda, "gpu" }, 1920, 1080,
      env_int ("CIP_SOAK_FRAMES", 20000));
}
GST_END_TEST;

static Suite *
soak_suite (void)
{
  ElementSuite s ("soak");
  tcase_set_timeout (s.cpu, 900);
  tcase_set_timeout (s.gpu, 3600);
  tcase_add_test (s.cpu, test_soak_cpu);
  tcase_add_test (s.gpu, test_soak_gpu);
  return s.finish ();
}

int
main (int argc, char **argv)
{
  return cip_check_run (soak_suite, argc, argv);
}
