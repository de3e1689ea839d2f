#include "elementcheck.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#endif

namespace testutil {

const char *compute_mode = "cpu";

static void
reset_compute_mode (void)
{
  /* a failed test leaves the test by longjmp, past any restoring code */
  compute_mode = "cpu";
}

ElementSuite::ElementSuite (const char *name)
{
  suite = suite_create (name);
  cpu = tcase_create ("cpu");
  gpu = tcase_create ("gpu");
  tcase_add_checked_fixture (cpu, reset_compute_mode, NULL);
  tcase_add_checked_fixture (gpu, reset_compute_mode, NULL);
  suite_add_tcase (suite, cpu);
}

Suite *
ElementSuite::finish ()
{
  cip_check_add_gpu_tcase (suite, gpu, gpu_works ());
  return suite;
}

bool
gpu_works ()
{
  static int works = -1;
  if (works < 0)
    works = cuda_device_works () ? 1 : 0;
  return works == 1;
}

std::string
Path::name () const
{
  return std::string (memory == Memory::cuda ? "cuda/" : "system/") + compute;
}

void
for_each_path (const std::function<void (const Path &)> &body)
{
  body (Path { Memory::system, compute_mode });
  if (!gpu_works ())
    return;
  if (std::string (compute_mode) != "gpu")
    body (Path { Memory::system, "gpu" });
  body (Path { Memory::cuda, "gpu" });
}

#ifdef HAVE_GST_CUDA
/* One context for the whole executable: opening one per case is slow. */
GstCudaContext *
shared_context ()
{
  static GstCudaContext *ctx = nullptr;
  if (!ctx)
    ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL, "no CUDA context on device 0");
  return ctx;
}
#endif

FrameSource::FrameSource (const GstVideoInfo * info, Memory memory)
    : info_ (*info), memory_ (memory)
{
  if (memory_ == Memory::system)
    return;
#ifdef HAVE_GST_CUDA
  GstCaps *c = caps ();
  pool_ = make_cuda_pool (shared_context (), c, &info_);
  gst_caps_unref (c);
#else
  fail ("CUDA memory in a build without the GPU path");
#endif
}

FrameSource::~FrameSource ()
{
  if (pool_) {
    gst_buffer_pool_set_active (pool_, FALSE);
    gst_object_unref (pool_);
  }
}

GstCaps *
FrameSource::caps () const
{
  return video_caps (&info_, memory_ == Memory::cuda);
}

GstBuffer *
FrameSource::make (Content c, uint32_t seed, int pad)
{
  if (memory_ == Memory::system)
    return make_video_buffer (&info_, c, seed, pad);
  GstBuffer *buf = NULL;
  fail_unless (gst_buffer_pool_acquire_buffer (pool_, &buf, NULL) ==
      GST_FLOW_OK);
  fill_video_buffer (buf, &info_, c, seed);
  return buf;
}

ElementHarness::ElementHarness (const std::string & launch,
    const GstVideoInfo * info, bool cuda)
{
  h = gst_harness_new_parse (launch.c_str ());
  fail_unless (h != NULL, "cannot launch %s", launch.c_str ());
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  if (info)
    caps (info, cuda);
}

ElementHarness::~ElementHarness ()
{
  gst_harness_teardown (h);
  /* queued messages hold refs to the elements, which hold the bus */
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

void
ElementHarness::caps (const GstVideoInfo * info, bool cuda)
{
  gst_harness_set_caps (h, video_caps (info, cuda), video_caps (info, cuda));
}

GstElement *
ElementHarness::find (const char *factory)
{
  GstElement *e = gst_harness_find_element (h, factory);
  fail_unless (e != NULL, "no %s in the harness", factory);
  gst_object_unref (e);
  return e;
}

GstBuffer *
ElementHarness::push (GstBuffer * in)
{
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != NULL);
  return out;
}

GstMessage *
ElementHarness::pop (GstClockTime timeout)
{
  GstMessage *m = gst_bus_timed_pop_filtered (bus, timeout,
      (GstMessageType) (GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR));
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    fail ("error message: %s", err->message);
  }
  return m;
}

void
ElementHarness::expect_no_message ()
{
  GstMessage *m = pop (0);
  if (m)
    fail ("unexpected message %s",
        gst_structure_to_string (gst_message_get_structure (m)));
}

}  // namespace testutil
