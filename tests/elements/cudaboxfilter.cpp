/* cudaboxfilter element tests: output equals a naive windowed mean (computed
 * here from GstVideoFrame reads, same rounding) for every format, radii 0..50
 * and larger than the frame, both borders, both plane modes, padded strides;
 * the upstream-SAT path (cudaintegral ! cudaboxfilter) equals the internal
 * one; an upstream table is reused only when it fits (plane 0, u32, the
 * plane's size; a reused table is proven read by giving it other content) and
 * refused otherwise; the padding byte of RGBx/BGRx is copied; renegotiation
 * and property changes between frames while PLAYING, several frames per
 * element (recycled output buffers); compute=auto; properties. CPU path
 * always, GPU path when a device works (system memory and CUDA memory; see
 * tests/common/elementcheck.h). Large frames are checked against a
 * sliding-window reference (tests/common/boxref.h). */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/cudaimgproc/gstintegralmeta.h>

#include <algorithm>
#include <string>

#include "boxref.h"
#include "elementcheck.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

using namespace testutil;

/* Naive mean of a W x H plane over the window, documented rounding. */
static std::vector<uint8_t>
naive_box (const std::vector<uint8_t> & px, int w, int h, int rx, int ry,
    bool replicate)
{
  std::vector<uint8_t> out ((size_t) w * h);
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      uint64_t sum = 0, area = 0;
      for (int dy = -ry; dy <= ry; dy++) {
        int yy = y + dy;
        if (!replicate && (yy < 0 || yy >= h))
          continue;
        yy = std::min (std::max (yy, 0), h - 1);
        for (int dx = -rx; dx <= rx; dx++) {
          int xx = x + dx;
          if (!replicate && (xx < 0 || xx >= w))
            continue;
          xx = std::min (std::max (xx, 0), w - 1);
          sum += px[(size_t) yy * w + xx];
          area++;
        }
      }
      out[(size_t) y * w + x] = (uint8_t) ((sum + area / 2) / area);
    }
  }
  return out;
}

static int
scaled (int r, int sub)
{
  return (r + ((1 << sub) >> 1)) >> sub;
}

static std::string
launch_line (int rx, int ry, bool replicate, bool luma_only)
{
  return std::string ("cudaboxfilter compute=") + compute_mode + " radius-x=" +
      std::to_string (rx) + " radius-y=" + std::to_string (ry) + " border=" +
      (replicate ? "replicate" : "clip") + " planes=" +
      (luma_only ? "luma" : "all");
}

static bool
has_padding_byte (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_RGBx ||
      GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_BGRx;
}

/* Gives the padding bytes of an RGBx/BGRx frame content of their own (they
 * are 0xA5 otherwise), so a missing copy cannot match by chance. */
static void
fill_x_bytes (GstBuffer * buf, const GstVideoInfo * info, uint32_t seed)
{
  if (!has_padding_byte (info))
    return;
  GstVideoFrame f;
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  guint8 *d = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
  uint32_t r = seed * 2654435761u + 1;
  for (int y = 0; y < info->height; y++)
    for (int x = 0; x < info->width; x++) {
      r = r * 1664525u + 1013904223u;
      d[(size_t) y * stride + x * 4 + 3] = (guint8) (r >> 24);
    }
  gst_video_frame_unmap (&f);
}

/* An input frame: content c, and padding bytes of its own. */
static GstBuffer *
make_input (FrameSource & src, Content c, uint32_t seed, int pad)
{
  GstBuffer *in = src.make (c, seed, src.memory () == Memory::cuda ? 0 : pad);
  fill_x_bytes (in, src.info (), seed);
  return in;
}

/* Checks every component of out (from `first` on) against the naive filter
 * of in, and the padding byte of RGBx/BGRx against in's. */
