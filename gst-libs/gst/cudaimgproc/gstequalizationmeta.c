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
  return gst_buffer_add_equalization_meta (dest, m->luts, m->tiles_x,
      m->tiles_y, m->channels) != NULL;
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
