/* LD_PRELOAD shim for bench/noise: time() returns $SIMPI_FAKE_TIME, so that LogGOPSim,
 * which seeds its noise offsets with time(0), draws the offsets of a chosen seed. */
#include <stdlib.h>
#include <time.h>

time_t time(time_t *t) {
  const char *s = getenv("SIMPI_FAKE_TIME");
  time_t v = s ? (time_t)strtoll(s, NULL, 10) : 0;
  if (t) *t = v;
  return v;
}