static void
check_output (GstBuffer * in, GstBuffer * out, const GstVideoInfo * info,
    int rx, int ry, bool replicate, bool luma_only, const std::string & what,
    guint first = 0)
{
  const GstVideoFormatInfo *f = info->finfo;
  bool rgb = GST_VIDEO_INFO_IS_RGB (info);
  for (guint c = first; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    int w = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    int h = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
    const guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (f, c);
    bool filtered = !luma_only || c == 0 || (rgb && c < 3);
    int crx = scaled (rx, GST_VIDEO_FORMAT_INFO_W_SUB (f, c));
    int cry = scaled (ry, GST_VIDEO_FORMAT_INFO_H_SUB (f, c));
    std::vector<uint32_t> want, got;
    if (depth == 8) {
      std::vector<uint8_t> src = read_component (in, info, c);
      /* the direct loop where affordable, the sliding-window sums above that */
      bool small = (uint64_t) w * h * (2 * crx + 1) * (2 * cry + 1) <= 4000000;
      std::vector<uint8_t> w8 = !filtered ? src : small ?
          naive_box (src, w, h, crx, cry, replicate) :
          sliding_box (src.data (), (size_t) w, 1, w, h, crx, cry, replicate);
      want.assign (w8.begin (), w8.end ());
      got = read_values (out, info, c);
    } else {
      /* 10/16-bit: the windowed mean of the values, written as whole words
       * (value << shift, the other bits zero: P010's low six, I420_10LE's
       * high six), unfiltered components included */
      const std::vector<uint32_t> src = read_values (in, info, c);
      want = testutil::sliding_box_values ([&] (int x, int y) {
            return src[(size_t) y * w + x];
          }, w, h, filtered ? crx : 0, filtered ? cry : 0, replicate);
      for (uint32_t & v : want)
        v <<= GST_VIDEO_FORMAT_INFO_SHIFT (f, c);
      got = read_values (out, info, c, true);
    }
    for (size_t i = 0; i < want.size (); i++) {
      if (got[i] != want[i])
        fail ("%s: component %u differs at (%d, %d): %u != %u", what.c_str (),
            c, (int) (i % w), (int) (i / w), got[i], want[i]);
    }
  }
  if (has_padding_byte (info)) {
    std::vector<uint8_t> a = x_bytes (in, info);
    std::vector<uint8_t> b = x_bytes (out, info);
    for (size_t i = 0; i < a.size (); i++)
      if (a[i] != b[i])
        fail ("%s: padding byte of pixel (%d, %d) not copied: %u != %u",
            what.c_str (), (int) (i % info->width), (int) (i / info->width),
            b[i], a[i]);
  }
}

/* Runs `launch` on one frame and returns the output (caller unrefs). */
static GstBuffer *
run_one (const std::string & launch, const GstVideoInfo * info, GstBuffer * in,
    bool cuda = false)
{
  GstHarness *hrn = gst_harness_new_parse (launch.c_str ());
  gst_harness_set_caps (hrn, video_caps (info, cuda), video_caps (info, cuda));
  fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (hrn);
  fail_unless (out != NULL);
  /* copy out of the harness's pool before teardown */
  GstBuffer *copy = cuda ? frame_copy (out, info) : gst_buffer_copy_deep (out);
  gst_buffer_unref (out);
  gst_harness_teardown (hrn);
  return copy;
}

static void
run_case (GstVideoFormat fmt, int w, int h, int rx, int ry, bool replicate,
    bool luma_only, Content c, int pad)
{
  GstVideoInfo info = video_info (fmt, w, h);
  std::string launch = launch_line (rx, ry, replicate, luma_only);
  std::string what = launch + " " + GST_VIDEO_INFO_NAME (&info) + " " +
      std::to_string (w) + "x" + std::to_string (h) + " " + content_name (c);
  FrameSource src (&info, Memory::system);
  GstBuffer *in = make_input (src, c, (uint32_t) (w + 7 * h), pad);
  GstBuffer *out = run_one (launch, &info, gst_buffer_ref (in));
  check_output (in, out, &info, rx, ry, replicate, luma_only, what);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
}

