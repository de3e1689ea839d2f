/* Writes the CPU reference's halftone of a binary PGM (P5, 8-bit) as a PGM,
 * for bench/halftone/compare_pillow.py (the GPU output equals the reference
 * bit for bit, tests/kernels/test_halftone.cpp).
 * Usage: halftone_dump IN.pgm OUT.pgm [KERNEL LEVELS]   (KERNEL: a nick,
 * e.g. floyd-steinberg; LEVELS 2..256; defaults floyd-steinberg 2) */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cip/halftone.h"

static bool
read_pgm (const char *path, std::vector<uint8_t> &px, int *w, int *h)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return false;
  int maxv = 0;
  char magic[3] = { 0 };
  bool ok = fscanf (f, "%2s %d %d %d", magic, w, h, &maxv) == 4 &&
      magic[0] == 'P' && magic[1] == '5' && maxv == 255 && fgetc (f) != EOF;
  if (ok) {
    px.resize ((size_t) *w * *h);
    ok = fread (px.data (), 1, px.size (), f) == px.size ();
  }
  fclose (f);
  return ok;
}

int
main (int argc, char **argv)
{
  if (argc != 3 && argc != 5) {
    fprintf (stderr, "usage: %s IN.pgm OUT.pgm [KERNEL LEVELS]\n", argv[0]);
    return 2;
  }
  std::vector<uint8_t> src;
  int w = 0, h = 0;
  if (!read_pgm (argv[1], src, &w, &h)) {
    fprintf (stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  cip::HalftoneOptions o;
  if (argc == 5) {
    bool found = false;
    for (int k = 0; k <= (int) cip::HalftoneKernel::atkinson; k++)
      if (!strcmp (argv[3], cip::halftone_kernel_name ((cip::HalftoneKernel) k))) {
        o.kernel = (cip::HalftoneKernel) k;
        found = true;
      }
    o.levels = atoi (argv[4]);
    if (!found) {
      fprintf (stderr, "unknown kernel %s\n", argv[3]);
      return 2;
    }
  }
  std::vector<uint8_t> dst (src.size ());
  cip::HalftonePlane p;
  p.src.data = src.data ();
  p.src.pitch = (size_t) w;
  p.src.width = w;
  p.src.height = h;
  p.dst = dst.data ();
  p.dst_pitch = (size_t) w;
  if (cip::ref::halftone (&p, 1, o) != cip::Status::ok)
    return 1;
  FILE *f = fopen (argv[2], "wb");
  if (!f)
    return 1;
  fprintf (f, "P5\n%d %d\n255\n", w, h);
  bool ok = fwrite (dst.data (), 1, dst.size (), f) == dst.size ();
  return fclose (f) == 0 && ok ? 0 : 1;
}
