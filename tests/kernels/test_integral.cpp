/* Kernel tests of the integral family:
 * - CPU (always): cip::ref::integral against a naive definition, bit for bit;
 *   u32 wrap-around; argument checks.
 * - GPU (with a device): cip::integral, every algorithm, against
 *   cip::ref::integral bit for bit, with poisoned outputs, untouched padding,
 *   distinct pitches and one workspace reused across all calls. */
#include "cipcheck.h"
#include "testimage.h"

#include "cip/integral.h"
#include "detail/integral_internal.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#ifdef HAVE_CUDA
#include "testcuda.h"
#endif

using namespace testutil;

namespace {

/* ------------------------------------------------------------ helpers */

enum class PitchMode { tight, odd, aligned256 };
const PitchMode all_pitch_modes[] = { PitchMode::tight, PitchMode::odd,
  PitchMode::aligned256 };

const char *
pitch_mode_name (PitchMode m)
{
  switch (m) {
    case PitchMode::tight: return "tight";
    case PitchMode::odd: return "odd";
    case PitchMode::aligned256: return "256";
  }
  return "?";
}

size_t
round_up (size_t v, size_t m)
{
  return (v + m - 1) / m * m;
}

/* Source row padding for a mode: none, +13 bytes, up to a multiple of 256. */
size_t
src_pad (int w, int step, PitchMode m)
{
  const size_t row = (size_t) w * step;
  switch (m) {
    case PitchMode::tight: return 0;
    case PitchMode::odd: return 13;
    case PitchMode::aligned256: return round_up (row ? row : 1, 256) - row;
  }
  return 0;
}

/* Destination pitch (bytes) for a mode: padded by 3 elements (rows not
 * 16-byte aligned), or to a multiple of 256; `tight` still gets one element
 * of padding so that writes past the row show up. */
size_t
dst_pitch (int w, size_t es, PitchMode m)
{
  const size_t row = ((size_t) w + 1) * es;
  switch (m) {
    case PitchMode::tight: return row + es;
    case PitchMode::odd: return row + 3 * es;
    case PitchMode::aligned256: return round_up (row + 1, 256);
  }
  return row;
}

/* A channel layout: step 1, or channel `ch` of a packed 4-channel image. */
struct Chan { int step, ch; };
const Chan all_chans[] = { {1, 0}, {4, 0}, {4, 1}, {4, 2}, {4, 3} };

struct Variant { cip::SatType type; bool sq; };
const Variant all_variants[] = { {cip::SatType::u32, false},
  {cip::SatType::u32, true}, {cip::SatType::u64, false},
  {cip::SatType::u64, true} };
/* small mode (compute-sanitizer): both table types, with and without squares */
const Variant small_variants[] = { {cip::SatType::u32, false},
  {cip::SatType::u64, true} };

std::string
variant_name (const Variant &v)
{
  std::string s = v.type == cip::SatType::u32 ? "u32" : "u64";
  return v.sq ? s + "+sq" : s;
}

/* The naive definition, exact in 64 bits: the four-term recurrence
 *   S(x+1, y+1) = src(x, y) + S(x, y+1) + S(x+1, y) - S(x, y). */
void
naive_sat (const cip::ImageView &v, std::vector<uint64_t> &s,
    std::vector<uint64_t> &q)
{
  const size_t w1 = (size_t) v.width + 1;
  s.assign (w1 * ((size_t) v.height + 1), 0);
  q.assign (s.size (), 0);
  for (int y = 0; y < v.height; y++)
    for (int x = 0; x < v.width; x++) {
      const uint64_t p = v.data[(size_t) y * v.pitch + (size_t) x * v.step];
      const size_t i = (y + 1) * w1 + x + 1;
      s[i] = p + s[i - 1] + s[i - w1] - s[i - w1 - 1];
      q[i] = p * p + q[i - 1] + q[i - w1] - q[i - w1 - 1];
    }
}

/* A host (W+1) x (H+1) table with a pitch, poisoned with 0xAB. */
struct HostTable {
  size_t pitch = 0, es = 0;
  int w = 0, h = 0;
  std::vector<uint8_t> bytes;
  HostTable (int width, int height, size_t elem, size_t p) : pitch (p),
      es (elem), w (width), h (height),
      bytes (p * ((size_t) height + 1), 0xAB) {}
  uint64_t at (int x, int y) const {
    const uint8_t *r = bytes.data () + (size_t) y * pitch + (size_t) x * es;
    if (es == 4) {
      uint32_t v;
      memcpy (&v, r, 4);
      return v;
    }
    uint64_t v;
    memcpy (&v, r, 8);
    return v;
  }
};

/* First difference between a table and 64-bit expected values (reduced to
 * the table's width), or padding bytes that are not 0xAB. */
bool
check_table (const HostTable &t, const std::vector<uint64_t> &want,
    const std::string &what)
{
  const size_t w1 = (size_t) t.w + 1;
  const uint64_t mask = t.es == 4 ? 0xffffffffull : ~0ull;
  for (int y = 0; y <= t.h; y++) {
    for (int x = 0; x <= t.w; x++) {
      const uint64_t got = t.at (x, y), exp = want[y * w1 + x] & mask;
      if (got != exp) {
        fprintf (stderr, "FAIL %s: first mismatch at (x=%d, y=%d): got %"
            PRIu64 ", want %" PRIu64 "\n", what.c_str (), x, y, got, exp);
        return false;
      }
    }
    const uint8_t *r = t.bytes.data () + (size_t) y * t.pitch;
    for (size_t b = w1 * t.es; b < t.pitch; b++)
      if (r[b] != 0xAB) {
        fprintf (stderr, "FAIL %s: padding byte %zu of row %d was written\n",
            what.c_str (), b, y);
        return false;
      }
  }
  return true;
}

std::string
case_name (int w, int h, Content c, const Chan &ch, PitchMode pm,
    const Variant &v)
{
  char buf[160];
  snprintf (buf, sizeof (buf), "%dx%d %s step=%d ch=%d srcpitch=%s %s", w, h,
      content_name (c), ch.step, ch.ch, pitch_mode_name (pm),
      variant_name (v).c_str ());
  return buf;
}

/* Reference tables for one view and variant. */
struct RefResult {
  HostTable sum, sq;
  RefResult (int w, int h, const Variant &v, size_t sum_pitch, size_t sq_pitch)
      : sum (w, h, v.type == cip::SatType::u32 ? 4 : 8, sum_pitch),
        sq (w, h, 8, v.sq ? sq_pitch : 8) {}
};

cip::Status
run_ref (const cip::ImageView &view, const Variant &v, RefResult &r)
{
  cip::SatDest d;
  d.sum = r.sum.bytes.data ();
  d.sum_pitch = r.sum.pitch;
  if (v.sq) {
    d.sqsum = reinterpret_cast<uint64_t *> (r.sq.bytes.data ());
    d.sqsum_pitch = r.sq.pitch;
  }
  return cip::ref::integral (view, v.type, d);
}

/* ------------------------------------------------------- CPU reference */

void
check_ref_against_naive (int w, int h, Content c, const Chan &ch, PitchMode pm,
    const Variant *variants, int n_variants, int *failures)
{
  HostImage img = make_image (w, h, c, 3, ch.step, src_pad (w, ch.step, pm));
  const cip::ImageView view = img.view (ch.ch);
  std::vector<uint64_t> ns, nq;
  naive_sat (view, ns, nq);
  for (int k = 0; k < n_variants; k++) {
    const Variant &v = variants[k];
    const size_t es = v.type == cip::SatType::u32 ? 4 : 8;
    RefResult r (w, h, v, dst_pitch (w, es, (PitchMode) (k % 3)),
        dst_pitch (w, 8, (PitchMode) ((k + 1) % 3)));
    const std::string what = "ref " + case_name (w, h, c, ch, pm, v);
    cip::Status st = run_ref (view, v, r);
    bool ok = st == cip::Status::ok;
    if (!ok)
      fprintf (stderr, "FAIL %s: status %s\n", what.c_str (),
          cip::status_string (st));
    ok = ok && check_table (r.sum, ns, what + " (sum)");
    if (ok && v.sq)
      ok = check_table (r.sq, nq, what + " (sqsum)");
    if (!ok)
      (*failures)++;
  }
}

GST_START_TEST (test_ref_matches_naive)
{
  int failures = 0;
  for (int s = 0; s < n_edge_sizes; s++)
    for (Content c : all_contents)
      for (PitchMode pm : all_pitch_modes)
        for (const Chan &ch : all_chans)
          check_ref_against_naive (edge_sizes[s].w, edge_sizes[s].h, c, ch, pm,
              all_variants, 4, &failures);
  fail_unless (failures == 0, "%d reference case(s) differ from the naive "
      "definition (see stderr)", failures);
}
GST_END_TEST;

GST_START_TEST (test_ref_matches_naive_1080p)
{
  int failures = 0;
  for (Content c : all_contents)
    check_ref_against_naive (1920, 1080, c, all_chans[0], PitchMode::tight,
        all_variants, 4, &failures);
  for (PitchMode pm : all_pitch_modes)
    for (const Chan &ch : all_chans)
      check_ref_against_naive (1920, 1080, Content::random, ch, pm,
          all_variants, 4, &failures);
  fail_unless (failures == 0, "%d 1920x1080 reference case(s) differ from the "
      "naive definition (see stderr)", failures);
}
GST_END_TEST;

/* 4096x4200 of 255: totals exceed 2^32, the u32 table wraps, rectangle sums
 * below 2^32 stay exact in u32 arithmetic. */
GST_START_TEST (test_ref_u32_wraps)
{
  const int w = 4096, h = 4200;
  HostImage img = make_image (w, h, Content::all255);
  const Variant v32 = { cip::SatType::u32, false }, v64 = { cip::SatType::u64,
    false };
  RefResult r32 (w, h, v32, ((size_t) w + 1) * 4, 8);
  RefResult r64 (w, h, v64, ((size_t) w + 1) * 8, 8);
  fail_unless (run_ref (img.view (), v32, r32) == cip::Status::ok);
  fail_unless (run_ref (img.view (), v64, r64) == cip::Status::ok);
  const uint64_t total = (uint64_t) w * h * 255;
  fail_unless (total > 0xffffffffull);
  fail_unless (r64.sum.at (w, h) == total, "u64 total %" PRIu64 " != %" PRIu64,
      r64.sum.at (w, h), total);
  fail_unless (r32.sum.at (w, h) == (uint32_t) total);
  for (int y = 0; y <= h; y += 37)
    for (int x = 0; x <= w; x += 41)
      fail_unless (r32.sum.at (x, y) == (r64.sum.at (x, y) & 0xffffffffull),
          "u32 table is not the u64 one modulo 2^32 at (%d, %d)", x, y);
  struct { int x0, y0, x1, y1; } rects[] = { {50, 150, 4096, 4200},
    {0, 0, 4096, 4112}, {1, 2, 4095, 4114}, {4000, 4100, 4096, 4200} };
  for (auto &q : rects) {
    const uint32_t s = (uint32_t) (r32.sum.at (q.x1, q.y1) -
        r32.sum.at (q.x0, q.y1) - r32.sum.at (q.x1, q.y0) +
        r32.sum.at (q.x0, q.y0));
    const uint64_t exact = (uint64_t) (q.x1 - q.x0) * (q.y1 - q.y0) * 255;
    fail_unless (exact <= 0xffffffffull);
    fail_unless (s == exact, "rectangle [%d,%d)x[%d,%d): %u != %" PRIu64,
        q.x0, q.x1, q.y0, q.y1, s, exact);
  }
}
GST_END_TEST;

/* Which algorithm a request runs (host code, no GPU): tiled serves 8-bit
 * samples of step 1, 2 or 4, no squares, 16-byte aligned destinations, sides up to
 * kSatTiledMaxSide; everything else it is asked for runs multi_pass, as do
 * 16-bit requests for single_pass; automatic is integral_pick's choice. */
GST_START_TEST (test_resolve)
{
  using A = cip::SatAlgorithm;
  static const uint8_t px[4] = { 0 };
  cip::ImageView v;
  v.data = px;
  v.pitch = 64;
  v.width = 33;
  v.height = 7;
  cip::SatDest d;
  d.sum = reinterpret_cast<void *> ((uintptr_t) 256);
  d.sum_pitch = 160;
  auto r = [&] (A a, cip::SatType t = cip::SatType::u32) {
    return cip::detail::sat_resolve (v, t, d, a);
  };
  fail_unless (r (A::tiled) == A::tiled);
  fail_unless (r (A::tiled, cip::SatType::u64) == A::tiled);
  fail_unless (r (A::single_pass) == A::single_pass);
  fail_unless (r (A::multi_pass) == A::multi_pass);
  fail_unless (r (A::automatic) == cip::integral_pick (33, 7,
          cip::SatType::u32));
  fail_unless (r (A::automatic, cip::SatType::u64) == cip::integral_pick (33,
          7, cip::SatType::u64));
#ifdef HAVE_CUDA
  /* the picks measured in RESULTS.md rounds 10, 16 and 33 */
  fail_unless (cip::integral_pick (1920, 1080, cip::SatType::u32) == A::tiled);
  fail_unless (cip::integral_pick (7680, 4320, cip::SatType::u32) == A::tiled);
  fail_unless (cip::integral_pick (3840, 2160, cip::SatType::u64) == A::tiled);
  fail_unless (cip::integral_pick (7680, 4320, cip::SatType::u64) ==
      A::tiled);
  fail_unless (cip::integral_pick (8192, 2160, cip::SatType::u64) ==
      A::tiled);
  fail_unless (cip::integral_pick (8193, 2160, cip::SatType::u64) ==
      A::multi_pass);
  fail_unless (cip::integral_pick (cip::detail::kSatTiledMaxSide + 1, 8,
          cip::SatType::u32) == A::multi_pass);
#endif
  d.sum_pitch = 152;            /* not a multiple of 16 */
  fail_unless (r (A::tiled) == A::multi_pass);
  d.sum_pitch = 160;
  d.sum = reinterpret_cast<void *> ((uintptr_t) 264);
  fail_unless (r (A::tiled) == A::multi_pass);
  d.sum = reinterpret_cast<void *> ((uintptr_t) 256);
  d.sqsum = reinterpret_cast<uint64_t *> ((uintptr_t) 512);
  d.sqsum_pitch = 320;
  fail_unless (r (A::tiled) == A::multi_pass);
  d.sqsum = nullptr;
  v.step = 3;
  fail_unless (r (A::tiled) == A::multi_pass);
  fail_unless (!cip::detail::sat_tiled_serves (v));
  v.step = 8;
  fail_unless (r (A::tiled) == A::multi_pass);
  v.step = 4;                   /* a channel of packed 4-byte pixels (RGBA) */
  fail_unless (r (A::tiled) == A::tiled);
  fail_unless (cip::detail::sat_tiled_serves (v));
  v.step = 2;                   /* a channel of two interleaved (NV12 UV) */
  fail_unless (r (A::tiled) == A::tiled);
  fail_unless (cip::detail::sat_tiled_serves (v));
  v.step = 0;                   /* not a valid view: never served */
  fail_unless (!cip::detail::sat_tiled_serves (v));
  v.step = 1;
  v.width = cip::detail::kSatTiledMaxSide + 1;
  fail_unless (r (A::tiled) == A::multi_pass);
  v.width = 33;
  v.height = cip::detail::kSatTiledMaxSide;
  fail_unless (r (A::tiled) == A::tiled);
  v.height = 7;
  v.bytes = 2;
  v.depth = 10;
  v.step = 2;
  for (A a : { A::tiled, A::single_pass, A::multi_pass })
    fail_unless (r (a) == A::multi_pass, "16-bit %s", cip::sat_algorithm_name (a));
}
GST_END_TEST;

GST_START_TEST (test_ref_invalid_arguments)
{
  HostImage img = make_image (8, 4, Content::random);
  std::vector<uint64_t> buf (64 * 8, 0);
  cip::SatDest d;
  d.sum = buf.data ();
  d.sum_pitch = 9 * 4;
  const cip::ImageView v = img.view ();
  fail_unless (cip::ref::integral (v, cip::SatType::u32, d) == cip::Status::ok);

  cip::ImageView bad = v;
  bad.data = nullptr;
  fail_unless (cip::ref::integral (bad, cip::SatType::u32, d) ==
      cip::Status::invalid_argument);
  bad = v;
  bad.width = -1;
  fail_unless (cip::ref::integral (bad, cip::SatType::u32, d) ==
      cip::Status::invalid_argument);
  bad = v;
  bad.step = 0;
  fail_unless (cip::ref::integral (bad, cip::SatType::u32, d) ==
      cip::Status::invalid_argument);
  bad = v;
  bad.pitch = 7;                /* shorter than a row */
  fail_unless (cip::ref::integral (bad, cip::SatType::u32, d) ==
      cip::Status::invalid_argument);

  cip::SatDest dd = d;
  dd.sum = nullptr;
  fail_unless (cip::ref::integral (v, cip::SatType::u32, dd) ==
      cip::Status::invalid_argument);
  dd = d;
  dd.sum_pitch = 8 * 4;         /* short: needs 9 elements */
  fail_unless (cip::ref::integral (v, cip::SatType::u32, dd) ==
      cip::Status::invalid_argument);
  dd = d;
  dd.sum_pitch = 9 * 4 + 2;     /* not a multiple of the element size */
  fail_unless (cip::ref::integral (v, cip::SatType::u32, dd) ==
      cip::Status::invalid_argument);
  dd = d;
  dd.sum_pitch = 9 * 4 + 4;     /* u64 needs a multiple of 8 and 72 bytes */
  fail_unless (cip::ref::integral (v, cip::SatType::u64, dd) ==
      cip::Status::invalid_argument);
  dd = d;
  dd.sum = reinterpret_cast<uint8_t *> (buf.data ()) + 2;  /* misaligned */
  fail_unless (cip::ref::integral (v, cip::SatType::u32, dd) ==
      cip::Status::invalid_argument);
  dd = d;
  dd.sqsum = buf.data () + 100;
  dd.sqsum_pitch = 9 * 8 - 8;   /* short */
  fail_unless (cip::ref::integral (v, cip::SatType::u32, dd) ==
      cip::Status::invalid_argument);
  dd.sqsum_pitch = 9 * 8 + 4;   /* not a multiple of 8 */
  fail_unless (cip::ref::integral (v, cip::SatType::u32, dd) ==
      cip::Status::invalid_argument);
  fail_unless (cip::ref::integral (v, (cip::SatType) 7, d) ==
      cip::Status::invalid_argument);

  /* 0x0 does nothing, even without a destination */
  cip::ImageView empty;
  fail_unless (cip::ref::integral (empty, cip::SatType::u32, cip::SatDest ())
      == cip::Status::ok);
  /* 0 x 3: a column of four zeros */
  cip::ImageView col = v;
  col.width = 0;
  col.height = 3;
  std::vector<uint32_t> z (4 * 2, 7);
  cip::SatDest dz;
  dz.sum = z.data ();
  dz.sum_pitch = 8;
  fail_unless (cip::ref::integral (col, cip::SatType::u32, dz) ==
      cip::Status::ok);
  for (int y = 0; y < 4; y++)
    fail_unless (z[2 * y] == 0 && z[2 * y + 1] == 7, "0x3: row %d", y);
}
GST_END_TEST;


/* ------------------------------------------------- 16-bit samples (CPU) */

/* 16-bit layouts: P010 (10 bits high), I420_10LE (10 bits low), 16-bit. */
struct Layout16 { int depth, shift; const char *name; };
const Layout16 layouts16[] = { {10, 6, "p010"}, {10, 0, "i420_10"}, {16, 0, "16bit"} };
const Content contents16[] = { Content::random, Content::constant,
  Content::all255, Content::gradient, Content::natural };

/* The naive recurrence on the values of channel `ch` of a 16-bit image. */
void
naive_sat16 (const HostImage &img, int ch, std::vector<uint64_t> &s,
    std::vector<uint64_t> &q)
{
  const size_t w1 = (size_t) img.width + 1;
  s.assign (w1 * ((size_t) img.height + 1), 0);
  q.assign (s.size (), 0);
  for (int y = 0; y < img.height; y++)
    for (int x = 0; x < img.width; x++) {
      const uint64_t p = img.value (x, y, ch);
      const size_t i = (y + 1) * w1 + x + 1;
      s[i] = p + s[i - 1] + s[i - w1] - s[i - w1 - 1];
      q[i] = p * p + q[i - 1] + q[i - w1] - q[i - w1 - 1];
    }
}

/* The reference on 10- and 16-bit planes and interleaved channels (garbage
 * in the bits outside the values) against the naive recurrence, every
 * variant: u32 wraps (all-max 16-bit frames pass 2^32), u64 and squares
 * exact. */
GST_START_TEST (test_ref_16bit)
{
  int failures = 0;
  const Size sizes[] = { {1, 1}, {2, 1}, {31, 17}, {257, 3}, {300, 300} };
  for (const Layout16 &l : layouts16)
    for (Content c : contents16)
      for (const Size &sz : sizes)
        for (int chans : { 1, 2 }) {
          HostImage img = make_image16 (sz.w, sz.h, c, l.depth, l.shift, 9,
              chans, 6, true);
          const int ch = chans - 1;
          std::vector<uint64_t> ns, nq;
          naive_sat16 (img, ch, ns, nq);
          for (const Variant &v : all_variants) {
            const size_t es = v.type == cip::SatType::u32 ? 4 : 8;
            RefResult r (sz.w, sz.h, v, dst_pitch (sz.w, es, PitchMode::odd),
                dst_pitch (sz.w, 8, PitchMode::tight));
            const std::string what = std::string ("ref16 ") + l.name + " " +
                case_name (sz.w, sz.h, c, Chan { 2 * chans, ch }, PitchMode::odd, v);
            bool ok = run_ref (img.view (2 * ch), v, r) == cip::Status::ok;
            ok = ok && check_table (r.sum, ns, what + " (sum)");
            if (ok && v.sq)
              ok = check_table (r.sq, nq, what + " (sqsum)");
            if (!ok) {
              fprintf (stderr, "FAIL %s\n", what.c_str ());
              failures++;
            }
          }
        }
  fail_unless (failures == 0, "%d failing 16-bit reference cases", failures);
  /* a 1-byte view of fewer than 8 bits is not served */
  HostImage b = make_image (4, 4, Content::random, 1);
  cip::ImageView v4 = b.view ();
  v4.depth = 4;
  RefResult r (4, 4, all_variants[0], 5 * 4, 5 * 8);
  fail_unless (run_ref (v4, all_variants[0], r) == cip::Status::unsupported);
}
GST_END_TEST;

/* ---------------------------------------------------------------- GPU */

#ifdef HAVE_CUDA

/* Byte-exact comparison of two tables' (W+1) x (H+1) elements and of the
 * first one's padding (must still be 0xAB). */
bool
same_table (const HostTable &got, const HostTable &want, const std::string &what)
{
  const size_t row = ((size_t) got.w + 1) * got.es;
  for (int y = 0; y <= got.h; y++) {
    const uint8_t *a = got.bytes.data () + (size_t) y * got.pitch;
    const uint8_t *b = want.bytes.data () + (size_t) y * want.pitch;
    if (memcmp (a, b, row) != 0) {
      for (int x = 0; x <= got.w; x++)
        if (got.at (x, y) != want.at (x, y)) {
          fprintf (stderr, "FAIL %s: first mismatch at (x=%d, y=%d): got %"
              PRIu64 ", want %" PRIu64 "\n", what.c_str (), x, y,
              got.at (x, y), want.at (x, y));
          break;
        }
      return false;
    }
    for (size_t k = row; k < got.pitch; k++)
      if (a[k] != 0xAB) {
        fprintf (stderr, "FAIL %s: padding byte %zu of row %d was written\n",
            what.c_str (), k, y);
        return false;
      }
  }
  return true;
}


const cip::SatAlgorithm all_algos[] = { cip::SatAlgorithm::single_pass,
  cip::SatAlgorithm::multi_pass, cip::SatAlgorithm::tiled,
  cip::SatAlgorithm::automatic };

/* One workspace for every GPU call of the process, sized once for the
 * largest case and initialized once: each call must leave it ready. */
struct SharedWorkspace {
  void *ptr = nullptr;
  size_t bytes = 0;
  cudaStream_t stream = nullptr;
};
SharedWorkspace g_ws;

void
ensure_workspace ()
{
  if (g_ws.ptr)
    return;
  size_t need = 0;
  const int sizes[][2] = { {7680, 4320}, {3840, 2160}, {1920, 1080},
    {1, 65535}, {65535, 3}, {20000, 17}, {100, 4321}, {3, 5000},
    {65535, 65}, {33, 65535}, {16384, 4096} };
  for (auto &s : sizes)
    for (const Variant &v : all_variants)
      need = std::max (need, cip::integral_workspace_bytes (s[0], s[1], v.type,
              v.sq));
  CUDA_OK (cudaStreamCreateWithFlags (&g_ws.stream, cudaStreamNonBlocking));
  CUDA_OK (cudaMalloc (&g_ws.ptr, need));
  g_ws.bytes = need;
  /* garbage everywhere, then the documented initialization */
  CUDA_OK (cudaMemsetAsync (g_ws.ptr, 0x5C, need, g_ws.stream));
  fail_unless (cip::integral_workspace_init (g_ws.ptr, g_ws.bytes,
          g_ws.stream) == cip::Status::ok);
  CUDA_OK (cudaStreamSynchronize (g_ws.stream));
  fprintf (stderr, "shared GPU workspace: %zu bytes\n", need);
}

/* Runs the GPU SAT of `view` (host image `img` uploaded as is) and compares
 * with the reference `want`. Returns false (and prints the case) on any
 * difference. */
bool
gpu_case (const HostImage &img, int channel, const Variant &v,
    cip::SatAlgorithm algo, const RefResult &want, const std::string &what,
    bool tight = false)
{
  const cip::ImageView hv = img.view (channel);
  /* tight: the device buffer ends at the view's last sample (a read past it
   * shows under compute-sanitizer's memcheck) */
  const size_t nsrc = !tight ? img.bytes.size () : (size_t) (hv.data -
      img.bytes.data ()) + (size_t) (hv.height - 1) * hv.pitch +
      (size_t) (hv.width - 1) * (size_t) hv.step + 1;
  DevBuf dsrc (nsrc);
  DevBuf dsum (want.sum.bytes.size ());
  DevBuf dsq (v.sq ? want.sq.bytes.size () : 0);   /* fails the test if out of memory */
  /* everything in the one (non-blocking) stream: a cudaMemcpy from pageable
   * memory may return before its DMA is done and does not order with it */
  cudaStream_t st = g_ws.stream;
  bool ok = cudaMemcpyAsync (dsrc.p, img.bytes.data (), nsrc,
      cudaMemcpyHostToDevice, st) == cudaSuccess;
  ok = ok && cudaMemsetAsync (dsum.p, 0xAB, dsum.n, st) == cudaSuccess;
  if (v.sq)
    ok = ok && cudaMemsetAsync (dsq.p, 0xAB, dsq.n, st) == cudaSuccess;
  cip::ImageView dv = hv;
  dv.data = static_cast<const uint8_t *> (dsrc.p) + (hv.data - img.bytes.data ());
  cip::SatDest d;
  d.sum = dsum.p;
  d.sum_pitch = want.sum.pitch;
  if (v.sq) {
    d.sqsum = reinterpret_cast<uint64_t *> (dsq.p);
    d.sqsum_pitch = want.sq.pitch;
  }
  const cip::Status s = cip::integral (dv, v.type, d, g_ws.ptr, g_ws.bytes, st,
      algo);
  if (s != cip::Status::ok) {
    fprintf (stderr, "FAIL %s: status %s (%s)\n", what.c_str (),
        cip::status_string (s), cip::last_cuda_error ());
    return false;
  }
  const cudaError_t e = cudaStreamSynchronize (st);
  if (!ok || e != cudaSuccess) {
    fprintf (stderr, "FAIL %s: CUDA error %s\n", what.c_str (),
        cudaGetErrorString (e));
    return false;
  }
  HostTable gs (want.sum.w, want.sum.h, want.sum.es, want.sum.pitch);
  if (cudaMemcpy (gs.bytes.data (), dsum.p, dsum.n, cudaMemcpyDeviceToHost) !=
      cudaSuccess)
    return false;
  if (!same_table (gs, want.sum, what + " (sum)"))
    return false;
  if (v.sq) {
    HostTable gq (want.sq.w, want.sq.h, 8, want.sq.pitch);
    if (cudaMemcpy (gq.bytes.data (), dsq.p, dsq.n, cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      return false;
    if (!same_table (gq, want.sq, what + " (sqsum)"))
      return false;
  }
  return true;
}

/* The algorithm integral() runs for `a` on this view with want's pitches
 * (device buffers are 256-byte aligned, as the address stand-in here). */
cip::SatAlgorithm
resolved (cip::SatAlgorithm a, const cip::ImageView &view, const Variant &v,
    const RefResult &want)
{
  cip::SatDest d;
  d.sum = reinterpret_cast<void *> ((uintptr_t) 256);
  d.sum_pitch = want.sum.pitch;
  if (v.sq) {
    d.sqsum = reinterpret_cast<uint64_t *> ((uintptr_t) 256);
    d.sqsum_pitch = want.sq.pitch;
  }
  return cip::detail::sat_resolve (view, v.type, d, a);
}

/* Small mode (compute-sanitizer) only: true when an algorithm before `a` in
 * all_algos runs the same kernels for this request (e.g. tiled and
 * automatic on 16-bit samples both run multi_pass), so each runs once. */
bool
small_repeat (cip::SatAlgorithm a, const cip::ImageView &view,
    const Variant &v, const RefResult &want)
{
  if (!cip_test_small ())
    return false;
  const cip::SatAlgorithm r = resolved (a, view, v, want);
  for (cip::SatAlgorithm b : all_algos) {
    if (b == a)
      return false;
    if (resolved (b, view, v, want) == r)
      return true;
  }
  return false;
}

/* Every algorithm and the given variants on one image; destination pitch
 * modes rotate with `salt` so that src, sum and sqsum pitches differ. */
int
gpu_image_cases (int w, int h, Content c, const Chan &ch, PitchMode pm,
    const Variant *variants, int n_variants, int salt)
{
  ensure_workspace ();
  HostImage img = make_image (w, h, c, 5, ch.step, src_pad (w, ch.step, pm));
  int failures = 0;
  for (int k = 0; k < n_variants; k++) {
    const Variant &v = variants[k];
    const size_t es = v.type == cip::SatType::u32 ? 4 : 8;
    RefResult want (w, h, v, dst_pitch (w, es, (PitchMode) ((salt + k) % 3)),
        dst_pitch (w, 8, (PitchMode) ((salt + k + 1) % 3)));
    if (run_ref (img.view (ch.ch), v, want) != cip::Status::ok) {
      failures++;
      continue;
    }
    for (cip::SatAlgorithm a : all_algos) {
      if (small_repeat (a, img.view (ch.ch), v, want))
        continue;
      char pitches[96];
      snprintf (pitches, sizeof (pitches), " sumpitch=%zu sqpitch=%zu",
          want.sum.pitch, v.sq ? want.sq.pitch : (size_t) 0);
      const std::string what = std::string ("gpu ") +
          cip::sat_algorithm_name (a) + " " + case_name (w, h, c, ch, pm, v) +
          pitches;
      if (!gpu_case (img, ch.ch, v, a, want, what))
        failures++;
    }
  }
  return failures;
}

GST_START_TEST (test_gpu_edge_sizes)
{
  int failures = 0, salt = 0;
  const bool sm = cip_test_small ();
  for (int s = 0; s < n_edge_sizes; s++)
    for (Content c : all_contents)
      for (PitchMode pm : all_pitch_modes)
        for (const Chan &ch : all_chans) {
          /* small mode (compute-sanitizer): sizes up to 40,000 pixels, random
           * content (all-255 on one size), odd and aligned pitches, a plane
           * and a channel of a packed one */
          if (sm && ((long) edge_sizes[s].w * edge_sizes[s].h > 40000 ||
                  (c != Content::random && (c != Content::all255 || s != 4)) ||
                  pm == PitchMode::tight || (&ch != &all_chans[0] &&
                      &ch != &all_chans[4])))
            continue;
          failures += gpu_image_cases (edge_sizes[s].w, edge_sizes[s].h, c, ch,
              pm, sm ? small_variants : all_variants, sm ? 2 : 4, salt++);
        }
  fail_unless (failures == 0, "%d GPU edge-size case(s) failed (see stderr)",
      failures);
}
GST_END_TEST;

/* Widths around the block and segment boundaries (16 columns a thread,
 * 128..512 threads, 8192-column segments), tall and narrow images. */
GST_START_TEST (test_gpu_shapes)
{
  const Size shapes[] = { {16, 16}, {17, 9}, {2047, 5}, {2048, 9}, {2049, 13},
    {4095, 3}, {4096, 17}, {4097, 40}, {8191, 8}, {8192, 24}, {8193, 40},
    {16384, 33}, {20000, 17}, {65535, 3}, {100, 4321}, {3, 5000}, {1, 65535},
    {1280, 720}, {1023, 1025} };
  int failures = 0, salt = 0;
  for (const Size &s : shapes) {
    if (cip_test_small () && (long) s.w * s.h > 70000)
      continue;                 /* small mode (compute-sanitizer) */
    const bool sm = cip_test_small ();
    failures += gpu_image_cases (s.w, s.h, Content::random, all_chans[0],
        PitchMode::aligned256, sm ? small_variants : all_variants, sm ? 2 : 4,
        salt++);
    failures += gpu_image_cases (s.w, s.h, Content::natural, all_chans[2],
        PitchMode::odd, sm ? small_variants : all_variants, sm ? 2 : 4, salt++);
  }
  fail_unless (failures == 0, "%d GPU shape case(s) failed (see stderr)",
      failures);
}
GST_END_TEST;

GST_START_TEST (test_gpu_1080p)
{
  CIP_SKIP_IF_SMALL ();       /* large frames */
  int failures = 0, salt = 0;
  for (Content c : all_contents)
    failures += gpu_image_cases (1920, 1080, c, all_chans[0], PitchMode::tight,
        all_variants, 4, salt++);
  for (PitchMode pm : all_pitch_modes)
    for (const Chan &ch : all_chans)
      failures += gpu_image_cases (1920, 1080, Content::random, ch, pm,
          all_variants, 4, salt++);
  fail_unless (failures == 0, "%d GPU 1920x1080 case(s) failed (see stderr)",
      failures);
}
GST_END_TEST;

GST_START_TEST (test_gpu_large)
{
  CIP_SKIP_IF_SMALL ();       /* large frames */
  int failures = 0, salt = 0;
  const Content uhd[] = { Content::random, Content::all255, Content::natural,
    Content::zeros };
  for (Content c : uhd)
    failures += gpu_image_cases (3840, 2160, c, all_chans[0],
        PitchMode::aligned256, all_variants, 4, salt++);
  failures += gpu_image_cases (3840, 2160, Content::checkerboard, all_chans[3],
      PitchMode::odd, all_variants, 4, salt++);
  const Variant big[] = { {cip::SatType::u32, false}, {cip::SatType::u64,
    false} };
  const Content eight_k[] = { Content::random, Content::all255 };
  for (Content c : eight_k)
    failures += gpu_image_cases (7680, 4320, c, all_chans[0],
        PitchMode::aligned256, big, 2, salt++);
  const Variant big_sq[] = { {cip::SatType::u64, true} };
  failures += gpu_image_cases (7680, 4320, Content::natural, all_chans[0],
      PitchMode::tight, big_sq, 1, salt++);
  fail_unless (failures == 0, "%d GPU large case(s) failed (see stderr)",
      failures);
}
GST_END_TEST;

/* A fresh workspace per call, initialized the documented way, also works,
 * and a 4096x4200 all-255 u32 table wraps exactly like the reference. */
GST_START_TEST (test_gpu_fresh_workspace_and_wrap)
{
  CIP_SKIP_IF_SMALL ();       /* large frames */
  ensure_workspace ();
  const int w = 4096, h = 4200;
  HostImage img = make_image (w, h, Content::all255);
  const Variant v = { cip::SatType::u32, true };
  RefResult want (w, h, v, dst_pitch (w, 4, PitchMode::aligned256),
      dst_pitch (w, 8, PitchMode::odd));
  fail_unless (run_ref (img.view (), v, want) == cip::Status::ok);
  int failures = 0;
  for (cip::SatAlgorithm a : all_algos) {
    const size_t bytes = cip::integral_workspace_bytes (w, h, v.type, v.sq);
    void *ws = nullptr;
    CUDA_OK (cudaMalloc (&ws, bytes));
    CUDA_OK (cudaMemsetAsync (ws, 0x77, bytes, g_ws.stream));
    fail_unless (cip::integral_workspace_init (ws, bytes, g_ws.stream) ==
        cip::Status::ok);
    void *saved = g_ws.ptr;
    size_t saved_bytes = g_ws.bytes;
    g_ws.ptr = ws;
    g_ws.bytes = bytes;
    const std::string what = std::string ("gpu fresh-workspace ") +
        cip::sat_algorithm_name (a) + " 4096x4200 all255 u32+sq";
    if (!gpu_case (img, 0, v, a, want, what))
      failures++;
    /* and a second call on it without re-initialization */
    if (!gpu_case (img, 0, v, a, want, what + " (second call)"))
      failures++;
    g_ws.ptr = saved;
    g_ws.bytes = saved_bytes;
    cudaFree (ws);
  }
  fail_unless (failures == 0, "%d fresh-workspace case(s) failed", failures);
}
GST_END_TEST;

/* Many calls of different sizes, types and algorithms in a row on the one
 * workspace, without synchronizing in between, then all results checked:
 * the single-pass kernel's ticket and flags must reset themselves. */
GST_START_TEST (test_gpu_workspace_reuse_burst)
{
  CIP_SKIP_IF_SMALL ();       /* large frames */
  ensure_workspace ();
  struct Job {
    int w, h;
    Variant v;
    cip::SatAlgorithm a;
    HostImage img;
    RefResult *want;
    DevBuf *src, *sum, *sq;
  };
  const Size sizes[] = { {3840, 2160}, {33, 33}, {1920, 1080}, {8193, 40},
    {1, 7}, {640, 480}, {100, 4321}, {7680, 4320}, {257, 3}, {1001, 67} };
  std::vector<Job> jobs;
  int k = 0;
  for (int round = 0; round < 3; round++)
    for (const Size &s : sizes) {
      Job j;
      j.w = s.w;
      j.h = s.h;
      j.v = all_variants[k % 4];
      if (s.w * (int64_t) s.h > 20000000)
        j.v.sq = false;
      j.a = all_algos[(k / 4 + round) % 3];
      j.img = make_image (s.w, s.h, all_contents[k % 7], 11 + k);
      const size_t es = j.v.type == cip::SatType::u32 ? 4 : 8;
      j.want = new RefResult (s.w, s.h, j.v, dst_pitch (s.w, es,
              (PitchMode) (k % 3)), dst_pitch (s.w, 8, (PitchMode) ((k + 2) % 3)));
      fail_unless (run_ref (j.img.view (), j.v, *j.want) == cip::Status::ok);
      jobs.push_back (std::move (j));
      k++;
    }
  cudaStream_t st = g_ws.stream;
  for (Job &j : jobs) {
    j.src = new DevBuf (j.img.bytes.size ());
    j.sum = new DevBuf (j.want->sum.bytes.size ());
    j.sq = new DevBuf (j.v.sq ? j.want->sq.bytes.size () : 0);
    fail_unless (j.src->p && j.sum->p && j.sq->p, "cudaMalloc");
    CUDA_OK (cudaMemcpyAsync (j.src->p, j.img.bytes.data (),
            j.img.bytes.size (), cudaMemcpyHostToDevice, st));
    CUDA_OK (cudaMemsetAsync (j.sum->p, 0xAB, j.sum->n, st));
    if (j.v.sq)
      CUDA_OK (cudaMemsetAsync (j.sq->p, 0xAB, j.sq->n, st));
  }
  CUDA_OK (cudaStreamSynchronize (st));
  for (Job &j : jobs) {
    cip::ImageView dv = j.img.view ();
    dv.data = static_cast<const uint8_t *> (j.src->p);
    cip::SatDest d;
    d.sum = j.sum->p;
    d.sum_pitch = j.want->sum.pitch;
    if (j.v.sq) {
      d.sqsum = reinterpret_cast<uint64_t *> (j.sq->p);
      d.sqsum_pitch = j.want->sq.pitch;
    }
    const cip::Status s = cip::integral (dv, j.v.type, d, g_ws.ptr,
        g_ws.bytes, st, j.a);
    fail_unless (s == cip::Status::ok, "burst %dx%d: %s (%s)", j.w, j.h,
        cip::status_string (s), cip::last_cuda_error ());
  }
  CUDA_OK (cudaStreamSynchronize (st));
  int failures = 0;
  for (Job &j : jobs) {
    char buf[128];
    snprintf (buf, sizeof (buf), "gpu burst %s %dx%d %s",
        cip::sat_algorithm_name (j.a), j.w, j.h, variant_name (j.v).c_str ());
    HostTable gs (j.w, j.h, j.want->sum.es, j.want->sum.pitch);
    CUDA_OK (cudaMemcpy (gs.bytes.data (), j.sum->p, j.sum->n,
            cudaMemcpyDeviceToHost));
    bool ok = same_table (gs, j.want->sum, std::string (buf) + " (sum)");
    if (ok && j.v.sq) {
      HostTable gq (j.w, j.h, 8, j.want->sq.pitch);
      CUDA_OK (cudaMemcpy (gq.bytes.data (), j.sq->p, j.sq->n,
              cudaMemcpyDeviceToHost));
      ok = same_table (gq, j.want->sq, std::string (buf) + " (sqsum)");
    }
    if (!ok)
      failures++;
    delete j.src;
    delete j.sum;
    delete j.sq;
    delete j.want;
  }
  fail_unless (failures == 0, "%d burst case(s) failed (see stderr)", failures);
}
GST_END_TEST;

GST_START_TEST (test_gpu_invalid_arguments)
{
  ensure_workspace ();
  DevBuf src (64 * 64), sum (65 * 65 * 8);
  /* the valid calls below run the kernels on it (initcheck) */
  CUDA_OK (cudaMemset (src.p, 7, src.n));
  cip::ImageView v;
  v.data = static_cast<const uint8_t *> (src.p);
  v.pitch = 64;
  v.width = 64;
  v.height = 64;
  cip::SatDest d;
  d.sum = sum.p;
  d.sum_pitch = 65 * 8;
  cudaStream_t st = g_ws.stream;
  const size_t need = cip::integral_workspace_bytes (64, 64, cip::SatType::u64,
      false);
  fail_unless (need > 0 && need <= g_ws.bytes);
  fail_unless (cip::integral (v, cip::SatType::u64, d, g_ws.ptr, g_ws.bytes,
          st) == cip::Status::ok);
  fail_unless (cip::integral (v, cip::SatType::u64, d, nullptr, g_ws.bytes,
          st) == cip::Status::invalid_argument);
  fail_unless (cip::integral (v, cip::SatType::u64, d, g_ws.ptr, need - 1,
          st) == cip::Status::invalid_argument);
  fail_unless (cip::integral (v, cip::SatType::u64, d, g_ws.ptr, g_ws.bytes,
          st, (cip::SatAlgorithm) 9) == cip::Status::invalid_argument);
  cip::SatDest dd = d;
  dd.sum = static_cast<uint8_t *> (sum.p) + 4;   /* not 8-byte aligned */
  fail_unless (cip::integral (v, cip::SatType::u64, dd, g_ws.ptr, g_ws.bytes,
          st) == cip::Status::invalid_argument);
  dd = d;
  dd.sum = nullptr;
  fail_unless (cip::integral (v, cip::SatType::u64, dd, g_ws.ptr, g_ws.bytes,
          st) == cip::Status::invalid_argument);
  dd = d;
  dd.sum_pitch = 64 * 8;
  fail_unless (cip::integral (v, cip::SatType::u64, dd, g_ws.ptr, g_ws.bytes,
          st) == cip::Status::invalid_argument);
  cip::ImageView bad = v;
  bad.pitch = 10;
  fail_unless (cip::integral (bad, cip::SatType::u32, d, g_ws.ptr, g_ws.bytes,
          st) == cip::Status::invalid_argument);
  /* wider than the GPU path serves, with a valid destination */
  DevBuf wide (70001 * 4 * 2);
  bad = v;
  bad.width = 70000;
  bad.height = 1;
  dd = d;
  dd.sum = wide.p;
  dd.sum_pitch = 70001 * 4;
  fail_unless (cip::integral (bad, cip::SatType::u32, dd, g_ws.ptr, g_ws.bytes,
          st) == cip::Status::unsupported);
  fail_unless (cip::integral (cip::ImageView (), cip::SatType::u32,
          cip::SatDest (), nullptr, 0, st) == cip::Status::ok);
  fail_unless (cip::integral_workspace_init (nullptr, 16, st) ==
      cip::Status::invalid_argument);
  CUDA_OK (cudaStreamSynchronize (st));
}
GST_END_TEST;


/* Every variant on one 10- or 16-bit image: channel chans - 1 of `chans`
 * interleaved ones (step 2 * chans bytes), junk in the bits outside the
 * values, `pad` bytes of row padding; every algorithm (single_pass runs
 * multi_pass on 16-bit) or only automatic. Destination pitch modes rotate
 * with salt. Returns the number of failing cases. */
int
gpu16_image_cases (int w, int h, Content c, const Layout16 &l, int chans,
    size_t pad, int salt, bool every_algo)
{
  ensure_workspace ();
  HostImage img = make_image16 (w, h, c, l.depth, l.shift, 13 + salt, chans,
      pad, true);
  const int ch = chans - 1;
  int failures = 0;
  for (int k = 0; k < 4; k++) {
    const Variant &v = all_variants[k];
    const size_t es = v.type == cip::SatType::u32 ? 4 : 8;
    RefResult want (w, h, v, dst_pitch (w, es, (PitchMode) ((salt + k) % 3)),
        dst_pitch (w, 8, (PitchMode) ((salt + k + 1) % 3)));
    fail_unless (run_ref (img.view (2 * ch), v, want) == cip::Status::ok);
    for (cip::SatAlgorithm a : all_algos) {
      if ((!every_algo && a != cip::SatAlgorithm::automatic) ||
          (every_algo && small_repeat (a, img.view (2 * ch), v, want)))
        continue;
      char buf[256];
      snprintf (buf, sizeof (buf), "gpu16 %s %s %dx%d %s step=%d ch=%d "
          "srcpitch=%zu %s sumpitch=%zu sqpitch=%zu", cip::sat_algorithm_name (a),
          l.name, w, h, content_name (c), 2 * chans, ch, img.pitch,
          variant_name (v).c_str (), want.sum.pitch,
          v.sq ? want.sq.pitch : (size_t) 0);
      if (!gpu_case (img, 2 * ch, v, a, want, buf))
        failures++;
    }
  }
  return failures;
}

/* 10- and 16-bit planes and channels on the GPU against the reference, every
 * variant, at edge and video sizes (the u32 tables of all-max frames wrap). */
GST_START_TEST (test_gpu_16bit)
{
  int failures = 0, salt = 0;
  const Size sizes[] = { {1, 1}, {2, 1}, {1, 70}, {31, 17}, {257, 3},
    {300, 300}, {2049, 65}, {1920, 1080}, {3840, 2160} };
  for (const Layout16 &l : layouts16)
    for (Content c : contents16)
      for (const Size &sz : sizes)
        for (int chans : { 1, 2 }) {
          if ((chans == 2 && sz.w * sz.h > 1920 * 1080) ||
              (cip_test_small () && sz.w * sz.h > 70000))
            continue;
          failures += gpu16_image_cases (sz.w, sz.h, c, l, chans,
              chans == 1 ? 0 : 10, salt++, false);
        }
  fail_unless (failures == 0, "%d failing 16-bit GPU cases", failures);
}
GST_END_TEST;

/* 16-bit shapes around the kernels' boundaries (16 columns a thread, 32 a
 * warp, 64 a column-scan block, 128..512 threads, 2048..8192-column
 * segments; 1x1, Nx1, 1xN, the largest side), every algorithm and variant,
 * source rows tight, padded off 16 bytes (+14) or to 256 bytes (the
 * vectorized loads), and a step-4 channel (NV12 UV-like). */
GST_START_TEST (test_gpu_16bit_shapes)
{
  const bool sm = cip_test_small ();
  const Size shapes[] = { {1, 1}, {7, 1}, {1, 7}, {15, 3}, {16, 16}, {17, 9},
    {31, 5}, {32, 8}, {33, 7}, {63, 4}, {64, 12}, {65, 17}, {127, 3},
    {129, 25}, {2047, 5}, {2048, 9}, {2049, 13}, {4095, 3}, {4096, 17},
    {4097, 40}, {8191, 8}, {8192, 24}, {8193, 40}, {16385, 9}, {65535, 3},
    {100, 4321}, {3, 5000}, {1, 65535}, {1023, 1025} };
  int failures = 0, salt = 0;
  for (const Size &s : shapes) {
    if (sm && (int64_t) s.w * s.h > 70000)
      continue;
    for (const Layout16 &l : layouts16) {
      if (sm && &l == &layouts16[1])
        continue;               /* small mode: P010's shift and 16 bits */
      const size_t row = (size_t) s.w * 2;
      for (size_t pad : { (size_t) 0, (size_t) 14, round_up (row, 256) - row }) {
        if (sm && pad == 0)
          continue;             /* small mode: the unaligned and aligned rows */
        failures += gpu16_image_cases (s.w, s.h, Content::random, l, 1, pad,
            salt++, true);
      }
      failures += gpu16_image_cases (s.w, s.h, Content::natural, l, 2, 6,
          salt++, true);
    }
  }
  fail_unless (failures == 0, "%d failing 16-bit GPU shape cases", failures);
}
GST_END_TEST;

/* Tunes `saved` to th rows per strip (multi_pass) or per tile (tiled, with
 * plain stores if `plain`, in three launches where it would run grouped if
 * `ungrouped`, its input's L2 policy as SatTuning::tiled_l2 `l2`) and checks
 * that the launch configuration takes it. */
static void
set_rows (const cip::detail::SatTuning &saved, cip::SatAlgorithm a, int th,
    int plain = 0, int ungrouped = 0, int l2 = 0)
{
  cip::detail::SatTuning t = saved;
  (a == cip::SatAlgorithm::tiled ? t.th_tiled : t.th_multi) = th;
  t.tiled_plain = plain;
  t.tiled_ungrouped = ungrouped;
  t.tiled_l2 = l2;
  cip::detail::sat_set_tuning (t);
  const cip::detail::SatConfig cfg = cip::detail::sat_config (100, 100,
      cip::SatType::u32, false, a);
  fail_unless (cfg.th == th, "tuning not applied (%d rows, %s)", cfg.th,
      cip::sat_algorithm_name (a));
}

/* 16-bit strips: heights around multiples of 4-, 8-, 12- and 128-row strips
 * (th_multi tuned; one strip, a partial last strip, and more than 257
 * strips, so that the column scan takes both its register and its L2 path),
 * random and all-max values; then the largest side in height with all-max
 * 16-bit values, where a column's sum reaches 65535 * 65535 (the most a u32
 * column sum holds exactly) and the u32 tables wrap. */
GST_START_TEST (test_gpu_16bit_strips)
{
  const bool sm = cip_test_small ();
  const cip::detail::SatTuning saved = cip::detail::sat_get_tuning ();
  ensure_workspace ();
  int failures = 0, salt = 0;
  const Layout16 &l16 = layouts16[2], &p010 = layouts16[0];
  for (int th : { 4, 8, 12, 128 }) {
    set_rows (saved, cip::SatAlgorithm::multi_pass, th);
    const int hs[] = { 1, th - 1, th, th + 1, 2 * th - 1, 2 * th + 1, 3 * th,
      th <= 8 ? 300 * th + 1 : 0 };
    for (int h : hs) {
      if (h < 1 || (sm && h > 600))
        continue;
      for (int w : { 33, 2049 }) {
        if (sm && w * h > 70000)
          continue;
        /* a workspace for this tuning (the shared one is sized for the
         * defaults) */
        size_t bytes = 0;
        for (const Variant &v : all_variants)
          bytes = std::max (bytes, cip::integral_workspace_bytes (w, h, v.type,
                  v.sq));
        if (bytes > g_ws.bytes) {
          failures++;
          fprintf (stderr, "FAIL %dx%d th=%d: workspace %zu > shared %zu\n",
              w, h, th, bytes, g_ws.bytes);
          continue;
        }
        failures += gpu16_image_cases (w, h, Content::random, l16, 1, 0,
            salt++, false);
        failures += gpu16_image_cases (w, h, Content::all255, p010, 2, 2,
            salt++, false);
      }
    }
  }
  cip::detail::sat_set_tuning (saved);
  if (!sm) {
    failures += gpu16_image_cases (33, 65535, Content::all255, l16, 1, 0,
        salt++, true);
    failures += gpu16_image_cases (65535, 65, Content::all255, l16, 1, 32,
        salt++, true);
    failures += gpu16_image_cases (65535, 65, Content::random, l16, 2, 0,
        salt++, false);
  }
  fail_unless (failures == 0, "%d failing 16-bit GPU strip cases", failures);
}
GST_END_TEST;

/* tiled: widths around its 128-column tiles and heights around its 16- and
 * 32-row tiles (th_tiled tuned), random, all-255 and natural planes whose
 * rows are read as words (pitch a multiple of 256) or byte by byte (pitch
 * w + 13: not a multiple of 4 for most widths), u32 and u64 tables with
 * 16-byte aligned rows (so that tiled, not its fallback, runs: checked),
 * streaming and (fewer sizes) plain stores; planes that run grouped (two
 * launches) around its 256-row groups, its 32-tile-column rounds and its
 * 8192-column limit, grouped and in three launches (4097-, 4353- and
 * 8192-column planes in small mode too); a few with
 * the input's L2 policy forced off and on; then, full
 * mode, 263 tile rows (more than the scan keeps in registers), a grouped
 * all-255 4096 x 4352 frame and an all-255 16384 x 4096 frame (32-row
 * tiles), whose u64 corners pass 2^32 and whose u32 tables wrap. */
GST_START_TEST (test_gpu_tiled)
{
  const bool sm = cip_test_small ();
  const cip::detail::SatTuning saved = cip::detail::sat_get_tuning ();
  ensure_workspace ();
  int failures = 0, salt = 0;
  const Variant vs[] = { {cip::SatType::u32, false}, {cip::SatType::u64, false} };
  /* channel ch of img through tiled (which must serve it) against the
   * reference; counts failures rather than asserting, so that the tuning
   * is restored */
  auto check = [&] (const HostImage &img, int ch, const Variant &v,
      const std::string &what, bool tight = false) {
    const int w = img.width, h = img.height;
    const size_t es = v.type == cip::SatType::u32 ? 4 : 8;
    RefResult want (w, h, v, dst_pitch (w, es, PitchMode::aligned256), 8);
    if (run_ref (img.view (ch), v, want) != cip::Status::ok ||
        resolved (cip::SatAlgorithm::tiled, img.view (ch), v, want) !=
        cip::SatAlgorithm::tiled) {
      fprintf (stderr, "FAIL %s: no reference, or tiled does not serve it\n",
          what.c_str ());
      failures++;
    } else if (!gpu_case (img, ch, v, cip::SatAlgorithm::tiled, want, what,
            tight)) {
      failures++;
    }
  };
  auto one = [&] (int w, int h, Content c, PitchMode pm, const Variant &v) {
    check (make_image (w, h, c, 11 + salt++, 1, src_pad (w, 1, pm)), 0, v,
        "gpu tiled " + case_name (w, h, c, all_chans[0], pm, v));
  };
  for (int th : { 16, 32 })
    for (int plain : { 0, 1 }) {
      set_rows (saved, cip::SatAlgorithm::tiled, th, plain);
      for (int w : { 1, 3, 4, 5, 127, 128, 129, 256, 300, 641 })
        for (int h : { 1, th - 1, th, th + 1, 2 * th + 3, 5 * th }) {
          if ((sm && w * h > 40000) || (plain && ((w != 5 && w != 129 &&
                          w != 641) || (h != th + 1 && h != 5 * th))))
            continue;
          for (const Variant &v : vs) {
            one (w, h, Content::random, PitchMode::aligned256, v);
            if (plain)
              continue;
            one (w, h, Content::random, PitchMode::odd, v);
            if (!sm || w == 129)
              one (w, h, Content::all255, PitchMode::aligned256, v);
          }
        }
      if (!sm && !plain) {
        one (1920, 1080, Content::natural, PitchMode::aligned256, vs[0]);
        one (1000, 999, Content::random, PitchMode::tight, vs[1]);
        if (th == 16)
          one (200, 4200, Content::random, PitchMode::aligned256, vs[0]);
      }
    }
  /* 16-row tiles up to 8192 columns run grouped (two launches: groups of
   * 16 tile rows, 256 image rows): heights around one, two and several
   * groups, 32 and 33 tile columns (a tile of 4353 columns' last tile
   * column gathers the row sums and totals of columns 32 on in a second
   * round), the widest plane it serves (64 tile columns), one tile column
   * more (three launches), then the same requests through three launches */
  for (int ug : { 0, 1 }) {
    set_rows (saved, cip::SatAlgorithm::tiled, 16, 0, ug);
    for (int w : { 129, 3841, 4096, 4097, 4353, 8192, 8193 }) {
      const cip::detail::SatConfig cfg = cip::detail::sat_config (w, 300,
          cip::SatType::u32, false, cip::SatAlgorithm::tiled);
      if (cfg.grouped != (ug == 0 && w <= 8192)) {
        fprintf (stderr, "FAIL tiled %d columns: grouped %d\n", w,
            (int) cfg.grouped);
        failures++;
      }
      /* 1300 rows: 82 tile rows, 6 groups (the output's second batch);
       * 368: 23 tile rows, a last group of 7 whose block takes two tile
       * columns (paired: two scans of 8 warps) */
      for (int h : { 255, 256, 257, 368, 513, 1300 }) {
        const bool wide_small = (w == 4097 || w == 4353 || w == 8192) &&
            h == 257;
        if ((sm && !wide_small && (w * h > 600000 || (w > 200 && h == 1300)))
            || (ug && h != 257 && h != 1300))
          continue;
        one (w, h, Content::random, PitchMode::aligned256, vs[0]);
        if (wide_small || !sm) {
          one (w, h, Content::all255, PitchMode::aligned256, vs[1]);
          one (w, h, Content::random, PitchMode::odd, vs[1]);
        }
      }
    }
    /* u64 corners past 2^32 through the groups (all 255: 4096 x 4352 sums
     * to 4.5e9); UHD: 255 first-pass blocks, paired and capped at two an
     * SM on a GPU of 128 to 254 SMs (tiled_first_pass_smem); 8K, grouped
     * (60 tile columns, 17 groups; 4200 rows: 263 tile rows, the last
     * group of 7 paired) */
    if (!sm && !ug) {
      one (4096, 4352, Content::all255, PitchMode::aligned256, vs[1]);
      one (8192, 4352, Content::all255, PitchMode::aligned256, vs[1]);
      one (7680, 4320, Content::natural, PitchMode::aligned256, vs[0]);
      one (7680, 4320, Content::all255, PitchMode::odd, vs[0]);
      one (7680, 4320, Content::random, PitchMode::aligned256, vs[1]);
      one (7680, 4200, Content::natural, PitchMode::aligned256, vs[0]);
      one (3840, 2160, Content::natural, PitchMode::aligned256, vs[0]);
      one (3840, 2160, Content::all255, PitchMode::odd, vs[0]);
    }
  }
  /* the input's L2 policy forced off (evict_normal loads) and on (the
   * first pass evict_last, the output pass evict_first), grouped, in three
   * launches and with 32-row tiles; by default (sm_80 on) planes up to 3/2
   * of the device's L2 run with it on */
  struct Shape { int th, ug; };
  for (int l2 : { 1, 2 })
    for (const Shape &sh : { Shape { 16, 0 }, Shape { 16, 1 }, Shape { 32, 0 } }) {
      set_rows (saved, cip::SatAlgorithm::tiled, sh.th, 0, sh.ug, l2);
      for (int w : { 5, 641 })
        for (const Variant &v : vs) {
          one (w, 33, Content::random, PitchMode::aligned256, v);
          one (w, 33, Content::random, PitchMode::odd, v);
        }
      one (3840, sm ? 40 : 300, Content::natural, PitchMode::aligned256, vs[0]);
    }
  /* steps 2 and 4, every channel of two interleaved (NV12's U and V; V
   * starts one byte into the plane) or of packed 4-byte pixels (RGBA):
   * rows read as aligned groups of 4 samples (pitch a multiple of 4 * step;
   * the last row's last group of every channel but the last byte by byte)
   * or byte by byte (pitch step * w + 13), grouped and in three launches,
   * both tile heights, the L2 policy on and off */
  struct StepCase { int th, ug, l2; };
  for (int step : { 2, 4 })
    for (const StepCase &c : { StepCase { 16, 0, 0 }, StepCase { 16, 1, 2 },
            StepCase { 32, 0, 1 }, StepCase { 32, 0, 2 } }) {
      set_rows (saved, cip::SatAlgorithm::tiled, c.th, 0, c.ug, c.l2);
      for (int w : { 1, 3, 5, 129, 641, 644, 1920 })
        for (int h : { 1, c.th + 1, 2 * c.th, 257 }) {
          if ((sm && w * h > 40000) || (w == 1920 && h != 257))
            continue;
          for (int pad : { 0, 13, 8 })
            for (int ch = 0; ch < step; ch++)
              for (const Variant &v : vs) {
                if (pad == 8 && (v.type != cip::SatType::u32 || w > 644))
                  continue;
                const size_t g = 4 * (size_t) step;
                const size_t padb = pad == 8 ? (g - (step * w) % g) % g + g :
                    (size_t) pad;
                const Content cn = ch % 2 ? Content::natural : Content::random;
                const HostImage img = make_image (w, h, cn, 29 + salt++, step,
                    padb);
                const std::string what = "gpu tiled pitch " +
                    std::to_string (img.pitch) + " " + case_name (w, h, cn,
                        Chan { step, ch }, PitchMode::aligned256, v);
                check (img, ch, v, what);
                /* a buffer ending at the channel's last sample: its last
                 * group would read the next channels' bytes (memcheck) */
                if (pad == 8 && ch < step - 1 && w % 4 == 0)
                  check (img, ch, v, what + " tight", true);
              }
        }
    }
  cip::detail::sat_set_tuning (saved);
  if (!sm)
    for (const Variant &v : vs)
      one (16384, 4096, Content::all255, PitchMode::aligned256, v);
  fail_unless (failures == 0, "%d failing tiled GPU cases", failures);
}
GST_END_TEST;

/* One image and its reference, and device buffers for calls on it. */
struct RepeatCase {
  HostImage img;
  RefResult want;
  DevBuf src, sum;
  HostTable got;
  RepeatCase (int w, int h, const Variant & v) : img (make_image (w, h,
          Content::random, 77)), want (w, h, v, dst_pitch (w, 4,
          PitchMode::aligned256), 0), src (img.bytes.size ()),
      sum (want.sum.bytes.size ()), got (w, h, 4, want.sum.pitch)
  {
    fail_unless (run_ref (img.view (), v, want) == cip::Status::ok);
    src.upload (img.bytes);
  }
  /* One call on `ws`; FALSE (after a message) when the table differs. */
  bool run (void *ws, size_t ws_bytes, cudaStream_t st, int i)
  {
    CUDA_OK (cudaMemsetAsync (sum.p, i & 1 ? 0x5A : 0xA5, sum.n, st));
    cip::ImageView dv = img.view ();
    dv.data = src.p;
    cip::SatDest d;
    d.sum = sum.p;
    d.sum_pitch = want.sum.pitch;
    fail_unless (cip::integral (dv, cip::SatType::u32, d, ws, ws_bytes, st,
            cip::SatAlgorithm::single_pass) == cip::Status::ok);
    CUDA_OK (cudaMemcpyAsync (got.bytes.data (), sum.p, sum.n,
            cudaMemcpyDeviceToHost, st));
    CUDA_OK (cudaStreamSynchronize (st));
    /* the padding is poisoned differently each run: compare the rows */
    const size_t row = ((size_t) img.width + 1) * 4;
    for (int y = 0; y <= img.height; y++)
      if (memcmp (got.bytes.data () + (size_t) y * got.pitch,
              want.sum.bytes.data () + (size_t) y * want.sum.pitch, row)) {
        fprintf (stderr, "FAIL run %d: %dx%d row %d differs\n", i, img.width,
            img.height, y);
        return false;
      }
    return true;
  }
};

/* PDL between calls (kernels/detail/launch.cuh): each call's first kernel
 * may be scheduled before the kernel ahead of it ends and must wait for it
 * before it touches memory. Ahead of call A a kernel that lets the next be
 * scheduled at once writes A's input late (testutil::late_copy: random
 * bytes there until then); call B follows A with no sync, on another input
 * and table, through the same workspace (whose tables A's output pass still
 * reads). Both tables must be the reference's. tiled grouped (two
 * launches), in three launches and with 32-row tiles, and automatic. */
GST_START_TEST (test_gpu_late_input)
{
  const bool sm = cip_test_small ();
  const cip::detail::SatTuning saved = cip::detail::sat_get_tuning ();
  ensure_workspace ();
  const Variant v = { cip::SatType::u32, false };
  const size_t es = 4;
  struct Shape { int th, ug; };
  struct Size2 { int w, h; };
  int failures = 0, salt = 0;
  cudaStream_t st = g_ws.stream;
  for (const Size2 &sz : { Size2 { 641, 37 }, Size2 { 3840, 2160 },
          Size2 { 7680, 4320 } }) {
    if (sm && sz.w > 641)
      continue;
    HostImage a = make_image (sz.w, sz.h, Content::natural, 31 + salt);
    HostImage b = make_image (sz.w, sz.h, Content::random, 32 + salt);
    HostImage junk = make_image (sz.w, sz.h, Content::random, 33 + salt);
    salt += 3;
    RefResult wa (sz.w, sz.h, v, dst_pitch (sz.w, es, PitchMode::aligned256), 8);
    RefResult wb (sz.w, sz.h, v, dst_pitch (sz.w, es, PitchMode::aligned256), 8);
    fail_unless (run_ref (a.view (), v, wa) == cip::Status::ok);
    fail_unless (run_ref (b.view (), v, wb) == cip::Status::ok);
    DevBuf src_a (a.bytes.size ()), stage (a.bytes.size ()),
        src_b (b.bytes.size ());
    DevBuf sum_a (wa.sum.bytes.size ()), sum_b (wb.sum.bytes.size ());
    stage.upload (a.bytes);
    src_b.upload (b.bytes);
    /* tiled grouped, in three launches, with 32-row tiles; automatic with
     * the late writer and with a writer that does not wait (0 µs) */
    const Shape shapes[] = { {16, 0}, {16, 1}, {32, 0}, {0, 0}, {0, 0} };
    for (int k = 0; k < 5; k++) {
      const Shape sh = shapes[k];
      const cip::SatAlgorithm algo = k < 3 ? cip::SatAlgorithm::tiled :
          cip::SatAlgorithm::automatic;
      if (k < 3)
        set_rows (saved, cip::SatAlgorithm::tiled, sh.th, 0, sh.ug);
      else
        cip::detail::sat_set_tuning (saved);
      const int us = k == 4 ? 0 : 40;
      src_a.upload (junk.bytes);
      CUDA_OK (cudaMemsetAsync (sum_a.p, 0xAB, sum_a.n, st));
      CUDA_OK (cudaMemsetAsync (sum_b.p, 0xAB, sum_b.n, st));
      CUDA_OK (cudaStreamSynchronize (st));
      CUDA_OK (testutil::late_copy (src_a.p, stage.p, a.bytes.size (), us, st));
      cip::ImageView va = a.view (), vb = b.view ();
      va.data = src_a.p;
      vb.data = src_b.p;
      cip::SatDest da, db;
      da.sum = sum_a.p;
      da.sum_pitch = wa.sum.pitch;
      db.sum = sum_b.p;
      db.sum_pitch = wb.sum.pitch;
      const cip::Status s1 = cip::integral (va, v.type, da, g_ws.ptr,
          g_ws.bytes, st, algo);
      const cip::Status s2 = cip::integral (vb, v.type, db, g_ws.ptr,
          g_ws.bytes, st, algo);
      CUDA_OK (cudaStreamSynchronize (st));
      char what[128];
      snprintf (what, sizeof (what), "gpu late input %dx%d %s%s%s, %d us",
          sz.w, sz.h, cip::sat_algorithm_name (algo), sh.th == 32 ?
          " 32-row tiles" : "", sh.ug ? " three launches" : "", us);
      if (s1 != cip::Status::ok || s2 != cip::Status::ok) {
        fprintf (stderr, "FAIL %s: %s / %s\n", what, cip::status_string (s1),
            cip::status_string (s2));
        failures++;
        continue;
      }
      HostTable ga (sz.w, sz.h, es, wa.sum.pitch), gb (sz.w, sz.h, es,
          wb.sum.pitch);
      ga.bytes = sum_a.download ();
      gb.bytes = sum_b.download ();
      if (!same_table (ga, wa.sum, std::string (what) + " (A, written late)"))
        failures++;
      if (!same_table (gb, wb.sum, std::string (what) + " (B, right after)"))
        failures++;
    }
  }
  cip::detail::sat_set_tuning (saved);
  fail_unless (failures == 0, "%d failing late-input cases", failures);
}
GST_END_TEST;

/* The device attributes the library caches per device (tiled's first pass
 * asks for some on every call) answer as the runtime does, the first time
 * and from the cache. */
GST_START_TEST (test_gpu_device_attributes)
{
  const char *bad = testutil::device_attributes_mismatch ();
  fail_unless (bad == nullptr, "device attribute %s differs from the runtime's",
      bad ? bad : "");
}
GST_END_TEST;

/* The soft-synchronized single-pass kernel (strips claimed by ticket, look-
 * back over flags) 10,000 times on one workspace: the same table every time
 * (no race between strips, ticket and flags reset by the last block).
 * CIP_TEST_SMALL: 20 runs of a small frame. */
GST_START_TEST (test_gpu_repeatable)
{
  ensure_workspace ();
  const bool sm = cip_test_small ();
  const int runs = sm ? 20 : 10000;
  const Variant v = { cip::SatType::u32, false };
  RepeatCase c (sm ? 300 : 1920, sm ? 200 : 1080, v);
  for (int i = 0; i < runs; i++)
    if (!c.run (g_ws.ptr, g_ws.bytes, g_ws.stream, i))
      fail ("run %d of %d differs from the reference", i, runs);
}
GST_END_TEST;

/* Far more strips than blocks can be resident at once (4-row strips: a
 * block per strip, claimed in order through the ticket): every block
 * waits only on strips claimed before it, so the launch terminates, with
 * the reference's table, again and again. */
GST_START_TEST (test_gpu_many_strips)
{
  const bool sm = cip_test_small ();
  const cip::detail::SatTuning saved = cip::detail::sat_get_tuning ();
  cip::detail::SatTuning t = saved;
  t.th_single = 4;
  cip::detail::sat_set_tuning (t);
  const int w = sm ? 256 : 2048, h = sm ? 512 : 16384;
  const Variant v = { cip::SatType::u32, false };
  const cip::detail::SatConfig cfg = cip::detail::sat_config (w, h, v.type, v.sq,
      cip::SatAlgorithm::single_pass);
  g_print ("many strips: %dx%d in %d strips of %d rows\n", w, h, cfg.strips,
      cfg.th);
  fail_unless (cfg.th == 4, "tuning not applied (%d rows per strip)", cfg.th);
  const size_t bytes = cip::integral_workspace_bytes (w, h, v.type, v.sq);
  DevBuf ws (bytes);
  cudaStream_t st = nullptr;
  CUDA_OK (cudaStreamCreateWithFlags (&st, cudaStreamNonBlocking));
  fail_unless (cip::integral_workspace_init (ws.p, bytes, st) ==
      cip::Status::ok);
  RepeatCase c (w, h, v);
  bool ok = true;
  for (int i = 0; ok && i < (sm ? 3 : 50); i++)
    ok = c.run (ws.p, bytes, st, i);
  cip::detail::sat_set_tuning (saved);
  cudaStreamDestroy (st);
  fail_unless (ok, "a many-strips run differs from the reference");
}
GST_END_TEST;

#endif  /* HAVE_CUDA */

Suite *
integral_suite ()
{
  Suite *s = suite_create ("integral");
  TCase *cpu = tcase_create ("cpu");
  tcase_set_timeout (cpu, 600);
  tcase_add_test (cpu, test_ref_matches_naive);
  tcase_add_test (cpu, test_ref_matches_naive_1080p);
  tcase_add_test (cpu, test_ref_u32_wraps);
  tcase_add_test (cpu, test_ref_invalid_arguments);
  tcase_add_test (cpu, test_ref_16bit);
  tcase_add_test (cpu, test_resolve);
  suite_add_tcase (s, cpu);

  TCase *gpu = tcase_create ("gpu");
  tcase_set_timeout (gpu, 600);
#ifdef HAVE_CUDA
  tcase_add_test (gpu, test_gpu_invalid_arguments);
  tcase_add_test (gpu, test_gpu_edge_sizes);
  tcase_add_test (gpu, test_gpu_shapes);
  tcase_add_test (gpu, test_gpu_1080p);
  tcase_add_test (gpu, test_gpu_large);
  tcase_add_test (gpu, test_gpu_fresh_workspace_and_wrap);
  tcase_add_test (gpu, test_gpu_workspace_reuse_burst);
  tcase_add_test (gpu, test_gpu_16bit);
  tcase_add_test (gpu, test_gpu_16bit_shapes);
  tcase_add_test (gpu, test_gpu_16bit_strips);
  tcase_add_test (gpu, test_gpu_tiled);
  tcase_add_test (gpu, test_gpu_late_input);
  tcase_add_test (gpu, test_gpu_repeatable);
  tcase_add_test (gpu, test_gpu_many_strips);
  tcase_add_test (gpu, test_gpu_device_attributes);
#endif
  cip_check_add_gpu_tcase (s, gpu, cip::gpu_available ());
  return s;
}

}  // namespace

int
main (int argc, char **argv)
{
  return cip_check_run (integral_suite, argc, argv);
}
