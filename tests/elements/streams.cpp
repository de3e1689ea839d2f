/* Stream hand-over on GStreamer 1.24+ (GPU only): frames in CUDA memory pass
 * through the elements without a host wait per frame, and a consumer on
 * another CUDA stream that follows the GstCudaMemory rules reads finished
 * data.
 *
 * The producer writes each input frame on its own GstCudaStream (the stream
 * of its buffer pool, as nvh264dec does) behind ~100 ms of queued copies, so
 * nothing on the device is finished when the frame is pushed; the input is
 * poisoned first. Then:
 * - when the element returns, the producer's stream is still busy: the
 *   element did not wait on the host (frames after the first two; the first
 *   ones allocate);
 * - the output memory carries a stream and GST_CUDA_MEMORY_TRANSFER_NEED_SYNC;
 * - a consumer on a third stream waits for the memory's stream with an event
 *   (no host wait), copies the frame on its stream and gets exactly what the
 *   element gives with compute=cpu on the same frame.
 * An element that read the input before the producer finished would see the
 * poison; one whose work the consumer could not find would give unfinished
 * output. On 1.22 (no GstCudaStream) the case says so and passes. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <string>
#include <vector>

#include "elementcheck.h"

#ifdef HAVE_GST_CUDA
#include <cuda_runtime.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#endif
#include "testcuda.h"
#endif

using namespace testutil;

#if defined(HAVE_GST_CUDA) && GST_CHECK_VERSION(1, 24, 0)
/* The tight bytes of every plane of a system-memory frame. */
static std::vector<uint8_t>
host_planes (GstBuffer * buf, const GstVideoInfo * info)
{
  GstVideoFrame f;
  std::vector<uint8_t> out;
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    size_t rb;
    guint rows;
    plane_extent (info, p, &rb, &rows);
    const uint8_t *d = (const uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (&f, p);
    for (guint y = 0; y < rows; y++)
      out.insert (out.end (), d + (size_t) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f,
              p), d + (size_t) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p) + rb);
  }
  gst_video_frame_unmap (&f);
  return out;
}

/* `launch` with every {c} replaced by compute=`compute` */
static std::string
with_compute (const char *launch, const char *compute)
{
  std::string s (launch);
  for (size_t at; (at = s.find ("{c}")) != std::string::npos;)
    s.replace (at, 3, std::string ("compute=") + compute);
  return s;
}

