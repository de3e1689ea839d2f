/* Example application: real-time tracking of a bright target (a hot spot on a
 * thermal camera, a laser spot, an LED) from the integral image alone.
 *
 *   track [--frames N] [--width W] [--height H] [--format F] [--compute MODE]
 *         [--camera [--device DEV] | --file PATH | --source DESC] [--upload]
 *         [--box WxH] [--margin M] [--radius R] [--init X,Y]
 *         [--strip-every N] [--strip-dir DIR] [--strip-width W] [--display]
 *         [--check-ball] [--tolerance PX] [--preload] [--min-fps F] [--quiet]
 *
 * cudaintegral (sat-type=u64 squared=true) attaches the sum and squared-sum
 * tables of the luma to every frame; the application reads only those tables.
 * At each frame it scores every candidate window whose top-left corner lies
 * within --radius pixels (horizontally and vertically) of the last one and
 * moves the box to the best; each score is a fixed number of table reads
 * (16), so the cost per candidate does not grow with the box size. The first
 * frame (or the frame after the target was lost, see --min-score) is searched
 * whole, unless --init gives the target.
 *
 * The score is the local signal-to-clutter ratio of the window against the
 * ring of --margin pixels around it:
 *
 *     score = (mean(window) - mean(ring)) / sqrt(var(ring) + noise_floor^2)
 *
 * Why this score: the users track a spot brighter than its surroundings whose
 * look changes (a hot spot heats up, a laser speckles, a camera's automatic
 * gain moves every level), so matching the target's own mean and variance
 * drifts; contrast against the immediate surround is what stays. Dividing by
 * the surround's standard deviation (from the squared table) makes the score
 * unchanged by any gain and offset of the image (thermal cameras' AGC) and
 * lower in clutter than on a clean background, so a fixed --min-score can say
 * "lost" on any camera: it is the local contrast measure of infrared
 * small-target detection and the statistic of a CFAR detector. The
 * noise floor (--noise-floor, grey levels) keeps it finite on a perfectly flat
 * surround. A box a little smaller than the target gives the sharpest peak:
 * the ring then holds the target's edge on all sides and any offset raises
 * the ring's mean and variance on one side.
 *
 * Output: one line per frame on stdout, "frame x y score" (the box centre in
 * plane pixels, sub-pixel by a parabola through the neighbouring scores;
 * "ball-error" appended with --check-ball), from "track" element messages
 * that the tracker posts on the bus (fields frame, x, y, score, box-x, box-y,
 * box-width, box-height), so any bus watch can follow the track; other lines
 * start with '#'. Every --strip-every'th frame is drawn with the box and
 * written as PNG into --strip-dir (default: a new temporary folder), whose
 * path is printed.
 *
 * Tables in CUDA memory (cudaupload or a hardware decoder upstream) are not
 * downloaded whole: only the rows and columns the search needs are copied
 * to the host (about 1 MB at --radius 64), so the search costs the same at
 * any frame size.
 *
 * --check-ball compares the track with the centre of videotestsrc's ball
 * (pattern=ball, default motion, counted from frame 0), which is a known
 * function of the frame number, and exits 1 if any frame is farther than
 * --tolerance pixels from it. --preload renders the source into memory first
 * and plays it from there, so that the frame rate measures upload,
 * cudaintegral and the search rather than videotestsrc's own drawing. */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/cudaimgproc/gstintegralmeta.h>
#include <glib-unix.h>

#ifdef HAVE_GST_CUDA
#include "gstcudaimgproccuda.h"
#include <gst/cuda/cuda-gst.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_RECENT 64

typedef struct
{
  guint64 frame;
  GstClockTime pts;
  gint bx, by;                  /* top-left of the box, plane pixels */
  gdouble cx, cy;               /* centre, sub-pixel */
  gdouble score;
} TrackPoint;

/* The part of the two tables the search reads, readable on the CPU: element
 * (x, y) of the full table is at row y - oy, column x - ox. */
typedef struct
{
  const guint8 *sum, *sq;
  gsize stride, sq_stride;
  gint ox, oy;
  GstBuffer *mapped_sum, *mapped_sq;   /* system-memory tables mapped */
  GstMapInfo sum_map, sq_map;
} Tables;

typedef struct
{
  /* settings */
  gint bw, bh, margin, radius;
  gdouble noise_floor, min_score, tolerance;
  gint strip_every;
  gint64 max_frames;
  gboolean check_ball, drop_unstripped, have_init, quiet;
  gint init_x, init_y;

  /* streaming-thread state */
  gboolean locked;
  gint bx, by;
  guint64 frames;
  guint8 *scratch;
  gsize scratch_size;
  gchar *failure;

  /* statistics */
  gdouble search_us_sum, search_us_max, fetch_us_sum, acquire_us;
  guint64 searches, acquisitions, candidates;
  gint64 t_first, t_last;
  gdouble max_err;
  guint64 frames_over;

  /* the drawing probe reads the recent track */
  GMutex lock;
  TrackPoint recent[N_RECENT];
  guint64 n_recent;
  guint plane_w, plane_h;

  GstElement *pipeline, *tracker;
  GMainLoop *loop;
  guint64 strip_seen;
  gint rc;
} Tracker;

