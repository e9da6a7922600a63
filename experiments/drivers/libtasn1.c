/* libtasn1 driver: exercises the DER decoder on symbolic input.
 * The PKIX1 definitions (tests/pkix.asn, compiled by asn1Parser into the static table
 * pkix_asn1_tab at build time, so KLEE needs no file) are parsed into a tree with
 * asn1_array2tree; then an N-byte symbolic buffer is decoded into a PKIX1.Certificate with
 * asn1_der_decoding: the tag/length parsing and the tree walk (_asn1_set_value,
 * _asn1_set_right, ...) run on symbolic bytes. */
#include <libtasn1.h>
#include <stddef.h>
#include "pkix_asn1_tab.c"

#ifndef N
#define N 16
#endif
void klee_make_symbolic(void *addr, size_t size, const char *name);

int main(void) {
  asn1_node definitions = NULL, cert = NULL;
  char err[ASN1_MAX_ERROR_DESCRIPTION_SIZE];
  unsigned char der[N];
  if (asn1_array2tree(pkix_asn1_tab, &definitions, err) != ASN1_SUCCESS)
    return 1;
  if (asn1_create_element(definitions, "PKIX1.Certificate", &cert) != ASN1_SUCCESS)
    return 1;
  klee_make_symbolic(der, sizeof der, "der");
  /* the exit code is the decoder's result (ASN1_SUCCESS = 0, else its error code): what
   * a test replayed on the native program shows (table5) */
  int rc = asn1_der_decoding(&cert, der, sizeof der, err);
  asn1_delete_structure(&cert);
  asn1_delete_structure(&definitions);
  return rc;
}
