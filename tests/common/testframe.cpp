#include "testframe.h"

#include <cstring>

#ifdef HAVE_GST_CUDA
#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#endif

namespace testutil {

const GstVideoFormat all_formats[8] = { GST_VIDEO_FORMAT_GRAY8,
  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_Y444,
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx };

const GstVideoFormat hbd_formats[5] = { GST_VIDEO_FORMAT_GRAY16_LE,
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_P016_LE,
  GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_Y444_16LE };

GstVideoInfo
video_info (GstVideoFormat fmt, int w, int h)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, fmt, w, h);
  GST_VIDEO_INFO_FPS_N (&info) = 30;
  GST_VIDEO_INFO_FPS_D (&info) = 1;
  return info;
}

GstCaps *
video_caps (const GstVideoInfo * info, bool cuda)
{
  GstCaps *caps = gst_video_info_to_caps (info);
  if (cuda)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new ("memory:CUDAMemory", NULL));
  return caps;
}

/* First byte of component `comp` (GST_VIDEO_FRAME_COMP_DATA, except that
 * GStreamer 1.22 gives the V of P010_10LE / P016_LE the offset 1, in
 * samples: 2 bytes). */
static guint8 *
comp_data (const GstVideoFrame * f, guint comp)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  guint off = GST_VIDEO_FORMAT_INFO_POFFSET (fi, comp);
  if (GST_VIDEO_FORMAT_INFO_DEPTH (fi, comp) > 8 && off % 2 != 0)
    off *= 2;
  return (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f,
      GST_VIDEO_FORMAT_INFO_PLANE (fi, comp)) + off;
}

static void
fill_frame (GstVideoFrame * f, Content c, uint32_t seed)
{
  for (guint comp = 0; comp < GST_VIDEO_FRAME_N_COMPONENTS (f); comp++) {
    const guint depth = GST_VIDEO_FRAME_COMP_DEPTH (f, comp);
    guint8 *d = comp_data (f, comp);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (f, comp);
    gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (f, comp);
    const int w = GST_VIDEO_FRAME_COMP_WIDTH (f, comp);
    const int h = GST_VIDEO_FRAME_COMP_HEIGHT (f, comp);
    if (depth > 8) {
      /* 16-bit words: the value at the format's shift, garbage in the other
       * bits (which readers must ignore, e.g. P010's low six) */
      const guint shift = GST_VIDEO_FORMAT_INFO_SHIFT (f->info.finfo, comp);
      HostImage img = make_image16 (w, h, c, (int) depth, (int) shift,
          seed + 101u * comp, 1, 0, true);
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
          const uint8_t *s = img.row (y) + 2 * x;
          guint8 *q = d + (size_t) y * stride + (size_t) x * ps;
          q[0] = s[0];
          q[1] = s[1];
        }
      continue;
    }
    HostImage img = make_image (w, h, c, seed + 101u * comp);
    for (int y = 0; y < img.height; y++)
      for (int x = 0; x < img.width; x++)
        d[(size_t) y * stride + (size_t) x * ps] = img.row (y)[x];
  }
}

void
fill_video_buffer (GstBuffer * buf, const GstVideoInfo * info, Content c,
    uint32_t seed)
{
  GstVideoFrame f;
  g_assert (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  fill_frame (&f, c, seed);
  gst_video_frame_unmap (&f);
}

GstBuffer *
make_video_buffer (const GstVideoInfo * info, Content c, uint32_t seed,
    int pad)
{
  GstVideoInfo padded = *info;
  gsize offset = 0;

  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info->finfo, p, comp);
    gint rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    padded.stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p) + pad;
    padded.offset[p] = offset;
    offset += (gsize) padded.stride[p] * rows;
  }
  padded.size = offset;

  GstBuffer *buf = gst_buffer_new_allocate (NULL, padded.size, NULL);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  memset (map.data, 0xA5, map.size);
  gst_buffer_unmap (buf, &map);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), info->width, info->height,
      GST_VIDEO_INFO_N_PLANES (info), padded.offset, padded.stride);
  fill_video_buffer (buf, &padded, c, seed);
  return buf;
}

void
plane_extent (const GstVideoInfo * info, guint p, size_t * row_bytes,
    guint * rows)
{
  *row_bytes = (size_t) GST_VIDEO_INFO_COMP_WIDTH (info, p) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, p);
  *rows = GST_VIDEO_INFO_COMP_HEIGHT (info, p);
}

