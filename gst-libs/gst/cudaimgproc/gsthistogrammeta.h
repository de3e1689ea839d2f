/* GstHistogramMeta: the per-frame histograms attached by the cudahistogram
 * element, for applications that read buffers rather than the bus.
 *
 * A meta holds @n_histograms histograms of @bins bins each, one after the
 * other in @counts: histogram i (named @names[i]) is
 *   counts[i * bins + 0 .. i * bins + bins - 1].
 * Counts are those of this frame only (the bus message of the element sums
 * them over its `interval`). The values @range_min .. @range_max (inclusive,
 * in the format's own values: 0..255 for 8-bit formats, 0..1023 for 10-bit,
 * 0..65535 for 16-bit) map evenly to bins; with span = range_max -
 * range_min + 1:
 *   bin = (value - range_min) * bins / span      (rounded down)
 * so bin b holds the values range_min + ceil(b * span / bins) ..
 * range_min + ceil((b + 1) * span / bins) - 1; values outside the range are
 * not counted. (8-bit over 0..255: bin = value * bins / 256.)
 * Names are "luma"; or "red", "green", "blue"; or "plane0", "plane1", ...
 * (see the element's `mode` property).
 *
 * @roi_x, @roi_y, @roi_width, @roi_height give the region the histograms
 * were taken over after clipping to the frame, in luma pixel coordinates
 * (the chroma histograms of subsampled formats cover the chroma samples of
 * that region). Every luma/colour histogram sums to roi_width * roi_height.
 *
 * The meta owns copies of its names and counts; a plain buffer copy copies
 * them, any transform that changes the video drops the meta.
 */
#pragma once

#include <gst/gst.h>

#include "gstintegralmeta.h"    /* GST_CUDAIMGPROC_API */

G_BEGIN_DECLS

typedef struct _GstHistogramMeta GstHistogramMeta;

/**
 * GstHistogramMeta:
 * @meta: parent
 * @bins: bins per histogram (2..65536)
 * @n_histograms: number of histograms (1..4)
 * @names: @n_histograms names, %NULL-terminated
 * @counts: @n_histograms * @bins counts, histogram i at @counts[i * @bins]
 * @roi_x: left edge of the region, luma pixels
 * @roi_y: top edge of the region, luma pixels
 * @roi_width: width of the region (0 when it lies outside the frame)
 * @roi_height: height of the region (0 when it lies outside the frame)
 * @producer: the element that computed the histograms (not a reference:
 *   compare only), or %NULL; see gst_histogram_meta_describes_input()
 * @range_min: the lowest value counted
 * @range_max: the highest value counted
 *
 * Since: 0.1
 */
struct _GstHistogramMeta {
  GstMeta meta;

  guint bins;
  guint n_histograms;
  gchar **names;
  guint64 *counts;
  guint roi_x;
  guint roi_y;
  guint roi_width;
  guint roi_height;
  gpointer producer;
  /* added last, so that the fields above keep their offsets */
  guint range_min;
  guint range_max;
};

GST_CUDAIMGPROC_API GType gst_histogram_meta_api_get_type (void);
#define GST_HISTOGRAM_META_API_TYPE (gst_histogram_meta_api_get_type ())

GST_CUDAIMGPROC_API const GstMetaInfo *gst_histogram_meta_get_info (void);
#define GST_HISTOGRAM_META_INFO (gst_histogram_meta_get_info ())

/* The meta of @buffer, or NULL (a function rather than a macro so that
 * bindings see it). */
GST_CUDAIMGPROC_API
GstHistogramMeta *gst_buffer_get_histogram_meta (GstBuffer * buffer);

/* Copies @names (@n_histograms strings) and @counts (@n_histograms * @bins
 * values). The region is given in luma pixel coordinates. The range is set
 * to 0..255 (8-bit values): gst_histogram_meta_set_range() changes it. */
GST_CUDAIMGPROC_API
GstHistogramMeta *gst_buffer_add_histogram_meta (GstBuffer * buffer,
    guint bins, guint n_histograms, const gchar * const *names,
    const guint64 * counts, guint roi_x, guint roi_y, guint roi_width,
    guint roi_height);

/* Sets the range of values the histograms were taken over (see above);
 * @range_min <= @range_max. */
GST_CUDAIMGPROC_API
void gst_histogram_meta_set_range (GstHistogramMeta * meta, guint range_min,
    guint range_max);

/* TRUE when @meta describes the pixels arriving on @sinkpad: computed by the
 * element linked to it, with nothing that may write pixels in between (the
 * rule of gst_integral_image_meta_describes_input()). */
GST_CUDAIMGPROC_API
gboolean gst_histogram_meta_describes_input (const GstHistogramMeta * meta,
    GstPad * sinkpad);

/* The @bins counts of the histogram called @name, or %NULL if the meta has
 * none of that name. */
GST_CUDAIMGPROC_API
const guint64 *gst_histogram_meta_get_counts (const GstHistogramMeta * meta,
    const gchar * name);

/* The same with the number of counts (@bins) in @n_counts, for bindings:
 * Python's meta.get_counts(name) returns a list. */
GST_CUDAIMGPROC_API
const guint64 *gst_histogram_meta_get_counts_full (const GstHistogramMeta * meta,
    const gchar * name, guint * n_counts);

/* The @n_histograms names, NULL-terminated (@names), for bindings. */
GST_CUDAIMGPROC_API
const gchar * const *gst_histogram_meta_get_names (const GstHistogramMeta * meta);

G_END_DECLS