/* ---- videotestsrc's ball --------------------------------------------- */

/* Centre of the ball of videotestsrc pattern=ball (motion=wavy,
 * animation-mode=frames, the defaults) in frame n of a w x h video: the same
 * arithmetic as gst_video_test_src_ball() in gst-plugins-base 1.22 and 1.26
 * (pixel i, j is lit by its distance to (x, y); radius 20). */
static void
ball_centre (guint64 n, gint w, gint h, gdouble * x, gdouble * y)
{
  gdouble rad = (gdouble) n / 200;
  rad = 2 * G_PI * rad;
  *x = 20 + (0.5 + 0.5 * sin (rad)) * (w - 2 * 20);
  *y = 20 + (0.5 + 0.5 * sin (rad * sqrt (2))) * (h - 2 * 20);
}

/* ---- reading the tables ----------------------------------------------- */

static inline guint64
at (const guint8 * t, gsize stride, gint x, gint y)
{
  return ((const guint64 *) (t + (gsize) y * stride))[x];
}

/* Sum and sum of squares over [x, x + w) x [y, y + h), table coordinates. */
static inline void
rect_sums (const Tables * t, gint x, gint y, gint w, gint h, guint64 * s,
    guint64 * q)
{
  gint x0 = x - t->ox, y0 = y - t->oy, x1 = x0 + w, y1 = y0 + h;
  *s = at (t->sum, t->stride, x1, y1) - at (t->sum, t->stride, x0, y1) -
      at (t->sum, t->stride, x1, y0) + at (t->sum, t->stride, x0, y0);
  *q = at (t->sq, t->sq_stride, x1, y1) - at (t->sq, t->sq_stride, x0, y1) -
      at (t->sq, t->sq_stride, x1, y0) + at (t->sq, t->sq_stride, x0, y0);
}

/* Signal-to-clutter score of the box at (x, y) (see the top of the file). */
static gdouble
score_at (const Tracker * tr, const Tables * t, gint x, gint y)
{
  gint W = tr->plane_w, H = tr->plane_h;
  gint ox0 = MAX (x - tr->margin, 0), oy0 = MAX (y - tr->margin, 0);
  gint ox1 = MIN (x + tr->bw + tr->margin, W);
  gint oy1 = MIN (y + tr->bh + tr->margin, H);
  guint64 si, qi, so, qo;

  rect_sums (t, x, y, tr->bw, tr->bh, &si, &qi);
  rect_sums (t, ox0, oy0, ox1 - ox0, oy1 - oy0, &so, &qo);
  gdouble n_in = (gdouble) tr->bw * tr->bh;
  gdouble n_ring = (gdouble) (ox1 - ox0) * (oy1 - oy0) - n_in;
  if (n_ring < 1)
    return -G_MAXDOUBLE;
  /* exact integer differences first, then doubles */
  gdouble mean_in = (gdouble) si / n_in;
  gdouble mean_ring = (gdouble) (so - si) / n_ring;
  gdouble var_ring = (gdouble) (qo - qi) / n_ring - mean_ring * mean_ring;
  return (mean_in - mean_ring) / sqrt (MAX (var_ring, 0) +
      tr->noise_floor * tr->noise_floor);
}

static void
tables_release (Tables * t)
{
  if (t->mapped_sum)
    gst_buffer_unmap (t->mapped_sum, &t->sum_map);
  if (t->mapped_sq)
    gst_buffer_unmap (t->mapped_sq, &t->sq_map);
  t->mapped_sum = t->mapped_sq = NULL;
}

#ifdef HAVE_GST_CUDA
/* Copies rows ty0..ty1, columns tx0..tx1 (inclusive) of a table in CUDA
 * memory to dst (row pitch dst_pitch). */
static gboolean
copy_cuda_region (GstBuffer * table, gsize stride, gint tx0, gint ty0,
    gint tx1, gint ty1, guint8 * dst, gsize dst_pitch)
{
  GstMemory *mem = gst_buffer_peek_memory (table, 0);
  GstMapInfo map;
  gboolean ok;

#if CIP_HAVE_CUDA_STREAM
  /* 1.24+: cudaintegral may hand the table over with its work still queued
   * on its stream */
  gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
#endif
  if (!gst_memory_map (mem, &map, (GstMapFlags) (GST_MAP_READ | GST_MAP_CUDA)))
    return FALSE;
  ok = gst_cuda_context_push (GST_CUDA_MEMORY_CAST (mem)->context);
  if (ok) {
    CUDA_MEMCPY2D c;
    memset (&c, 0, sizeof (c));
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = (CUdeviceptr) map.data;
    c.srcPitch = stride;
    c.srcXInBytes = (gsize) tx0 * sizeof (guint64);
    c.srcY = ty0;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = dst;
    c.dstPitch = dst_pitch;
    c.WidthInBytes = (gsize) (tx1 - tx0 + 1) * sizeof (guint64);
    c.Height = ty1 - ty0 + 1;
    ok = CuMemcpy2D (&c) == CUDA_SUCCESS;
    gst_cuda_context_pop (NULL);
  }
  gst_memory_unmap (mem, &map);
  return ok;
}
#endif