GST_START_TEST (test_every_format)
{
  for (GstVideoFormat fmt : all_formats) {
    run_case (fmt, 34, 18, 1, 1, false, false, Content::random, 0);
    run_case (fmt, 33, 17, 2, 3, true, false, Content::natural, 13);
    run_case (fmt, 32, 20, 3, 1, false, true, Content::random, 0);
  }
}
GST_END_TEST;

/* 10- and 16-bit formats (garbage in the input's unused bits): every
 * component filtered or passed (planes=luma), radii up to beyond the frame,
 * both borders, padded strides. */
GST_START_TEST (test_high_bit_depth)
{
  for (GstVideoFormat fmt : hbd_formats) {
    run_case (fmt, 34, 18, 1, 1, false, false, Content::random, 0);
    run_case (fmt, 33, 17, 2, 3, true, false, Content::natural, 6);
    run_case (fmt, 32, 20, 3, 1, false, true, Content::random, 0);
    run_case (fmt, 31, 17, 100, 40, true, false, Content::all255, 2);
    run_case (fmt, 66, 44, 50, 50, false, false, Content::gradient, 0);
  }
}
GST_END_TEST;

GST_START_TEST (test_radii_and_borders)
{
  static const int radii[] = { 0, 1, 2, 7, 50 };
  for (int r : radii) {
    for (bool rep : {false, true}) {
      run_case (GST_VIDEO_FORMAT_GRAY8, 67, 45, r, r, rep, false,
          Content::random, 3);
      run_case (GST_VIDEO_FORMAT_NV12, 66, 44, r, r / 2, rep, false,
          Content::checkerboard, 0);
    }
  }
  /* radius larger than the frame, 1x1 and thin frames */
  for (bool rep : {false, true}) {
    run_case (GST_VIDEO_FORMAT_GRAY8, 31, 17, 100, 40, rep, false,
        Content::gradient, 0);
    run_case (GST_VIDEO_FORMAT_GRAY8, 1, 1, 5, 5, rep, false, Content::all255,
        0);
    run_case (GST_VIDEO_FORMAT_GRAY8, 1, 23, 3, 3, rep, false,
        Content::random, 0);
    run_case (GST_VIDEO_FORMAT_RGBA, 23, 1, 3, 3, rep, false, Content::random,
        0);
  }
  run_case (GST_VIDEO_FORMAT_I420, 320, 240, 7, 7, false, false,
      Content::natural, 64);
  for (Content c : all_contents)
    run_case (GST_VIDEO_FORMAT_GRAY8, 40, 30, 4, 4, true, false, c, 0);
}
GST_END_TEST;

/* cudaintegral's table upstream gives the same output as the internal SAT. */
GST_START_TEST (test_upstream_sat_same_output)
{
  for (GstVideoFormat fmt : {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12,
          GST_VIDEO_FORMAT_RGBA}) {
    GstVideoInfo info = video_info (fmt, 130, 66);
    GstBuffer *in = make_video_buffer (&info, Content::random, 9, 5);
    std::string box = launch_line (15, 9, true, false);
    GstBuffer *a = run_one (box, &info, gst_buffer_ref (in));
    GstBuffer *b = run_one (std::string ("cudaintegral compute=") +
        compute_mode + " ! " + box, &info, gst_buffer_ref (in));
    check_output (in, a, &info, 15, 9, true, false, "internal SAT");
    check_output (in, b, &info, 15, 9, true, false, "upstream SAT");
    gst_buffer_unref (a);
    gst_buffer_unref (b);
    gst_buffer_unref (in);
  }
}
GST_END_TEST;

/* An upstream integral table other than the frame's own: the table
 * `cudaintegral <props>` computes on a donor frame of `w` x `h` (content of
 * its own) in memory `m`, on path p. The caller attaches it to a frame. */
struct Donor {
  GstBuffer *out = nullptr;     /* the donor frame, holding the meta */
  GstIntegralImageMeta *meta = nullptr;
  std::vector<uint8_t> luma;    /* the donor's component 0 */
  GstVideoInfo info;

