import koffi from 'koffi';

/** Linux's clock of the calling thread's CPU time (<time.h>). */
const CLOCK_THREAD_CPUTIME_ID = 3;

const libc = koffi.load('libc.so.6');
const timespec = koffi.struct('timespec', { tv_sec: 'int64', tv_nsec: 'long' });
const clockGettime = libc.func('clock_gettime', 'int', ['int', koffi.out(koffi.pointer(timespec))]);

/**
 * CPU time the calling thread has run, in milliseconds, to the microsecond. On the main thread it is
 * the event loop's own work: time other processes had the cores is not in it, however loaded the
 * machine. Node 20 has no `process.threadCpuUsage`, and /proc/thread-self/schedstat advances only
 * at the scheduler's tick (4 ms here), so libc's clock_gettime is called through koffi.
 */
export function threadCpuMs(): number {
  const time = { tv_sec: 0, tv_nsec: 0 };
  if (clockGettime(CLOCK_THREAD_CPUTIME_ID, time) !== 0) throw new Error('clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed');
  return time.tv_sec * 1e3 + time.tv_nsec / 1e6;
}