/* Makes table elements [tx0, tx1] x [ty0, ty1] of both tables readable:
 * system-memory tables are mapped in place, CUDA ones have just that region
 * copied to the host. */
static gboolean
tables_fetch (Tracker * tr, GstIntegralImageMeta * meta, gint tx0, gint ty0,
    gint tx1, gint ty1, Tables * t)
{
  memset (t, 0, sizeof (*t));
#ifdef HAVE_GST_CUDA
  if (gst_is_cuda_memory (gst_buffer_peek_memory (meta->sum, 0)) &&
      gst_is_cuda_memory (gst_buffer_peek_memory (meta->sqsum, 0))) {
    gsize pitch = (gsize) (tx1 - tx0 + 1) * sizeof (guint64);
    gsize need = 2 * pitch * (ty1 - ty0 + 1);
    if (need > tr->scratch_size) {
      g_free (tr->scratch);
      tr->scratch = g_malloc (need);
      tr->scratch_size = need;
    }
    if (!gst_cuda_load_library () ||
        !copy_cuda_region (meta->sum, meta->stride, tx0, ty0, tx1, ty1,
            tr->scratch, pitch) ||
        !copy_cuda_region (meta->sqsum, meta->sq_stride, tx0, ty0, tx1, ty1,
            tr->scratch + need / 2, pitch))
      return FALSE;
    t->sum = tr->scratch;
    t->sq = tr->scratch + need / 2;
    t->stride = t->sq_stride = pitch;
    t->ox = tx0;
    t->oy = ty0;
    return TRUE;
  }
#endif
  /* system memory (or CUDA memory in a build without the CUDA library: a
   * normal map downloads the whole table) */
  if (!gst_buffer_map (meta->sum, &t->sum_map, GST_MAP_READ))
    return FALSE;
  t->mapped_sum = meta->sum;
  if (!gst_buffer_map (meta->sqsum, &t->sq_map, GST_MAP_READ)) {
    tables_release (t);
    return FALSE;
  }
  t->mapped_sq = meta->sqsum;
  t->sum = t->sum_map.data;
  t->sq = t->sq_map.data;
  t->stride = meta->stride;
  t->sq_stride = meta->sq_stride;
  return TRUE;
}

/* ---- the tracker ------------------------------------------------------- */

static gdouble
parabola_peak (gdouble l, gdouble c, gdouble r)
{
  gdouble d = l - 2 * c + r;
  if (d >= 0)
    return 0;
  return CLAMP (0.5 * (l - r) / d, -0.5, 0.5);
}

