/* libosip driver: exercises the SIP message parser on symbolic input.
 * osip_message_parse reads an N-byte symbolic buffer: the start line, then header after
 * header through the header parsers (osip_from_parse, osip_via_parse, ...), which allocate
 * and link the message's lists. */
#include <osipparser2/osip_parser.h>
#include <stddef.h>

#ifndef N
#define N 32
#endif
void klee_make_symbolic(void *addr, size_t size, const char *name);

int main(void) {
  char buf[N];
  osip_message_t *sip;
  klee_make_symbolic(buf, sizeof buf, "msg");
  parser_init();
  if (osip_message_init(&sip) != 0)
    return 1;
  /* the exit code is the parser's result (0, or 255 for -1...): what a test replayed on
   * the native program shows (table5) */
  int rc = osip_message_parse(sip, buf, sizeof buf);
  osip_message_free(sip);
  return rc;
}
