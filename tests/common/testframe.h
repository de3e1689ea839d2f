/* Video buffers for element tests: filled per component with test content,
 * optionally with padded strides (through GstVideoMeta), and read back
 * component by component through GstVideoFrame's own macros (independently
 * of the plugin's plane handling). */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <vector>

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#endif

#include "testimage.h"

namespace testutil {

/* A system-memory buffer for `info` whose rows are padded by `pad` bytes
 * (0 = GStreamer's default strides), each component filled with content c
 * (seed varies per component). Padding bytes hold 0xA5. */
GstBuffer *make_video_buffer (const GstVideoInfo * info, Content c,
    uint32_t seed, int pad = 0);

/* Fills an already allocated buffer (e.g. CUDA memory from a pool, mapped
 * for writing on the CPU) with the same content make_video_buffer() gives. */
void fill_video_buffer (GstBuffer * buf, const GstVideoInfo * info, Content c,
    uint32_t seed);

/* Component `comp` of a buffer as a tight W x H byte array. */
std::vector<uint8_t> read_component (GstBuffer * buf, const GstVideoInfo * info,
    guint comp);

/* Caps for info, with memory:CUDAMemory when cuda is true. */
GstCaps *video_caps (const GstVideoInfo * info, bool cuda = false);

GstVideoInfo video_info (GstVideoFormat fmt, int w, int h);

/* Every format the elements accept in system memory. */
extern const GstVideoFormat all_formats[8];

/* Every byte of a buffer (e.g. to check that video passed unchanged). */
std::vector<uint8_t> buffer_bytes (GstBuffer * buf);

/* True when libcuda loads and a CUDA context opens on device 0 (always false
 * in builds without the GPU path). Probe once, before adding GPU test cases. */
bool cuda_device_works ();

#ifdef HAVE_GST_CUDA
/* An active GstCudaBufferPool of `ctx` for `caps` (CUDA caps of `info`),
 * with video metas. */
GstBufferPool *make_cuda_pool (GstCudaContext * ctx, GstCaps * caps,
    const GstVideoInfo * info);
#endif

}  // namespace testutil