/* One frame: search, refine, record; FALSE with tr->failure set on error. */
static gboolean
track_frame (Tracker * tr, GstBuffer * buf, TrackPoint * pt)
{
  GstIntegralImageMeta *meta = gst_buffer_get_integral_image_meta (buf);
  Tables t;

  if (!meta || meta->type != GST_INTEGRAL_IMAGE_TYPE_U64 || !meta->sqsum) {
    tr->failure = g_strdup ("frame without a u64 integral image meta with "
        "its squared table (cudaintegral sat-type=u64 squared=true)");
    return FALSE;
  }
  gint W = meta->width - 1, H = meta->height - 1;
  tr->plane_w = W;
  tr->plane_h = H;
  if (tr->bw > W || tr->bh > H) {
    tr->failure = g_strdup_printf ("the %dx%d box does not fit a %dx%d "
        "frame", tr->bw, tr->bh, W, H);
    return FALSE;
  }

  /* candidate top-left corners, and the table elements they read */
  gboolean acquire = !tr->locked;
  gint xa = 0, xb = W - tr->bw, ya = 0, yb = H - tr->bh;
  if (!acquire) {
    tr->bx = CLAMP (tr->bx, 0, W - tr->bw);
    tr->by = CLAMP (tr->by, 0, H - tr->bh);
    xa = MAX (tr->bx - tr->radius, 0);
    xb = MIN (tr->bx + tr->radius, W - tr->bw);
    ya = MAX (tr->by - tr->radius, 0);
    yb = MIN (tr->by + tr->radius, H - tr->bh);
  }
  gint64 t0 = g_get_monotonic_time ();
  if (!tables_fetch (tr, meta, MAX (xa - tr->margin, 0),
          MAX (ya - tr->margin, 0), MIN (xb + tr->bw + tr->margin, W),
          MIN (yb + tr->bh + tr->margin, H), &t)) {
    tr->failure = g_strdup ("could not read the integral image tables");
    return FALSE;
  }
  gint64 t1 = g_get_monotonic_time ();

  gdouble best = -G_MAXDOUBLE;
  gint bx = xa, by = ya;
  for (gint y = ya; y <= yb; y++)
    for (gint x = xa; x <= xb; x++) {
      gdouble s = score_at (tr, &t, x, y);
      if (s > best) {
        best = s;
        bx = x;
        by = y;
      }
    }
  gdouble dx = 0, dy = 0;
  if (bx > xa && bx < xb)
    dx = parabola_peak (score_at (tr, &t, bx - 1, by), best,
        score_at (tr, &t, bx + 1, by));
  if (by > ya && by < yb)
    dy = parabola_peak (score_at (tr, &t, bx, by - 1), best,
        score_at (tr, &t, bx, by + 1));
  tables_release (&t);
  gint64 t2 = g_get_monotonic_time ();

  if (acquire) {
    tr->acquisitions++;
    if (tr->acquisitions == 1)
      tr->acquire_us = t2 - t0;
  } else {
    tr->searches++;
    tr->candidates += (guint64) (xb - xa + 1) * (yb - ya + 1);
    tr->search_us_sum += t2 - t0;
    tr->fetch_us_sum += t1 - t0;
    tr->search_us_max = MAX (tr->search_us_max, (gdouble) (t2 - t0));
  }

  tr->bx = bx;
  tr->by = by;
  /* a lost target is searched for in the whole next frame */
  tr->locked = best >= tr->min_score;
  pt->frame = tr->frames;
  pt->pts = GST_BUFFER_PTS (buf);
  pt->bx = bx;
  pt->by = by;
  /* pixel i is centred on coordinate i, as in the ball's formula */
  pt->cx = bx + (tr->bw - 1) / 2.0 + dx;
  pt->cy = by + (tr->bh - 1) / 2.0 + dy;
  pt->score = best;
  return TRUE;
}

static gboolean
request_eos (gpointer data)
{
  Tracker *tr = data;
  gst_element_send_event (tr->pipeline, gst_event_new_eos ());
  return G_SOURCE_REMOVE;
}

static GstPadProbeReturn
tracker_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Tracker *tr = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  TrackPoint pt;

  if (tr->failure)
    return GST_PAD_PROBE_DROP;
  if (tr->max_frames > 0 && tr->frames >= (guint64) tr->max_frames) {
    if (tr->frames++ == (guint64) tr->max_frames)
      g_idle_add (request_eos, tr);
    return GST_PAD_PROBE_DROP;
  }
  if (tr->frames == 0 && tr->have_init) {
    tr->locked = TRUE;
    tr->bx = tr->init_x - tr->bw / 2;
    tr->by = tr->init_y - tr->bh / 2;
  }
  if (!track_frame (tr, buf, &pt)) {
    g_idle_add (request_eos, tr);
    return GST_PAD_PROBE_DROP;
  }
  gint64 now = g_get_monotonic_time ();
  if (tr->frames == 0)
    tr->t_first = now;
  tr->t_last = now;

  GstStructure *s = gst_structure_new ("track",
      "frame", G_TYPE_UINT64, pt.frame,
      "x", G_TYPE_DOUBLE, pt.cx, "y", G_TYPE_DOUBLE, pt.cy,
      "score", G_TYPE_DOUBLE, pt.score,
      "box-x", G_TYPE_INT, pt.bx, "box-y", G_TYPE_INT, pt.by,
      "box-width", G_TYPE_INT, tr->bw, "box-height", G_TYPE_INT, tr->bh, NULL);
  if (tr->check_ball) {
    gdouble x, y;
    ball_centre (pt.frame, tr->plane_w, tr->plane_h, &x, &y);
    gdouble err = hypot (pt.cx - x, pt.cy - y);
    tr->max_err = MAX (tr->max_err, err);
    tr->frames_over += err > tr->tolerance;
    gst_structure_set (s, "ball-x", G_TYPE_DOUBLE, x, "ball-y", G_TYPE_DOUBLE,
        y, "ball-error", G_TYPE_DOUBLE, err, NULL);
  }
  gst_element_post_message (tr->tracker,
      gst_message_new_element (GST_OBJECT (tr->tracker), s));

  g_mutex_lock (&tr->lock);
  tr->recent[tr->n_recent++ % N_RECENT] = pt;
  g_mutex_unlock (&tr->lock);

  gboolean strip = tr->strip_every > 0 && tr->frames % tr->strip_every == 0;
  tr->frames++;
  return tr->drop_unstripped && !strip ? GST_PAD_PROBE_DROP :
      GST_PAD_PROBE_OK;
}

/* Keeps every strip_every'th frame for the PNG strip (when the display takes
 * them all). */
