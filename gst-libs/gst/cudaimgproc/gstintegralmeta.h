/* GstIntegralImageMeta: a per-frame summed area table (integral image)
 * attached by the cudaintegral element.
 *
 * Layout is OpenCV's cv::integral: exclusive, (W+1) x (H+1) elements where W x H
 * is the size of the frame's plane/channel the table was computed on, first
 * row and column zero:
 *   sum(x, y) = sum of pixel(i, j) for i < x, j < y.
 * The sum over the rectangle [x, x + w) x [y, y + h) is
 *   sum(x+w, y+h) - sum(x, y+h) - sum(x+w, y) + sum(x, y).
 *
 * GST_INTEGRAL_IMAGE_TYPE_U32 elements wrap modulo 2^32: evaluate the formula
 * in guint32 arithmetic and every rectangle sum below 2^32 (any rectangle of
 * up to 16,843,009 8-bit pixels) is exact at any frame size.
 * GST_INTEGRAL_IMAGE_TYPE_U64 elements are exact absolute sums.
 * The optional squared table (sums of pixel^2, for variance and NCC) is always
 * guint64.
 *
 * The tables live in GstBuffers of one memory each: CUDA memory
 * (memory:CUDAMemory, map with GST_MAP_CUDA for a device pointer, or map
 * normally to read it on the CPU) when the element ran on CUDA memory, system
 * memory otherwise. The element has finished writing them before it pushes
 * the frame.
 *
 * Staleness: an element between the producer and a consumer may change the
 * pixels in place and keep the meta (timeoverlay, textoverlay, cairooverlay
 * write into writable buffers without copying them). The meta records its
 * @producer, and gst_integral_image_meta_describes_input() tells a consumer
 * whether the table still describes the pixels it receives: it does when the
 * consumer's sink pad is linked to the producer directly, or only through
 * elements that pass pixels unchanged (queue, queue2, capsfilter, identity,
 * tee, valve, through ghost pads of bins), or to a pad of the application
 * itself (no element: GstHarness, a bare pad), whose buffers carry what the
 * application attached. Anything else in between and the consumer computes
 * its own table. A pad probe that writes pixels is not seen: remove the meta
 * there (gst_buffer_remove_meta) when doing so. The check follows pad links, reads no
 * pixels, and costs nothing per pixel.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#ifndef GST_CUDAIMGPROC_API
# ifdef BUILDING_GST_CUDAIMGPROC
#  define GST_CUDAIMGPROC_API __attribute__ ((visibility ("default")))
# else
#  define GST_CUDAIMGPROC_API
# endif
#endif

typedef enum {
  GST_INTEGRAL_IMAGE_TYPE_U32 = 0,
  GST_INTEGRAL_IMAGE_TYPE_U64 = 1,
} GstIntegralImageType;

typedef struct _GstIntegralImageMeta GstIntegralImageMeta;

/**
 * GstIntegralImageMeta:
 * @meta: parent
 * @sum: buffer holding the table (one memory)
 * @sqsum: buffer holding the squared table (guint64), or %NULL
 * @type: element type of @sum
 * @width: table width in elements (plane width + 1)
 * @height: table height in rows (plane height + 1)
 * @stride: bytes between rows of @sum
 * @sq_stride: bytes between rows of @sqsum
 * @plane: component of the frame the table was computed on (0 = Y or R,
 *   1 = U or G, 2 = V or B, 3 = A), as GstVideoFormatInfo numbers components
 * @producer: the element that computed the table (not a reference: compare
 *   only), or %NULL when unknown
 */
struct _GstIntegralImageMeta {
  GstMeta meta;

  GstBuffer *sum;
  GstBuffer *sqsum;
  GstIntegralImageType type;
  guint width;
  guint height;
  gsize stride;
  gsize sq_stride;
  guint plane;
  gpointer producer;
};

GST_CUDAIMGPROC_API GType gst_integral_image_meta_api_get_type (void);
#define GST_INTEGRAL_IMAGE_META_API_TYPE (gst_integral_image_meta_api_get_type ())

GST_CUDAIMGPROC_API const GstMetaInfo *gst_integral_image_meta_get_info (void);
#define GST_INTEGRAL_IMAGE_META_INFO (gst_integral_image_meta_get_info ())

/* The meta of @buffer, or NULL (a function rather than a macro so that
 * bindings see it). */
GST_CUDAIMGPROC_API
GstIntegralImageMeta *gst_buffer_get_integral_image_meta (GstBuffer * buffer);

/* Takes a reference to @sum and @sqsum (may be NULL). */
GST_CUDAIMGPROC_API
GstIntegralImageMeta *gst_buffer_add_integral_image_meta (GstBuffer * buffer,
    GstBuffer * sum, GstBuffer * sqsum, GstIntegralImageType type,
    guint width, guint height, gsize stride, gsize sq_stride, guint plane);

/* TRUE when @meta was computed by the element linked to @sinkpad, directly
 * or through elements that pass pixels unchanged (see above), so that the
 * table describes the pixels arriving on @sinkpad. */
GST_CUDAIMGPROC_API
gboolean gst_integral_image_meta_describes_input (const GstIntegralImageMeta * meta,
    GstPad * sinkpad);

/* Sum of the pixels in [x, x + w) x [y, y + h) read from a mapped table
 * (host memory). guint32 arithmetic for U32 (exact below 2^32), guint64 for
 * U64 and for the squared table (type U64). Returns 0 for an empty or
 * out-of-range rectangle. */
GST_CUDAIMGPROC_API
guint64 gst_integral_image_rect_sum (const guint8 * table, gsize stride,
    GstIntegralImageType type, guint table_width, guint table_height,
    guint x, guint y, guint w, guint h);

/* The same from the meta itself, mapping its table (a CUDA table is read
 * back): FALSE when the rectangle does not lie inside the plane or the table
 * cannot be mapped. For applications and bindings (Python); per-pixel loops
 * map the table once and use gst_integral_image_rect_sum(). */
GST_CUDAIMGPROC_API
gboolean gst_integral_image_meta_rect_sum (const GstIntegralImageMeta * meta,
    guint x, guint y, guint w, guint h, guint64 * sum);

/* Sum of the squared pixels over the rectangle, from the squared table:
 * FALSE also when the meta has none (element property squared=false). */
GST_CUDAIMGPROC_API
gboolean gst_integral_image_meta_rect_sqsum (const GstIntegralImageMeta * meta,
    guint x, guint y, guint w, guint h, guint64 * sum);

G_END_DECLS
