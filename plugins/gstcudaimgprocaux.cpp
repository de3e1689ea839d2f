/* GstCudaImgprocFilter: auxiliary output buffers (tables and counts that
 * travel with a frame) and named state buffers (kept across frames). The
 * CUDA-memory parts are in gstcudaimgprocgpu.cpp. */
#include "gstcudaimgprocfilterpriv.h"

#define GST_CAT_DEFAULT gst_cuda_imgproc_filter_debug

/* ---- auxiliary buffers ---------------------------------------------------- */

static void
clear_slot (GstCudaImgprocFilter * self, CipAuxSlot & s)
{
  if (s.pool) {
    gst_buffer_pool_set_active (s.pool, FALSE);
    gst_object_unref (s.pool);
  }
  cip_gpu_free_aux (self, &s);
  s = CipAuxSlot ();
}

void
cip_aux_clear_pools (GstCudaImgprocFilter * self)
{
  GstCudaImgprocFilterPrivate *priv = gst_cuda_imgproc_filter_priv (self);
  for (auto & s : priv->aux)
    clear_slot (self, s);
}

void
cip_aux_release_pending (GstCudaImgprocFilterPrivate * priv)
{
  for (guint i = 0; i < priv->n_pending; i++) {
    CipAuxPending & p = priv->pending[i];
    gst_memory_unmap (gst_buffer_peek_memory (p.buffer, 0), &p.map);
    gst_buffer_unref (p.buffer);
    p = CipAuxPending ();
  }
  priv->n_pending = 0;
}

/* (Re)configures slot `s` for tables of row_bytes x rows. */
static gboolean
configure_slot (GstCudaImgprocFilter * self, CipAuxSlot & s, gsize row_bytes,
    guint rows, bool cuda)
{
  clear_slot (self, s);
  s.row_bytes = row_bytes;
  s.rows = rows;
  s.cuda = cuda;
  if (cuda) {
    if (!cip_gpu_aux_pool (self, &s)) {
      clear_slot (self, s);
      return FALSE;
    }
    return TRUE;
  }
  /* overflow-checked: pitch * rows may pass 4 GiB (u64 tables of huge
   * frames) */
  if (row_bytes > G_MAXSIZE - 255) {
    clear_slot (self, s);
    return FALSE;
  }
  s.pitch = GST_ROUND_UP_N (row_bytes, (gsize) 256);
  if (rows && s.pitch > G_MAXSIZE / rows) {
    clear_slot (self, s);
    return FALSE;
  }
  s.bytes = s.pitch * rows;
  /* GstBufferPool sizes are guint: larger tables are allocated per frame */
  if (s.bytes <= G_MAXUINT) {
    s.pool = gst_buffer_pool_new ();
    GstStructure *config = gst_buffer_pool_get_config (s.pool);
    gst_buffer_pool_config_set_params (config, nullptr, (guint) s.bytes, 0, 0);
    if (!gst_buffer_pool_set_config (s.pool, config) ||
        !gst_buffer_pool_set_active (s.pool, TRUE)) {
      clear_slot (self, s);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
gst_cuda_imgproc_filter_acquire_aux (GstCudaImgprocFilter * self, guint slot,
    gsize row_bytes, guint rows, GstCudaImgprocAuxMemory memory,
    const GstCudaImgprocRun * run, GstCudaImgprocAux * aux)
{
  GstCudaImgprocFilterPrivate *priv = gst_cuda_imgproc_filter_priv (self);
  g_return_val_if_fail (slot < GST_CUDA_IMGPROC_N_AUX_SLOTS, FALSE);
  g_return_val_if_fail (priv->n_pending < GST_CUDA_IMGPROC_N_AUX_SLOTS, FALSE);
  CipAuxSlot & s = priv->aux[slot];
  bool cuda = run->gpu && run->cuda_memory &&
      memory == GST_CUDA_IMGPROC_AUX_LIKE_INPUT;
  GstBuffer *buf = nullptr;

  *aux = GstCudaImgprocAux ();
  if ((!s.pool && !s.bytes) || s.row_bytes != row_bytes || s.rows != rows ||
      s.cuda != cuda) {
    if (!configure_slot (self, s, row_bytes, rows, cuda)) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Could not allocate a %" G_GSIZE_FORMAT " x %u output table",
              row_bytes, rows),
          ("A table of this size cannot be allocated in %s memory; use a "
              "smaller resolution or a smaller table type.",
              cuda ? "CUDA" : "system"));
      return FALSE;
    }
  }

  if (gst_cuda_imgproc_filter_fault (self, GST_CUDA_IMGPROC_FAULT_ALLOC)) {
    buf = nullptr;
  } else if (s.pool) {
    if (gst_buffer_pool_acquire_buffer (s.pool, &buf, nullptr) != GST_FLOW_OK)
      buf = nullptr;
  } else {
    buf = gst_buffer_new_allocate (nullptr, s.bytes, nullptr);
  }
  if (!buf) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate a %" G_GSIZE_FORMAT "-byte output table",
            s.bytes ? s.bytes : row_bytes * rows),
        ("Out of memory: free memory or use a smaller resolution."));
    return FALSE;
  }

  CipAuxPending & p = priv->pending[priv->n_pending];
  p = CipAuxPending ();
  p.buffer = buf;
  if (cuda) {
    if (!cip_gpu_map_aux (self, &s, &p, aux, run)) {
      gst_buffer_unref (buf);
      p = CipAuxPending ();
      return FALSE;
    }
  } else {
    /* memory-level map, like the CUDA path: release_pending unmaps both */
    if (!gst_memory_map (gst_buffer_peek_memory (buf, 0), &p.map,
            GST_MAP_WRITE)) {
      gst_buffer_unref (buf);
      p = CipAuxPending ();
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Could not map memory"),
          (NULL));
      return FALSE;
    }
    aux->pitch = s.pitch;
    aux->data = p.map.data;
    if (run->gpu) {
      /* computed in device scratch, downloaded once the kernels are queued */
      if (!cip_gpu_map_aux (self, &s, &p, aux, run)) {
        gst_memory_unmap (gst_buffer_peek_memory (buf, 0), &p.map);
        gst_buffer_unref (buf);
        p = CipAuxPending ();
        return FALSE;
      }
    }
  }
  priv->n_pending++;
  aux->buffer = gst_buffer_ref (buf);
  return TRUE;
}

