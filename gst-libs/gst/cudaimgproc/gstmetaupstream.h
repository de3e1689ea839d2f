/* Private to libgstcudaimgproc: the staleness check shared by the metas. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* TRUE when `producer` (an element, or NULL) is the element linked to
 * `sinkpad`, directly or through elements that pass pixels unchanged, or
 * when `sinkpad` is fed by a pad of the application itself. See
 * gstintegralmeta.h, "Staleness". */
G_GNUC_INTERNAL
gboolean gst_cudaimgproc_meta_producer_is_upstream (gpointer producer,
    GstPad * sinkpad);

G_END_DECLS
