// bench/noise: prints, one per line, the noise offsets (whole ns) LogGOPSim draws for
// RANKS ranks from a trace whose last detour starts at PERIOD ns when time(0) is SEED:
// a Mersenne Twister seeded with the time, one draw for the co-scheduled offset, then
// one per rank (used unless co-scheduled), each u/max(u) scaled by the period and
// truncated.  Usage: loggopsim_offsets SEED RANKS PERIOD [cosched]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s SEED RANKS PERIOD [cosched]\n", argv[0]);
    return 2;
  }
  std::mt19937 mt(std::strtoul(argv[1], nullptr, 10));
  long ranks = std::strtol(argv[2], nullptr, 10);
  double period = (double)std::strtoull(argv[3], nullptr, 10);
  bool cosched = argc > 4;
  double shared = ((double)mt() / mt.max()) * period;
  for (long r = 0; r < ranks; r++) {
    double off = cosched ? shared : ((double)mt() / mt.max()) * period;
    std::printf("%llu\n", (unsigned long long)(uint64_t)off);
  }
  return 0;
}