/* ---- state across frames -------------------------------------------------- */

static void
free_state (GstCudaImgprocFilter * self, CipState & st)
{
  if (st.data) {
    if (st.device)
      cip_gpu_free_state (self, st.data);
    else
      g_free (st.data);
  }
  st = CipState ();
}

void
cip_state_free (GstCudaImgprocFilter * self)
{
  GstCudaImgprocFilterPrivate *priv = gst_cuda_imgproc_filter_priv (self);
  for (auto & st : priv->state)
    free_state (self, st);
}

void
cip_state_mark_fresh (GstCudaImgprocFilterPrivate * priv)
{
  for (auto & st : priv->state)
    st.fresh = true;
}

void
cip_state_frame_done (GstCudaImgprocFilterPrivate * priv, gboolean ok)
{
  for (auto & st : priv->state) {
    st.fresh = !(st.used && ok);
    st.used = false;
  }
}

void *
gst_cuda_imgproc_filter_state (GstCudaImgprocFilter * self, guint slot,
    const char *name, gsize bytes, guint64 kind, const GstCudaImgprocRun * run,
    gboolean * fresh)
{
  GstCudaImgprocFilterPrivate *priv = gst_cuda_imgproc_filter_priv (self);
  g_return_val_if_fail (slot < GST_CUDA_IMGPROC_N_STATE_SLOTS, nullptr);
  CipState & st = priv->state[slot];

  if (!st.data || st.bytes != bytes || st.device != run->gpu) {
    free_state (self, st);
    if (gst_cuda_imgproc_filter_fault (self, GST_CUDA_IMGPROC_FAULT_ALLOC))
      st.data = nullptr;
    else
      st.data = run->gpu ? cip_gpu_alloc_state (self, bytes) :
          g_try_malloc (MAX (bytes, (gsize) 1));
    if (!st.data) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Could not allocate %" G_GSIZE_FORMAT " bytes of %s state", bytes,
              name), ("Out of %s memory.", run->gpu ? "GPU" : "system"));
      return nullptr;
    }
    st.bytes = bytes;
    st.device = run->gpu;
    st.fresh = true;
    GST_DEBUG_OBJECT (self, "state '%s': %" G_GSIZE_FORMAT " bytes on the %s",
        name, bytes, run->gpu ? "GPU" : "CPU");
  }
  if (st.kind != kind) {
    st.kind = kind;
    st.fresh = true;
  }
  st.name = name;
  st.used = true;
  *fresh = st.fresh;
  return st.data;
}
