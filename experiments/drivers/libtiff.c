/* libtiff driver: exercises the header and directory readers on a symbolic file.
 * TIFFClientOpen reads an N-byte symbolic in-memory file through the client procedures
 * below: the header, then the first directory (TIFFReadDirectory: tag entries, field
 * info, strip setup); then the image size is asked for and the file closed. libtiff's
 * warning and error handlers are silenced: formatting messages about symbolic fields
 * through stdio would otherwise be most of the run. With -DLOG they are kept (libtiff's
 * defaults print to stderr): the setup of the paper's Table 5, whose chopped runs skip
 * the logging functions.
 *
 * With -DSYM=K (table5's small inputs, which KLEE explores completely) the file is instead
 * a concrete little-endian TIFF with one directory (ImageWidth, ImageLength, BitsPerSample,
 * StripOffsets, StripByteCounts: 1x1, 8 bits), and only K bytes from offset SYM_AT (default:
 * the first entry's type and count) are symbolic. */
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

#ifdef SYM
#ifndef SYM_AT
#define SYM_AT 12
#endif
static unsigned char sym[SYM];
/* The concrete file: header (II, 42, directory at 8), 5 entries of 12 bytes (tag, type
 * SHORT=3 or LONG=4, count 1, value), next directory 0; the pixel at offset 8+2+60+4. */
static const unsigned char base[] = {
    'I', 'I', 42, 0, 8, 0, 0, 0,
    5, 0,
    0x00, 0x01, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0,  /* ImageWidth = 1 */
    0x01, 0x01, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0,  /* ImageLength = 1 */
    0x02, 0x01, 3, 0, 1, 0, 0, 0, 8, 0, 0, 0,  /* BitsPerSample = 8 */
    0x11, 0x01, 4, 0, 1, 0, 0, 0, 74, 0, 0, 0, /* StripOffsets = 74 */
    0x17, 0x01, 4, 0, 1, 0, 0, 0, 1, 0, 0, 0,  /* StripByteCounts = 1 */
    0, 0, 0, 0,
    0x7f,
};
_Static_assert(sizeof base <= N, "N must hold the concrete file");
_Static_assert(SYM_AT + SYM <= N, "the symbolic window must lie in the file");
#endif

int main(void) {
  uint32_t width = 0;
#ifdef SYM
  memcpy(file, base, sizeof base);
  klee_make_symbolic(sym, sizeof sym, "file");
  memcpy(file + SYM_AT, sym, sizeof sym);
#else
  klee_make_symbolic(file, sizeof file, "file");
#endif
#ifndef LOG
  TIFFSetWarningHandler(0);
  TIFFSetErrorHandler(0);
#endif
  TIFF *tif = TIFFClientOpen("sym.tif", "r", (thandle_t)file, readproc, writeproc, seekproc,
                             closeproc, sizeproc, mapproc, unmapproc);
  if (!tif)
    return 1;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
  TIFFClose(tif);
  return width == 0;
}
