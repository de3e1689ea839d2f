/* cudahistequalize element tests: global equalization of the luma plane
 * against OpenCV's equalizeHist formula restated here, on every path. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <cmath>
#include <string>
#include <vector>

#include "elementcheck.h"

using namespace testutil;

/* cv::equalizeHist's table for the histogram of `px`. */
static std::vector<uint8_t>
naive_lut (const std::vector<uint8_t> & px)
{
  std::vector<uint8_t> lut (256);
  uint64_t h[256] = { };
  for (uint8_t v : px)
    h[v]++;
  int i0 = 0;
  while (i0 < 255 && h[i0] == 0)
    i0++;
  const uint64_t total = px.size ();
  if (total == 0 || h[i0] == total) {
    for (int v = 0; v < 256; v++)
      lut[v] = (uint8_t) v;
    return lut;
  }
  const float scale = 255.f / (float) (total - h[i0]);
  uint64_t sum = 0;
  for (int v = 0; v < 256; v++) {
    if (v > i0)
      sum += h[v];
    float x = (float) sum * scale;
    long r = lrintf (x);
    lut[v] = (uint8_t) (v <= i0 ? 0 : (r < 0 ? 0 : r > 255 ? 255 : r));
  }
  return lut;
}

GST_START_TEST (test_global_yuv)
{
  for_each_path ([] (const Path & p) {
    for (GstVideoFormat fmt : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
            GST_VIDEO_FORMAT_Y444}) {
      GstVideoInfo info = video_info (fmt, 67, 41);
      FrameSource src (&info, p.memory);
      ElementHarness hrn (std::string ("cudahistequalize compute=") +
          p.compute, &info, p.cuda ());
      GstBuffer *in = src.make (Content::natural, 7);
      std::vector<uint8_t> y = read_component (in, &info, 0);
      std::vector<uint8_t> u = read_component (in, &info, 1);
      std::vector<uint8_t> lut = naive_lut (y);
      GstBuffer *out = hrn.push (in);
      std::vector<uint8_t> oy = read_component (out, &info, 0);
      std::vector<uint8_t> ou = read_component (out, &info, 1);
      for (size_t i = 0; i < y.size (); i++)
        if (oy[i] != lut[y[i]])
          fail ("%s %s: Y %zu: %u != %u", p.name ().c_str (),
              GST_VIDEO_INFO_NAME (&info), i, oy[i], lut[y[i]]);
      fail_unless (ou == u, "%s: chroma changed", p.name ().c_str ());
      gst_buffer_unref (out);
    }
  });
}
GST_END_TEST;

static Suite *
cudahistequalize_suite (void)
{
  ElementSuite es ("cudahistequalize");

  tcase_add_test (es.cpu, test_global_yuv);
  return es.finish ();
}

int
main (int argc, char **argv)
{
  return cip_check_run (cudahistequalize_suite, argc, argv);
}
