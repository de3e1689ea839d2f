#include "gstequalizationmeta.h"

GType
gst_equalization_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstEqualizationMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
equalization_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstEqualizationMeta *m = (GstEqualizationMeta *) meta;

  m->luts = NULL;
  m->tiles_x = m->tiles_y = m->channels = 0;
  m->depth = 8;
  return TRUE;
}

static void
equalization_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  gst_clear_buffer (&((GstEqualizationMeta *) meta)->luts);
}

static gboolean
equalization_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstEqualizationMeta *m = (GstEqualizationMeta *) meta;

  /* the tables describe how these pixels were made: copies keep them */
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  GstEqualizationMeta *d = gst_buffer_add_equalization_meta (dest, m->luts,
      m->tiles_x, m->tiles_y, m->channels);
  if (d)
    gst_equalization_meta_set_depth (d, m->depth);
  return d != NULL;
}

const GstMetaInfo *
gst_equalization_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_EQUALIZATION_META_API_TYPE,
        "GstEqualizationMeta", sizeof (GstEqualizationMeta),
        equalization_meta_init, equalization_meta_free,
        equalization_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_add_equalization_meta:
 * @buffer: a #GstBuffer
 * @luts: the tables, @tiles_x * @tiles_y * @channels * 256 bytes; the meta
 *   takes a reference
 * @tiles_x: tiles per row
 * @tiles_y: tiles per column
 * @channels: tables per tile
 *
 * Returns: (transfer none): the meta added to @buffer
 */
GstEqualizationMeta *
gst_buffer_add_equalization_meta (GstBuffer * buffer, GstBuffer * luts,
    guint tiles_x, guint tiles_y, guint channels)
{
  GstEqualizationMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (GST_IS_BUFFER (luts), NULL);

  m = (GstEqualizationMeta *) gst_buffer_add_meta (buffer,
      GST_EQUALIZATION_META_INFO, NULL);
  if (!m)
    return NULL;
  m->luts = gst_buffer_ref (luts);
  m->tiles_x = tiles_x;
  m->tiles_y = tiles_y;
  m->channels = channels;
  return m;
}

/**
 * gst_buffer_get_equalization_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the #GstEqualizationMeta of @buffer,
 *   or %NULL when it has none
 */
GstEqualizationMeta *
gst_buffer_get_equalization_meta (GstBuffer * buffer)
{
  return (GstEqualizationMeta *) gst_buffer_get_meta (buffer,
      GST_EQUALIZATION_META_API_TYPE);
}

/**
 * gst_equalization_meta_get_lut:
 * @meta: a #GstEqualizationMeta
 * @tile_x: tile column (0 in global mode)
 * @tile_y: tile row (0 in global mode)
 * @channel: table of the tile: 0 (luma, or red), 1 (green), 2 (blue)
 *
 * Returns: (transfer full) (nullable): a copy of the table (lut[v] is what
 *   input value v became: 256 bytes at depth 8, 2^depth little-endian
 *   guint16 above), or %NULL when the tile or channel is out of range or the
 *   tables cannot be read
 */
GBytes *
gst_equalization_meta_get_lut (const GstEqualizationMeta * meta, guint tile_x,
    guint tile_y, guint channel)
{
  GstMapInfo map;
  GBytes *lut = NULL;
  gsize off, size;

  g_return_val_if_fail (meta != NULL, NULL);
  if (!meta->luts || tile_x >= meta->tiles_x || tile_y >= meta->tiles_y
      || channel >= meta->channels)
    return NULL;
  /* bytes per table */
  size = meta->depth > 8 ? ((gsize) 2 << meta->depth) : 256;
  off = (((gsize) tile_y * meta->tiles_x + tile_x) * meta->channels + channel)
      * size;
  if (!gst_buffer_map (meta->luts, &map, GST_MAP_READ))
    return NULL;
  if (map.size >= off + size)
    lut = g_bytes_new (map.data + off, size);
  gst_buffer_unmap (meta->luts, &map);
  return lut;
}

/**
 * gst_equalization_meta_set_depth:
 * @meta: a #GstEqualizationMeta
 * @depth: bits of the values the tables map (8..16)
 *
 * Sets the depth of the tables (8 when never set).
 */
void
gst_equalization_meta_set_depth (GstEqualizationMeta * meta, guint depth)
{
  g_return_if_fail (meta != NULL && depth >= 8 && depth <= 16);
  meta->depth = depth;
}
