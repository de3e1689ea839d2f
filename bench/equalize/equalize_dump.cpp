/* Writes the CPU reference's global and CLAHE equalization of a binary PGM
 * (P5, 8-bit) as PGMs, for bench/equalize/compare_opencv.py.
 * Usage: equalize_dump IN.pgm GLOBAL.pgm CLAHE.pgm [CLIP TILES_X TILES_Y] */
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cip/equalize.h"

static bool
read_pgm (const char *path, std::vector<uint8_t> &px, int *w, int *h)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return false;
  int maxv = 0;
  char magic[3] = { 0 };
  bool ok = fscanf (f, "%2s %d %d %d", magic, w, h, &maxv) == 4 && magic[0] == 'P' &&
      magic[1] == '5' && maxv == 255 && fgetc (f) != EOF;
  if (ok) {
    px.resize ((size_t) *w * *h);
    ok = fread (px.data (), 1, px.size (), f) == px.size ();
  }
  fclose (f);
  return ok;
}

static bool
write_pgm (const char *path, const std::vector<uint8_t> &px, int w, int h)
{
  FILE *f = fopen (path, "wb");
  if (!f)
    return false;
  fprintf (f, "P5\n%d %d\n255\n", w, h);
  bool ok = fwrite (px.data (), 1, px.size (), f) == px.size ();
  return fclose (f) == 0 && ok;
}

int
main (int argc, char **argv)
{
  if (argc != 4 && argc != 7) {
    fprintf (stderr, "usage: %s IN.pgm GLOBAL.pgm CLAHE.pgm [CLIP TILES_X TILES_Y]\n", argv[0]);
    return 2;
  }
  std::vector<uint8_t> src, dst;
  int w = 0, h = 0;
  if (!read_pgm (argv[1], src, &w, &h)) {
    fprintf (stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  dst.resize (src.size ());
  cip::EqFrame f { src.data (), (size_t) w, dst.data (), (size_t) w, w, h };
  cip::EqConfig g;
  if (cip::ref::equalize (f, g, nullptr, nullptr) != cip::Status::ok ||
      !write_pgm (argv[2], dst, w, h))
    return 1;
  cip::EqConfig c;
  c.mode = cip::EqMode::clahe;
  if (argc == 7) {
    c.clip_limit = atof (argv[4]);
    c.tiles_x = atoi (argv[5]);
    c.tiles_y = atoi (argv[6]);
  }
  cip::Status st = cip::ref::equalize (f, c, nullptr, nullptr);
  if (st != cip::Status::ok) {
    fprintf (stderr, "clahe: %s\n", cip::status_string (st));
    return 1;
  }
  return write_pgm (argv[3], dst, w, h) ? 0 : 1;
}