  Donor (const Path & p, GstVideoFormat fmt, int w, int h,
      const std::string & props, uint32_t seed)
  {
    info = video_info (fmt, w, h);
    FrameSource src (&info, p.memory);
    ElementHarness hrn (std::string ("cudaintegral compute=") + p.compute +
        " " + props, &info, p.cuda ());
    GstBuffer *in = src.make (Content::random, seed);
    luma = read_component (in, &info, 0);
    out = hrn.push (in);
    meta = gst_buffer_get_integral_image_meta (out);
    fail_unless (meta != NULL);
  }
  ~Donor () { gst_buffer_unref (out); }
  void attach_to (GstBuffer * buf) const
  {
    gst_buffer_add_integral_image_meta (buf, meta->sum, meta->sqsum,
        meta->type, meta->width, meta->height, meta->stride, meta->sq_stride,
        meta->plane);
  }
};

/* A table fit for reuse (plane 0, u32, the plane's size, squared or not) is
 * read instead of computing one: given a table of other content, the output
 * is the filter of that content (CPU path, and the GPU path on CUDA memory;
 * the GPU path on system memory computes its own). Any other table (plane
 * 1..3, u64, another size) is refused: the output is the frame's own. Radii
 * above 4 make the GPU read a table it is given (boxfilter_pick). */
GST_START_TEST (test_upstream_sat_reuse_and_refusal)
{
  for_each_path ([] (const Path & p) {
    const bool reads = !(p.memory == Memory::system &&
        std::string (p.compute) == "gpu");
    for (GstVideoFormat fmt : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12,
            GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_Y444}) {
      /* CIP_TEST_SMALL (compute-sanitizer: a pipeline a case is slow
       * there): a packed and a semi-planar format */
      if (cip_test_small () && fmt != GST_VIDEO_FORMAT_RGBA &&
          fmt != GST_VIDEO_FORMAT_NV12)
        continue;
      const int W = 70, H = 38;
      GstVideoInfo info = video_info (fmt, W, H);
      const struct {
        const char *props;
        int dw, dh;             /* donor size */
        bool fits;
      } cases[] = {
        { "", W, H, true },
        { "squared=true", W, H, true },
        { "sat-type=u64", W, H, false },
        { "sat-type=u64 squared=true", W, H, false },
        { "plane=1", W, H, false },
        { "plane=2 squared=true", W, H, false },
        { "plane=3", W, H, false },
        { "", W + 6, H, false },
        { "", W, H + 4, false },
        { "", W + 2, H + 2, false },
      };
      uint32_t seed = 100;
      for (const auto & c : cases) {
        const GstVideoFormatInfo *fi = gst_video_format_get_info (fmt);
        if (std::string (c.props).find ("plane=3") != std::string::npos &&
            GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi) < 4)
          continue;
        for (int r : { 5, 23 }) {
          Donor d (p, fmt, c.dw, c.dh, c.props, seed++);
          FrameSource src (&info, p.memory);
          GstBuffer *in = src.make (Content::natural, seed++);
          d.attach_to (in);
          std::string what = std::string ("donor '") + c.props + "' " +
              std::to_string (c.dw) + "x" + std::to_string (c.dh) + " " +
              GST_VIDEO_INFO_NAME (&info) + " r " + std::to_string (r) + " " +
              p.name ();
          compute_mode = p.compute;
          GstBuffer *out = run_one (launch_line (r, r, r > 10, false), &info,
              gst_buffer_ref (in), p.cuda ());
          compute_mode = "cpu";
          /* component 0 comes from the table when it is read, the rest is
           * always the frame's own */
          check_output (in, out, &info, r, r, r > 10, false, what +
              " (other components)", 1);
          std::vector<uint8_t> got = read_component (out, &info, 0);
          std::vector<uint8_t> own = read_component (in, &info, 0);
          std::vector<uint8_t> want = sliding_box (c.fits && reads ?
              d.luma.data () : own.data (), (size_t) W, 1, W, H, r, r, r > 10);
          for (size_t i = 0; i < want.size (); i++)
            if (got[i] != want[i])
              fail ("%s: table %s: component 0 differs at (%d, %d): %u != %u",
                  what.c_str (), c.fits && reads ? "not reused" : "reused",
                  (int) (i % W), (int) (i / W), got[i], want[i]);
          gst_buffer_unref (out);
          gst_buffer_unref (in);
        }
      }
    }
  });
}
GST_END_TEST;

