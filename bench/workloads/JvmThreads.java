/* A JVM program with several threads: 4 worker threads each fill their own
 * long[] with splitmix64 values, sort it with Arrays.sort and fold the sorted
 * array into a hash, ROUNDS times, then main joins them and prints one line
 * with a checksum. The result depends only on ROUNDS (no shared state, no
 * time, no identity hashes), so stdout is the same natively, recorded and
 * replayed, whatever the interleaving, the JIT or the garbage collector do.
 * Usage: java -cp DIR JvmThreads [ROUNDS]   (default 40; 2^16 longs a round) */
public final class JvmThreads {
  static final int THREADS = 4;
  static final int SIZE = 1 << 16;

  static long mix64(long x) {
    x ^= x >>> 30;
    x *= 0xbf58476d1ce4e5b9L;
    x ^= x >>> 27;
    x *= 0x94d049bb133111ebL;
    x ^= x >>> 31;
    return x;
  }

  static long work(int id, int rounds) {
    long[] a = new long[SIZE];
    long state = 0x9e3779b97f4a7c15L * (id + 1);
    long h = id;
    for (int r = 0; r < rounds; ++r) {
      for (int i = 0; i < SIZE; ++i) {
        state += 0x9e3779b97f4a7c15L;
        a[i] = mix64(state);
      }
      java.util.Arrays.sort(a);
      for (int i = 0; i < SIZE; i += 7) h = mix64(h ^ a[i]);
    }
    return h;
  }

  public static void main(String[] args) throws InterruptedException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
    long[] result = new long[THREADS];
    Thread[] t = new Thread[THREADS];
    for (int i = 0; i < THREADS; ++i) {
      final int id = i;
      t[i] = new Thread(() -> result[id] = work(id, rounds), "worker-" + i);
      t[i].start();
    }
    long sum = 0;
    for (int i = 0; i < THREADS; ++i) {
      t[i].join();
      sum = mix64(sum ^ result[i]);
    }
    System.out.printf("jvm_threads threads=%d rounds=%d sum=%016x%n", THREADS, rounds, sum);
  }
}
