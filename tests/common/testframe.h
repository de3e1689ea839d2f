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
 * at the component's depth (seed varies per component; 10-bit formats get
 * garbage in the bits outside the value). Padding bytes hold 0xA5. */
GstBuffer *make_video_buffer (const GstVideoInfo * info, Content c,
    uint32_t seed, int pad = 0);

/* Fills an already allocated buffer (e.g. CUDA memory from a pool, mapped
 * for writing on the CPU) with the same content make_video_buffer() gives. */
void fill_video_buffer (GstBuffer * buf, const GstVideoInfo * info, Content c,
    uint32_t seed);

/* Rows and bytes per row of plane p of a frame (plane p holds component p,
 * or, NV12's UV, starts with it). */
void plane_extent (const GstVideoInfo * info, guint p, size_t * row_bytes,
    guint * rows);

/* A frame mapped for reading on the CPU (gst_video_frame_map, GST_MAP_READ),
 * except that a CUDA buffer's planes are copied to the host over their rows'
 * samples only, and the frame's plane pointers point at the copies:
 * GStreamer's CPU map downloads the whole allocation, row padding included,
 * which nothing has written in an element's new output buffer, and
 * compute-sanitizer's initcheck flags that copy. */
class ReadFrame {
public:
  ReadFrame (GstBuffer * buf, const GstVideoInfo * info);
  ~ReadFrame ();
  ReadFrame (const ReadFrame &) = delete;
  ReadFrame & operator= (const ReadFrame &) = delete;
  GstVideoFrame f;
private:
  std::vector<uint8_t> host_[GST_VIDEO_MAX_PLANES];
};

/* The values of component `comp` of a buffer as a tight W x H array (any
 * depth: 16-bit words read little-endian, shifted and masked as the format
 * says, e.g. P010's high ten bits); raw: the whole samples (words) as
 * stored. */
std::vector<uint32_t> read_values (GstBuffer * buf, const GstVideoInfo * info,
    guint comp, bool raw = false);

/* Component `comp` of an 8-bit format as a tight W x H byte array. */
std::vector<uint8_t> read_component (GstBuffer * buf, const GstVideoInfo * info,
    guint comp);

/* A system-memory copy of a frame (info's own layout, the planes' rows
 * through ReadFrame), for keeping an element's CUDA output past its pool:
 * gst_buffer_copy_deep copies the whole allocation, row padding included. */
GstBuffer *frame_copy (GstBuffer * buf, const GstVideoInfo * info);

/* The fourth byte of every pixel (x of RGBx / BGRx), W x H; empty for other
 * formats. */
std::vector<uint8_t> x_bytes (GstBuffer * buf, const GstVideoInfo * info);

/* Caps for info, with memory:CUDAMemory when cuda is true. */
GstCaps *video_caps (const GstVideoInfo * info, bool cuda = false);

GstVideoInfo video_info (GstVideoFormat fmt, int w, int h);

/* Every 8-bit format the elements accept in system memory. */
extern const GstVideoFormat all_formats[8];
/* The 10- and 16-bit formats (GRAY16_LE: system memory only). Frames of
 * them are filled with garbage in the bits outside each value. */
extern const GstVideoFormat hbd_formats[5];

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