/* The pipelines as written: cudaintegral of another plane, u64 or squared
 * upstream of cudaboxfilter filters every channel right. */
GST_START_TEST (test_upstream_sat_pipelines)
{
  for_each_path ([] (const Path & p) {
    for (GstVideoFormat fmt : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_I420,
            GST_VIDEO_FORMAT_BGRx}) {
      GstVideoInfo info = video_info (fmt, 66, 42);
      FrameSource src (&info, p.memory);
      for (const char *props : { "plane=1", "plane=2", "sat-type=u64",
              "squared=true", "plane=1 sat-type=u64 squared=true" }) {
        for (int r : { 6, 30 }) {
          compute_mode = p.compute;
          std::string box = launch_line (r, r / 3, false, false);
          std::string launch = std::string ("cudaintegral compute=") +
              p.compute + " " + props + " ! " + box;
          compute_mode = "cpu";
          GstBuffer *in = make_input (src, Content::random, r * 13 + 1, 5);
          GstBuffer *out = run_one (launch, &info, gst_buffer_ref (in),
              p.cuda ());
          check_output (in, out, &info, r, r / 3, false, false, launch + " " +
              GST_VIDEO_INFO_NAME (&info) + " " + p.name ());
          gst_buffer_unref (out);
          gst_buffer_unref (in);
        }
      }
    }
  });
}
GST_END_TEST;

/* Pushes frames of `src` through an element that lives on, checking each
 * against the filter with the given settings. Outputs are released before
 * the next frame, so the output pool hands back a buffer that holds the
 * previous (different) output. */
