#include "gstintegralmeta.h"
#include "gstmetaupstream.h"

#include <gst/video/video.h>

GType
gst_integral_image_meta_api_get_type (void)
{
  static GType type = 0;
  /* Tagged as depending on the video content: an element that produces new
   * pixels (default GstBaseTransform meta handling) drops the table instead
   * of attaching a stale one to its output. */
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR,
    GST_META_TAG_VIDEO_COLORSPACE_STR, NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstIntegralImageMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
integral_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstIntegralImageMeta *m = (GstIntegralImageMeta *) meta;

  m->sum = NULL;
  m->sqsum = NULL;
  m->type = GST_INTEGRAL_IMAGE_TYPE_U32;
  m->width = m->height = 0;
  m->stride = m->sq_stride = 0;
  m->plane = 0;
  m->producer = NULL;
  return TRUE;
}

static void
integral_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstIntegralImageMeta *m = (GstIntegralImageMeta *) meta;

  gst_clear_buffer (&m->sum);
  gst_clear_buffer (&m->sqsum);
}

static gboolean
integral_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GstIntegralImageMeta *m = (GstIntegralImageMeta *) meta;

  /* Only plain copies keep the table: any other transform changes pixels. */
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  GstIntegralImageMeta *d = gst_buffer_add_integral_image_meta (dest, m->sum,
      m->sqsum, m->type, m->width, m->height, m->stride, m->sq_stride,
      m->plane);
  if (d)
    d->producer = m->producer;
  return d != NULL;
}

const GstMetaInfo *
gst_integral_image_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_INTEGRAL_IMAGE_META_API_TYPE,
        "GstIntegralImageMeta", sizeof (GstIntegralImageMeta),
        integral_meta_init, integral_meta_free, integral_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_add_integral_image_meta:
 * @buffer: a #GstBuffer
 * @sum: the table (one memory); the meta takes a reference
 * @sqsum: (nullable): the squared table (guint64); the meta takes a reference
 * @type: element type of @sum
 * @width: table width in elements (plane width + 1)
 * @height: table height in rows (plane height + 1)
 * @stride: bytes between rows of @sum
 * @sq_stride: bytes between rows of @sqsum
 * @plane: component of the frame the table was computed on
 *
 * Returns: (transfer none): the meta added to @buffer
 */
GstIntegralImageMeta *
gst_buffer_add_integral_image_meta (GstBuffer * buffer, GstBuffer * sum,
    GstBuffer * sqsum, GstIntegralImageType type, guint width, guint height,
    gsize stride, gsize sq_stride, guint plane)
{
  GstIntegralImageMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (GST_IS_BUFFER (sum), NULL);

  m = (GstIntegralImageMeta *) gst_buffer_add_meta (buffer,
      GST_INTEGRAL_IMAGE_META_INFO, NULL);
  if (!m)
    return NULL;
  m->sum = gst_buffer_ref (sum);
  m->sqsum = sqsum ? gst_buffer_ref (sqsum) : NULL;
  m->type = type;
  m->width = width;
  m->height = height;
  m->stride = stride;
  m->sq_stride = sq_stride;
  m->plane = plane;
  return m;
}

/**
 * gst_buffer_get_integral_image_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the #GstIntegralImageMeta of @buffer,
 *   or %NULL when it has none
 */
GstIntegralImageMeta *
gst_buffer_get_integral_image_meta (GstBuffer * buffer)
{
  return (GstIntegralImageMeta *) gst_buffer_get_meta (buffer,
      GST_INTEGRAL_IMAGE_META_API_TYPE);
}

/**
 * gst_integral_image_rect_sum: (skip)
 * @table: the mapped table (host memory)
 * @stride: bytes between rows of @table
 * @type: element type of @table
 * @table_width: table width in elements
 * @table_height: table height in rows
 * @x: left edge of the rectangle
 * @y: top edge of the rectangle
 * @w: width of the rectangle
 * @h: height of the rectangle
 *
 * Returns: the sum over [@x, @x + @w) x [@y, @y + @h), 0 for an empty or
 *   out-of-range rectangle
 */
guint64
gst_integral_image_rect_sum (const guint8 * table, gsize stride,
    GstIntegralImageType type, guint table_width, guint table_height,
    guint x, guint y, guint w, guint h)
{
  guint x1 = x + w, y1 = y + h;

  /* x + w and y + h index the table, which is one larger than the plane */
  if (!table || w == 0 || h == 0 || x1 < x || y1 < y || x1 >= table_width
      || y1 >= table_height)
    return 0;
  if (type == GST_INTEGRAL_IMAGE_TYPE_U32) {
    const guint32 *r0 = (const guint32 *) (table + y * stride);
    const guint32 *r1 = (const guint32 *) (table + y1 * stride);
    return (guint32) (r1[x1] - r1[x] - r0[x1] + r0[x]);
  } else {
    const guint64 *r0 = (const guint64 *) (table + y * stride);
    const guint64 *r1 = (const guint64 *) (table + y1 * stride);
    return r1[x1] - r1[x] - r0[x1] + r0[x];
  }
}

static gboolean
rect_sum_from_buffer (GstBuffer * table, gsize stride, GstIntegralImageType type,
    const GstIntegralImageMeta * meta, guint x, guint y, guint w, guint h,
    guint64 * sum)
{
  gsize elem = type == GST_INTEGRAL_IMAGE_TYPE_U32 ? 4 : 8;
  GstMapInfo map;

  *sum = 0;
  /* the rectangle lies inside the plane, whose size is the table's - 1 */
  if (!table || meta->width == 0 || meta->height == 0
      || x > meta->width - 1 || w > meta->width - 1 - x
      || y > meta->height - 1 || h > meta->height - 1 - y)
    return FALSE;
  if (!gst_buffer_map (table, &map, GST_MAP_READ))
    return FALSE;
  if (map.size < stride * (meta->height - 1) + elem * meta->width) {
    gst_buffer_unmap (table, &map);
    return FALSE;
  }
  if (w > 0 && h > 0)
    *sum = gst_integral_image_rect_sum (map.data, stride, type, meta->width,
        meta->height, x, y, w, h);
  gst_buffer_unmap (table, &map);
  return TRUE;
}

