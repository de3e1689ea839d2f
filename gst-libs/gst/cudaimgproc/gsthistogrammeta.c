#include "gsthistogrammeta.h"
#include "gstmetaupstream.h"

#include <string.h>
#include <gst/video/video.h>

GType
gst_histogram_meta_api_get_type (void)
{
  static GType type = 0;
  /* Tagged as depending on the video content: an element that produces new
   * pixels (default GstBaseTransform meta handling) drops the histograms
   * instead of attaching stale ones to its output. */
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR,
    GST_META_TAG_VIDEO_COLORSPACE_STR, NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstHistogramMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
histogram_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstHistogramMeta *m = (GstHistogramMeta *) meta;

  m->bins = 0;
  m->n_histograms = 0;
  m->names = NULL;
  m->counts = NULL;
  m->roi_x = m->roi_y = m->roi_width = m->roi_height = 0;
  m->producer = NULL;
  m->range_min = 0;
  m->range_max = 255;
  return TRUE;
}

static void
histogram_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstHistogramMeta *m = (GstHistogramMeta *) meta;

  g_clear_pointer (&m->names, g_strfreev);
  g_clear_pointer (&m->counts, g_free);
}

static gboolean
histogram_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GstHistogramMeta *m = (GstHistogramMeta *) meta;

  /* Only plain copies keep the histograms: any other transform changes
   * pixels. */
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  GstHistogramMeta *d = gst_buffer_add_histogram_meta (dest, m->bins,
      m->n_histograms, (const gchar * const *) m->names, m->counts, m->roi_x,
      m->roi_y, m->roi_width, m->roi_height);
  if (d) {
    d->producer = m->producer;
    gst_histogram_meta_set_range (d, m->range_min, m->range_max);
  }
  return d != NULL;
}

const GstMetaInfo *
gst_histogram_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_HISTOGRAM_META_API_TYPE,
        "GstHistogramMeta", sizeof (GstHistogramMeta), histogram_meta_init,
        histogram_meta_free, histogram_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_get_histogram_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the #GstHistogramMeta of @buffer, or
 *   %NULL when it has none
 */
GstHistogramMeta *
gst_buffer_get_histogram_meta (GstBuffer * buffer)
{
  return (GstHistogramMeta *) gst_buffer_get_meta (buffer,
      GST_HISTOGRAM_META_API_TYPE);
}

/**
 * gst_buffer_add_histogram_meta: (skip)
 * @buffer: a #GstBuffer
 * @bins: bins per histogram
 * @n_histograms: number of histograms
 * @names: @n_histograms names
 * @counts: @n_histograms * @bins counts
 * @roi_x: left edge of the region, luma pixels
 * @roi_y: top edge of the region, luma pixels
 * @roi_width: width of the region
 * @roi_height: height of the region
 *
 * Returns: (transfer none): the meta added to @buffer
 */
GstHistogramMeta *
gst_buffer_add_histogram_meta (GstBuffer * buffer, guint bins,
    guint n_histograms, const gchar * const *names, const guint64 * counts,
    guint roi_x, guint roi_y, guint roi_width, guint roi_height)
{
  GstHistogramMeta *m;
  guint i;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (bins > 0 && n_histograms > 0, NULL);
  g_return_val_if_fail (names != NULL && counts != NULL, NULL);

  m = (GstHistogramMeta *) gst_buffer_add_meta (buffer,
      GST_HISTOGRAM_META_INFO, NULL);
  if (!m)
    return NULL;
  m->bins = bins;
  m->n_histograms = n_histograms;
  m->names = g_new0 (gchar *, n_histograms + 1);
  for (i = 0; i < n_histograms; i++)
    m->names[i] = g_strdup (names[i]);
  m->counts = (guint64 *) g_memdup2 (counts,
      (gsize) n_histograms * bins * sizeof (guint64));
  m->roi_x = roi_x;
  m->roi_y = roi_y;
  m->roi_width = roi_width;
  m->roi_height = roi_height;
  return m;
}

/**
 * gst_histogram_meta_set_range:
 * @meta: a #GstHistogramMeta
 * @range_min: the lowest value counted
 * @range_max: the highest value counted (>= @range_min)
 *
 * Sets the range of values, in the format's own values, that the bins cover
 * (0..255 when never set).
 */
void
gst_histogram_meta_set_range (GstHistogramMeta * meta, guint range_min,
    guint range_max)
{
  g_return_if_fail (meta != NULL && range_min <= range_max);
  meta->range_min = range_min;
  meta->range_max = range_max;
}

/**
 * gst_histogram_meta_get_counts: (skip)
 * @meta: a #GstHistogramMeta
 * @name: a histogram name
 *
 * Returns: (transfer none) (nullable): the @bins counts of the histogram
 *   called @name, or %NULL if the meta has none of that name
 */
const guint64 *
gst_histogram_meta_get_counts (const GstHistogramMeta * meta,
    const gchar * name)
{
  guint i;

  g_return_val_if_fail (meta != NULL && name != NULL, NULL);
  for (i = 0; i < meta->n_histograms; i++) {
    if (strcmp (meta->names[i], name) == 0)
      return meta->counts + (gsize) i * meta->bins;
  }
  return NULL;
}

/**
 * gst_histogram_meta_get_counts_full: (rename-to gst_histogram_meta_get_counts)
 * @meta: a #GstHistogramMeta
 * @name: a histogram name (see gst_histogram_meta_get_names())
 * @n_counts: (out) (optional): the number of counts (@bins), 0 when there is
 *   no histogram called @name
 *
 * Returns: (transfer none) (array length=n_counts) (nullable): the counts of
 *   the histogram called @name, or %NULL if the meta has none of that name
 */
const guint64 *
gst_histogram_meta_get_counts_full (const GstHistogramMeta * meta,
    const gchar * name, guint * n_counts)
{
  const guint64 *counts = gst_histogram_meta_get_counts (meta, name);

  if (n_counts)
    *n_counts = counts ? meta->bins : 0;
  return counts;
}

/**
 * gst_histogram_meta_get_names:
 * @meta: a #GstHistogramMeta
 *
 * Returns: (transfer none) (array zero-terminated=1): the names of the
 *   histograms, in the order of @counts
 */
const gchar *const *
gst_histogram_meta_get_names (const GstHistogramMeta * meta)
{
  g_return_val_if_fail (meta != NULL, NULL);
  return (const gchar * const *) meta->names;
}

gboolean
gst_histogram_meta_describes_input (const GstHistogramMeta * meta,
    GstPad * sinkpad)
{
  g_return_val_if_fail (meta != NULL, FALSE);
  g_return_val_if_fail (GST_IS_PAD (sinkpad), FALSE);
  return gst_cudaimgproc_meta_producer_is_upstream (meta->producer, sinkpad);
}