static void
push_frames (GstHarness * hrn, FrameSource & src, int n, uint32_t & seed,
    int rx, int ry, bool replicate, bool luma_only, const std::string & what)
{
  for (int i = 0; i < n; i++) {
    GstBuffer *in = make_input (src, Content::random, seed++, 7);
    fail_unless_equals_int (gst_harness_push (hrn, gst_buffer_ref (in)),
        GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (hrn);
    fail_unless (out != NULL);
    check_output (in, out, src.info (), rx, ry, replicate, luma_only, what +
        " " + GST_VIDEO_INFO_NAME (src.info ()) + " frame " +
        std::to_string (i));
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
}

/* New caps mid-stream on every path (GPU: scratch frames, workspace and
 * output pools rebuilt), several frames per caps. */
GST_START_TEST (test_renegotiation)
{
  for_each_path ([] (const Path & p) {
    compute_mode = p.compute;
    std::string launch = launch_line (2, 2, false, false);
    compute_mode = "cpu";
    GstHarness *hrn = gst_harness_new_parse (launch.c_str ());
    const GstVideoInfo infos[3] = { video_info (GST_VIDEO_FORMAT_I420, 64, 48),
      video_info (GST_VIDEO_FORMAT_BGRx, 37, 29),
      video_info (GST_VIDEO_FORMAT_NV12, 642, 362) };
    uint32_t seed = 3;
    for (int k : { 0, 1, 2, 0, 2 }) {
      FrameSource src (&infos[k], p.memory);
      gst_harness_set_caps (hrn, src.caps (), src.caps ());
      push_frames (hrn, src, 2, seed, 2, 2, false, false, "renegotiation " +
          p.name ());
    }
    gst_harness_teardown (hrn);
  });
}
GST_END_TEST;

/* Radii, border and planes changed between frames while PLAYING apply to the
 * next frame (the GPU switches between direct and SAT algorithms). */
GST_START_TEST (test_live_changes)
{
  for_each_path ([] (const Path & p) {
    for (GstVideoFormat fmt : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBx}) {
      GstVideoInfo info = video_info (fmt, 130, 66);
      FrameSource src (&info, p.memory);
      compute_mode = p.compute;
      std::string launch = launch_line (1, 1, false, false);
      compute_mode = "cpu";
      GstHarness *hrn = gst_harness_new_parse (launch.c_str ());
      gst_harness_set_caps (hrn, src.caps (), src.caps ());
      GstElement *e = gst_harness_find_element (hrn, "cudaboxfilter");
      const struct { int rx, ry; bool rep, luma; } steps[] = {
        {1, 1, false, false}, {20, 3, false, false}, {20, 3, true, false},
        {0, 0, true, false}, {40, 40, true, true}, {4, 17, false, true},
        {2, 2, false, false}, {33, 1, true, false}, {1, 1, false, false} };
      uint32_t seed = 50;
      for (const auto & st : steps) {
        g_object_set (e, "radius-x", (guint) st.rx, "radius-y", (guint) st.ry,
            "border", st.rep ? 1 : 0, "planes", st.luma ? 1 : 0, NULL);
        fail_unless_equals_int (GST_STATE (e), GST_STATE_PLAYING);
        push_frames (hrn, src, 2, seed, st.rx, st.ry, st.rep, st.luma,
            "live " + launch_line (st.rx, st.ry, st.rep, st.luma) + " " +
            p.name ());
      }
      gst_object_unref (e);
      gst_harness_teardown (hrn);
    }
  });
}
GST_END_TEST;

/* compute=auto, and no compute= at all (the default is auto): the GPU when
 * one works, else the CPU; CUDA memory in gives CUDA memory out. */
GST_START_TEST (test_compute_auto)
{
  compute_mode = "auto";
  run_case (GST_VIDEO_FORMAT_NV12, 66, 34, 3, 2, true, false, Content::random,
      13);
  run_case (GST_VIDEO_FORMAT_BGRx, 33, 17, 20, 20, false, false,
      Content::natural, 0);
  compute_mode = "cpu";
  for (const Path & p : { Path { Memory::system, "auto" },
          Path { Memory::cuda, "auto" } }) {
    if (p.cuda () && !gpu_works ())
      continue;
    GstVideoInfo info = video_info (GST_VIDEO_FORMAT_I420, 98, 54);
    FrameSource src (&info, p.memory);
    GstHarness *hrn = gst_harness_new_parse ("cudaboxfilter radius-x=21 "
        "radius-y=9");
    gst_harness_set_caps (hrn, src.caps (), src.caps ());
    uint32_t seed = 9;
    push_frames (hrn, src, 2, seed, 21, 9, false, false, "default compute " +
        p.name ());
#ifdef HAVE_GST_CUDA
    GstBuffer *in = make_input (src, Content::random, 1, 0);
    fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (hrn);
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)) ==
        p.cuda (), "%s: output memory", p.name ().c_str ());
    gst_buffer_unref (out);
#endif
    gst_harness_teardown (hrn);
  }
}
GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("cudaboxfilter", NULL);
  guint rx, ry;
  gint border, planes;
  fail_unless (e != NULL);
  g_object_get (e, "radius-x", &rx, "radius-y", &ry, "border", &border,
      "planes", &planes, NULL);
  fail_unless_equals_int (rx, 1);
  fail_unless_equals_int (ry, 1);
  fail_unless_equals_int (border, 0);
  fail_unless_equals_int (planes, 0);
  GParamSpecUInt *ps = G_PARAM_SPEC_UINT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), "radius-x"));
  fail_unless_equals_int (ps->maximum, 1024);
  gst_object_unref (e);
}
GST_END_TEST;

#ifdef HAVE_GST_CUDA
GST_START_TEST (test_gpu_system_memory)
{
  compute_mode = "gpu";
  for (GstVideoFormat fmt : all_formats)
    run_case (fmt, 66, 34, 3, 2, fmt == GST_VIDEO_FORMAT_NV12, false,
        Content::random, 13);
  run_case (GST_VIDEO_FORMAT_GRAY8, 1, 1, 1, 1, false, false,
      Content::all255, 0);
  for (GstVideoFormat fmt : hbd_formats) {
    run_case (fmt, 66, 34, 3, 2, true, false, Content::random, 6);
    run_case (fmt, 1920, 1080, 1024, 1024, false, false, Content::all255, 0);
  }
  for (int r : {0, 1, 2, 7, 50})
    for (bool rep : {false, true})
      run_case (GST_VIDEO_FORMAT_GRAY8, 131, 97, r, r, rep, false,
          Content::natural, 0);
  compute_mode = "cpu";
}
GST_END_TEST;