static void
run_handover (const char *launch)
{
  const int W = 3840, H = 2160, FRAMES = 6;
  const size_t DELAY_BYTES = 256u << 20;
  const int DELAY_COPIES = 300;         /* ~100 ms on an H100 */
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, W, H);
  GstCaps *caps = video_caps (&info, true);
  GstCudaContext *ctx = shared_context ();

  /* the producer: a pool whose memory carries the producer's stream */
  GstCudaStream *producer = gst_cuda_stream_new (ctx);
  fail_unless (producer != NULL);
  GstBufferPool *pool = gst_cuda_buffer_pool_new (ctx);
  GstStructure *cfg = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (cfg, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (cfg, caps, (guint) info.size, 0, 0);
  gst_buffer_pool_config_set_cuda_stream (cfg, producer);
  fail_unless (gst_buffer_pool_set_config (pool, cfg));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));

  fail_unless (gst_cuda_context_push (ctx));
  cudaStream_t ps = (cudaStream_t) gst_cuda_stream_get_handle (producer);
  cudaStream_t cs = nullptr;
  CUDA_OK (cudaStreamCreateWithFlags (&cs, cudaStreamNonBlocking));
  cudaEvent_t ev = nullptr;
  CUDA_OK (cudaEventCreateWithFlags (&ev, cudaEventDisableTiming));
  void *delay_a = nullptr, *delay_b = nullptr;
  CUDA_OK (cudaMalloc (&delay_a, DELAY_BYTES));
  CUDA_OK (cudaMalloc (&delay_b, DELAY_BYTES));
  uint8_t *pinned_in = nullptr, *pinned_out = nullptr;
  CUDA_OK (cudaMallocHost ((void **) &pinned_in, info.size));
  CUDA_OK (cudaMallocHost ((void **) &pinned_out, info.size));
  gst_cuda_context_pop (NULL);

  ElementHarness gpu (with_compute (launch, "gpu"), &info, true);
  ElementHarness cpu (with_compute (launch, "cpu"), &info, false);

  for (int i = 0; i < FRAMES; i++) {
    /* the frame and what compute=cpu makes of it */
    GstBuffer *sys = make_video_buffer (&info, i % 2 ? Content::natural :
        Content::random, 1000u + i);
    std::vector<uint8_t> src = host_planes (sys, &info);
    GstBuffer *ref_out = cpu.push (sys);
    std::vector<uint8_t> expected = host_planes (ref_out, &info);
    gst_buffer_unref (ref_out);
    memcpy (pinned_in, src.data (), src.size ());

    /* produced on the producer's stream: poison, ~100 ms of work, the frame */
    GstBuffer *in = nullptr;
    fail_unless (gst_buffer_pool_acquire_buffer (pool, &in, NULL) ==
        GST_FLOW_OK);
    GstVideoFrame vf;
    fail_unless (gst_cuda_context_push (ctx));
    fail_unless (gst_video_frame_map (&vf, &info, in, (GstMapFlags)
            (GST_MAP_WRITE | GST_MAP_CUDA)));
    size_t off = 0;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      size_t rb;
      guint rows;
      plane_extent (&info, p, &rb, &rows);
      void *d = GST_VIDEO_FRAME_PLANE_DATA (&vf, p);
      size_t pitch = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);
      CUDA_OK (cudaMemset2DAsync (d, pitch, 0xA5, rb, rows, ps));
      if (p == 0)
        for (int k = 0; k < DELAY_COPIES; k++)
          CUDA_OK (cudaMemcpyAsync (delay_a, delay_b, DELAY_BYTES,
                  cudaMemcpyDeviceToDevice, ps));
      CUDA_OK (cudaMemcpy2DAsync (d, pitch, pinned_in + off, rb, rb, rows,
              cudaMemcpyHostToDevice, ps));
      off += rb * rows;
    }
    gst_video_frame_unmap (&vf);
    gst_cuda_context_pop (NULL);
    GstMemory *in_mem = gst_buffer_peek_memory (in, 0);
    fail_unless (GST_MEMORY_FLAG_IS_SET (in_mem,
            GST_CUDA_MEMORY_TRANSFER_NEED_SYNC),
        "the producer's pool did not flag its queued work");

    GstBuffer *out = gpu.push (in);

    /* no host wait in the element: the producer's work is still queued */
    fail_unless (gst_cuda_context_push (ctx));
    cudaError_t q = cudaStreamQuery (ps);
    gst_cuda_context_pop (NULL);
    if (i >= 2)
      fail_unless (q == cudaErrorNotReady, "frame %d: the producer's stream "
          "was idle when %s returned (%s): the element waited on the host", i,
          launch, cudaGetErrorName (q));
    else
      cudaGetLastError ();

    /* the consumer: waits for the memory's stream on its own stream */
    GstMemory *mem = gst_buffer_peek_memory (out, 0);
    fail_unless (gst_is_cuda_memory (mem));
    GstCudaStream *ms = gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (mem));
    fail_unless (ms != NULL, "frame %d: output memory carries no stream", i);
    fail_unless (i < 2 || GST_MEMORY_FLAG_IS_SET (mem,
            GST_CUDA_MEMORY_TRANSFER_NEED_SYNC),
        "frame %d: output not flagged NEED_SYNC", i);
    memset (pinned_out, 0x5A, info.size);
    fail_unless (gst_cuda_context_push (ctx));
    fail_unless (gst_video_frame_map (&vf, &info, out, (GstMapFlags)
            (GST_MAP_READ | GST_MAP_CUDA)));
    CUDA_OK (cudaEventRecord (ev, (cudaStream_t)
            gst_cuda_stream_get_handle (ms)));
    CUDA_OK (cudaStreamWaitEvent (cs, ev, 0));
    off = 0;
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      size_t rb;
      guint rows;
      plane_extent (&info, p, &rb, &rows);
      CUDA_OK (cudaMemcpy2DAsync (pinned_out + off, rb,
              GST_VIDEO_FRAME_PLANE_DATA (&vf, p),
              GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p), rb, rows,
              cudaMemcpyDeviceToHost, cs));
      off += rb * rows;
    }
    CUDA_OK (cudaStreamSynchronize (cs));
    gst_video_frame_unmap (&vf);
    gst_cuda_context_pop (NULL);
    gst_buffer_unref (out);

    size_t bad = 0, first = 0;
    for (size_t k = 0; k < expected.size (); k++)
      if (pinned_out[k] != expected[k] && bad++ == 0)
        first = k;
    fail_unless (bad == 0, "%s frame %d: %zu of %zu bytes differ from "
        "compute=cpu (first at %zu: %u, expected %u)", launch, i, bad,
        expected.size (), first, pinned_out[first], expected[first]);
    GST_INFO ("%s frame %d: %zu bytes equal", launch, i, expected.size ());
  }

  fail_unless (gst_cuda_context_push (ctx));
  CUDA_OK (cudaStreamSynchronize (ps));
  cudaFree (delay_a);
  cudaFree (delay_b);
  cudaFreeHost (pinned_in);
  cudaFreeHost (pinned_out);
  cudaEventDestroy (ev);
  cudaStreamDestroy (cs);
  gst_cuda_context_pop (NULL);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_cuda_stream_unref (producer);
  gst_caps_unref (caps);
}
#endif

GST_START_TEST (test_gpu_stream_handover)
{
#if defined(HAVE_GST_CUDA) && GST_CHECK_VERSION(1, 24, 0)
  /* a new output buffer, an in-place writer, an analysis element whose
   * table stays in CUDA memory, and a chain of them */
  run_handover ("cudaboxfilter {c} radius-x=31 radius-y=31");
  run_handover ("cudahistequalize {c} mode=clahe");
  run_handover ("cudaintegral {c} ! cudaboxfilter {c} radius-x=7 radius-y=7");
#else
  g_print ("test_gpu_stream_handover: SKIPPED: GStreamer %d.%d has no "
      "GstCudaStream (1.24+); the elements synchronize each frame on the "
      "host there\n", GST_VERSION_MAJOR, GST_VERSION_MINOR);
#endif
}
GST_END_TEST;

static Suite *
streams_suite (void)
{
  ElementSuite es ("streams");

  tcase_add_test (es.gpu, test_gpu_stream_handover);
  return es.finish ();
}

int
main (int argc, char **argv)
{
  return cip_check_run (streams_suite, argc, argv);
}
