/* Soak: all five elements chained, CIP_SOAK_FRAMES frames in one run
 * (default: 20,000 frames of 1080p on the GPU in CUDA memory, 1,000 frames of
 * 320x240 on the CPU (CI); tests/reliability-gpu.sh runs 100,000 on the GPU).
 * Every frame comes out; every CIP_SOAK_SAMPLE-th (default frames / 20)
 * output, pixels and metas, equals the same chain's output on the CPU path
 * (computed once per distinct input); host RSS and device memory, sampled
 * along the run, are flat after the first tenth. */
#include <gst/check/gstcheck.h>

#include <malloc.h>

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

  AppPipeline p (chain (path.compute), src.caps (), true);
  fail_unless (p.play ());
  gint64 rss0 = 0, dev0 = 0, rss_max = G_MININT64, dev_max = G_MININT64;
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
      fail_unless (frame_digest (out, &info) == want[f % N_INPUTS],
          "%s: frame %d differs from the CPU path", path.name ().c_str (), f);
      compared++;
    }
    gst_buffer_unref (out);
    if (f == frames / 10 || (f > frames / 10 && f % MAX (1, frames / 50) == 0)) {
      malloc_trim (0);
      gint64 rss = rss_bytes (), dev = device_used_bytes ();
      if (f == frames / 10) {
        rss0 = rss;
        dev0 = dev;
      }
      rss_max = MAX (rss_max, rss);
      dev_max = MAX (dev_max, dev);
    }
  }
  const double secs = (g_get_monotonic_time () - t0) / 1e6;
  for (GstBuffer *b : inputs)
    gst_buffer_unref (b);
  g_print ("%s: %d frames of %dx%d in %.1f s (%.0f fps), %d compared with "
      "the CPU path; RSS %.1f -> max %.1f MiB, device %.1f -> max %.1f MiB\n",
      path.name ().c_str (), frames, width, height, secs, frames / secs,
      compared, rss0 / 1048576.0, rss_max / 1048576.0, dev0 / 1048576.0,
      dev_max / 1048576.0);
  fail_unless (rss0 < 0 || rss_max - rss0 < 8 * 1048576, "%s: RSS grew by %"
      G_GINT64_FORMAT " bytes", path.name ().c_str (), rss_max - rss0);
  fail_unless (dev_max - dev0 <= 0, "%s: device memory grew by %"
      G_GINT64_FORMAT " bytes", path.name ().c_str (), dev_max - dev0);
}

GST_START_TEST (test_soak_cpu)
{
  soak (Path { Memory::system, "cpu" }, 320, 240,
      env_int ("CIP_SOAK_FRAMES", 1000));
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