/* CUDA memory in and out: the output equals the reference filter and the
 * CPU element's; radii for both GPU algorithms (direct up to 16, the
 * internal table above, for NV12 and I420 chroma too) and the upstream
 * table; two frames of different content per element, so an output sample
 * left unwritten holds the previous frame's value. */
GST_START_TEST (test_gpu_cuda_memory)
{
  for (GstVideoFormat fmt : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
          GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx,
          GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_Y444_16LE}) {
    for (const Size & s : {Size {66, 34}, Size {1920, 1080}}) {
      if (too_large_for_small (s.w, s.h))
        continue;
      GstVideoInfo info = video_info (fmt, s.w, s.h);
      FrameSource src (&info, Memory::cuda);
      for (int r : {1, 15, 40}) {
        for (bool upstream : {false, true}) {
          compute_mode = "gpu";
          std::string box = launch_line (r, r, r == 15, false);
          std::string launch = upstream ?
              "cudaintegral compute=gpu ! " + box : box;
          compute_mode = "cpu";
          GstHarness *hrn = gst_harness_new_parse (launch.c_str ());
          gst_harness_set_caps (hrn, src.caps (), src.caps ());
          for (uint32_t i = 0; i < 2; i++) {
            GstBuffer *in = make_input (src, Content::random,
                (uint32_t) (s.w * 3 + r * 5 + upstream) * 2 + i, 0);
            fail_unless_equals_int (gst_harness_push (hrn,
                    gst_buffer_ref (in)), GST_FLOW_OK);
            GstBuffer *out = gst_harness_pull (hrn);
            fail_unless (out != NULL);
            fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)));
            std::string what = launch + " CUDA " + GST_VIDEO_INFO_NAME (&info)
                + " " + std::to_string (s.w) + " frame " + std::to_string (i);
            check_output (in, out, &info, r, r, r == 15, false, what);
            GstBuffer *ref = run_one (launch_line (r, r, r == 15, false),
                &info, gst_buffer_copy_deep (in), true);
            for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++)
              fail_unless (read_values (out, &info, c, true) ==
                  read_values (ref, &info, c, true),
                  "%s: GPU != CPU, component %u", what.c_str (), c);
            gst_buffer_unref (ref);
            gst_buffer_unref (out);
            gst_buffer_unref (in);
          }
          gst_harness_teardown (hrn);
        }
      }
    }
  }
}
GST_END_TEST;

#endif

static Suite *
cudaboxfilter_suite (void)
{
  ElementSuite es ("cudaboxfilter");

  tcase_add_test (es.cpu, test_properties);
  tcase_add_test (es.cpu, test_every_format);
  tcase_add_test (es.cpu, test_radii_and_borders);
  tcase_add_test (es.cpu, test_high_bit_depth);
  tcase_add_test (es.cpu, test_upstream_sat_same_output);
  tcase_add_test (es.cpu, test_upstream_sat_reuse_and_refusal);
  tcase_add_test (es.cpu, test_upstream_sat_pipelines);
  tcase_add_test (es.cpu, test_renegotiation);
  tcase_add_test (es.cpu, test_live_changes);
  tcase_add_test (es.cpu, test_compute_auto);
#ifdef HAVE_GST_CUDA
  tcase_add_test (es.gpu, test_gpu_system_memory);
  tcase_add_test (es.gpu, test_gpu_cuda_memory);
#endif
  return es.finish ();
}

int
main (int argc, char **argv)
{
  return cip_check_run (cudaboxfilter_suite, argc, argv);
}
