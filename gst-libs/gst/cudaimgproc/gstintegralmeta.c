#include "gstintegralmeta.h"

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
  return gst_buffer_add_integral_image_meta (dest, m->sum, m->sqsum, m->type,
      m->width, m->height, m->stride, m->sq_stride, m->plane) != NULL;
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
