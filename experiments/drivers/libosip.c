/* libosip driver: exercises the SIP message parser on symbolic input.
 * osip_message_parse reads an N-byte symbolic buffer: the start line, then header after
 * header through the header parsers (osip_from_parse, osip_via_parse, ...), which allocate
 * and link the message's lists.
 *
 * -DURI=K (Table 5, the paper's libosip setup: "functions that process the parts of the
 * URI component"): a concrete INVITE whose request URI ends in K symbolic bytes after a
 * ';'. The start line's parser forks on where the URI ends (a space among the K bytes),
 * the URI's parser on headers ('?'), and osip_uri_parse_params on how the K bytes split
 * into parameters (';', '=') and on escapes ('%'); the headers after the start line are
 * concrete, so every path then parses the same headers. */
#include <osipparser2/osip_parser.h>
#include <stddef.h>
#include <string.h>

#ifndef N
#define N 32
#endif
void klee_make_symbolic(void *addr, size_t size, const char *name);

#ifdef URI
static const char head[] = "INVITE sip:bob@example.org;";
static const char tail[] =
    " SIP/2.0\r\n"
    "Via: SIP/2.0/UDP host.example.org:5060;branch=z9hG4bK776asdhds\r\n"
    "To: Bob <sip:bob@example.org>\r\n"
    "From: Alice <sip:alice@example.org>;tag=1928301774\r\n"
    "Call-ID: a84b4c76e66710\r\n"
    "CSeq: 314159 INVITE\r\n"
    "Contact: <sip:alice@client.example.org>\r\n"
    "Content-Length: 0\r\n"
    "\r\n";
#endif

int main(void) {
#ifdef URI
  char buf[sizeof head - 1 + URI + sizeof tail];
  char params[URI];
  klee_make_symbolic(params, sizeof params, "params");
  memcpy(buf, head, sizeof head - 1);
  memcpy(buf + sizeof head - 1, params, URI);
  memcpy(buf + sizeof head - 1 + URI, tail, sizeof tail);
  size_t len = sizeof buf - 1;
#else
  char buf[N];
  klee_make_symbolic(buf, sizeof buf, "msg");
  size_t len = sizeof buf;
#endif
  osip_message_t *sip;
  parser_init();
  if (osip_message_init(&sip) != 0)
    return 1;
  /* the exit code is the parser's result (0, or 255 for -1...): what a test replayed on
   * the native program shows (table5) */
  int rc = osip_message_parse(sip, buf, len);
  osip_message_free(sip);
  return rc;
}