ReadFrame::ReadFrame (GstBuffer * buf, const GstVideoInfo * info)
{
#ifdef HAVE_GST_CUDA
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  if (gst_is_cuda_memory (mem)) {
    g_assert (gst_video_frame_map (&f, info, buf,
            (GstMapFlags) (GST_MAP_READ | GST_MAP_CUDA)));
    g_assert (gst_cuda_context_push (GST_CUDA_MEMORY_CAST (mem)->context));
    /* (1.24+ elements hand their stream over: wait for it) */
    cudaError_t e = cudaDeviceSynchronize ();
    for (guint p = 0; e == cudaSuccess && p < GST_VIDEO_FRAME_N_PLANES (&f);
        p++) {
      size_t row_bytes;
      guint rows;
      plane_extent (info, p, &row_bytes, &rows);
      const size_t stride = (size_t) GST_VIDEO_FRAME_PLANE_STRIDE (&f, p);
      host_[p].assign (stride * rows, 0);
      e = cudaMemcpy2D (host_[p].data (), stride, f.data[p], stride,
          row_bytes, rows, cudaMemcpyDeviceToHost);
      f.data[p] = host_[p].data ();
    }
    gst_cuda_context_pop (NULL);
    g_assert (e == cudaSuccess);
    return;
  }
#endif
  g_assert (gst_video_frame_map (&f, info, buf, GST_MAP_READ));
}

ReadFrame::~ReadFrame ()
{
  gst_video_frame_unmap (&f);
}

GstBuffer *
frame_copy (GstBuffer * buf, const GstVideoInfo * info)
{
  ReadFrame r (buf, info);
  GstBuffer *copy = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame d;
  g_assert (gst_video_frame_map (&d, info, copy, GST_MAP_WRITE));
  g_assert (gst_video_frame_copy (&d, &r.f));
  gst_video_frame_unmap (&d);
  return copy;
}

std::vector<uint8_t>
x_bytes (GstBuffer * buf, const GstVideoInfo * info)
{
  std::vector<uint8_t> v;
  if (GST_VIDEO_INFO_FORMAT (info) != GST_VIDEO_FORMAT_RGBx &&
      GST_VIDEO_INFO_FORMAT (info) != GST_VIDEO_FORMAT_BGRx)
    return v;
  ReadFrame r (buf, info);
  const int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  const guint8 *d = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&r.f, 0);
  const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&r.f, 0);
  v.resize ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      v[(size_t) y * w + x] = d[(size_t) y * stride + (size_t) x * 4 + 3];
  return v;
}

std::vector<uint8_t>
read_component (GstBuffer * buf, const GstVideoInfo * info, guint comp)
{
  ReadFrame r (buf, info);
  GstVideoFrame &f = r.f;
  int w = GST_VIDEO_FRAME_COMP_WIDTH (&f, comp);
  int h = GST_VIDEO_FRAME_COMP_HEIGHT (&f, comp);
  const guint8 *d = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, comp);
  gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&f, comp);
  gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&f, comp);
  std::vector<uint8_t> out ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      out[(size_t) y * w + x] = d[(size_t) y * stride + (size_t) x * ps];
  return out;
}

std::vector<uint32_t>
read_values (GstBuffer * buf, const GstVideoInfo * info, guint comp, bool raw)
{
  ReadFrame r (buf, info);
  GstVideoFrame &f = r.f;
  int w = GST_VIDEO_FRAME_COMP_WIDTH (&f, comp);
  int h = GST_VIDEO_FRAME_COMP_HEIGHT (&f, comp);
  const guint8 *d = comp_data (&f, comp);
  gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&f, comp);
  gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&f, comp);
  const guint depth = GST_VIDEO_FRAME_COMP_DEPTH (&f, comp);
  const guint shift = GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, comp);
  std::vector<uint32_t> out ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const guint8 *p = d + (size_t) y * stride + (size_t) x * ps;
      /* little-endian words for the 16-bit formats */
      uint32_t s = depth > 8 ? (uint32_t) p[0] | ((uint32_t) p[1] << 8) : p[0];
      out[(size_t) y * w + x] = raw ? s : (s >> shift) & ((1u << depth) - 1u);
    }
  return out;
}

std::vector<uint8_t>
buffer_bytes (GstBuffer * buf)
{
  GstMapInfo map;
  g_assert (gst_buffer_map (buf, &map, GST_MAP_READ));
  std::vector<uint8_t> bytes (map.data, map.data + map.size);
  gst_buffer_unmap (buf, &map);
  return bytes;
}

#ifdef HAVE_GST_CUDA
bool
cuda_device_works ()
{
  if (!gst_cuda_load_library ())
    return false;
  GstCudaContext *ctx = gst_cuda_context_new (0);
  if (!ctx)
    return false;
  gst_object_unref (ctx);
  return true;
}

GstBufferPool *
make_cuda_pool (GstCudaContext * ctx, GstCaps * caps, const GstVideoInfo * info)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (ctx);
  GstStructure *cfg = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (cfg, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (cfg, caps, (guint) info->size, 0, 0);
  g_assert (gst_buffer_pool_set_config (pool, cfg));
  g_assert (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}
#else
bool
cuda_device_works ()
{
  return false;
}
#endif

}  // namespace testutil
