/* GstEqualizationMeta: the look-up tables cudahistequalize applied to a
 * frame, for applications that want to know (or re-apply) the mapping.
 *
 * @luts holds @tiles_x * @tiles_y * @channels tables of 256 bytes (depth 8),
 * tile-major (row-major tiles), then channel:
 *   lut(tile_x, tile_y, channel)[v] =
 *     luts[((tile_y * tiles_x + tile_x) * channels + channel) * 256 + v]
 * Global mode has one tile (1 x 1). @channels is 1 (luma: the Y plane, or the
 * BT.709 luma of RGB) or 3 (R, G, B with rgb-mode=per-channel). The tables
 * are the ones applied, after temporal smoothing and the strength blend; in
 * CLAHE mode each pixel mixes the four nearest tiles' tables bilinearly.
 * Like GstIntegralImageMeta's tables, @luts is CUDA memory when the element
 * ran on CUDA memory (map it normally to read it on the CPU: GstCudaMemory
 * waits for the element's stream and downloads), system memory otherwise. */
#pragma once

#include <gst/gst.h>

#include "gstintegralmeta.h"    /* GST_CUDAIMGPROC_API */

G_BEGIN_DECLS

typedef struct _GstEqualizationMeta GstEqualizationMeta;

/**
 * GstEqualizationMeta:
 * @meta: parent
 * @luts: buffer (one memory) of @tiles_x * @tiles_y * @channels tables of
 *   2^@depth entries each: bytes at depth 8 (256 per table), little-endian
 *   guint16 above (e.g. 1024 per table for 10-bit formats)
 * @tiles_x: tiles per row (1 in global mode)
 * @tiles_y: tiles per column (1 in global mode)
 * @channels: tables per tile: 1 (luma) or 3 (R, G, B)
 * @depth: bits of the values the tables map (8, or 10..16)
 *
 * Since: 0.1
 */
struct _GstEqualizationMeta {
  GstMeta meta;

  GstBuffer *luts;
  guint tiles_x;
  guint tiles_y;
  guint channels;
  /* added last, so that the fields above keep their offsets */
  guint depth;
};

GST_CUDAIMGPROC_API GType gst_equalization_meta_api_get_type (void);
#define GST_EQUALIZATION_META_API_TYPE (gst_equalization_meta_api_get_type ())

GST_CUDAIMGPROC_API const GstMetaInfo *gst_equalization_meta_get_info (void);
#define GST_EQUALIZATION_META_INFO (gst_equalization_meta_get_info ())

/* The meta of @buffer, or NULL (a function rather than a macro so that
 * bindings see it). */
GST_CUDAIMGPROC_API
GstEqualizationMeta *gst_buffer_get_equalization_meta (GstBuffer * buffer);

/* Takes a reference to @luts. The depth is set to 8:
 * gst_equalization_meta_set_depth() changes it. */
GST_CUDAIMGPROC_API
GstEqualizationMeta *gst_buffer_add_equalization_meta (GstBuffer * buffer,
    GstBuffer * luts, guint tiles_x, guint tiles_y, guint channels);

/* A copy of the table of tile (@tile_x, @tile_y), channel @channel (256
 * bytes at depth 8, 2^depth little-endian guint16 above), or NULL when out of
 * range; for bindings (Python gets bytes). */
GST_CUDAIMGPROC_API
GBytes *gst_equalization_meta_get_lut (const GstEqualizationMeta * meta,
    guint tile_x, guint tile_y, guint channel);

/* Sets the depth of the tables' values (see above). */
GST_CUDAIMGPROC_API
void gst_equalization_meta_set_depth (GstEqualizationMeta * meta, guint depth);

G_END_DECLS
