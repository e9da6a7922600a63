/* libtiff driver: exercises the header and directory readers on a symbolic file.
 * TIFFClientOpen reads an N-byte symbolic in-memory file through the client procedures
 * below: the header, then the first directory (TIFFReadDirectory: tag entries, field
 * info, strip setup); then the image size is asked for and the file closed. libtiff's
 * warning and error handlers are silenced: formatting messages about symbolic fields
 * through stdio would otherwise be most of the run. */
#include <tiffio.h>
#include <stddef.h>
#include <string.h>

#ifndef N
#define N 64
#endif
void klee_make_symbolic(void *addr, size_t size, const char *name);

static unsigned char file[N];
static toff_t pos;

static tmsize_t readproc(thandle_t h, void *buf, tmsize_t size) {
  (void)h;
  if (pos >= N)
    return 0;
  tmsize_t n = (tmsize_t)(N - pos) < size ? (tmsize_t)(N - pos) : size;
  memcpy(buf, file + pos, n);
  pos += n;
  return n;
}
static tmsize_t writeproc(thandle_t h, void *buf, tmsize_t size) { (void)h; (void)buf; (void)size; return 0; }
static toff_t seekproc(thandle_t h, toff_t off, int whence) {
  (void)h;
  if (whence == SEEK_SET) pos = off;
  else if (whence == SEEK_CUR) pos += off;
  else pos = N + off;
  return pos;
}
static int closeproc(thandle_t h) { (void)h; return 0; }
static toff_t sizeproc(thandle_t h) { (void)h; return N; }
static int mapproc(thandle_t h, void **base, toff_t *size) { (void)h; (void)base; (void)size; return 0; }
static void unmapproc(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

int main(void) {
  uint32_t width = 0;
  klee_make_symbolic(file, sizeof file, "file");
  TIFFSetWarningHandler(0);
  TIFFSetErrorHandler(0);
  TIFF *tif = TIFFClientOpen("sym.tif", "r", (thandle_t)file, readproc, writeproc, seekproc,
                             closeproc, sizeproc, mapproc, unmapproc);
  if (!tif)
    return 1;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
  TIFFClose(tif);
  return width == 0;
}
