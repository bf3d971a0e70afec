// The memory of the browsers a bench launched: the sum of the resident memory (VmRSS in /proc) of every process
// descending from the bench's own (the browser, its tabs, workers and GPU processes).
import { readdirSync, readFileSync } from 'node:fs';

/** The pids descending from this process (the browsers it launched and all their children). */
function descendants() {
  const parent = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  const mine = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent)
      if (!mine.has(pid) && mine.has(ppid)) {
        mine.add(pid);
        grew = true;
      }
  }
  mine.delete(process.pid);
  return [...mine];
}

/** The summed resident memory of the browser's processes, in MB. */
export function browserRss() {
  let kib = 0;
  for (const pid of descendants()) {
    try {
      kib += Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m)?.[1] ?? 0);
    } catch {
      // ended meanwhile
    }
  }
  return kib / 1024;
}