static GstPadProbeReturn
strip_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Tracker *tr = data;
  return tr->strip_seen++ % tr->strip_every ? GST_PAD_PROBE_DROP :
      GST_PAD_PROBE_OK;
}

static void
fill_rect (GstVideoFrame * f, gint x0, gint y0, gint x1, gint y1,
    const guint8 rgba[4])
{
  gint w = GST_VIDEO_FRAME_WIDTH (f), h = GST_VIDEO_FRAME_HEIGHT (f);
  guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (f, 0);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);
  x0 = CLAMP (x0, 0, w);
  x1 = CLAMP (x1, 0, w);
  y0 = CLAMP (y0, 0, h);
  y1 = CLAMP (y1, 0, h);
  for (gint y = y0; y < y1; y++)
    for (gint x = x0; x < x1; x++)
      memcpy (d + (gsize) y * stride + 4 * x, rgba, 4);
}

/* Draws the tracked box (RGBA frames, maybe scaled from the tracked ones). */
static GstPadProbeReturn
draw_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Tracker *tr = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  TrackPoint pt;
  gboolean found = FALSE;

  g_mutex_lock (&tr->lock);
  for (guint64 i = tr->n_recent; i > 0 && i + N_RECENT > tr->n_recent; i--) {
    const TrackPoint *p = &tr->recent[(i - 1) % N_RECENT];
    if (p->pts == GST_BUFFER_PTS (buf) || !GST_CLOCK_TIME_IS_VALID (p->pts)) {
      pt = *p;
      found = TRUE;
      break;
    }
  }
  g_mutex_unlock (&tr->lock);
  if (!found)
    return GST_PAD_PROBE_OK;

  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstVideoInfo vinfo;
  GstVideoFrame frame;
  gboolean ok = caps && gst_video_info_from_caps (&vinfo, caps);
  if (caps)
    gst_caps_unref (caps);
  if (!ok)
    return GST_PAD_PROBE_OK;
  buf = gst_buffer_make_writable (buf);
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  if (!gst_video_frame_map (&frame, &vinfo, buf, GST_MAP_READWRITE))
    return GST_PAD_PROBE_OK;

  gdouble sx = (gdouble) vinfo.width / tr->plane_w;
  gdouble sy = (gdouble) vinfo.height / tr->plane_h;
  gint x0 = lrint (pt.bx * sx), y0 = lrint (pt.by * sy);
  gint x1 = lrint ((pt.bx + tr->bw) * sx), y1 = lrint ((pt.by + tr->bh) * sy);
  gint th = MAX (2, vinfo.width / 320);
  const guint8 red[4] = { 255, 32, 32, 255 };
  fill_rect (&frame, x0 - th, y0 - th, x1 + th, y0, red);
  fill_rect (&frame, x0 - th, y1, x1 + th, y1 + th, red);
  fill_rect (&frame, x0 - th, y0, x0, y1, red);
  fill_rect (&frame, x1, y0, x1 + th, y1, red);
  /* the sub-pixel centre */
  gint cx = lrint (pt.cx * sx), cy = lrint (pt.cy * sy);
  fill_rect (&frame, cx - 3 * th, cy - th / 2, cx + 3 * th, cy - th / 2 + th,
      red);
  fill_rect (&frame, cx - th / 2, cy - 3 * th, cx - th / 2 + th, cy + 3 * th,
      red);
  gst_video_frame_unmap (&frame);
  return GST_PAD_PROBE_OK;
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  Tracker *tr = data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT:{
      const GstStructure *s = gst_message_get_structure (msg);
      guint64 frame;
      gdouble x, y, score, err;
      if (tr->quiet || !gst_structure_has_name (s, "track") ||
          !gst_structure_get (s, "frame", G_TYPE_UINT64, &frame, "x",
              G_TYPE_DOUBLE, &x, "y", G_TYPE_DOUBLE, &y, "score",
              G_TYPE_DOUBLE, &score, NULL))
        break;
      if (gst_structure_get_double (s, "ball-error", &err))
        g_print ("%" G_GUINT64_FORMAT " %.2f %.2f %.3f %.2f\n", frame, x, y,
            score, err);
      else
        g_print ("%" G_GUINT64_FORMAT " %.2f %.2f %.3f\n", frame, x, y, score);
      break;
    }
    case GST_MESSAGE_ERROR:{
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (msg, &e, &dbg);
      g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
          e->message, dbg ? dbg : "");
      g_clear_error (&e);
      g_free (dbg);
      tr->rc = 1;
      g_main_loop_quit (tr->loop);
      break;
    }
    case GST_MESSAGE_EOS:
      g_main_loop_quit (tr->loop);
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigint (gpointer data)
{
  request_eos (data);
  return G_SOURCE_CONTINUE;
}