/**
 * gst_integral_image_meta_rect_sum:
 * @meta: a #GstIntegralImageMeta
 * @x: left edge of the rectangle, pixels of the plane
 * @y: top edge of the rectangle
 * @w: width of the rectangle (0 gives 0)
 * @h: height of the rectangle (0 gives 0)
 * @sum: (out): the sum of the pixels in [@x, @x + @w) x [@y, @y + @h)
 *
 * Maps the table (a CUDA table is read back) and evaluates the rectangle sum
 * as gst_integral_image_rect_sum() does: exact below 2^32 for
 * %GST_INTEGRAL_IMAGE_TYPE_U32 tables, exact for U64 ones.
 *
 * Returns: %FALSE when the rectangle does not lie inside the plane or the
 *   table cannot be mapped
 */
gboolean
gst_integral_image_meta_rect_sum (const GstIntegralImageMeta * meta, guint x,
    guint y, guint w, guint h, guint64 * sum)
{
  g_return_val_if_fail (meta != NULL && sum != NULL, FALSE);
  return rect_sum_from_buffer (meta->sum, meta->stride, meta->type, meta, x, y,
      w, h, sum);
}

/**
 * gst_integral_image_meta_rect_sqsum:
 * @meta: a #GstIntegralImageMeta
 * @x: left edge of the rectangle, pixels of the plane
 * @y: top edge of the rectangle
 * @w: width of the rectangle (0 gives 0)
 * @h: height of the rectangle (0 gives 0)
 * @sum: (out): the sum of the squared pixels in the rectangle
 *
 * Like gst_integral_image_meta_rect_sum(), from the squared table (guint64).
 *
 * Returns: %FALSE when the meta has no squared table, the rectangle does not
 *   lie inside the plane or the table cannot be mapped
 */
gboolean
gst_integral_image_meta_rect_sqsum (const GstIntegralImageMeta * meta, guint x,
    guint y, guint w, guint h, guint64 * sum)
{
  g_return_val_if_fail (meta != NULL && sum != NULL, FALSE);
  return rect_sum_from_buffer (meta->sqsum, meta->sq_stride,
      GST_INTEGRAL_IMAGE_TYPE_U64, meta, x, y, w, h, sum);
}

/* Elements that hand on the pixels they receive unchanged. */
static gboolean
passes_pixels (GstElement * element)
{
  static const gchar *const names[] = { "queue", "queue2", "capsfilter",
    "identity", "tee", "valve", NULL
  };
  GstElementFactory *f = gst_element_get_factory (element);
  const gchar *name = f ? GST_OBJECT_NAME (f) : NULL;

  if (!name)
    return FALSE;
  for (guint i = 0; names[i]; i++)
    if (g_str_equal (name, names[i]))
      return TRUE;
  return FALSE;
}

gboolean
gst_integral_image_meta_describes_input (const GstIntegralImageMeta * meta,
    GstPad * sinkpad)
{
  g_return_val_if_fail (meta != NULL, FALSE);
  g_return_val_if_fail (GST_IS_PAD (sinkpad), FALSE);
  return gst_cudaimgproc_meta_producer_is_upstream (meta->producer, sinkpad);
}

gboolean
gst_cudaimgproc_meta_producer_is_upstream (gpointer producer, GstPad * sinkpad)
{
  GstPad *pad;
  gboolean ret = FALSE;

  pad = gst_pad_get_peer (sinkpad);
  /* bounded: a pipeline has no cycles, but a pathological one costs little */
  for (guint hops = 0; pad && hops < 64; hops++) {
    GstPad *next = NULL;
    GstElement *element;

    if (GST_IS_GHOST_PAD (pad)) {
      /* a bin's source ghost pad: continue at its target inside */
      next = gst_ghost_pad_get_target (GST_GHOST_PAD (pad));
      gst_object_unref (pad);
      pad = next;
      continue;
    }
    if (GST_IS_PROXY_PAD (pad) && GST_PAD_IS_SRC (pad)) {
      /* the internal pad of a bin's sink ghost pad: continue outside */
      GstProxyPad *ghost = gst_proxy_pad_get_internal (GST_PROXY_PAD (pad));
      gst_object_unref (pad);
      pad = NULL;
      if (ghost) {
        pad = gst_pad_get_peer (GST_PAD (ghost));
        gst_object_unref (ghost);
      }
      continue;
    }
    element = gst_pad_get_parent_element (pad);
    gst_object_unref (pad);
    pad = NULL;
    if (!element) {
      /* a pad of the application's own (GstHarness, a bare pad): it pushed
       * the buffer with its metas, nothing else wrote in between */
      ret = TRUE;
      break;
    }
    if (producer && (gpointer) element == producer) {
      ret = TRUE;
    } else if (passes_pixels (element)) {
      GstPad *sink = gst_element_get_static_pad (element, "sink");
      if (sink) {
        pad = gst_pad_get_peer (sink);
        gst_object_unref (sink);
      }
    }
    gst_object_unref (element);
    if (ret)
      break;
  }
  if (pad)
    gst_object_unref (pad);
  return ret;
}