/* --preload: the source's frames, rendered before the measured run. */
static GPtrArray *
preload (const gchar * src, GstCaps ** caps)
{
  GError *err = NULL;
  gchar *desc = g_strdup_printf ("%s ! appsink name=pre sync=false", src);
  GstElement *p = gst_parse_launch (desc, &err);
  GPtrArray *bufs = g_ptr_array_new_with_free_func (
      (GDestroyNotify) gst_buffer_unref);
  GstSample *sample;

  g_free (desc);
  if (!p) {
    g_printerr ("could not build the preload pipeline: %s\n", err->message);
    g_clear_error (&err);
    g_ptr_array_unref (bufs);
    return NULL;
  }
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "pre");
  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    if (!*caps)
      *caps = gst_caps_ref (gst_sample_get_caps (sample));
    g_ptr_array_add (bufs, gst_buffer_ref (gst_sample_get_buffer (sample)));
    gst_sample_unref (sample);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  return bufs;
}

int
main (int argc, char **argv)
{
  gint frames = 300, width = 1920, height = 1080, strip_every = 30;
  gint strip_width = 640, margin = -1, radius = 64;
  gboolean camera = FALSE, upload = FALSE, display = FALSE, check = FALSE;
  gboolean preload_src = FALSE, quiet = FALSE;
  gchar *format = NULL, *compute = NULL, *device = NULL, *file = NULL;
  gchar *source = NULL, *box = NULL, *init = NULL, *strip_dir = NULL;
  gdouble noise_floor = 1.0, min_score = 0.0, tolerance = 4.0, min_fps = 0;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames,
        "Frames to track, 0 = until the end of the input or Ctrl-C (300)", "N"},
    {"width", 'w', 0, G_OPTION_ARG_INT, &width,
        "Test source width (1920)", "W"},
    {"height", 'h', 0, G_OPTION_ARG_INT, &height,
        "Test source height (1080)", "H"},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
        "Video format into cudaintegral (NV12)", "F"},
    {"compute", 'c', 0, G_OPTION_ARG_STRING, &compute,
        "cudaintegral compute mode: auto, gpu or cpu (auto)", "MODE"},
    {"camera", 0, 0, G_OPTION_ARG_NONE, &camera,
        "Track on a camera (v4l2src) instead of videotestsrc pattern=ball",
        NULL},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
        "Camera device (/dev/video0)", "DEV"},
    {"file", 0, 0, G_OPTION_ARG_STRING, &file,
        "Track on a video file (decodebin)", "PATH"},
    {"source", 0, 0, G_OPTION_ARG_STRING, &source,
        "Any source pipeline fragment producing raw video, e.g. "
        "\"filesrc location=a.h264 ! h264parse ! nvh264dec\"", "DESC"},
    {"upload", 0, 0, G_OPTION_ARG_NONE, &upload,
        "Put cudaupload before cudaintegral (track on CUDA memory)", NULL},
    {"box", 'b', 0, G_OPTION_ARG_STRING, &box,
        "Tracked box size (32x32)", "WxH"},
    {"margin", 'm', 0, G_OPTION_ARG_INT, &margin,
        "Width of the surround ring (half the box's smaller side)", "M"},
    {"radius", 'r', 0, G_OPTION_ARG_INT, &radius,
        "Search radius in pixels per frame (64)", "R"},
    {"init", 0, 0, G_OPTION_ARG_STRING, &init,
        "Target centre in the first frame (found by a whole-frame search)",
        "X,Y"},
    {"noise-floor", 0, 0, G_OPTION_ARG_DOUBLE, &noise_floor,
        "Noise floor of the score, grey levels (1.0)", "S"},
    {"min-score", 0, 0, G_OPTION_ARG_DOUBLE, &min_score,
        "Below this score the target is lost and the next frame is searched "
        "whole (0)", "S"},
    {"strip-every", 's', 0, G_OPTION_ARG_INT, &strip_every,
        "Write every Nth frame with the box as PNG, 0 = none (30)", "N"},
    {"strip-dir", 'o', 0, G_OPTION_ARG_STRING, &strip_dir,
        "Folder of the PNG strip (a new temporary folder)", "DIR"},
    {"strip-width", 0, 0, G_OPTION_ARG_INT, &strip_width,
        "Width of the PNG frames and the display, 0 = the video's (640)",
        "W"},
    {"display", 0, 0, G_OPTION_ARG_NONE, &display,
        "Show the video with the box (autovideosink)", NULL},
    {"check-ball", 0, 0, G_OPTION_ARG_NONE, &check,
        "Compare with videotestsrc's ball centre; exit 1 if any frame is "
        "farther than --tolerance", NULL},
    {"tolerance", 0, 0, G_OPTION_ARG_DOUBLE, &tolerance,
        "Largest distance to the ball's centre allowed by --check-ball (4)",
        "PX"},
    {"preload", 0, 0, G_OPTION_ARG_NONE, &preload_src,
        "Render the source into memory before the (timed) run", NULL},
    {"min-fps", 0, 0, G_OPTION_ARG_DOUBLE, &min_fps,
        "Exit 1 if the frame rate at the tracker is below this (0 = none)",
        "F"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
        "No per-frame lines, only the summary", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- track a bright target from "
      "the integral image meta");
  GError *err = NULL;
  Tracker tr;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);

  memset (&tr, 0, sizeof (tr));
  g_mutex_init (&tr.lock);
  tr.bw = tr.bh = 32;
  if (box && (sscanf (box, "%dx%d", &tr.bw, &tr.bh) != 2 || tr.bw < 1 ||
          tr.bh < 1)) {
    g_printerr ("--box takes WxH\n");
    return 2;
  }
  if (init) {
    if (sscanf (init, "%d,%d", &tr.init_x, &tr.init_y) != 2) {
      g_printerr ("--init takes X,Y\n");
      return 2;
    }
    tr.have_init = TRUE;
  }
  tr.margin = margin >= 0 ? margin : MIN (tr.bw, tr.bh) / 2;
  if (tr.margin < 1 || radius < 1 || frames < 0 || strip_every < 0 ||
      strip_width < 0 || noise_floor <= 0) {
    g_printerr ("--margin and --radius must be >= 1, --noise-floor > 0, "
        "--frames, --strip-every and --strip-width >= 0\n");
    return 2;
  }
  tr.radius = radius;
  tr.noise_floor = noise_floor;
  tr.min_score = min_score;
  tr.tolerance = tolerance;
  tr.strip_every = strip_every;
  tr.max_frames = frames;
  tr.check_ball = check;
  tr.quiet = quiet;

  /* the source */
  gchar *src;
  if (source)
    src = g_strdup (source);
  else if (file)
    src = g_strdup_printf ("filesrc location=\"%s\" ! decodebin ! "
        "videoconvert", file);
  else if (camera)
    src = g_strdup_printf ("v4l2src device=%s ! videoconvert",
        device ? device : "/dev/video0");
  else
    src = g_strdup_printf ("videotestsrc pattern=ball num-buffers=%d ! "
        "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1",
        frames ? frames : -1, format ? format : "NV12", width, height);
  if (!source && (file || camera)) {
    gchar *raw = g_strconcat (src, " ! video/x-raw,format=",
        format ? format : "NV12", NULL);
    g_free (src);
    src = raw;
  }

  GPtrArray *preloaded = NULL;
  GstCaps *preloaded_caps = NULL;
  if (preload_src) {
    preloaded = preload (src, &preloaded_caps);
    if (!preloaded || !preloaded_caps) {
      g_printerr ("the source gave no frames to preload\n");
      return 1;
    }
    g_print ("# preloaded %u frames\n", preloaded->len);
    g_free (src);
    src = g_strdup ("appsrc name=preloaded format=time");
  }

  /* the pipeline: tracking after cudaintegral; drawing and the PNG strip on
   * downloaded, converted and scaled frames */
  gboolean want_video = strip_every > 0 || display;
  gchar *scale = strip_width ? g_strdup_printf (",width=%d,pixel-aspect-ratio="
      "1/1", strip_width) : g_strdup ("");
  gchar *tail;
  if (!want_video) {
    tail = g_strdup ("fakesink sync=false");
  } else {
    GstPluginFeature *dl = gst_registry_lookup_feature (gst_registry_get (),
        "cudadownload");
    if (!strip_dir)
      strip_dir = strip_every ? g_dir_make_tmp ("track-XXXXXX", NULL) : NULL;
    else if (g_mkdir_with_parents (strip_dir, 0755) != 0)
      strip_dir = NULL;
    if (strip_every && !strip_dir) {
      g_printerr ("could not create the PNG strip folder\n");
      return 1;
    }
    gchar *strip = strip_every ? g_strdup_printf ("t. ! queue ! identity "
        "name=strip ! pngenc compression-level=3 ! multifilesink "
        "location=\"%s/track-%%05d.png\"", strip_dir) : g_strdup ("");
    tail = g_strdup_printf ("%svideoconvert ! videoscale ! "
        "video/x-raw,format=RGBA%s ! identity name=draw ! tee name=t %s %s",
        dl ? "cudadownload ! " : "", scale, strip,
        display ? "t. ! queue ! videoconvert ! autovideosink sync=false" : "");
    g_free (strip);
    if (dl)
      gst_object_unref (dl);
  }
  gchar *desc = g_strdup_printf ("%s ! queue max-size-buffers=4 ! %s"
      "cudaintegral name=integral plane=0 sat-type=u64 squared=true "
      "compute=%s ! identity name=tracker ! %s", src,
      upload ? "cudaupload ! " : "", compute ? compute : "auto", tail);
  g_free (tail);
  g_free (scale);
  g_free (src);
  tr.pipeline = gst_parse_launch (desc, &err);
  if (!tr.pipeline || err) {
    g_printerr ("could not build the pipeline: %s\n", err->message);
    return 2;
  }
  g_print ("# pipeline: %s\n", desc);
  g_free (desc);

  tr.tracker = gst_bin_get_by_name (GST_BIN (tr.pipeline), "tracker");
  GstPad *pad = gst_element_get_static_pad (tr.tracker, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, tracker_probe, &tr, NULL);
  gst_object_unref (pad);
  /* without a display, frames outside the strip are not downloaded at all */
  tr.drop_unstripped = want_video && !display;
  if (want_video) {
    GstElement *draw = gst_bin_get_by_name (GST_BIN (tr.pipeline), "draw");
    pad = gst_element_get_static_pad (draw, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, draw_probe, &tr, NULL);
    gst_object_unref (pad);
    gst_object_unref (draw);
  }
  if (display && strip_every) {
    GstElement *strip = gst_bin_get_by_name (GST_BIN (tr.pipeline), "strip");
    pad = gst_element_get_static_pad (strip, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, strip_probe, &tr, NULL);
    gst_object_unref (pad);
    gst_object_unref (strip);
  }
  if (preloaded) {
    GstElement *appsrc = gst_bin_get_by_name (GST_BIN (tr.pipeline),
        "preloaded");
    gst_app_src_set_caps (GST_APP_SRC (appsrc), preloaded_caps);
    g_object_set (appsrc, "max-bytes", (guint64) 0, "block", FALSE, NULL);
    for (guint i = 0; i < preloaded->len; i++)
      gst_app_src_push_buffer (GST_APP_SRC (appsrc),
          gst_buffer_ref (g_ptr_array_index (preloaded, i)));
    gst_app_src_end_of_stream (GST_APP_SRC (appsrc));
    gst_object_unref (appsrc);
  }

  tr.loop = g_main_loop_new (NULL, FALSE);
  GstBus *bus = gst_element_get_bus (tr.pipeline);
  gst_bus_add_watch (bus, on_message, &tr);
  g_unix_signal_add (SIGINT, on_sigint, &tr);
  if (strip_dir)
    g_print ("# PNG strip (every %dth frame, with the box): %s\n",
        strip_every, strip_dir);
  g_print ("# frame x y score%s\n", check ? " ball-error" : "");
  if (gst_element_set_state (tr.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    g_printerr ("the pipeline did not start\n");
    if (msg) {
      on_message (bus, msg, &tr);
      gst_message_unref (msg);
    }
    tr.rc = 1;
  } else {
    g_main_loop_run (tr.loop);
  }
  gst_element_set_state (tr.pipeline, GST_STATE_NULL);
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);

  /* summary */
  guint64 n = MIN (tr.frames, (guint64) (frames ? frames : G_MAXINT64));
  if (tr.failure) {
    g_printerr ("tracking failed: %s\n", tr.failure);
    tr.rc = 1;
  }
  g_print ("# %" G_GUINT64_FORMAT " frames of %ux%u, box %dx%d, ring %d, "
      "radius %d\n", n, tr.plane_w, tr.plane_h, tr.bw, tr.bh, tr.margin,
      tr.radius);
  gdouble fps = n > 1 && tr.t_last > tr.t_first ?
      (n - 1) * 1e6 / (tr.t_last - tr.t_first) : 0;
  if (fps > 0)
    g_print ("# %.1f fps (first to last frame at the tracker)\n", fps);
  if (min_fps > 0 && fps < min_fps) {
    g_printerr ("%.1f fps is below --min-fps %.1f\n", fps, min_fps);
    tr.rc = 1;
  }
  if (tr.acquisitions)
    g_print ("# whole-frame search: %" G_GUINT64_FORMAT " time(s), first "
        "%.0f us\n", tr.acquisitions, tr.acquire_us);
  if (tr.searches)
    g_print ("# search per frame: %.0f us mean (%.0f us of it reading the "
        "tables), %.0f us max, %.0f candidates\n",
        tr.search_us_sum / tr.searches, tr.fetch_us_sum / tr.searches,
        tr.search_us_max, (gdouble) tr.candidates / tr.searches);
  if (check) {
    g_print ("# ball check: largest error %.2f px, %" G_GUINT64_FORMAT
        " frame(s) over %.1f px\n", tr.max_err, tr.frames_over, tolerance);
    if (tr.frames_over)
      tr.rc = 1;
  }
  if (frames && !source && !file && !camera && n != (guint64) frames) {
    g_printerr ("expected %d frames, tracked %" G_GUINT64_FORMAT "\n", frames,
        n);
    tr.rc = 1;
  }
  if (strip_dir)
    g_print ("# PNG strip: %s\n", strip_dir);

  g_main_loop_unref (tr.loop);
  gst_object_unref (tr.tracker);
  gst_object_unref (tr.pipeline);
  if (preloaded)
    g_ptr_array_unref (preloaded);
  if (preloaded_caps)
    gst_caps_unref (preloaded_caps);
  g_free (tr.scratch);
  g_free (tr.failure);
  return tr.rc;
}
